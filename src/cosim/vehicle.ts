/**
 * One vehicle of a co-simulation fleet: its SimSession, its command watchdog, the STATE frame refreshed every
 * tick, the VDS1 receive state (last seq) and the JSON data port state. Everything a tick touches is allocated
 * here once.
 */
import { SimSession } from '../plant/session.js';
import type { GroundProvider } from '../plant/ground/ground.js';
import { CommandWatchdog, type WatchdogOptions } from '../plant/runners/real-time.js';
import type { SensorMeasurement } from '../plant/sensors/measurement.js';
import { type DriverCommand, type Level, neutralCommand, wrapAngle } from '../plant/types.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { InternalController } from './internal-controller.js';
import type { VehicleSpec } from './scene.js';
import { type CmdFields, type CmdTarget, SI, StateFields } from './vds1.js';
import type { TemplateVehicle } from './comms/templates/registry.js';

/** Per-vehicle state of the JSON data port (spec §4). */
export interface IoPortState {
  /** The command last written by POST /api/io (missing keys keep their previous value). */
  inCmd: { throttle: number; brake: number; steer: number };
  /** True while the JSON port drives the vehicle (VDSim's `driver = False`); a VDS1 CMD takes over. */
  held: boolean;
  /** Clock time of the last POST /api/io for this vehicle [s] (NaN: never). */
  lastAt: number;
  tx: { enabled: boolean; rate: number; send_state: boolean; send_cmd: boolean };
  targets: { ip: string; port: number }[];
  /** Clock time the next telemetry datagram is due [s]. */
  nextTxAt: number;
}

export class CosimVehicle implements CmdTarget, TemplateVehicle {
  readonly id: number;
  readonly level: Level;
  readonly params: Readonly<VehicleParams>;
  readonly session: SimSession;
  readonly watchdog: CommandWatchdog;
  readonly frame = new StateFields();
  readonly controller: InternalController | null;
  readonly label: string;
  /** Sensor id → type, from the vehicle's sensor declarations. */
  readonly sensorTypes = new Map<string, string>();
  /** VDS1: last accepted CMD seq (per vehicle, as vdsim_realtime). */
  lastSeq = 0;
  /** VDS1 CMDs accepted for this vehicle. */
  cmdsAccepted = 0;
  /** Time from the last command to the last / the longest fail-safe entry [s] (bound: cmd_timeout + one tick). */
  lastEntryDelayS = 0.5;
  maxEntryDelayS = 0.5;
  private entriesSeen = 0;
  readonly io: IoPortState = {
    inCmd: { throttle: 0, brake: 0, steer: 0 },
    held: false,
    lastAt: Number.NaN,
    tx: { enabled: false, rate: 50, send_state: true, send_cmd: true },
    targets: [],
    nextTxAt: 0,
  };
  private readonly scratch: DriverCommand = neutralCommand();

  constructor(spec: VehicleSpec, ground: GroundProvider, opts: { dt: number; sensorDelayS: number; watchdog: WatchdogOptions; now: number }) {
    this.id = spec.id;
    this.level = spec.level;
    this.params = spec.vehicle;
    this.label = spec.label;
    this.session = SimSession.create({
      level: spec.level,
      vehicle: spec.vehicle,
      tires: spec.tires,
      ground,
      sensors: spec.sensors,
      sensorDelayS: opts.sensorDelayS,
      nominalDt: opts.dt,
      initial: { x: spec.x0, y: spec.y0, z: spec.z0, yaw: spec.yaw0, vx: spec.vx0 },
    });
    this.watchdog = new CommandWatchdog(this.session, opts.watchdog, opts.now);
    this.controller = spec.control === 'internal' ? new InternalController(spec.vehicle, spec.vx0, spec.path, spec.pathLookahead) : null;
    this.lastEntryDelayS = this.maxEntryDelayS = 0;
    for (const d of spec.sensors?.declarations ?? []) this.sensorTypes.set(d.id, d.type);
  }

  get sensors(): Readonly<SensorMeasurement> {
    return this.session.sensorReadings;
  }

  get command(): Readonly<DriverCommand> {
    return this.session.latchedCommand;
  }

  /** A sensor's type: its declaration's, or the id itself when it names a type (VDSim: id defaults to type). */
  sensorType(id: string): string | undefined {
    return this.sensorTypes.get(id) ?? (['gnss', 'gnss_pos', 'gnss_vel', 'imu', 'imu_accel', 'imu_gyro', 'wheel_speed', 'steer'].includes(id) ? id : undefined);
  }

  /** Latches a VDS1 command that arrived at `now` (the JSON port stops holding its command). */
  applyCmd(cmd: Readonly<CmdFields>, now: number): void {
    const c = this.scratch;
    c.steer = cmd.steer;
    c.throttle = cmd.throttle;
    c.brake = cmd.brake;
    c.gear = cmd.gear;
    c.handbrake = cmd.handbrake !== 0;
    this.watchdog.input(c, now);
    this.io.held = false;
    this.cmdsAccepted++;
  }

  /**
   * Sets this tick's input (spec §2.2 step 4): the internal controller; else the JSON port's held command (it
   * expires after `ioTimeoutS` when > 0); else the watchdog, which latches the fail-safe when the last
   * command is older than cmd_timeout.
   */
  prepareTick(now: number, ioTimeoutS: number): void {
    if (this.controller) {
      this.session.setInput(this.controller.update(this.session.truth, this.scratch));
      this.watchdog.restart(now);
      return;
    }
    const io = this.io;
    if (io.held) {
      if (ioTimeoutS > 0 && now - io.lastAt > ioTimeoutS) io.held = false;
      else {
        this.scratch.steer = io.inCmd.steer;
        this.scratch.throttle = io.inCmd.throttle;
        this.scratch.brake = io.inCmd.brake;
        this.scratch.gear = 1;
        this.scratch.handbrake = false;
        this.watchdog.input(this.scratch, now);
        return;
      }
    }
    if (this.watchdog.check(now) && this.watchdog.entries !== this.entriesSeen) {
      this.entriesSeen = this.watchdog.entries;
      const delay = this.watchdog.lastEntryAt - this.watchdog.lastInputAt;
      this.lastEntryDelayS = delay;
      if (delay > this.maxEntryDelayS) this.maxEntryDelayS = delay;
    }
  }

  /** Refreshes the STATE frame from the plant (VDSim fill_state); header fields are set by the sender. */
  fillFrame(): StateFields {
    const s = this.session;
    const t = s.truth;
    const d = s.diagnostics;
    const m = s.sensorReadings;
    const v = this.frame.v;
    this.frame.vehicleId = this.id;
    v[SI.x] = t.x;
    v[SI.y] = t.y;
    v[SI.z] = t.z;
    v[SI.roll] = d.roll;
    v[SI.pitch] = d.pitch;
    v[SI.yaw] = wrapAngle(t.yaw);
    v[SI.vx] = t.vx;
    v[SI.vy] = t.vy;
    v[SI.vz] = t.vz;
    v[SI.rollRate] = t.rollRate;
    v[SI.pitchRate] = t.pitchRate;
    v[SI.yawRate] = t.yawRate;
    v[SI.ax] = d.ax;
    v[SI.ay] = d.ay;
    for (let i = 0; i < 4; i++) {
      v[SI.wheelSpin + i] = t.wheelSpin[i];
      v[SI.Fz + i] = d.Fz[i];
      v[SI.slipRatio + i] = d.slipRatio[i];
      v[SI.slipAngle + i] = d.slipAngle[i];
      v[SI.susp + i] = t.suspCompression[i];
      v[SI.Fx + i] = d.tireFx[i];
      v[SI.Fy + i] = d.tireFy[i];
    }
    v[SI.steerApplied] = s.applied.steer;
    v[SI.wheelRadius] = this.params.wheelRadiusNominal;
    v[SI.rackTorque] = d.rackTorque;
    v[SI.mAx] = m.ax;
    v[SI.mAy] = m.ay;
    v[SI.mWz] = m.wz;
    v[SI.mSteer] = m.steer;
    v[SI.mGnssX] = m.gnssX;
    v[SI.mGnssY] = m.gnssY;
    v[SI.throttleApplied] = s.applied.throttle;
    v[SI.brakeApplied] = s.applied.brake;
    return this.frame;
  }
}
