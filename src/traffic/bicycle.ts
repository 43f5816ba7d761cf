/**
 * GPUDrive's "classic" kinematic bicycle step (spec §6.2, `forwardKinematics` in src/dynamics.hpp):
 * dt = 0.1 s, speed = ‖velocity‖ (never negative when read), no speed clamp. The velocity vector is
 * stored, so a negative new speed makes it point backwards and the next step reads its magnitude.
 */
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
export interface KinematicState {
  x: number;
  y: number;
  yaw: number;
  vx: number;
  vy: number;
}

/**
 * Advances `s` in place by one classic step with acceleration `accel` (m/s²) and steering `steer` (rad),
 * for a vehicle of logged (unscaled) length `length` (m). Float32 inputs give float32-faithful results
 * once stored back into Float32Arrays.
 */
export function stepBicycle(s: KinematicState, accel: number, steer: number, length: number, dt = STEP_DT): void {
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
