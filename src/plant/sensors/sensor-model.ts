/**
 * Sensor model (port of VDSim SensorModel): each channel = truth + bias + random-walk bias + N(0,1)·noise_std,
 * the random walk advancing by N(0,1)·bias_rw·√dt per sample. One seeded normal stream, drawn in VDSim's
 * fixed order (ax, ay, az, wx, wy, wz, 4 wheels, steer, gnss x, y, vx, vy; the walk's draw before the white
 * draw, each only when its parameter is > 0). Disabled → measured = truth (az = 9.81).
 */
import type { SensorNoise, SensorParams } from '../params/sensor.js';
import type { VehicleState } from '../state.js';
import { type DriverCommand, SENSOR_GRAVITY } from '../types.js';

/** Body accelerations [m/s²] (the plant diagnostics). */
export interface BodyAcceleration {
  ax: number;
  ay: number;
}
import { useDoubleFields } from '../double-fields.js';
import { SensorMeasurement } from './measurement.js';
import { SeededNormal } from './random.js';

// random-walk bias slots: ax ay az wx wy wz w0..w3 steer gx gy gvx gvy
const RW_SLOTS = 15;

export class SensorModel {
  private readonly p: SensorParams;
  private readonly rng: SeededNormal;
  private readonly rw = new Float64Array(RW_SLOTS);
  private sqrtDt = 0;

  constructor(params: SensorParams) {
    this.p = params;
    this.rng = new SeededNormal(params.seed);
    useDoubleFields(this, ['sqrtDt']);
  }

  /** Re-seeds the stream and zeroes the random walks. */
  reset(): void {
    this.rng.seed(this.p.seed);
    this.rw.fill(0);
  }

  private measure(truth: number, n: Readonly<SensorNoise>, slot: number): number {
    if (n.biasRw > 0) this.rw[slot] += this.rng.normal() * n.biasRw * this.sqrtDt;
    const white = n.noiseStd > 0 ? this.rng.normal() * n.noiseStd : 0;
    return truth + n.bias + this.rw[slot] + white;
  }

  /** Fills `out` from the true state, the plant's body accelerations and the realised steer. */
  apply(s: Readonly<VehicleState>, accel: Readonly<BodyAcceleration>, applied: Readonly<DriverCommand>, dt: number, out: SensorMeasurement): SensorMeasurement {
    const ax = accel.ax;
    const ay = accel.ay;
    const steer = applied.steer;
    const vE = s.velocityEast();
    const vN = s.velocityNorth();
    const p = this.p;
    if (!p.enabled) {
      out.ax = ax;
      out.ay = ay;
      out.az = SENSOR_GRAVITY;
      out.wx = s.rollRate;
      out.wy = s.pitchRate;
      out.wz = s.yawRate;
      out.wheelSpeed.set(s.wheelSpin);
      out.steer = steer;
      out.gnssX = s.x;
      out.gnssY = s.y;
      out.gnssVx = vE;
      out.gnssVy = vN;
      return out;
    }
    this.sqrtDt = Math.sqrt(Math.max(0, dt));
    out.ax = this.measure(ax, p.imuAccel, 0);
    out.ay = this.measure(ay, p.imuAccel, 1);
    out.az = this.measure(SENSOR_GRAVITY, p.imuAccel, 2);
    out.wx = this.measure(s.rollRate, p.imuGyro, 3);
    out.wy = this.measure(s.pitchRate, p.imuGyro, 4);
    out.wz = this.measure(s.yawRate, p.imuGyro, 5);
    for (let i = 0; i < 4; i++) out.wheelSpeed[i] = this.measure(s.wheelSpin[i], p.wheelSpeed, 6 + i);
    out.steer = this.measure(steer, p.steer, 10);
    out.gnssX = this.measure(s.x, p.gnssPos, 11);
    out.gnssY = this.measure(s.y, p.gnssPos, 12);
    out.gnssVx = this.measure(vE, p.gnssVel, 13);
    out.gnssVy = this.measure(vN, p.gnssVel, 14);
    this.rng.dropSpare();
    return out;
  }
}
