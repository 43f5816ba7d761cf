/**
 * The public observation layout of the GPUDrive late-fusion policy (spec gpudrive-policy.md §1–§4): what the
 * traffic engine writes and the network reads. One row of 2984 float32 per agent: the ego block, 63 partner
 * rows, 200 road rows; 91 discrete actions out.
 */
export const EGO_FEATURES = 6;
export const PARTNER_FEATURES = 6;
export const ROAD_FEATURES = 13;
export const PARTNER_ROWS = 63;
export const ROAD_ROWS = 200;
export const PARTNER_OFFSET = EGO_FEATURES; // 6
export const ROAD_OFFSET = EGO_FEATURES + PARTNER_ROWS * PARTNER_FEATURES; // 384
export const OBS_SIZE = ROAD_OFFSET + ROAD_ROWS * ROAD_FEATURES; // 2984
export const EMBED_DIM = 64;
export const HIDDEN_DIM = 128;
export const ACTION_COUNT = 91;
