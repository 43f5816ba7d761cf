/** Small helpers shared by the plant tests. */
import { ContactSet, type Level, type VehicleModel, createVehicleModel, initialState, neutralCommand, solverParams, tireParams, vehicleParams } from '../../src/plant/index.js';
import type { DriverCommand, SolverParams, TireParams, VehicleParams } from '../../src/plant/index.js';

export interface RunSpec {
  level: Level;
  vehicle?: VehicleParams;
  tire?: TireParams;
  solver?: SolverParams;
  vx?: number;
  /** Radius for the initial wheel spin (default: the vehicle's nominal radius). */
  spinRadius?: number;
}

export function model(spec: RunSpec): VehicleModel {
  const vp = spec.vehicle ?? vehicleParams();
  const m = createVehicleModel(spec.level, vp, spec.tire ?? tireParams(), spec.solver ?? solverParams());
  m.reset(initialState({ vx: spec.vx ?? 0, wheelRadius: spec.spinRadius ?? vp.wheelRadiusNominal }));
  return m;
}

/** Steps `m` n times with `cmd` on flat ground (μ = mu); `each` sees the model after every step. */
export function drive(m: VehicleModel, cmd: Partial<DriverCommand>, n: number, dt = 0.005, mu = 1, each?: (m: VehicleModel) => void): VehicleModel {
  const c = ContactSet.flat(mu);
  const u = { ...neutralCommand(), ...cmd };
  for (let i = 0; i < n; i++) {
    m.step(u, c, dt);
    each?.(m);
  }
  return m;
}
