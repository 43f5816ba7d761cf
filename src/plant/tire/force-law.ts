/**
 * Steady-state tire force laws (pure functions of load, slip and friction): Pacejka MF96 simple form with the
 * friction-ellipse combined slip, and the linear tire. Sign convention ISO 8855: Fy opposes the slip angle.
 */
import type { TireParams } from '../params/tire.js';

/** Output of a force law, filled in place. */
export interface ForceLawOutput {
  Fx: number;
  Fy: number;
  Mz: number;
  muPeak: number;
}

export function forceLawOutput(): ForceLawOutput {
  return { Fx: 0, Fy: 0, Mz: 0, muPeak: 0 };
}

/**
 * Slots of a force-law input vector (a Float64Array, so hot callers pass no boxed numbers): normal load [N],
 * slip ratio, slip angle [rad], friction of the contact, camber [rad].
 */
export const LAW_FZ = 0;
export const LAW_KAPPA = 1;
export const LAW_ALPHA = 2;
export const LAW_MU_LONG = 3;
export const LAW_MU_LAT = 4;
export const LAW_GAMMA = 5;

export function forceLawInput(): Float64Array {
  return new Float64Array(6);
}

/** F(s) = D·sin(C·atan(B·s − E·(B·s − atan(B·s)))). */
export function magicFormula(B: number, C: number, D: number, E: number, s: number): number {
  const t = B * s;
  const phi = t - E * (t - Math.atan(t));
  return D * Math.sin(C * Math.atan(phi));
}

/** Load-sensitive friction scale μ_eff = max(0.3·μ_nom, μ_nom·(1 − ls·(Fz/Fz_nom − 1))). */
export function effectiveMu(tp: Readonly<TireParams>, fz: number): number {
  const fzn = Math.max(1, tp.FzNominal);
  const dfz = Math.max(0, fz) / fzn - 1;
  return Math.max(0.3 * tp.muNominal, tp.muNominal * (1 - tp.loadSensitivity * dfz));
}

/** Self-aligning trail t(α) = t_p0 / √(1 + (α/α_fo)²). */
export function pneumaticTrail(tp: Readonly<TireParams>, alpha: number): number {
  const afo = tp.trailFalloffAlpha > 1e-6 ? tp.trailFalloffAlpha : 1e-6;
  const q = alpha / afo;
  return tp.pneumaticTrail / Math.sqrt(1 + q * q);
}

/**
 * MF96: Fx = F_long(κ), Fy = −F_lat(α) with D = D_·Fz·μ·μ_eff; combined slip scales both onto the friction
 * ellipse when (Fx/Dx)² + (Fy/Dy)² > 1; camber thrust +C_γ·γ·Fz·μy; Mz = −t(α)·Fy + t_p0/4·C_γ·γ·Fz·μy.
 * Fz < 1 N gives zero force.
 */
export function mf96(tp: Readonly<TireParams>, input: Float64Array, out: ForceLawOutput): ForceLawOutput {
  const fzIn = input[LAW_FZ];
  const kappa = input[LAW_KAPPA];
  const alpha = input[LAW_ALPHA];
  const gamma = input[LAW_GAMMA];
  const fz = fzIn > 0 ? fzIn : 0;
  if (fz < 1) {
    out.Fx = 0;
    out.Fy = 0;
    out.Mz = 0;
    out.muPeak = 0;
    return out;
  }
  const muE = effectiveMu(tp, fz);
  const muX = input[LAW_MU_LONG] * muE;
  const muY = input[LAW_MU_LAT] * muE;
  const fxMax = tp.D_long * fz * muX;
  const fyMax = tp.D_lat * fz * muY;
  let fx = magicFormula(tp.B_long, tp.C_long, fxMax, tp.E_long, kappa);
  let fy = -magicFormula(tp.B_lat, tp.C_lat, fyMax, tp.E_lat, alpha);
  if (tp.combinedSlipEnabled && fxMax > 0 && fyMax > 0) {
    const rx = fx / fxMax;
    const ry = fy / fyMax;
    const r2 = rx * rx + ry * ry;
    if (r2 > 1) {
      const s = 1 / Math.sqrt(r2);
      fx *= s;
      fy *= s;
    }
  }
  const camberThrust = tp.camberStiffness * gamma * fz * muY;
  out.Fx = fx;
  out.Fy = fy + camberThrust;
  out.Mz = -pneumaticTrail(tp, alpha) * fy + tp.pneumaticTrail * 0.25 * camberThrust;
  out.muPeak = Math.max(tp.D_long * muX, tp.D_lat * muY);
  return out;
}

/** Linear tire: Fx = 2·Cα·κ·μ_long, Fy = −Cα·α·μ_lat, no aligning moment; Fz < 1 N gives zero force. */
export function linearTire(tp: Readonly<TireParams>, input: Float64Array, out: ForceLawOutput): ForceLawOutput {
  const fz = input[LAW_FZ];
  const muLong = input[LAW_MU_LONG];
  const muLat = input[LAW_MU_LAT];
  if (!(fz >= 1)) {
    out.Fx = 0;
    out.Fy = 0;
    out.Mz = 0;
    out.muPeak = 0;
    return out;
  }
  out.Fx = 2 * tp.corneringStiffness * input[LAW_KAPPA] * muLong;
  out.Fy = -tp.corneringStiffness * input[LAW_ALPHA] * muLat;
  out.Mz = 0;
  out.muPeak = Math.max(muLong, muLat);
  return out;
}

/** Evaluates the tire's backend on an input vector (LAW_* slots) into `out`. */
export function steadyForces(tp: Readonly<TireParams>, input: Float64Array, out: ForceLawOutput): void {
  if (tp.backend === 'linear') linearTire(tp, input, out);
  else mf96(tp, input, out);
}
