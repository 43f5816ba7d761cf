/**
 * The JSON data port (spec §4, VDSim gui/server.py): commands in by vehicle id, state out as JSON, and per
 * vehicle a UDP JSON telemetry fan-out. `VehiclePorts` is what the HTTP plugin (src/server/io-plugin.ts) talks
 * to; `JsonDataPort` implements it over a fleet of CosimVehicles.
 */
import type { Socket } from 'node:dgram';
import type { CosimVehicle } from './vehicle.js';
import { SI } from './vds1.js';

export interface IoCommand {
  vehicle?: number;
  throttle?: number;
  brake?: number;
  steer?: number;
}

export interface TelemetryConfig {
  enabled: boolean;
  rate: number;
  send_state: boolean;
  send_cmd: boolean;
}

export interface TelemetryTarget {
  ip: string;
  port: number;
}

export interface TargetsPatch {
  vehicle?: number;
  enabled?: boolean;
  rate?: number;
  send_state?: boolean;
  send_cmd?: boolean;
  targets?: { ip?: unknown; port?: unknown }[];
}

export interface TargetsView {
  vehicles: number[];
  live: number;
  configs: Record<string, { tx: TelemetryConfig; targets: TelemetryTarget[] }>;
}

export interface UnknownVehicle {
  error: string;
  vehicles: number[];
}

/** A value now, or later (vehicles in another thread answer through a message: src/session/sim-ego-thread.ts). */
export type Awaitable<T> = T | Promise<T>;

/** The vehicle ports of a running co-simulation, as the JSON data port sees them. */
export interface VehiclePorts {
  vehicleIds(): number[];
  /** The vehicle a request without `vehicle` addresses (the first of the fleet). */
  liveVehicle(): number;
  /** POST /api/io: writes the given keys into that vehicle's command; returns the snapshot, or an error. */
  command(cmd: IoCommand): Awaitable<Record<string, unknown> | UnknownVehicle>;
  /** GET /api/io: the state snapshot (the live vehicle's fields at the top, every vehicle under `fleet`). */
  snapshot(): Awaitable<Record<string, unknown>>;
  targets(): Awaitable<TargetsView>;
  /** PUT /api/io/targets: applies the patch to one vehicle's telemetry; returns the new view, or an error. */
  setTargets(patch: TargetsPatch): Awaitable<TargetsView | UnknownVehicle>;
}

export function isUnknownVehicle(x: unknown): x is UnknownVehicle {
  return typeof x === 'object' && x !== null && 'error' in x;
}

/** What the data port needs from the runner. */
export interface DataPortHost {
  readonly vehicles: readonly CosimVehicle[];
  readonly dt: number;
  timeScale(): number;
  now(): number;
  running(): boolean;
  /** Server monotonic time of the last tick [s] (the STATE timestamp). */
  lastTickAt(): number;
  protocolVersion: number;
  comms(): Record<string, unknown>;
}

const quad = (v: Float64Array, at: number): number[] => [v[at], v[at + 1], v[at + 2], v[at + 3]];
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

export class JsonDataPort implements VehiclePorts {
  private readonly byId = new Map<number, CosimVehicle>();
  /** Telemetry datagrams sent / failed. */
  readonly stats = { telemetrySent: 0, telemetryErrors: 0 };

  private socket: Socket | undefined;

  constructor(private readonly host: DataPortHost) {
    for (const v of host.vehicles) this.byId.set(v.id, v);
  }

  /** The socket telemetry datagrams are sent from (none: telemetry is configured but not sent). */
  useSocket(socket: Socket | undefined): void {
    this.socket = socket;
  }

  vehicleIds(): number[] {
    return this.host.vehicles.map((v) => v.id);
  }

  liveVehicle(): number {
    return this.host.vehicles[0].id;
  }

  private unknown(id: unknown): UnknownVehicle {
    return { error: `unknown vehicle ${String(id)}`, vehicles: this.vehicleIds() };
  }

  command(cmd: IoCommand): Record<string, unknown> | UnknownVehicle {
    const id = cmd.vehicle ?? this.liveVehicle();
    const v = this.byId.get(id);
    if (!v) return this.unknown(id);
    const io = v.io;
    if (cmd.throttle !== undefined) io.inCmd.throttle = cmd.throttle;
    if (cmd.brake !== undefined) io.inCmd.brake = cmd.brake;
    if (cmd.steer !== undefined) io.inCmd.steer = cmd.steer;
    const now = this.host.now();
    io.lastAt = now;
    io.held = true;
    v.watchdog.input({ ...io.inCmd, gear: 1, handbrake: false }, now);
    return this.snapshot();
  }

  /** One vehicle's row (VDSim snapshot keys). */
  row(v: CosimVehicle): Record<string, unknown> {
    const f = v.frame.v;
    const now = this.host.now();
    return {
      vehicle: v.id,
      t: this.host.lastTickAt(),
      sim_time: v.session.simTime,
      level: v.level,
      x: f[SI.x], y: f[SI.y], z: f[SI.z], yaw: f[SI.yaw], roll: f[SI.roll], pitch: f[SI.pitch],
      vx: f[SI.vx], vy: f[SI.vy], r: f[SI.yawRate], wx: f[SI.rollRate], wy: f[SI.pitchRate],
      ax: f[SI.ax], ay: f[SI.ay], steer: f[SI.steerApplied], throttle_applied: f[SI.throttleApplied], brake_applied: f[SI.brakeApplied],
      Fz: quad(f, SI.Fz), Ft: [0, 1, 2, 3].map((i) => [f[SI.Fx + i], f[SI.Fy + i]]), wheel_spin: quad(f, SI.wheelSpin), susp: quad(f, SI.susp),
      rack_torque: f[SI.rackTorque], kappa: quad(f, SI.slipRatio), alpha: quad(f, SI.slipAngle),
      m_gx: f[SI.mGnssX], m_gy: f[SI.mGnssY], m_ax: f[SI.mAx], m_ay: f[SI.mAy], m_wz: f[SI.mWz], m_steer: f[SI.mSteer],
      driver: !v.io.held,
      control: v.controller ? 'internal' : 'external',
      failsafe: v.watchdog.active,
      cmd_in: { ...v.io.inCmd },
      cmd: { throttle: v.command.throttle, brake: v.command.brake, steer: v.command.steer },
      io_age: Number.isNaN(v.io.lastAt) ? null : finite(now - v.io.lastAt),
      cmd_age: finite(v.watchdog.age(now)),
    };
  }

  snapshot(): Record<string, unknown> {
    const vs = this.host.vehicles;
    const fleet: Record<string, unknown> = {};
    for (const v of vs) fleet[String(v.id)] = this.row(v);
    const live = vs[0];
    return {
      ...this.row(live),
      running: this.host.running(),
      paused: false,
      setup_mode: false,
      source: 'cosim',
      dt: this.host.dt,
      time_scale: this.host.timeScale(),
      live_vid: live.id,
      vehicles: this.vehicleIds(),
      fleet,
      comms: { ...this.host.comms(), protocol: 'VDS1', protocol_version: this.host.protocolVersion },
    };
  }

  targets(): TargetsView {
    const configs: TargetsView['configs'] = {};
    for (const v of this.host.vehicles) configs[String(v.id)] = { tx: { ...v.io.tx }, targets: v.io.targets.map((t) => ({ ...t })) };
    return { vehicles: this.vehicleIds(), live: this.liveVehicle(), configs };
  }

  /** VDSim set_telemetry: rate clamped to [1, 200]; targets with an empty ip or a port outside 1..65535 are dropped. */
  setTargets(patch: TargetsPatch): TargetsView | UnknownVehicle {
    const id = patch.vehicle ?? this.liveVehicle();
    const v = this.byId.get(id);
    if (!v) return this.unknown(id);
    const tx = v.io.tx;
    if (patch.enabled !== undefined) tx.enabled = patch.enabled;
    if (patch.rate !== undefined && Number.isFinite(patch.rate)) tx.rate = Math.min(200, Math.max(1, patch.rate));
    if (patch.send_state !== undefined) tx.send_state = patch.send_state;
    if (patch.send_cmd !== undefined) tx.send_cmd = patch.send_cmd;
    if (patch.targets !== undefined) {
      v.io.targets = patch.targets
        .filter((t) => typeof t.ip === 'string' && t.ip !== '' && typeof t.port === 'number' && Number.isInteger(t.port) && t.port > 0 && t.port < 65536)
        .map((t) => ({ ip: t.ip as string, port: t.port as number }));
    }
    v.io.nextTxAt = 0;
    return this.targets();
  }

  /** The telemetry datagram of one vehicle (spec §4.5). */
  telemetryJson(v: CosimVehicle): string {
    const f = v.frame.v;
    const out: Record<string, unknown> = { veh: v.id, t: finite(this.host.lastTickAt()) };
    if (v.io.tx.send_state) {
      Object.assign(out, {
        x: f[SI.x], y: f[SI.y], z: f[SI.z], yaw: f[SI.yaw], roll: f[SI.roll], pitch: f[SI.pitch], vx: f[SI.vx], vy: f[SI.vy],
        r: f[SI.yawRate], wx: f[SI.rollRate], wy: f[SI.pitchRate], ax: f[SI.ax], ay: f[SI.ay], steer: f[SI.steerApplied], Fz: quad(f, SI.Fz),
      });
    }
    if (v.io.tx.send_cmd) out.cmd = { throttle: v.command.throttle, brake: v.command.brake, steer: v.command.steer };
    return JSON.stringify(out, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? null : x));
  }

  /** Called every tick: sends each enabled vehicle's telemetry when due (at most `rate` per second). */
  tick(now: number): void {
    const sock = this.socket;
    if (!sock) return;
    for (const v of this.host.vehicles) {
      const io = v.io;
      if (!io.tx.enabled || io.targets.length === 0 || now < io.nextTxAt) continue;
      const period = 1 / io.tx.rate;
      io.nextTxAt += period;
      if (io.nextTxAt <= now) io.nextTxAt = now + period;
      const text = this.telemetryJson(v);
      for (const t of io.targets) {
        sock.send(text, t.port, t.ip, (err) => {
          if (err) this.stats.telemetryErrors++;
          else this.stats.telemetrySent++;
        });
      }
    }
  }
}
