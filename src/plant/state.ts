/**
 * The plant's true state (VDSim State): CG position in the ENU world frame, attitude as roll/pitch/yaw (ZYX),
 * body-frame velocities and rates (ISO 8855), wheel spins and suspension compressions (FL, FR, RL, RR).
 */
import { useDoubleFields } from './double-fields.js';
import { type TireParams, type TireSetup, effectiveRollingRadius, tireSetup } from './params/tire.js';
import { type VehicleParams, staticWheelLoads } from './params/vehicle.js';
import { GRAVITY, type Quad } from './types.js';

export interface VehicleStateSnapshot {
  x: number;
  y: number;
  z: number;
  roll: number;
  pitch: number;
  yaw: number;
  vx: number;
  vy: number;
  vz: number;
  rollRate: number;
  pitchRate: number;
  yawRate: number;
  wheelSpin: Quad;
  suspCompression: Quad;
  suspVelocity: Quad;
}

export class VehicleState {
  x = 0;
  y = 0;
  z = 0;
  roll = 0;
  pitch = 0;
  yaw = 0;
  vx = 0;
  vy = 0;
  vz = 0;
  rollRate = 0;
  pitchRate = 0;
  yawRate = 0;
  readonly wheelSpin = new Float64Array(4);
  readonly suspCompression = new Float64Array(4);
  readonly suspVelocity = new Float64Array(4);

  constructor() {
    useDoubleFields(this, ['x', 'y', 'z', 'roll', 'pitch', 'yaw', 'vx', 'vy', 'vz', 'rollRate', 'pitchRate', 'yawRate']);
  }

  /** Copies every field of `o` (no allocation). */
  copyFrom(o: Readonly<VehicleState>): this {
    this.x = o.x;
    this.y = o.y;
    this.z = o.z;
    this.roll = o.roll;
    this.pitch = o.pitch;
    this.yaw = o.yaw;
    this.vx = o.vx;
    this.vy = o.vy;
    this.vz = o.vz;
    this.rollRate = o.rollRate;
    this.pitchRate = o.pitchRate;
    this.yawRate = o.yawRate;
    this.wheelSpin.set(o.wheelSpin);
    this.suspCompression.set(o.suspCompression);
    this.suspVelocity.set(o.suspVelocity);
    return this;
  }

  /** Horizontal speed of the CG [m/s]. */
  speedXY(): number {
    return Math.hypot(this.vx, this.vy);
  }

  /** World-frame (ENU) ground velocity: vE = vx cosψ − vy sinψ, vN = vx sinψ + vy cosψ. */
  velocityEast(): number {
    return this.vx * Math.cos(this.yaw) - this.vy * Math.sin(this.yaw);
  }

  velocityNorth(): number {
    return this.vx * Math.sin(this.yaw) + this.vy * Math.cos(this.yaw);
  }

  snapshot(): VehicleStateSnapshot {
    const q = (a: Float64Array): Quad => [a[0], a[1], a[2], a[3]];
    return {
      x: this.x,
      y: this.y,
      z: this.z,
      roll: this.roll,
      pitch: this.pitch,
      yaw: this.yaw,
      vx: this.vx,
      vy: this.vy,
      vz: this.vz,
      rollRate: this.rollRate,
      pitchRate: this.pitchRate,
      yawRate: this.yawRate,
      wheelSpin: q(this.wheelSpin),
      suspCompression: q(this.suspCompression),
      suspVelocity: q(this.suspVelocity),
    };
  }
}

export interface InitialStateOptions {
  x?: number;
  y?: number;
  z?: number;
  yaw?: number;
  vx?: number;
  vy?: number;
  yawRate?: number;
  /** Per-wheel spin [rad/s]; default vx / wheelRadius on every wheel. */
  wheelSpin?: readonly number[];
  /** Radius for the default wheel spin [m]. */
  wheelRadius?: number;
}

/** A state at rest or rolling straight: pose, body velocity and wheel spins. */
export function initialState(opts: InitialStateOptions = {}): VehicleState {
  const s = new VehicleState();
  s.x = opts.x ?? 0;
  s.y = opts.y ?? 0;
  s.z = opts.z ?? 0;
  s.yaw = opts.yaw ?? 0;
  s.vx = opts.vx ?? 0;
  s.vy = opts.vy ?? 0;
  s.yawRate = opts.yawRate ?? 0;
  if (opts.wheelSpin) {
    if (opts.wheelSpin.length !== 4) throw new RangeError(`wheelSpin needs 4 values (FL, FR, RL, RR), got ${opts.wheelSpin.length}`);
    s.wheelSpin.set(opts.wheelSpin);
  } else {
    const r = opts.wheelRadius ?? 0;
    s.wheelSpin.fill(r > 0 ? s.vx / r : 0);
  }
  return s;
}

/**
 * Free-rolling wheel spins for forward speed vx [m/s]: vx / Re(Fz_static) per wheel, so a spawned car starts
 * at zero slip (VDSim free_roll_wheel_spin; vx / R0 when the tire has no Re coefficients).
 */
export function freeRollWheelSpin(vp: Readonly<VehicleParams>, tires: TireSetup | Readonly<TireParams>, vx: number): Quad {
  const setup: TireSetup = Array.isArray(tires) ? (tires as TireSetup) : tireSetup(tires as TireParams);
  const fz = staticWheelLoads(vp, GRAVITY);
  const r0 = vp.wheelRadiusNominal > 1e-6 ? vp.wheelRadiusNominal : 0.32;
  const out: Quad = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) {
    const re = effectiveRollingRadius(setup[i], r0, fz[i]);
    out[i] = re > 1e-6 ? vx / re : 0;
  }
  return out;
}

/** Wraps a yaw angle to (−π, π] (a no-op, and no arithmetic, in the usual case). */
export function wrapYaw(yaw: number): number {
  if (yaw > Math.PI || yaw <= -Math.PI) {
    yaw -= 2 * Math.PI * Math.floor((yaw + Math.PI) / (2 * Math.PI));
    if (yaw <= -Math.PI) yaw += 2 * Math.PI;
  }
  return yaw;
}
