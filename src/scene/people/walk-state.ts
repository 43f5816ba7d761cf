/**
 * What a crosswalk's pedestrian signal shows, as the people and the figures read it. The signal side (the map's
 * pedestrian heads bound to junction plans) answers through WalkStateSource; a crosswalk without a pedestrian head
 * is 'none' (unsignalised: people cross on gap acceptance, vehicles give way). Until a scene has a real source,
 * every crosswalk reads 'none'.
 */
export type WalkState = 'walk' | 'flashing' | 'dont_walk' | 'none';

export const WalkCode = { None: 0, Walk: 1, Flashing: 2, DontWalk: 3 } as const;
export type WalkCodeId = (typeof WalkCode)[keyof typeof WalkCode];

export const WALK_STATE_OF_CODE: readonly WalkState[] = ['none', 'walk', 'flashing', 'dont_walk'];

export function walkCode(s: WalkState): WalkCodeId {
  switch (s) {
    case 'walk': return WalkCode.Walk;
    case 'flashing': return WalkCode.Flashing;
    case 'dont_walk': return WalkCode.DontWalk;
    default: return WalkCode.None;
  }
}

/** The pedestrian signal of each crosswalk (index into the map's traffic_control.crosswalks) now. */
export interface WalkStateSource {
  walkState(crosswalk: number): WalkState;
}

/** Every crosswalk unsignalised. */
export const UNSIGNALISED: WalkStateSource = { walkState: () => 'none' };
