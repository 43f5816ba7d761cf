/** Shared constants and small value types of the vehicle plant (ISO 8855 body frame, ENU world frame). */

/** Gravity used by the dynamics [m/s²]. */
export const GRAVITY = 9.80665;
/** Gravity the IMU model reports on its z channel [m/s²] (VDSim's sensor model uses 9.81). */
export const SENSOR_GRAVITY = 9.81;
/** Air density for drag and lift [kg/m³]. */
export const AIR_DENSITY = 1.225;

/** Wheel order everywhere: front-left, front-right, rear-left, rear-right. */
export const FL = 0;
export const FR = 1;
export const RL = 2;
export const RR = 3;
export const WHEEL_NAMES = ['FL', 'FR', 'RL', 'RR'] as const;

/** Model fidelity: L1 dynamic bicycle, L2 "7-DOF" planar, L3 "14-DOF" with ride. */
export type Level = 'L1' | 'L2' | 'L3';
export const LEVELS: readonly Level[] = ['L1', 'L2', 'L3'];

/** Four per-wheel numbers in FL, FR, RL, RR order. */
export type Quad = [number, number, number, number];

/**
 * The pedal-level command (VDSim CmdL4). `steer` is the road-wheel angle of the steered axle [rad],
 * positive = left; throttle and brake are pedal fractions in [0, 1]; gear +1 forward, −1 reverse, 0 neutral.
 * The handbrake is carried through; as in VDSim, no default subsystem reads it.
 */
export interface DriverCommand {
  steer: number;
  throttle: number;
  brake: number;
  gear: number;
  handbrake: boolean;
}

/** A neutral command (steer 0, pedals 0, gear 1). Every command object the plant creates has this one shape. */
export function neutralCommand(): DriverCommand {
  // fractional first values: the pedal/steer fields get V8's double representation (see double-fields.ts)
  const cmd: DriverCommand = { steer: 0.5, throttle: 0.5, brake: 0.5, gear: 1, handbrake: false };
  cmd.steer = cmd.throttle = cmd.brake = 0;
  return cmd;
}

/** Copies `src` into `dst` (no allocation). */
export function copyCommand(dst: DriverCommand, src: Readonly<DriverCommand>): DriverCommand {
  dst.steer = src.steer;
  dst.throttle = src.throttle;
  dst.brake = src.brake;
  dst.gear = src.gear;
  dst.handbrake = src.handbrake;
  return dst;
}

/** Replaces non-finite values by their neutral value and clamps pedals to [0, 1], steer to ±1.5 rad. */
export function sanitizeCommand(cmd: DriverCommand): DriverCommand {
  cmd.steer = Number.isFinite(cmd.steer) ? Math.min(1.5, Math.max(-1.5, cmd.steer)) : 0;
  cmd.throttle = Number.isFinite(cmd.throttle) ? Math.min(1, Math.max(0, cmd.throttle)) : 0;
  cmd.brake = Number.isFinite(cmd.brake) ? Math.min(1, Math.max(0, cmd.brake)) : 0;
  const gear = Number.isFinite(cmd.gear) ? Math.sign(Math.trunc(cmd.gear)) : 1;
  cmd.gear = gear > 0 ? 1 : gear < 0 ? -1 : 0;
  cmd.handbrake = Boolean(cmd.handbrake);
  return cmd;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Wraps an angle into (−π, π]. */
export function wrapAngle(a: number): number {
  if (a > -Math.PI && a <= Math.PI) return a;
  const twoPi = 2 * Math.PI;
  let w = a - twoPi * Math.floor((a + Math.PI) / twoPi);
  if (w <= -Math.PI) w += twoPi;
  return w;
}
