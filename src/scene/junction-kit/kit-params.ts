/**
 * The numbers both junction rooms read (the rule room's table, rules/rule-params.ts, re-exports them so that the
 * rules' tuning reads as one table).
 */

/** acceleration assumed for a vehicle moving off or speeding up to the limit (also the signals' clearance) [m/s²] */
export const GO_ACCEL = 1.5;
/** how far ahead along its lanes a vehicle is matched to movements [m] */
export const LOOKAHEAD_M = 150;
/** a vehicle inside a junction off its planned movements occupies those whose path passes this close [m] */
export const OCCUPY_M = 1.8;
/** a lane's speed limit where the map gives none: 50 km/h [m/s] */
export const DEFAULT_SPEED_LIMIT_MPS = 50 / 3.6;

// binding the map's heads, signs and stop lines to the junctions (layout.ts)
/** how far back along the lanes before a movement's entry a head or sign still belongs to it [m] */
export const BIND_BACK_M = 60;
/** a mapped stop line is used when it lies this far before the derived entry, or this far after it [m] */
export const STOP_LINE_BACK_M = 25;
export const STOP_LINE_AHEAD_M = 2.5;
/** two approaches whose headings differ by more than 135° face each other (opposite) */
export const OPPOSITE_COS = Math.cos((135 * Math.PI) / 180);
