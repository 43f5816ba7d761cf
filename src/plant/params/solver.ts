/** SolverParams: integrator and substepping (VDSim defaults: RK4, 1 ms substeps, at most 10 per tick). */

export type Integrator = 'RK4' | 'Euler';
export const INTEGRATORS: readonly Integrator[] = ['RK4', 'Euler'];

export interface SolverParams {
  integrator: Integrator;
  /** Longest substep [s]. */
  maxSubstepDt: number;
  maxSubsteps: number;
}

export const DEFAULT_SOLVER_PARAMS: Readonly<SolverParams> = Object.freeze({
  integrator: 'RK4',
  maxSubstepDt: 1e-3,
  maxSubsteps: 10,
} satisfies SolverParams) as Readonly<SolverParams>;

export function solverParams(overrides: Partial<SolverParams> = {}): SolverParams {
  return { ...DEFAULT_SOLVER_PARAMS, ...overrides };
}

function wantedSubsteps(sp: Readonly<SolverParams>, dt: number): number {
  const hMax = sp.maxSubstepDt > 0 && Number.isFinite(sp.maxSubstepDt) ? sp.maxSubstepDt : 1e-6;
  return Math.ceil(dt / hMax);
}

/** Substep count for one tick: N = clamp(ceil(dt / max_substep_dt), 1, max_substeps); the substep is dt/N. */
export function substepCount(sp: Readonly<SolverParams>, dt: number): number {
  if (!(dt > 0) || !Number.isFinite(dt)) return 1;
  return Math.max(1, Math.min(Math.max(1, Math.floor(sp.maxSubsteps)), wantedSubsteps(sp, dt)));
}

/** True when max_substeps cannot deliver max_substep_dt at this dt (the substep is then longer). */
export function substepsClamped(sp: Readonly<SolverParams>, dt: number): boolean {
  if (!(dt > 0) || !Number.isFinite(dt)) return false;
  return wantedSubsteps(sp, dt) > Math.max(1, Math.floor(sp.maxSubsteps));
}
