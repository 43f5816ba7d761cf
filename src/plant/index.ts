/**
 * src/plant — the vehicle plant of VILS: a TypeScript port of VDSim's kernel (github.com/Onlyti/VDSim,
 * Apache-2.0, © 2026 Jiwon Seok; behaviour re-implemented from its sources and ../shared/spec/vdsim-plant.md).
 *
 *   params/, config/   VehicleParams, TireParams, SolverParams, SensorParams, ActuatorParams with VDSim's
 *                      defaults; loading of VDSim YAML (flat keys or catalog parts)
 *   tire/              MF96 with combined slip, linear tire, LuGre layer, relaxation and belt lags
 *   models/            L1 dynamic bicycle, L2 "7-DOF", L3 "14-DOF"; RK4 with substeps
 *   actuator-model.ts  dead time, first-order lag, slew limit, saturation (+ brake fade, steering servo)
 *   sensors/           sensor delay and seeded noise / bias random walk
 *   ground/            flat, split-μ, grade and bank
 *   session.ts         SimSession: the clock-free kernel (setInput / tick / state / output)
 *   runners/           external-step, real-time (wall clock, command watchdog) and replay
 *   validation/, plot/ VDSim's ISO 7401 / 4138 / 3888 procedures and SVG figures of them
 *
 * Deliberate departures from VDSim: L3 hands its tire-spring loads to every RK stage of a step (VDSim: the
 * first stage only, a defect it documents); gear 0 transmits no drive torque; duplicate YAML keys are an
 * error unless allowed; catalog parts are unwrapped instead of silently yielding defaults; tire forces on a
 * grade/bank act in the road-projected body plane (VDSim resolves per-contact frames). Not ported: L4/L5,
 * MF2002 .tir tires, engine + gearbox powertrain, rack-EOM steering, rough/heightmap/ISO 8608 grounds.
 */
export * from './types.js';
export * from './params/vehicle.js';
export * from './params/tire.js';
export * from './params/solver.js';
export * from './params/sensor.js';
export * from './params/actuator.js';
export * from './config/index.js';
export { VehicleState, initialState, freeRollWheelSpin, type InitialStateOptions, type VehicleStateSnapshot } from './state.js';
export { ContactSet } from './contact.js';
export { type VehicleModel, PlantDiagnostics } from './models/model.js';
export { createVehicleModel } from './models/create.js';
export { BicycleModel } from './models/bicycle.js';
export { SevenDofModel } from './models/seven-dof.js';
export { FourteenDofModel } from './models/fourteen-dof.js';
export { mf96, linearTire, magicFormula, type ForceLawOutput } from './tire/force-law.js';
export { WheelTire } from './tire/wheel-tire.js';
export { ActuatorModel } from './actuator-model.js';
export { SensorModel } from './sensors/sensor-model.js';
export { SensorDelay } from './sensors/sensor-delay.js';
export { SensorMeasurement, type SensorMeasurementSnapshot } from './sensors/measurement.js';
export * from './ground/index.js';
export { SimSession, type SimOutput, type SessionOptions, type CreateSessionOptions, type BodyForce } from './session.js';
export { ExternalStepRunner } from './runners/external-step.js';
export { RealTimeRunner, RealTimeLoop, CommandWatchdog, FAILSAFE_COMMAND, type FailsafeSteer, type WatchdogOptions, type RealTimeLoopOptions, type RealTimeLoopStats, type RealTimeOptions, type RealTimeStats } from './runners/real-time.js';
export { type Clock, systemClock, VirtualClock } from '../time/clock.js';
export { CommandSchedule, type CommandRow, type ScheduleInterpolation } from './runners/command-schedule.js';
export { readReplayFile, parseReplayCsv, parseReplayData, type ReplayInputs } from './runners/replay-file.js';
export { runReplay, type ReplayOptions } from './runners/replay.js';
export * from './validation/index.js';
export { plotIso7401, plotIso4138, plotIso3888 } from './plot/iso-plots.js';
export { renderChartDocument, type ChartDocument, type ChartPanel } from './plot/svg-chart.js';
