/**
 * TireParams: VDSim's tire parameter set (MF96 simple form + options, LuGre and belt layers) with its
 * compiled-in defaults (params.hpp).
 */

/** Force law: parametric Pacejka MF96 or the linear cornering-stiffness tire. (MF2002 .tir is not ported.) */
export type TireBackend = 'mf96' | 'linear';
export const TIRE_BACKENDS: readonly TireBackend[] = ['mf96', 'linear'];
/** Vehicle-side low-speed treatment of non-LuGre tires; only VDSim's kinematic blend exists. */
export type LowSpeedMode = 'kinematic_blend';

export interface LuGreParams {
  enabled: boolean;
  /** Bristle stiffness [N/m]. */
  sigma0: number;
  /** Bristle damping [N s/m]; 0 → critical 2·√(σ0·m_eff). */
  sigma1: number;
  /** Viscous coefficient [N s/m]. */
  sigma2: number;
  /** Contact mass for the critical σ1 [kg]. */
  mEff: number;
}

export interface BeltParams {
  enabled: boolean;
  /** Relaxation lengths [m]. */
  sigmaLat: number;
  sigmaLong: number;
}

export interface TireParams {
  B_long: number;
  C_long: number;
  D_long: number;
  E_long: number;
  B_lat: number;
  C_lat: number;
  D_lat: number;
  E_lat: number;
  muNominal: number;
  /** Reference load of the load sensitivity [N]. */
  FzNominal: number;
  /** Linear backend cornering stiffness [N/rad] (longitudinal = 2×). */
  corneringStiffness: number;
  /** Rolling resistance coefficient [-] (F = c·Fz·tanh(vx/0.5)). */
  rollingResistance: number;
  combinedSlipEnabled: boolean;
  pneumaticTrail: number;
  /** Slip angle scale of the trail fall-off [rad]. */
  trailFalloffAlpha: number;
  /** Camber thrust gain [1/rad]. */
  camberStiffness: number;
  crownRadius: number;
  loadSensitivity: number;
  relaxationLengthLat: number;
  /** Read for compatibility; VDSim applies no longitudinal relaxation. */
  relaxationLengthLong: number;
  tireVerticalStiffness: number;
  reffBreff: number;
  reffDreff: number;
  reffFreff: number;
  /** Minimum speed of the slip denominators [m/s]. */
  vlowSpeedEps: number;
  lowSpeedMode: LowSpeedMode;
  backend: TireBackend;
  lugre: LuGreParams;
  belt: BeltParams;
}

export const DEFAULT_TIRE_PARAMS: Readonly<TireParams> = Object.freeze({
  B_long: 10,
  C_long: 1.65,
  D_long: 1,
  E_long: 0.97,
  B_lat: 8,
  C_lat: 1.3,
  D_lat: 1,
  E_lat: -1,
  muNominal: 1,
  FzNominal: 4000,
  corneringStiffness: 80000,
  rollingResistance: 0,
  combinedSlipEnabled: true,
  pneumaticTrail: 0.05,
  trailFalloffAlpha: 0.2,
  camberStiffness: 0,
  crownRadius: 0,
  loadSensitivity: 0,
  relaxationLengthLat: 0,
  relaxationLengthLong: 0,
  tireVerticalStiffness: 220000,
  reffBreff: 0,
  reffDreff: 0,
  reffFreff: 0,
  vlowSpeedEps: 0.15,
  lowSpeedMode: 'kinematic_blend',
  backend: 'mf96',
  lugre: Object.freeze({ enabled: true, sigma0: 9.0e4, sigma1: 0, sigma2: 75, mEff: 40 }),
  belt: Object.freeze({ enabled: false, sigmaLat: 0.5, sigmaLong: 0.5 }),
} satisfies TireParams) as Readonly<TireParams>;

export interface TireOverrides extends Partial<Omit<TireParams, 'lugre' | 'belt'>> {
  lugre?: Partial<LuGreParams>;
  belt?: Partial<BeltParams>;
}

/** A fresh, mutable TireParams: the defaults with `overrides` applied. */
export function tireParams(overrides: TireOverrides = {}): TireParams {
  const d = DEFAULT_TIRE_PARAMS;
  const { lugre, belt, ...flat } = overrides;
  return { ...d, ...flat, lugre: { ...d.lugre, ...lugre }, belt: { ...d.belt, ...belt } };
}

/** True when the tire model itself couples Fx and Fy, so the host must not clip them again. */
export function providesCombinedSlip(tp: Readonly<TireParams>): boolean {
  return tp.combinedSlipEnabled && tp.lugre.enabled;
}

/** Four tires, FL, FR, RL, RR (VDSim TireSetup). */
export type TireSetup = readonly [TireParams, TireParams, TireParams, TireParams];

export function tireSetup(front: TireParams, rear: TireParams = front): TireSetup {
  return [front, front, rear, rear];
}

/**
 * Effective rolling radius [m]: R0 − (Fz0/Cz)·(DREFF·atan(BREFF·ρ) + FREFF·ρ), ρ = Fz/Fz0; R0 when the
 * three coefficients are zero or the result is degenerate (≤ 0.05 m).
 */
export function effectiveRollingRadius(tp: Readonly<TireParams>, r0: number, fz: number): number {
  if (tp.reffBreff === 0 && tp.reffDreff === 0 && tp.reffFreff === 0) return r0;
  const cz = tp.tireVerticalStiffness > 1 ? tp.tireVerticalStiffness : 220000;
  const fz0 = tp.FzNominal > 1 ? tp.FzNominal : 4000;
  const rho = (fz > 0 ? fz : 0) / fz0;
  const re = r0 - (fz0 / cz) * (tp.reffDreff * Math.atan(tp.reffBreff * rho) + tp.reffFreff * rho);
  return re > 0.05 ? re : r0;
}
