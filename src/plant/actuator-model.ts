/**
 * Actuator layer (port of VDSim ActuatorModel): per channel a dead-zone (pedals), a transport delay with
 * fractional interpolation (ring buffer, 0 before it fills), an exact first-order lag, a slew limit and
 * saturation. The brake can fade with temperature; the steering can instead be a torque servo with LuGre
 * friction, substepped at 0.1 ms. With default parameters it is the identity.
 */
import { useDoubleFields } from './double-fields.js';
import type { ActuatorParams, ChannelActuatorParams } from './params/actuator.js';
import type { VehicleState } from './state.js';
import { type DriverCommand, copyCommand } from './types.js';

/** Fixed-capacity ring of past samples; `ago(0)` is the newest, 0 before filled. */
class DelayLine {
  buf: Float64Array;
  private w = 0;

  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(1, capacity));
  }

  ensure(capacity: number): void {
    if (this.buf.length < capacity) {
      this.buf = new Float64Array(capacity);
      this.w = 0;
    }
  }

  clear(): void {
    this.buf.fill(0);
    this.w = 0;
  }

  push(v: number): void {
    this.buf[this.w] = v;
    this.w = (this.w + 1) % this.buf.length;
  }

  ago(n: number): number {
    const size = this.buf.length;
    if (n >= size) return 0;
    return this.buf[(((this.w - 1 - n) % size) + size) % size];
  }
}

function delayCapacity(deadTimeS: number, dt: number): number {
  return deadTimeS > 0 && dt > 0 ? Math.floor(deadTimeS / dt) + 3 : 1;
}

function lerpTable(xs: readonly number[], ys: readonly number[], x: number, fallback: number): number {
  const n = Math.min(xs.length, ys.length);
  if (n === 0) return fallback;
  if (x <= xs[0]) return ys[0];
  if (x >= xs[n - 1]) return ys[n - 1];
  for (let i = 1; i < n; i++) {
    if (x <= xs[i]) return ys[i - 1] + ((x - xs[i - 1]) / (xs[i] - xs[i - 1])) * (ys[i] - ys[i - 1]);
  }
  return ys[n - 1];
}

/**
 * One channel's memory: delay line, lag state and last output. process() reads `input` and writes `output`
 * (fields, so the per-tick calls pass no boxed numbers).
 */
class Channel {
  readonly delay: DelayLine;
  // the channel's parameters, copied so every channel object has one shape (steer/throttle/brake params differ)
  private readonly deadTimeS: number;
  private readonly tauS: number;
  private readonly rateLimit: number;
  private readonly deadZone: number;
  private readonly outMin: number;
  private readonly outMax: number;
  input = 0;
  lag = 0;
  output = 0;

  constructor(p: Readonly<ChannelActuatorParams>, pedal: boolean, nominalDt: number) {
    this.deadTimeS = p.deadTimeS;
    this.tauS = p.tauS;
    this.rateLimit = p.rateLimit;
    this.deadZone = pedal ? p.deadZone : 0;
    this.outMin = pedal ? Math.max(0, p.outMin) : p.outMin;
    this.outMax = pedal ? Math.min(1, p.outMax) : p.outMax;
    this.delay = new DelayLine(delayCapacity(p.deadTimeS, nominalDt));
    useDoubleFields(this, ['deadTimeS', 'tauS', 'rateLimit', 'deadZone', 'outMin', 'outMax', 'input', 'lag', 'output']);
  }

  reset(): void {
    this.delay.clear();
    this.input = this.lag = this.output = 0;
  }

  /** Dead zone (pedals) → transport delay → first-order lag → slew limit → saturation. */
  process(dt: number): void {
    let u = this.input;
    const dz = this.deadZone;
    if (dz > 0) u = u > dz ? (u - dz) / Math.max(1e-6, 1 - dz) : 0;
    if (this.deadTimeS > 0) u = this.delayed(u, dt);
    if (this.tauS > 1e-9) {
      const a = Math.exp(-dt / this.tauS);
      this.lag = a * this.lag + (1 - a) * u;
    } else {
      this.lag = u;
    }
    let y = this.lag;
    if (this.rateLimit > 0) {
      const dmax = this.rateLimit * dt;
      const d = y - this.output;
      if (d > dmax) y = this.output + dmax;
      else if (d < -dmax) y = this.output - dmax;
    }
    this.output = y < this.outMin ? this.outMin : y > this.outMax ? this.outMax : y;
  }

  /** Pushes u and returns the value dead_time ago, linearly interpolated between samples (0 before filled). */
  delayed(u: number, dt: number): number {
    const fidx = this.deadTimeS / dt;
    const n = Math.floor(fidx);
    const f = fidx - n;
    this.delay.ensure(n + 3);
    this.delay.push(u);
    return (1 - f) * this.delay.ago(n) + f * this.delay.ago(n + 1);
  }
}

export class ActuatorModel {
  private readonly p: ActuatorParams;
  private readonly steer: Channel;
  private readonly throttle: Channel;
  private readonly brake: Channel;
  private steerOut = 0;
  private steerPos = 0;
  private steerVel = 0;
  private frictionZ = 0;
  /** Brake temperature [°C]. */
  brakeTempC: number;

  constructor(params: ActuatorParams, nominalDt = 0.005) {
    this.p = params;
    const dt = nominalDt > 1e-6 ? nominalDt : 0.005;
    this.steer = new Channel(params.steer, false, dt);
    this.throttle = new Channel(params.throttle, true, dt);
    this.brake = new Channel(params.brake, true, dt);
    this.brakeTempC = params.brake.ambientTempC;
    useDoubleFields(this, ['steerOut', 'steerPos', 'steerVel', 'frictionZ', 'brakeTempC']);
  }

  reset(): void {
    this.steer.reset();
    this.throttle.reset();
    this.brake.reset();
    this.steerOut = this.steerPos = this.steerVel = this.frictionZ = 0;
    this.brakeTempC = this.p.brake.ambientTempC;
  }

  /** Realised steering angle [rad]. */
  get steerAngle(): number {
    return this.steerPos;
  }

  /** Filters `desired` into `out` (the realised command) over dt; the vehicle's speed feeds the brake heating. */
  apply(desired: Readonly<DriverCommand>, vehicle: Readonly<VehicleState>, dt: number, out: DriverCommand): DriverCommand {
    copyCommand(out, desired);
    if (!(dt > 0)) return out;
    const p = this.p;
    const steer = this.steer;
    if (p.steer.friction.enabled) {
      // the delay line only; the servo replaces lag, slew and saturation
      steer.input = p.steer.deadTimeS > 0 ? steer.delayed(desired.steer, dt) : desired.steer;
      this.steerServo(dt);
      if (p.steer.rateLimit > 0) {
        const dmax = p.steer.rateLimit * dt;
        const d = this.steerPos - this.steerOut;
        this.steerOut = d > dmax ? this.steerOut + dmax : d < -dmax ? this.steerOut - dmax : this.steerPos;
      } else {
        this.steerOut = this.steerPos;
      }
    } else {
      steer.input = desired.steer;
      steer.process(dt);
      this.steerOut = this.steerPos = steer.output;
    }
    out.steer = this.steerOut;

    this.throttle.input = desired.throttle;
    this.throttle.process(dt);
    out.throttle = this.throttle.output;

    this.brake.input = desired.brake;
    this.brake.process(dt);
    let muScale = 1;
    if (p.brake.thermalEnabled) {
      const heat = p.brake.heatCoeff * Math.abs(this.brake.output) * vehicle.speedXY();
      const cool = p.brake.coolCoeff * (this.brakeTempC - p.brake.ambientTempC);
      this.brakeTempC += (heat - cool) * dt;
      muScale = lerpTable(p.brake.muTempC, p.brake.muScale, this.brakeTempC, 1);
    }
    const b = this.brake.output * muScale;
    out.brake = b < 0 ? 0 : b > 1 ? 1 : b;
    return out;
  }

  /** Position servo on a steering inertia with LuGre friction, substepped at ≤ 0.1 ms, hard travel stops. */
  private steerServo(dt: number): void {
    const s = this.p.steer;
    const L = s.friction;
    const target = this.steer.input;
    const n = Math.max(1, Math.ceil(dt / 1.0e-4));
    const h = dt / n;
    for (let i = 0; i < n; i++) {
      const w = this.steerVel;
      const q = w / L.ws;
      const g = L.Tc + (L.Ts - L.Tc) * Math.exp(-q * q);
      const zNew = (this.frictionZ + h * w) / (1 + (h * L.sigma0 * Math.abs(w)) / Math.max(1e-6, g));
      const zDot = (zNew - this.frictionZ) / h;
      const tFriction = L.sigma0 * zNew + L.sigma1 * zDot + L.sigma2 * w;
      const tServo = s.servoKp * (target - this.steerPos) - s.servoKd * w;
      this.frictionZ = zNew;
      this.steerVel += ((tServo - tFriction) / Math.max(1e-6, s.inertia)) * h;
      this.steerPos += this.steerVel * h;
      if (this.steerPos > s.outMax) {
        this.steerPos = s.outMax;
        if (this.steerVel > 0) this.steerVel = 0;
      } else if (this.steerPos < s.outMin) {
        this.steerPos = s.outMin;
        if (this.steerVel < 0) this.steerVel = 0;
      }
    }
  }
}
