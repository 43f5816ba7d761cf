/**
 * The safety shield's settings, apart from shield.ts so that its rollout (shield-rollout.ts) reads them without
 * importing the shield that uses it.
 */
export interface ShieldOptions {
  /** logit margin within which the steering closest to the policy's intent is preferred (0: no smoothing) */
  readonly smoothingMargin: number;
  /** weight of the newest step in the running mean of the policy's steering intent (0..1) */
  readonly intentGain: number;
  /** the smoothed choice turns the NPC by at most this much per 0.1 s step where it can [deg] */
  readonly maxTurnDeg: number;
  /** … and by no more than this lateral acceleration allows [m/s²] */
  readonly maxLateralAccel: number;
  /**
   * the curve governor holds NPCs slow enough to take the bends of their lane ahead at this lateral acceleration
   * [m/s²]; below maxLateralAccel, so that an NPC comes into a bend with steering to spare (at 4 m/s², FMTC's
   * right-angle corners at 4 m radius had NPCs brush the kerb: road edge 0.18–0.35 % of NPC-steps at 30 NPCs;
   * at 3.5 m/s² 0.09–0.15 %)
   */
  readonly curveLateralAccel: number;
  /** longest rollout [s] */
  readonly horizonS: number;
  /** road edges are checked this far into the rollout [s] */
  readonly edgeHorizonS: number;
  /** deceleration of the continuation [m/s²] */
  readonly brakeDecel: number;
  /** added to the NPC's half length / half width against vehicles [m] */
  readonly marginLon: number;
  readonly marginLat: number;
  /** scale on the NPC's box against road edges (1: full size; GPUDrive's off-road test uses 0.7) */
  readonly edgeBoxScale: number;
  /** how far the NPC's centre may stray from its lane's centre line within edgeHorizonS [m] */
  readonly laneCorridor: number;
  /** candidates tried in preference order before falling back to braking */
  readonly maxCandidates: number;
}
