/**
 * Shared set-up of VDSim's validation procedures (apps/validation, apps/doe/scenarios.py): the dynamics are
 * stepped directly on flat ground (no session, no actuators), SolverParams defaults, throttle = brake = 0.
 */
import { ContactSet } from '../contact.js';
import { createVehicleModel } from '../models/create.js';
import type { VehicleModel } from '../models/model.js';
import { type SolverParams, solverParams } from '../params/solver.js';
import type { TireParams, TireSetup } from '../params/tire.js';
import type { VehicleParams } from '../params/vehicle.js';
import { initialState } from '../state.js';
import type { Level } from '../types.js';

/** The wheel radius VDSim's step-steer and ramp scenarios hard-code for the initial spin (v/0.33) [m]. */
export const SCENARIO_SPIN_RADIUS = 0.33;

export interface ProcedureVehicle {
  vehicle: Readonly<VehicleParams>;
  tires: TireSetup | Readonly<TireParams>;
  level?: Level;
  solver?: Readonly<SolverParams>;
}

/** A fresh model at speed v [m/s] straight ahead, every wheel spinning at v / spinRadius. */
export function startModel(car: ProcedureVehicle, speed: number, spinRadius: number): VehicleModel {
  const model = createVehicleModel(car.level ?? 'L2', car.vehicle, car.tires, car.solver ?? solverParams());
  model.reset(initialState({ vx: speed, wheelRadius: spinRadius }));
  return model;
}

export function flatContacts(mu = 1): ContactSet {
  return ContactSet.flat(mu);
}

/** Python's int(a / b) for the step counts. */
export function stepCount(duration: number, dt: number): number {
  return Math.trunc(duration / dt);
}

/** The per-tick columns the procedures record. */
export interface ManoeuvreTrace {
  t: number[];
  steer: number[];
  yawRate: number[];
  ay: number[];
  vx: number[];
  x: number[];
  y: number[];
}

/** Appends the model's current state to a trace (procedures only: this allocates as the arrays grow). */
export function recordSample(trace: ManoeuvreTrace, t: number, steer: number, model: VehicleModel): void {
  const s = model.state;
  trace.t.push(t);
  trace.steer.push(steer);
  trace.yawRate.push(s.yawRate);
  trace.ay.push(model.diagnostics.ay);
  trace.vx.push(s.vx);
  trace.x.push(s.x);
  trace.y.push(s.y);
}
