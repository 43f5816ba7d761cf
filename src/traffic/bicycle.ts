/**
 * GPUDrive's "classic" kinematic bicycle step (spec §6.2, `forwardKinematics` in src/dynamics.hpp):
 * dt = 0.1 s, speed = ‖velocity‖ (never negative when read), no speed clamp. The velocity vector is
 * stored, so a negative new speed makes it point backwards and the next step reads its magnitude.
 */
import type { Pose } from '../vehicle/index.js';
export const STEP_DT = 0.1;

const TWO_PI = 2 * Math.PI;

/** Wraps an angle to [−π, π] (fmod-style, as the C++ code does). */
export function wrapAngle(a: number): number {
  // |a| < 2π: a % 2π is a itself (fmod is exact), without the library call
  let r = a > -TWO_PI && a < TWO_PI ? a : a % TWO_PI;
  if (r > Math.PI) r -= TWO_PI;
  else if (r < -Math.PI) r += TWO_PI;
  return r;
}

/** Mutable kinematic state of one agent: position (m), yaw (rad, CCW from +x), world velocity (m/s). */
export interface BicycleState extends Pose {
  vx: number;
  vy: number;
}

/**
 * Advances `s` in place by one classic step with acceleration `accel` (m/s²) and steering `steer` (rad),
 * for a vehicle of logged (unscaled) length `length` (m). Float32 inputs give float32-faithful results
 * once stored back into Float32Arrays.
 */
export function stepBicycle(s: BicycleState, accel: number, steer: number, length: number, dt = STEP_DT): void {
  const speed = Math.fround(Math.sqrt(s.vx * s.vx + s.vy * s.vy));
  const tanSteer = Math.fround(Math.tan(steer));
  const v = speed + 0.5 * accel * dt;
  const beta = Math.atan(0.5 * tanSteer);
  s.x += v * Math.cos(s.yaw + beta) * dt;
  s.y += v * Math.sin(s.yaw + beta) * dt;
  const omega = (v * Math.cos(beta) * tanSteer) / length;
  const yaw = wrapAngle(s.yaw + omega * dt);
  const newSpeed = speed + accel * dt;
  s.yaw = yaw;
  s.vx = newSpeed * Math.cos(yaw);
  s.vy = newSpeed * Math.sin(yaw);
}

/** A pose with its heading's cosine and sine kept alongside. */
export interface TurningPose extends Pose {
  /** cos(yaw), sin(yaw) */
  c: number;
  sn: number;
}

/** the steering bound of steerFor: k² ≤ 3.99, k = turn·L / (v·dt) (a steering angle short of ±90°) */
export const MAX_TURN_K2 = 3.99;
const MAX_K = Math.sqrt(MAX_TURN_K2);

/**
 * One classic step (stepBicycle) of a car at `speed` braking at `decel` (≥ 0) with the steering that turns it
 * by `turn` rad at its mid-step speed (the angle steerFor gives), in closed form without the tangents: with
 * vm = speed − decel·dt/2 and k = turn·L / (vm·dt) (|k| ≤ √3.99), sin β = k/2 and cos β = √(1 − k²/4), so the
 * car moves vm·dt along yaw + β and turns by vm·dt·k / L (= turn). Below 0.05 m/s it goes straight, as
 * steerFor's angle is then 0. Updates the pose and its cosines in place; the new speed is speed − decel·dt.
 * For the shield's rollouts, whose steps were mostly tangents and their inverses.
 */
export function stepTurning(p: TurningPose, speed: number, decel: number, turn: number, length: number): void {
  const vm = speed - 0.5 * decel * STEP_DT;
  let sinB = 0, cosB = 1, turned = 0;
  if (vm >= 0.05) {
    let k = (turn * length) / (vm * STEP_DT);
    if (k * k > MAX_TURN_K2) k = k > 0 ? MAX_K : -MAX_K;
    sinB = 0.5 * k;
    cosB = Math.sqrt(1 - sinB * sinB);
    turned = (vm * STEP_DT * k) / length;
  }
  const ds = vm * STEP_DT;
  p.x += ds * (p.c * cosB - p.sn * sinB);
  p.y += ds * (p.sn * cosB + p.c * sinB);
  if (turned !== 0) {
    p.yaw = wrapAngle(p.yaw + turned);
    p.c = Math.cos(p.yaw);
    p.sn = Math.sin(p.yaw);
  }
}

