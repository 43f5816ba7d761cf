/** The ISO procedures by name, with their published VDSim figures for comparison. */
import { type Iso3888Result, runIso3888 } from './iso3888.js';
import { type Iso4138Result, runIso4138 } from './iso4138.js';
import { type Iso7401Result, runIso7401 } from './iso7401.js';
import type { ProcedureVehicle } from './setup.js';

export type ProcedureName = 'iso7401' | 'iso4138' | 'iso3888';
export const PROCEDURES: readonly ProcedureName[] = ['iso7401', 'iso4138', 'iso3888'];
export type ProcedureResult = Iso7401Result | Iso4138Result | Iso3888Result;

export interface ProcedureOptions {
  speedKmh?: number;
  /** Step (iso7401) or ramp end (iso4138) road-wheel angle [deg]. */
  steerDeg?: number;
  mu?: number;
}

export function runProcedure(name: ProcedureName, car: ProcedureVehicle, opts: ProcedureOptions = {}): ProcedureResult {
  switch (name) {
    case 'iso7401':
      return runIso7401(car, { speedKmh: opts.speedKmh, steerDeg: opts.steerDeg, mu: opts.mu });
    case 'iso4138':
      return runIso4138(car, { speedKmh: opts.speedKmh, steerMaxDeg: opts.steerDeg, mu: opts.mu });
    case 'iso3888':
      return runIso3888(car, { speedKmh: opts.speedKmh, mu: opts.mu });
  }
}

/**
 * VDSim's published sedan-L2 figures (generic_sedan + generic_pacejka, docs/VALIDATION.md, lugre_sedan_l2
 * report) and the CI bands of tests/integration/test_iso_baseline.cpp where they exist.
 */
export const VDSIM_SEDAN_L2 = {
  iso7401: { yawRateSs: 0.528, yawRateSsBand: 0.06, overshoot: 1.162, overshootBand: 0.12, lateralAccelSs: 8.336, lateralAccelSsBand: 0.9, timeToPeakS: 0.742, responseTimeS: 0.384, settlingTime5pctS: 2.786 },
  iso4138: { gradientMradPerG: 24.792, linearRangeAyMax: 4.0, ayMax: 9.08 },
  iso3888: { exitKmh: 60.9, speedLossKmh: -0.89, maxLateralExcursionM: 1.182, peakYawRateDegS: 26.0, peakLateralAccelG: 0.748, pass: false },
} as const;

export { runIso7401, stepSteerMetrics, type StepSteerMetrics, type Iso7401Result, type Iso7401Options } from './iso7401.js';
export { runIso4138, type Iso4138Result, type Iso4138Options } from './iso4138.js';
export { runIso3888, type Iso3888Result, type Iso3888Options, laneChangeWaypoints } from './iso3888.js';
export { type ProcedureVehicle, SCENARIO_SPIN_RADIUS } from './setup.js';
