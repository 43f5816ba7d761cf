/** The interface every vehicle model (L1, L2, L3) implements, and the diagnostics it reports after a step. */
import type { ContactSet } from '../contact.js';
import { useDoubleFields } from '../double-fields.js';
import type { VehicleState } from '../state.js';
import type { DriverCommand, Level } from '../types.js';

/** Per-step plant outputs beyond the state (VDSim's ax/ay_body_est, roll/pitch_angle_qs, tire diagnostics). */
export class PlantDiagnostics {
  /** Body accelerations Fx_total/m, Fy_total/m, RK4-weighted over the last substep [m/s²]. */
  ax = 0;
  ay = 0;
  /** Roll and pitch [rad]: quasi-static estimate on L1/L2, the roll/pitch DOF on L3. */
  roll = 0;
  pitch = 0;
  /** Front aligning moment / steering ratio [N m]. */
  rackTorque = 0;
  readonly Fz = new Float64Array(4);
  /** Tire forces in the body frame [N] (reported values: the lateral force faded by the low-speed blend). */
  readonly tireFx = new Float64Array(4);
  readonly tireFy = new Float64Array(4);
  readonly slipRatio = new Float64Array(4);
  readonly slipAngle = new Float64Array(4);
  /** min(μ_long, μ_lat) of each contact. */
  readonly wheelMu = new Float64Array(4);

  constructor() {
    useDoubleFields(this, ['ax', 'ay', 'roll', 'pitch', 'rackTorque']);
  }

  clear(): void {
    this.ax = this.ay = this.roll = this.pitch = this.rackTorque = 0;
    this.Fz.fill(0);
    this.tireFx.fill(0);
    this.tireFy.fill(0);
    this.slipRatio.fill(0);
    this.slipAngle.fill(0);
    this.wheelMu.fill(0);
  }

  copyFrom(o: Readonly<PlantDiagnostics>): this {
    this.ax = o.ax;
    this.ay = o.ay;
    this.roll = o.roll;
    this.pitch = o.pitch;
    this.rackTorque = o.rackTorque;
    this.Fz.set(o.Fz);
    this.tireFx.set(o.tireFx);
    this.tireFy.set(o.tireFy);
    this.slipRatio.set(o.slipRatio);
    this.slipAngle.set(o.slipAngle);
    this.wheelMu.set(o.wheelMu);
    return this;
  }
}

export interface VehicleModel {
  readonly level: Level;
  /** The true state, updated in place by step(). */
  readonly state: VehicleState;
  readonly diagnostics: PlantDiagnostics;
  /** One-time warnings (e.g. substep clamping), for the caller to show. */
  readonly warnings: readonly string[];
  reset(initial: Readonly<VehicleState>): void;
  /** Advances by dt [s] with the command held; substeps internally. Ignores dt ≤ 0. */
  step(cmd: Readonly<DriverCommand>, contacts: Readonly<ContactSet>, dt: number): void;
}
