/**
 * The 91 discrete actions (spec §6.3–6.4): index = accel_idx·13 + steer_idx.
 * Values are numpy round(linspace(...), 3) stored as float32, exactly as the training code has them,
 * including steering ±3.142 and ±1.571 rad (the classic model's tan δ is non-monotonic over them).
 */
import { ACTION_COUNT } from './checkpoint/late-fusion.js';

export { ACTION_COUNT };
export const ACCEL_VALUES = Float32Array.from([-4, -2.667, -1.333, 0, 1.333, 2.667, 4]);
export const STEER_VALUES = Float32Array.from([
  -3.142, -2.618, -2.094, -1.571, -1.047, -0.524, 0, 0.524, 1.047, 1.571, 2.094, 2.618, 3.142,
]);
if (ACCEL_VALUES.length * STEER_VALUES.length !== ACTION_COUNT) throw new Error('action table size mismatch');

/** accel (m/s²) of every action index, float32. */
export const ACTION_ACCEL = new Float32Array(ACTION_COUNT);
/** steering angle (rad) of every action index, float32. */
export const ACTION_STEER = new Float32Array(ACTION_COUNT);
for (let a = 0; a < ACCEL_VALUES.length; a++) {
  for (let s = 0; s < STEER_VALUES.length; s++) {
    ACTION_ACCEL[a * STEER_VALUES.length + s] = ACCEL_VALUES[a];
    ACTION_STEER[a * STEER_VALUES.length + s] = STEER_VALUES[s];
  }
}

export function actionIndex(accelIdx: number, steerIdx: number): number {
  return accelIdx * STEER_VALUES.length + steerIdx;
}

/** The "keep going" action: accel 0, steer 0 (index 45). */
export const NEUTRAL_ACTION = actionIndex(3, 6);
