/** The measured sensor bundle (VDSim SensorMeas): IMU, gyro, wheel speeds, steer, GNSS position and velocity. */
import { useDoubleFields } from '../double-fields.js';
import type { Quad } from '../types.js';

export interface SensorMeasurementSnapshot {
  /** Specific force [m/s²]. */
  ax: number;
  ay: number;
  az: number;
  /** Body rates [rad/s]. */
  wx: number;
  wy: number;
  wz: number;
  /** Wheel spins [rad/s]. */
  wheelSpeed: Quad;
  /** Road-wheel angle [rad]. */
  steer: number;
  /** World position [m] and ENU ground velocity [m/s]. */
  gnssX: number;
  gnssY: number;
  gnssVx: number;
  gnssVy: number;
}

export class SensorMeasurement {
  ax = 0;
  ay = 0;
  az = 0;
  wx = 0;
  wy = 0;
  wz = 0;
  readonly wheelSpeed = new Float64Array(4);
  steer = 0;
  gnssX = 0;
  gnssY = 0;
  gnssVx = 0;
  gnssVy = 0;

  constructor() {
    useDoubleFields(this, ['ax', 'ay', 'az', 'wx', 'wy', 'wz', 'steer', 'gnssX', 'gnssY', 'gnssVx', 'gnssVy']);
  }

  snapshot(): SensorMeasurementSnapshot {
    const w = this.wheelSpeed;
    return {
      ax: this.ax,
      ay: this.ay,
      az: this.az,
      wx: this.wx,
      wy: this.wy,
      wz: this.wz,
      wheelSpeed: [w[0], w[1], w[2], w[3]],
      steer: this.steer,
      gnssX: this.gnssX,
      gnssY: this.gnssY,
      gnssVx: this.gnssVx,
      gnssVy: this.gnssVy,
    };
  }
}
