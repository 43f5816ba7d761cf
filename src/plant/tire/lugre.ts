/**
 * LuGre tire layer (VDSim lugre_tire.hpp): one bristle state z per direction, breakaway level from the steady
 * force law, F = σ0·z + σ1·ż + σ2·v_r; z advanced semi-implicitly and clamped to ±g/σ0.
 */
import type { LuGreParams, TireParams } from '../params/tire.js';
import { effectiveMu } from './force-law.js';

/** Slip angle scale of the presliding μ·Fz floor of the lateral breakaway [rad]. */
export const PRESLIDE_ALPHA = 0.03;

/** σ1, or the critical 2·√(σ0·m_eff) when σ1 is 0. */
export function lugreSigma1(p: Readonly<LuGreParams>): number {
  if (p.sigma1 > 0) return p.sigma1;
  return 2 * Math.sqrt(Math.max(1, p.sigma0) * Math.max(1, p.mEff));
}

/** Longitudinal breakaway g = max(|Fx_MF|, 1). */
export function breakawayLong(fxSteady: number): number {
  return Math.max(Math.abs(fxSteady), 1);
}

/** Lateral breakaway g = max(|Fy_MF|, w·μ_lat·Fz, 1), w = exp(−(α/0.03)²). */
export function breakawayLat(fySteady: number, fz: number, muLat: number, alpha: number): number {
  const q = alpha / PRESLIDE_ALPHA;
  const gMu = Math.exp(-q * q) * Math.max(0, muLat) * Math.max(0, fz);
  return Math.max(Math.abs(fySteady), gMu, 1);
}

/** LuGre force with frozen z: σ0·z + σ1·ż + σ2·v_r, ż = v_r − σ0·|v_r|/g·z. */
export function lugreForce(z: number, vr: number, g: number, sigma0: number, sigma1: number, sigma2: number): number {
  const gg = g > 1 ? g : 1;
  const zDot = vr - ((sigma0 * Math.abs(vr)) / gg) * z;
  return sigma0 * z + sigma1 * zDot + sigma2 * vr;
}

/** Semi-implicit bristle step: z ← (z + h·v_r)/(1 + h·σ0·|v_r|/g), clamped to ±g/σ0. */
export function advanceBristle(z: number, vr: number, g: number, sigma0: number, h: number): number {
  const gg = g > 1 ? g : 1;
  const zNew = (z + h * vr) / (1 + (h * sigma0 * Math.abs(vr)) / gg);
  const lim = gg / sigma0;
  return zNew > lim ? lim : zNew < -lim ? -lim : zNew;
}

/**
 * Friction ellipse of the LuGre path against D·Fz·μ·μ_eff (not the MF output); returns the scale to apply
 * to (Fx, Fy), 1 when inside or when Fz < 1 N.
 */
export function lugreEllipseScale(tp: Readonly<TireParams>, fx: number, fy: number, fzIn: number, muLong: number, muLat: number): number {
  const fz = Math.max(0, fzIn);
  if (fz < 1) return 1;
  const muE = effectiveMu(tp, fz);
  const fxMax = Math.max(tp.D_long * fz * muLong * muE, 1);
  const fyMax = Math.max(tp.D_lat * fz * muLat * muE, 1);
  const rx = fx / fxMax;
  const ry = fy / fyMax;
  const r2 = rx * rx + ry * ry;
  return r2 > 1 ? 1 / Math.sqrt(r2) : 1;
}
