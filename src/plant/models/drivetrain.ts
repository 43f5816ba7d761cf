/**
 * Default drivetrain and brake (VDSim BasicDrivetrain / ProportionalBrake) and the wheel-spin equations with
 * the reflected engine inertia: an open differential couples its two wheels through the carrier, locked and
 * limited-slip differentials carry half the axle's engine inertia per wheel.
 */
import { type VehicleParams, reflectedEngineInertia, wheelSpinInertia } from '../params/vehicle.js';
import { useDoubleFields } from '../double-fields.js';
import { type DriverCommand, GRAVITY } from '../types.js';

/** Brake torque sign switch width [rad/s]: T_b = −tanh(ω/1)·T. */
export const BRAKE_OMEGA_WIDTH = 1.0;

export class Drivetrain {
  readonly wheelInertia = new Float64Array(4);
  /** Engine inertia share per wheel [kg m²]. */
  readonly engineInertia = new Float64Array(4);
  private readonly axleEngineInertia = new Float64Array(2);
  private readonly vp: Readonly<VehicleParams>;
  private readonly frontShare: number;
  private readonly rearShare: number;
  private readonly openDiff: boolean;

  constructor(vp: Readonly<VehicleParams>) {
    this.vp = vp;
    const refl = reflectedEngineInertia(vp);
    for (let i = 0; i < 4; i++) {
      this.wheelInertia[i] = wheelSpinInertia(vp, i);
      this.engineInertia[i] = 0.5 * (i < 2 ? refl.front : refl.rear);
    }
    this.axleEngineInertia[0] = refl.front;
    this.axleEngineInertia[1] = refl.rear;
    useDoubleFields(this, ['frontBias']);
    this.frontShare = vp.driveType === 'FWD' ? 1 : vp.driveType === 'AWD' ? 0.5 : 0;
    this.rearShare = vp.driveType === 'RWD' ? 1 : vp.driveType === 'AWD' ? 0.5 : 0;
    this.openDiff = vp.differential === 'Open';
  }

  /** Axle drive torques [N m] of the current stage (front, rear), input of splitAxle. */
  private readonly axleTorque = new Float64Array(2);

  /** Splits axleTorque[axle] between the axle's wheels by the differential (left = wheel 2·axle). */
  private splitAxle(axle: number, spin: Float64Array, spinOffset: number, out: Float64Array): void {
    const vp = this.vp;
    const tAxle = this.axleTorque[axle];
    const l = 2 * axle;
    if (vp.differential === 'Open' || tAxle === 0) {
      out[l] = out[l + 1] = 0.5 * tAxle;
      return;
    }
    const dw = spin[spinOffset + l] - spin[spinOffset + l + 1];
    const mag = vp.differential === 'Locked' ? 0.45 : Math.min(0.45, Math.max(0, vp.lsdPreload + vp.lsdRamp * Math.abs(dw)));
    const bias = mag * Math.tanh(2 * dw);
    out[l] = (0.5 - bias) * tAxle;
    out[l + 1] = (0.5 + bias) * tAxle;
  }

  /**
   * Drive torque per wheel [N m]: throttle·max_motor_torque·final_drive_ratio to the driven axle(s), split by
   * the differential; reverse gear negates it, neutral (gear 0) transmits nothing.
   */
  driveTorques(cmd: Readonly<DriverCommand>, spin: Float64Array, spinOffset: number, out: Float64Array): void {
    const vp = this.vp;
    const gear = cmd.gear;
    const t = gear === 0 ? 0 : (gear < 0 ? -1 : 1) * cmd.throttle * vp.maxMotorTorque * vp.finalDriveRatio;
    this.axleTorque[0] = t * this.frontShare;
    this.axleTorque[1] = t * this.rearShare;
    this.splitAxle(0, spin, spinOffset, out);
    this.splitAxle(1, spin, spinOffset, out);
  }

  /** Front brake share of the last brakeTorques() call. */
  frontBias = 0.5;

  /** Sets frontBias: brake_bias_front, or load-proportional (clamped 0.05..0.95) with EBD. */
  updateBrakeBias(fz: Readonly<Float64Array>): void {
    const vp = this.vp;
    let bias = Math.min(1, Math.max(0, vp.brakeBiasFront));
    if (vp.brakeEbdEnabled) {
      const f = fz[0] + fz[1];
      const total = f + fz[2] + fz[3];
      if (total > 1) {
        bias = Math.min(0.95, Math.max(0.05, f / total));
      } else {
        const fs = (vp.mass * GRAVITY * vp.cgToRear) / vp.wheelbase;
        const rs = (vp.mass * GRAVITY * vp.cgToFront) / vp.wheelbase;
        if (fs + rs > 1) bias = Math.min(0.95, Math.max(0.05, fs / (fs + rs)));
      }
    }
    this.frontBias = bias;
  }

  /** Brake torque per wheel [N m]: −tanh(ω)·½·axle torque, axle torque = bias·brake·max_brake_torque. */
  brakeTorques(cmd: Readonly<DriverCommand>, fz: Float64Array, spin: Float64Array, spinOffset: number, out: Float64Array): void {
    const brake = cmd.brake;
    this.updateBrakeBias(fz);
    const bias = this.frontBias;
    const tf = bias * brake * this.vp.maxBrakeTorque;
    const tr = (1 - bias) * brake * this.vp.maxBrakeTorque;
    for (let i = 0; i < 4; i++) {
      out[i] = -Math.tanh(spin[spinOffset + i] / BRAKE_OMEGA_WIDTH) * 0.5 * (i < 2 ? tf : tr);
    }
  }

  /** Spin accelerations [rad/s²] from net wheel torques tNet [N m], written to out[outOffset..+3]. */
  spinAccel(tNet: Float64Array, out: Float64Array, outOffset: number): void {
    const iw = this.wheelInertia;
    if (this.openDiff) {
      for (let axle = 0; axle < 2; axle++) {
        const l = 2 * axle;
        const ie = this.axleEngineInertia[axle];
        if (ie <= 0) {
          out[outOffset + l] = tNet[l] / iw[l];
          out[outOffset + l + 1] = tNet[l + 1] / iw[l + 1];
          continue;
        }
        const q = 0.25 * ie;
        const A = iw[l] + q;
        const B = iw[l + 1] + q;
        const det = A * B - q * q;
        out[outOffset + l] = (B * tNet[l] - q * tNet[l + 1]) / det;
        out[outOffset + l + 1] = (A * tNet[l + 1] - q * tNet[l]) / det;
      }
      return;
    }
    for (let i = 0; i < 4; i++) out[outOffset + i] = tNet[i] / (iw[i] + this.engineInertia[i]);
  }
}
