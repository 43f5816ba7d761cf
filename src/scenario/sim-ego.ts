/**
 * A simulated ego: a vehicle plant (L1/L2/L3 from its vehicle and tire files, as a co-simulation vehicle so the
 * comms router and the JSON data port can drive it) ticking at its own step on the scenario's simulation clock,
 * with a driver: the autopilot, a manoeuvre, or commands from outside (VDS1 CMD / the JSON data port, latched
 * with vdsim_realtime's fail-safe; `setControl` in the API). Times are integer microseconds, as the time
 * conductor counts them (src/time/conductor.ts): an asset of step ΔT progresses to T + ΔT only when T + ΔT ≤ the
 * target, so a conductor can later drive `advanceTo` as it drives any asset.
 *
 * The scene never sees the plant: `report()` is an ego report (map frame pose, speed, size) that the world
 * hands to `LiveScene.updateEgo`, and `observe()` gives the autopilot the vehicles around it.
 */
import { groundFor } from '../cosim/realtime.js';
import { CosimVehicle } from '../cosim/vehicle.js';
import { FAILSAFE_COMMAND } from '../plant/runners/real-time.js';
import { freeRollWheelSpin, initialState } from '../plant/state.js';
import { type DriverCommand, neutralCommand, wrapAngle } from '../plant/types.js';
import type { EgoReport } from '../scene/egos.js';
import type { GroundSpec } from '../cosim/scene.js';
import type { EgoSpec } from './ego-config.js';
import { Autopilot, ManeuverDriver, type TrafficView } from './drivers.js';
import type { DrivingLine } from './line.js';
import { Trace } from './trace.js';

export interface SimEgoOptions {
  ground: GroundSpec;
  line: DrivingLine | null;
  /** external commands: seconds without one before the fail-safe (≤ 0: none, the command is held) */
  cmdTimeoutS?: number;
  /** a command from the JSON data port expires after this long (0: held until a VDS1 CMD) */
  ioTimeoutS?: number;
  /** record a trace row every tick (default true) */
  record?: boolean;
}

export const US = 1_000_000;

export class SimEgo {
  readonly id: string;
  readonly vehicle: CosimVehicle;
  readonly stepUs: number;
  readonly trace = new Trace();
  readonly autopilot: Autopilot | null;
  readonly maneuver: ManeuverDriver | null;
  /** simulation time of the plant [µs] */
  timeUs = 0;
  /** ticks run */
  ticks = 0;
  /** NPC steps this ego took part in, and those with an NPC touching it */
  sceneSteps = 0;
  npcContacts = 0;
  /** times it crossed a stop line on red (the scene's ego_ran_red) */
  redRuns = 0;
  /** yaw acceleration of the last tick (finite difference) [rad/s²], for sensor lever arms */
  yawAccel = 0;
  /** called after every tick (comms emission) */
  onTick: ((ego: SimEgo, tS: number) => void) | null = null;
  private readonly cmd: DriverCommand = neutralCommand();
  private oneShot: DriverCommand | null = null;
  private readonly record: boolean;

  constructor(readonly spec: EgoSpec, private readonly opts: SimEgoOptions) {
    this.id = spec.id;
    this.stepUs = Math.round(spec.dt * US);
    if (this.stepUs <= 0) throw new RangeError(`ego ${spec.id}: step ${spec.dt} s is below 1 µs`);
    this.record = opts.record ?? true;
    const d = spec.driver;
    this.vehicle = new CosimVehicle(
      {
        id: spec.vehicleId, level: spec.level, vehicle: spec.vehicle, tires: spec.tires, x0: spec.start.x, y0: spec.start.y, z0: 0,
        yaw0: spec.start.yaw, vx0: spec.start.speed, control: 'external', sensors: spec.sensors, pathLookahead: 8, label: spec.label,
      },
      groundFor(opts.ground),
      { dt: spec.dt, sensorDelayS: 0, watchdog: { cmdTimeoutS: opts.cmdTimeoutS ?? 0, failsafe: FAILSAFE_COMMAND }, now: 0 },
    );
    const line = opts.line;
    this.autopilot = d.kind === 'autopilot' && line ? new Autopilot(d.autopilot, line, spec.vehicle, spec.length) : null;
    let path: Autopilot | null = null;
    if (d.kind === 'maneuver' && d.maneuver.type === 'path' && line) {
      path = new Autopilot({ speed: null, speedFactor: 1, lookaheadM: 8, lookaheadGainS: 0, follow: false, timeGapS: 1.5, minGapM: 5, decel: 1e6 }, line, spec.vehicle, spec.length, d.maneuver.v);
    }
    this.maneuver = d.kind === 'maneuver' ? new ManeuverDriver(d.maneuver, path) : null;
    this.reset();
  }

  get session() {
    return this.vehicle.session;
  }

  /** simulation time [s] */
  get time(): number {
    return this.timeUs / US;
  }

  /** Back to the start pose and speed, time 0, trace cleared. */
  reset(): void {
    const s = this.spec.start;
    const init = initialState({ x: s.x, y: s.y, yaw: s.yaw, vx: s.speed, wheelRadius: this.spec.spinRadius ?? undefined });
    // free-rolling wheels, as SimSession.create spawns them, unless the manoeuvre fixes the spin radius
    if (this.spec.spinRadius === null) init.wheelSpin.set(freeRollWheelSpin(this.spec.vehicle, this.spec.tires, s.speed));
    this.vehicle.session.reset(init);
    this.vehicle.watchdog.restart(0);
    this.vehicle.io.held = false;
    this.vehicle.fillFrame();
    this.timeUs = 0;
    this.ticks = 0;
    this.sceneSteps = 0;
    this.npcContacts = 0;
    this.redRuns = 0;
    this.yawAccel = 0;
    this.oneShot = null;
    this.trace.clear();
    this.autopilot?.reset();
  }

  /**
   * A command for the next tick only (VDSim's set_control: the driver resumes after it), or — with
   * `hold` — latched until the next one (an external driver's ZOH).
   */
  setControl(c: Readonly<Partial<DriverCommand>>, hold = this.spec.driver.kind === 'external'): void {
    const cmd: DriverCommand = { steer: c.steer ?? 0, throttle: c.throttle ?? 0, brake: c.brake ?? 0, gear: c.gear ?? 1, handbrake: c.handbrake ?? false };
    if (hold) {
      this.vehicle.watchdog.input(cmd, this.time);
      this.oneShot = null;
    } else this.oneShot = cmd;
  }

  /** The vehicles around (for the autopilot's following). */
  observe(view: TrafficView): void {
    this.autopilot?.observe(view);
  }

  /** Ticks until the next tick would pass `targetUs`; returns the ticks run. */
  advanceTo(targetUs: number): number {
    let n = 0;
    const dt = this.spec.dt;
    const v = this.vehicle;
    const s = v.session;
    while (this.timeUs + this.stepUs <= targetUs) {
      const t = this.time;
      if (this.oneShot) {
        s.setInput(this.oneShot);
        v.watchdog.restart(t);
        this.oneShot = null;
      } else if (this.autopilot) {
        s.setInput(this.autopilot.update(s.truth, t, this.cmd));
        v.watchdog.restart(t);
      } else if (this.maneuver) {
        s.setInput(this.maneuver.update(s.truth, t, this.cmd));
        v.watchdog.restart(t);
      } else v.prepareTick(t, this.opts.ioTimeoutS ?? 0);
      const r0 = s.truth.yawRate;
      s.tick(dt);
      this.yawAccel = (s.truth.yawRate - r0) / dt;
      this.timeUs += this.stepUs;
      this.ticks++;
      n++;
      v.fillFrame();
      if (this.record) this.trace.pushSession(s);
      this.onTick?.(this, this.time);
    }
    return n;
  }

  /** The ego as the scene sees it (map frame = the plant's ENU frame). */
  report(): EgoReport {
    const t = this.vehicle.session.truth;
    return { egoId: this.id, x: t.x, y: t.y, yaw: wrapAngle(t.yaw), speed: t.vx, length: this.spec.length, width: this.spec.width };
  }
}
