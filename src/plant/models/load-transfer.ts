/**
 * Quasi-static normal loads of the L2 model (VDSim seven_dof): static axle loads with aero lift, longitudinal
 * transfer through the pitch stiffness and lateral transfer split into geometric (roll centre), elastic (roll
 * stiffness ratio) and unsprung parts, each amplified by the CG-migration factor 1/(1 − ε).
 */
import { type VehicleParams, axleRollStiffness } from '../params/vehicle.js';
import { useDoubleFields } from '../double-fields.js';
import { AIR_DENSITY } from '../types.js';

export class QuasiStaticLoads {
  private readonly m: number;
  private readonly a: number;
  private readonly b: number;
  private readonly L: number;
  private readonly h: number;
  private readonly R: number;
  private readonly twF: number;
  private readonly twR: number;
  private readonly kPitch: number;
  private readonly kf: number;
  private readonly kr: number;
  private readonly kTot: number;
  private readonly hrcF: number;
  private readonly hrcR: number;
  private readonly rollArm: number;
  private readonly ms: number;
  private readonly muF: number;
  private readonly muR: number;
  private readonly liftF: number;
  private readonly liftR: number;
  private readonly area: number;
  /** Inputs of compute(): felt accelerations [m/s²] (previous-substep body accelerations minus tangential
   * gravity), normal gravity [m/s²], forward speed [m/s]. Fields, so the hot call passes no boxed numbers. */
  axFelt = 0;
  ayFelt = 0;
  gPerp = 0;
  vx = 0;
  /** Quasi-static roll (+ = left side up under a left turn) and pitch (+ = nose down) of the last call [rad]. */
  roll = 0;
  pitch = 0;

  constructor(vp: Readonly<VehicleParams>) {
    this.m = vp.mass;
    this.a = vp.cgToFront;
    this.b = vp.cgToRear;
    this.L = vp.wheelbase;
    this.h = vp.cgHeight;
    this.R = vp.wheelRadiusNominal;
    this.twF = vp.trackFront;
    this.twR = vp.trackRear;
    const kAvg = 0.25 * (vp.springStiffness[0] + vp.springStiffness[1] + vp.springStiffness[2] + vp.springStiffness[3]);
    this.kPitch = Math.max(1, kAvg * (this.a * this.a + this.b * this.b) * 2);
    this.kf = axleRollStiffness(vp, 0);
    this.kr = axleRollStiffness(vp, 1);
    this.kTot = Math.max(1e-6, this.kf + this.kr);
    this.hrcF = vp.rollCenterHeightFront;
    this.hrcR = vp.rollCenterHeightRear;
    this.rollArm = this.h - (this.hrcF * (this.b / this.L) + this.hrcR * (this.a / this.L));
    this.ms = vp.massSprung;
    this.muF = vp.unsprungMass[0] + vp.unsprungMass[1];
    this.muR = vp.unsprungMass[2] + vp.unsprungMass[3];
    this.liftF = vp.aeroLiftFront;
    this.liftR = vp.aeroLiftRear;
    this.area = vp.frontalArea;
    useDoubleFields(this, ['axFelt', 'ayFelt', 'gPerp', 'vx', 'roll', 'pitch']);
  }

  /** Writes Fz (FL, FR, RL, RR, clamped ≥ 0) for the inputs in axFelt, ayFelt, gPerp and vx. */
  compute(fz: Float64Array): void {
    const { m, a, b, L, h, axFelt, ayFelt, gPerp, vx } = this;
    const q = 0.5 * AIR_DENSITY * this.area * vx * Math.abs(vx);
    const staticF = (m * gPerp * b) / (2 * L) + 0.5 * this.liftF * q;
    const staticR = (m * gPerp * a) / (2 * L) + 0.5 * this.liftR * q;
    const epsPitch = Math.min(0.8, Math.max(0, (m * gPerp * h) / this.kPitch));
    const pitchGain = 1 / (1 - epsPitch);
    const dLongHalf = 0.5 * ((m * axFelt * h) / L) * pitchGain;
    this.pitch = ((-m * axFelt * h) / this.kPitch) * pitchGain;
    const fys = this.ms * ayFelt;
    const epsRoll = Math.min(0.8, Math.max(0, (this.ms * gPerp * this.rollArm) / this.kTot));
    const mRoll = (fys * this.rollArm) / (1 - epsRoll);
    this.roll = mRoll / this.kTot;
    const dLatF = this.twF > 1e-3 ? (fys * (b / L) * this.hrcF + (mRoll * this.kf) / this.kTot + this.muF * ayFelt * this.R) / this.twF : 0;
    const dLatR = this.twR > 1e-3 ? (fys * (a / L) * this.hrcR + (mRoll * this.kr) / this.kTot + this.muR * ayFelt * this.R) / this.twR : 0;
    const fl = staticF - dLongHalf - dLatF;
    const fr = staticF - dLongHalf + dLatF;
    const rl = staticR + dLongHalf - dLatR;
    const rr = staticR + dLongHalf + dLatR;
    fz[0] = fl > 0 ? fl : 0;
    fz[1] = fr > 0 ? fr : 0;
    fz[2] = rl > 0 ? rl : 0;
    fz[3] = rr > 0 ? rr : 0;
  }
}
