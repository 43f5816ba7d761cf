/**
 * SimSession: the mode-agnostic kernel (VDSim SimSession), with no clock and no I/O. `setInput` latches a
 * command (zero-order hold); `tick(dt)` runs, in this order: ground query → actuator → dynamics (own
 * substepping) → sensor delay → diagnostics → sensor model; then the sim time advances. tick() allocates
 * nothing; `state()`, `measuredState()` and `output()` return fresh snapshots.
 */
import { ActuatorModel } from './actuator-model.js';
import { ContactSet } from './contact.js';
import { useDoubleFields } from './double-fields.js';
import { FlatGround } from './ground/flat.js';
import type { GroundProvider } from './ground/ground.js';
import { createVehicleModel } from './models/create.js';
import type { PlantDiagnostics, VehicleModel } from './models/model.js';
import { type ActuatorParams, actuatorParams } from './params/actuator.js';
import { type SensorParams, sensorParams } from './params/sensor.js';
import { type SolverParams, solverParams } from './params/solver.js';
import type { TireParams, TireSetup } from './params/tire.js';
import type { VehicleParams } from './params/vehicle.js';
import { SensorMeasurement, type SensorMeasurementSnapshot } from './sensors/measurement.js';
import { SensorDelay } from './sensors/sensor-delay.js';
import { SensorModel } from './sensors/sensor-model.js';
import { type InitialStateOptions, VehicleState, type VehicleStateSnapshot, freeRollWheelSpin, initialState } from './state.js';
import { type DriverCommand, type Level, type Quad, neutralCommand, sanitizeCommand } from './types.js';

export interface SessionOptions {
  model: VehicleModel;
  vehicle: Readonly<VehicleParams>;
  ground?: GroundProvider;
  actuator?: ActuatorParams;
  sensors?: SensorParams;
  /** Feedback delay of measuredState() [s]. */
  sensorDelayS?: number;
  /** Tick the buffers are sized for [s] (default 0.005). */
  nominalDt?: number;
}

export interface CreateSessionOptions extends Omit<SessionOptions, 'model'> {
  level?: Level;
  tires: TireSetup | Readonly<TireParams>;
  solver?: Readonly<SolverParams>;
  /** Initial state (default: at rest at the origin); wheels free-rolling unless wheelSpin is given. */
  initial?: InitialStateOptions;
}

/** Tire force in the body frame [N]. */
export interface BodyForce {
  x: number;
  y: number;
  z: number;
}

/** Everything a tick produced (VDSim SimOutput), as plain data. */
export interface SimOutput {
  state: VehicleStateSnapshot;
  measured: VehicleStateSnapshot;
  simTime: number;
  ax: number;
  ay: number;
  roll: number;
  pitch: number;
  Fz: Quad;
  tireForces: [BodyForce, BodyForce, BodyForce, BodyForce];
  slipRatio: Quad;
  slipAngle: Quad;
  wheelMu: Quad;
  rackTorque: number;
  steerApplied: number;
  throttleApplied: number;
  brakeApplied: number;
  sensors: SensorMeasurementSnapshot;
}

const quad = (a: ArrayLike<number>): Quad => [a[0], a[1], a[2], a[3]];

export class SimSession {
  readonly model: VehicleModel;
  readonly vehicle: Readonly<VehicleParams>;
  readonly ground: GroundProvider;
  readonly nominalDt: number;
  /** Hot-path views, updated in place by tick(). */
  readonly truth = new VehicleState();
  readonly measured = new VehicleState();
  readonly sensorReadings = new SensorMeasurement();
  readonly applied: DriverCommand = neutralCommand();
  readonly contacts = new ContactSet();
  private readonly latched: DriverCommand = neutralCommand();
  private readonly actuator: ActuatorModel;
  private readonly sensorDelay: SensorDelay;
  private readonly sensorModel: SensorModel;
  private simTime_ = 0;
  private inputCount_ = 0;

  constructor(opts: SessionOptions) {
    this.model = opts.model;
    this.vehicle = opts.vehicle;
    this.ground = opts.ground ?? new FlatGround(1);
    this.nominalDt = opts.nominalDt && opts.nominalDt > 1e-6 ? opts.nominalDt : 0.005;
    this.actuator = new ActuatorModel(opts.actuator ?? actuatorParams(), this.nominalDt);
    this.sensorDelay = new SensorDelay(opts.sensorDelayS ?? 0, this.nominalDt);
    this.sensorModel = new SensorModel(opts.sensors ?? sensorParams());
    this.reset(this.model.state);
    useDoubleFields(this, ['simTime_']);
  }

  /** Builds the model for `level` (default L2) and a session around it, reset to `initial`. */
  static create(opts: CreateSessionOptions): SimSession {
    const model = createVehicleModel(opts.level ?? 'L2', opts.vehicle, opts.tires, opts.solver ?? solverParams());
    const session = new SimSession({ ...opts, model });
    const init = opts.initial ?? {};
    session.reset(initialState({ ...init, wheelSpin: init.wheelSpin ?? freeRollWheelSpin(opts.vehicle, opts.tires, init.vx ?? 0) }));
    return session;
  }

  /** Resets dynamics, actuator, sensor delay and noise; latched command → neutral; sim time → 0. */
  reset(initial: Readonly<VehicleState>): void {
    this.model.reset(initial);
    this.actuator.reset();
    this.sensorDelay.reset(this.model.state);
    this.sensorModel.reset();
    this.truth.copyFrom(this.model.state);
    this.measured.copyFrom(this.model.state);
    Object.assign(this.latched, neutralCommand());
    Object.assign(this.applied, neutralCommand());
    this.simTime_ = 0;
  }

  /** Latches a command (zero-order hold until the next one). Missing fields take their neutral value. */
  setInput(cmd: Readonly<Partial<DriverCommand>>): void {
    const l = this.latched;
    l.steer = cmd.steer ?? 0;
    l.throttle = cmd.throttle ?? 0;
    l.brake = cmd.brake ?? 0;
    l.gear = cmd.gear ?? 1;
    l.handbrake = cmd.handbrake ?? false;
    sanitizeCommand(l);
    this.inputCount_++;
  }

  /** Number of setInput calls so far (lets a runner notice new commands without a clock in the kernel). */
  get inputCount(): number {
    return this.inputCount_;
  }

  get simTime(): number {
    return this.simTime_;
  }

  get latchedCommand(): Readonly<DriverCommand> {
    return this.latched;
  }

  get diagnostics(): Readonly<PlantDiagnostics> {
    return this.model.diagnostics;
  }

  /** Advances by dt [s]; ignored when dt ≤ 0. */
  tick(dt: number): void {
    if (!(dt > 0)) return;
    this.ground.query(this.truth, this.vehicle, this.contacts);
    this.actuator.apply(this.latched, this.truth, dt, this.applied);
    this.model.step(this.applied, this.contacts, dt);
    const next = this.model.state;
    this.sensorDelay.apply(next, dt, this.measured);
    this.sensorModel.apply(next, this.model.diagnostics, this.applied, dt, this.sensorReadings);
    this.truth.copyFrom(next);
    this.simTime_ += dt;
  }

  state(): VehicleStateSnapshot {
    return this.truth.snapshot();
  }

  measuredState(): VehicleStateSnapshot {
    return this.measured.snapshot();
  }

  output(): SimOutput {
    const d = this.model.diagnostics;
    const f = (i: number): BodyForce => ({ x: d.tireFx[i], y: d.tireFy[i], z: 0 });
    return {
      state: this.truth.snapshot(),
      measured: this.measured.snapshot(),
      simTime: this.simTime_,
      ax: d.ax,
      ay: d.ay,
      roll: d.roll,
      pitch: d.pitch,
      Fz: quad(d.Fz),
      tireForces: [f(0), f(1), f(2), f(3)],
      slipRatio: quad(d.slipRatio),
      slipAngle: quad(d.slipAngle),
      wheelMu: quad(d.wheelMu),
      rackTorque: d.rackTorque,
      steerApplied: this.applied.steer,
      throttleApplied: this.applied.throttle,
      brakeApplied: this.applied.brake,
      sensors: this.sensorReadings.snapshot(),
    };
  }
}
