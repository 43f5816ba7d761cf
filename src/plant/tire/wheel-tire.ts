/**
 * One wheel's tire: contact kinematics (slip, effective rolling radius, camber contact migration), the force
 * law (MF96 or linear) with the optional LuGre layer, and the transient states the integrator advances
 * (LuGre bristles once per RK stage, relaxation length and belt lag once per substep).
 *
 * Allocation-free: the caller writes the contact into `input` (TIRE_* slots) and the step lengths into
 * `hBristle` / `hRelax`, then calls the argument-free methods; results are fields.
 */
import { useDoubleFields } from '../double-fields.js';
import { type TireParams, effectiveRollingRadius } from '../params/tire.js';
import { LAW_ALPHA, LAW_FZ, LAW_GAMMA, LAW_KAPPA, LAW_MU_LAT, LAW_MU_LONG, forceLawInput, forceLawOutput, pneumaticTrail, steadyForces } from './force-law.js';
import { breakawayLat, breakawayLong, lugreEllipseScale, lugreForce, lugreSigma1 } from './lugre.js';

/** Slots of WheelTire.input: load [N], contact-patch velocity in the wheel frame [m/s], spin [rad/s], camber [rad], friction, unloaded radius [m]. */
export const TIRE_FZ = 0;
export const TIRE_VX = 1;
export const TIRE_VY = 2;
export const TIRE_OMEGA = 3;
export const TIRE_GAMMA = 4;
export const TIRE_MU_LONG = 5;
export const TIRE_MU_LAT = 6;
export const TIRE_R0 = 7;

/** First-order relaxation of a slip quantity toward its geometric value, exact over h at frozen Vx. */
export function beltRelax(sEff: number, sGeom: number, vx: number, sigma: number, h: number): number {
  if (!(sigma > 1e-6) || !(h > 0)) return sGeom;
  return sGeom + (sEff - sGeom) * Math.exp((-Math.abs(vx) * h) / sigma);
}

export class WheelTire {
  readonly tp: Readonly<TireParams>;
  readonly lugreOn: boolean;
  /** The contact of the next (or last) evaluation, TIRE_* slots. */
  readonly input = new Float64Array(8);
  /** Bristle step (h/4 of RK4) and relaxation step (h) [s]. */
  hBristle = 0;
  hRelax = 0;
  private readonly beltOnMf: boolean;
  private readonly beltOnLugre: boolean;
  private readonly sigma0: number;
  private readonly sigma1: number;
  private readonly sigma2: number;
  private readonly eps: number;
  private readonly law = forceLawInput();
  private readonly mf = forceLawOutput();

  // transient state (owned here, advanced by the integrator)
  zLong = 0;
  zLat = 0;
  alphaDyn = 0;
  beltKappa = 0;
  beltAlpha = 0;
  beltVlong = 0;
  beltVlat = 0;

  active = false;
  private mfCacheValid = false;
  private gLongCache = 1;
  private gLatCache = 1;

  // outputs of the last evaluation
  Fx = 0;
  Fy = 0;
  Mz = 0;
  Mx = 0;
  kappa = 0;
  alpha = 0;
  /** Effective rolling radius [m]. */
  Re = 0;
  /** Slip velocities Re·ω − Vx and Vy [m/s]. */
  vsx = 0;
  vsy = 0;
  muPeak = 0;
  contactDy = 0;

  constructor(tp: Readonly<TireParams>) {
    this.tp = tp;
    this.lugreOn = tp.lugre.enabled;
    this.beltOnMf = tp.belt.enabled && !tp.lugre.enabled;
    this.beltOnLugre = tp.belt.enabled && tp.lugre.enabled;
    this.sigma0 = Math.max(1, tp.lugre.sigma0);
    this.sigma1 = lugreSigma1(tp.lugre);
    this.sigma2 = tp.lugre.sigma2;
    this.eps = tp.vlowSpeedEps > 0 ? tp.vlowSpeedEps : 0.15;
    this.input[TIRE_MU_LONG] = this.input[TIRE_MU_LAT] = 1;
    useDoubleFields(this, ['hBristle', 'hRelax', 'zLong', 'zLat', 'alphaDyn', 'beltKappa', 'beltAlpha', 'beltVlong', 'beltVlat', 'gLongCache', 'gLatCache', 'Fx', 'Fy', 'Mz', 'Mx', 'kappa', 'alpha', 'Re', 'vsx', 'vsy', 'muPeak', 'contactDy']);
  }

  resetTransient(): void {
    this.zLong = this.zLat = this.alphaDyn = 0;
    this.beltKappa = this.beltAlpha = this.beltVlong = this.beltVlat = 0;
    this.active = false;
    this.mfCacheValid = false;
  }

  /** Contact lost: no force, transient states reset, nothing advances. */
  deactivate(): void {
    this.resetTransient();
    this.Fx = this.Fy = this.Mz = this.Mx = 0;
    this.kappa = this.alpha = this.vsx = this.vsy = 0;
    this.muPeak = this.contactDy = 0;
  }

  /** Evaluates the wrench of the contact in `input` for one RK stage, transient states frozen. */
  evaluate(): void {
    const tp = this.tp;
    const inp = this.input;
    const fz = inp[TIRE_FZ];
    const vx = inp[TIRE_VX];
    const vy = inp[TIRE_VY];
    const gamma = inp[TIRE_GAMMA];
    const muLat = inp[TIRE_MU_LAT];
    this.active = true;
    const re = effectiveRollingRadius(tp, inp[TIRE_R0], fz);
    const vxAbs = vx < 0 ? -vx : vx;
    const denom = vxAbs > this.eps ? vxAbs : this.eps;
    this.Re = re;
    this.vsx = re * inp[TIRE_OMEGA] - vx;
    this.vsy = vy;
    this.kappa = this.vsx / denom;
    this.alpha = Math.atan2(vy, vx);
    this.contactDy = tp.crownRadius > 0 ? tp.crownRadius * Math.sin(gamma) : 0;
    this.Mx = fz * this.contactDy;
    const inAlpha = this.beltOnMf ? this.beltAlpha : this.lugreOn || tp.relaxationLengthLat <= 1e-6 ? this.alpha : this.alphaDyn;
    const law = this.law;
    law[LAW_FZ] = fz;
    law[LAW_KAPPA] = this.beltOnMf ? this.beltKappa : this.kappa;
    law[LAW_ALPHA] = inAlpha;
    law[LAW_MU_LONG] = inp[TIRE_MU_LONG];
    law[LAW_MU_LAT] = muLat;
    law[LAW_GAMMA] = gamma;
    const mf = this.mf;
    steadyForces(tp, law, mf);
    this.muPeak = mf.muPeak;
    if (!this.lugreOn) {
      this.Fx = mf.Fx;
      this.Fy = mf.Fy;
      this.Mz = mf.Mz;
      this.mfCacheValid = false;
      return;
    }
    const vLong = this.beltOnLugre ? this.beltVlong : this.vsx;
    const vLat = this.beltOnLugre ? this.beltVlat : this.vsy;
    const gLong = breakawayLong(mf.Fx);
    const gLat = breakawayLat(mf.Fy, fz, muLat, inAlpha);
    let fx = lugreForce(this.zLong, vLong, gLong, this.sigma0, this.sigma1, this.sigma2);
    let fy = -lugreForce(this.zLat, vLat, gLat, this.sigma0, this.sigma1, this.sigma2);
    if (tp.combinedSlipEnabled) {
      const s = lugreEllipseScale(tp, fx, fy, fz, inp[TIRE_MU_LONG], muLat);
      fx *= s;
      fy *= s;
    }
    this.Fx = fx;
    this.Fy = fy;
    this.Mz = -pneumaticTrail(tp, inAlpha) * fy;
    // The bristle update needs the breakaway levels at the geometric slip and zero camber: reuse when identical.
    this.mfCacheValid = gamma === 0;
    this.gLongCache = gLong;
    this.gLatCache = gLat;
  }

  /** Advances the LuGre bristles by hBristle against the last evaluated kinematics (once per RK stage). */
  advanceBristle(): void {
    if (!this.lugreOn || !this.active) return;
    let gLong = this.gLongCache;
    let gLat = this.gLatCache;
    if (!this.mfCacheValid) {
      const law = this.law;
      law[LAW_KAPPA] = this.kappa;
      law[LAW_ALPHA] = this.alpha;
      law[LAW_GAMMA] = 0;
      steadyForces(this.tp, law, this.mf);
      gLong = breakawayLong(this.mf.Fx);
      gLat = breakawayLat(this.mf.Fy, law[LAW_FZ], law[LAW_MU_LAT], this.alpha);
    }
    // semi-implicit z ← (z + h·v)/(1 + h·σ0·|v|/g), clamped to ±g/σ0 (lugre.ts advanceBristle, inlined)
    const h = this.hBristle;
    const s0 = this.sigma0;
    const vL = this.vsx;
    let z = (this.zLong + h * vL) / (1 + (h * s0 * (vL < 0 ? -vL : vL)) / gLong);
    let lim = gLong / s0;
    this.zLong = z > lim ? lim : z < -lim ? -lim : z;
    const vT = this.vsy;
    z = (this.zLat + h * vT) / (1 + (h * s0 * (vT < 0 ? -vT : vT)) / gLat);
    lim = gLat / s0;
    this.zLat = z > lim ? lim : z < -lim ? -lim : z;
  }

  /** Advances relaxation-length and belt lags by hRelax (once per substep, against the last stage's slip). */
  advanceRelaxation(): void {
    if (!this.active) return;
    const tp = this.tp;
    const vx = this.input[TIRE_VX];
    const h = this.hRelax;
    if (this.lugreOn) {
      if (tp.belt.enabled) {
        this.beltVlong = beltRelax(this.beltVlong, this.vsx, vx, tp.belt.sigmaLong, h);
        this.beltVlat = beltRelax(this.beltVlat, this.vsy, vx, tp.belt.sigmaLat, h);
      }
      return;
    }
    if (tp.relaxationLengthLat > 1e-6) {
      const vAbs = vx < 0 ? -vx : vx;
      const vSafe = vAbs > this.eps ? vAbs : this.eps;
      this.alphaDyn = this.alpha + (this.alphaDyn - this.alpha) * Math.exp((-vSafe * h) / tp.relaxationLengthLat);
    }
    if (tp.belt.enabled) {
      this.beltKappa = beltRelax(this.beltKappa, this.kappa, vx, tp.belt.sigmaLong, h);
      this.beltAlpha = beltRelax(this.beltAlpha, this.alpha, vx, tp.belt.sigmaLat, h);
    }
  }
}
