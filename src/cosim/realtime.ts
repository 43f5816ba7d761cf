/**
 * The co-simulation server behind `vils realtime`: a drop-in for VDSim's vdsim_realtime (spec §2). A fleet of
 * vehicles (SimSession each) ticks on one absolute wall-clock schedule (the plant's RealTimeLoop over the shared
 * Pacer: an overrun is counted and the missed ticks skipped, never caught up in a burst). Per tick, in VDSim's
 * order (§2.2): prune legacy subscribers; for each vehicle, the internal controller or the command watchdog
 * (fail-safe after cmd_timeout without a valid CMD, released by the next one), then tick(dt); then emit STATE.
 *
 * Commands arrive between ticks on the event loop and are latched at once (ZOH). Two routing modes:
 *  - legacy (no comms): one socket on the CMD port; STATE of every vehicle goes to the seed subscriber
 *    (state-ip:state-port) and to the source address of every accepted CMD, dropped after 2 s without one
 *    (§2.3); STATE is sent from the CMD socket.
 *  - comms: the CommsRouter's listen ports (fan-in) and TX channels (fan-out, templates).
 * The JSON data port (§4) is served by src/server/io-plugin.ts over `dataPort`.
 *
 * Time: the fleet is one asset (`plant`, step dt) of a time conductor (src/time/session.ts) that external
 * simulators may join over the asset protocol. realtime (default): the wall clock is the master — the loop's
 * schedule, including the ticks an overrun skipped — and the plant is never held; a plant more than dmax
 * behind it (after overruns) is reported lagging. afap / lockstep: before each tick the core counts up to the
 * schedule as far as the rule lets it, and the plant ticks only if the rule lets it (a held tick is skipped,
 * never made up in a burst), so a slow asset slows the plant down: lockstep keeps every asset within one step.
 */
import type { RemoteInfo, Socket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { FlatGround } from '../plant/ground/flat.js';
import type { GroundProvider } from '../plant/ground/ground.js';
import { InclinedGround } from '../plant/ground/inclined.js';
import { SplitMuGround } from '../plant/ground/split-mu.js';
import { type FailsafeSteer, FAILSAFE_COMMAND, RealTimeLoop, type RealTimeLoopStats } from '../plant/runners/real-time.js';
import { type Clock, systemClock } from '../time/clock.js';
import { TimedWorld, TimeSettingsError, defaultTimeSettings, sessionStatusJson, type TimeJson, type TimeSession, type TimeSettings } from '../time/index.js';
import { CommsRouter } from './comms/router.js';
import { JsonDataPort } from './ports.js';
import type { FleetWorld, GroundSpec } from './scene.js';
import { TxRing, bindUdp, closeSocket, senderSocket } from './udp.js';
import { MAX_STATE_BYTES, REJECT_REASONS, type RejectCounts, VDS1_VERSION, Vds1CmdReceiver, encodeState, rejectCounts } from './vds1.js';
import { SourceFilter, SourceListError, allowAllWarning, isLoopbackAddress } from './sources.js';
import { CosimVehicle } from './vehicle.js';

export const DEFAULT_CMD_PORT = 7001;
export const DEFAULT_STATE_IP = '127.0.0.1';
export const DEFAULT_STATE_PORT = 7002;
/** Auto-discovered legacy subscribers are dropped after this long without a CMD [s]. */
export const SUBSCRIBER_TIMEOUT_S = 2;
/**
 * Auto-discovered legacy subscribers at most (VDSim's rule sends STATE to the source of every accepted CMD: one
 * 76-byte CMD buys 2 s of 200 Hz STATE, so the number of addresses it answers is bounded; 0 switches it off).
 */
export const DEFAULT_MAX_AUTO_SUBSCRIBERS = 4;
/** The command ports listen here unless told otherwise: answering other machines is a choice (allowSources). */
export const DEFAULT_BIND_ADDRESS = '127.0.0.1';

export type RealtimeWorld = FleetWorld;

export interface RealtimeConfig {
  world: RealtimeWorld;
  /** Sim step [s]; the loop period is dt / timeScale. */
  dt: number;
  /** Seconds without a valid CMD before the fail-safe (≤ 0 disables). */
  cmdTimeoutS: number;
  timeScale?: number;
  /** VDSim's live time-scale sidecar (`<scene dir>/time_scale`), polled 4 times a second. */
  timeScaleFile?: string;
  /** Stop once vehicle 0's sim time reaches this [s] (0: run until stopped). */
  tEndS?: number;
  /** VDS1 version spoken (default 5; VDSim's server has no negotiation). */
  protocolVersion?: number;
  failsafeSteer?: FailsafeSteer;
  /** Fail-safe brake pedal (default 0.3). */
  failsafeBrake?: number;
  /** A command from the JSON data port is held until this many seconds pass (0: held until a VDS1 CMD, as VDSim's GUI). */
  ioTimeoutS?: number;
  /** Legacy mode ports (used when the world has no comms). */
  cmdPort?: number;
  stateIp?: string;
  statePort?: number;
  /** default 127.0.0.1; beyond loopback, allowSources must name who is answered */
  bindAddress?: string;
  /** IPv4 addresses or a.b.c.d/n blocks whose datagrams are taken (loopback always is); others are dropped and counted */
  allowSources?: readonly string[];
  /** auto-discovered legacy subscribers at most (default 4; 0: none, STATE only to the configured state address) */
  maxAutoSubscribers?: number;
  /** Legacy subscribers are dropped after this long without a CMD (default 2 s, VDSim's). */
  subscriberTimeoutS?: number;
  clock?: Clock;
  /** the time conductor (default: realtime, dmax 100 ms) */
  time?: TimeSettings;
}

/** The fleet's asset name in the conductor. */
export const PLANT_ASSET = 'plant';

interface Subscriber {
  address: string;
  port: number;
  lastSeen: number;
  seed: boolean;
}

export interface RealtimeCounters {
  ticks: number;
  overruns: number;
  skippedTicks: number;
  maxLateS: number;
  /** Datagrams received on command ports. */
  rx: number;
  accepted: number;
  drops: RejectCounts;
  /** Frames encoded / datagrams handed to the kernel / send errors. */
  txFrames: number;
  txDatagrams: number;
  txErrors: number;
  /** Text frames dropped for not fitting the TX buffer. */
  txOversize: number;
  handlerErrors: number;
  subscribers: number;
  /** legacy subscribers not added: the auto-subscriber cap was reached (their CMDs are still taken) */
  subscribersRefused: number;
  /** datagrams from addresses outside allowSources, dropped before decoding */
  refusedSources: number;
  /** ticks the conductor held the plant (afap / lockstep) */
  heldTicks: number;
  vehicles: { id: number; failsafe: boolean; failsafeEntries: number; failsafeTicks: number; accepted: number; lastEntryDelayS: number | null; maxEntryDelayS: number | null }[];
}

export function groundFor(g: GroundSpec): GroundProvider {
  if (g.grade !== 0 || g.bank !== 0) return new InclinedGround(g.grade, g.bank, g.mu);
  if (g.muRight >= 0) return new SplitMuGround(g.mu, g.muRight, g.muBoundary);
  return new FlatGround(g.mu);
}

export class RealtimeServer {
  readonly vehicles: CosimVehicle[];
  readonly byId = new Map<number, CosimVehicle>();
  readonly loop: RealTimeLoop;
  readonly receiver: Vds1CmdReceiver<CosimVehicle>;
  readonly router: CommsRouter | null;
  readonly dataPort: JsonDataPort;
  readonly protocolVersion: number;
  readonly clock: Clock;
  /** Bound command ports (legacy: one). */
  readonly cmdPorts: number[] = [];
  readonly subscribers: Subscriber[] = [];
  readonly warnings: string[] = [];
  /** the time conductor: the plant, and external simulators that join over the asset protocol */
  readonly time: TimeSession;
  readonly timeSettings: TimeSettings;
  private readonly dtUs: number;
  private heldTicks = 0;
  private readonly cfg: RealtimeConfig;
  private readonly rxSockets: Socket[] = [];
  private txSocket: Socket | undefined;
  private readonly legacyRings: TxRing[] = [];
  private seq = 0;
  private lastTick = 0;
  private txFrames = 0;
  private txDatagrams = 0;
  private txErrors = 0;
  private handlerErrors = 0;
  private subscribersRefused = 0;
  private sourcesRefused = 0;
  private readonly sources: SourceFilter;
  /** the allow-list takes every address (0.0.0.0/0, ::/0): said at start and in the data port's comms */
  readonly allowWarning: string | null;
  private readonly maxAutoSubscribers: number;
  /** where the command ports listen */
  private readonly bindAddress: string;
  private timeScaleTimer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly onLegacySent = (err: Error | null) => {
    if (err) this.txErrors++;
    else this.txDatagrams++;
  };

  private constructor(cfg: RealtimeConfig) {
    this.cfg = cfg;
    // the comms file's allow and bind (a scenario's comms link reads the same keys) add to --allow and stand in for no --bind
    this.sources = new SourceFilter([...(cfg.allowSources ?? []), ...(cfg.world.comms?.allow ?? [])]);
    const bindAddress = (this.bindAddress = cfg.bindAddress ?? cfg.world.comms?.bind ?? DEFAULT_BIND_ADDRESS);
    if (!isLoopbackAddress(bindAddress) && this.sources.entries.length === 0) {
      throw new SourceListError(`binding ${bindAddress} answers other machines: name the addresses whose commands are taken (allow-list, e.g. --allow=192.168.1.20,10.0.0.0/24)`);
    }
    // an allow-list of every address is taken, never silently (the CLI prints it in a banner; the data port's comms says it)
    this.allowWarning = allowAllWarning(this.sources.entries, cfg.world.comms?.allow?.length ? 'the allow-list' : '--allow');
    if (this.allowWarning) this.warnings.push(this.allowWarning);
    this.maxAutoSubscribers = cfg.maxAutoSubscribers ?? DEFAULT_MAX_AUTO_SUBSCRIBERS;
    if (!(Number.isInteger(this.maxAutoSubscribers) && this.maxAutoSubscribers >= 0)) throw new SourceListError(`the auto-discovered subscriber cap must be an integer ≥ 0, got ${cfg.maxAutoSubscribers}`);
    this.clock = cfg.clock ?? systemClock;
    this.protocolVersion = cfg.protocolVersion ?? VDS1_VERSION;
    const now = this.clock.now();
    const failsafe = { ...FAILSAFE_COMMAND, brake: cfg.failsafeBrake ?? FAILSAFE_COMMAND.brake };
    const w = cfg.world;
    this.vehicles = w.vehicles.map(
      (spec) => new CosimVehicle(spec, groundFor(w.ground), { dt: cfg.dt, sensorDelayS: w.sensorDelayS, watchdog: { cmdTimeoutS: cfg.cmdTimeoutS, failsafe, failsafeSteer: cfg.failsafeSteer }, now }),
    );
    for (const v of this.vehicles) {
      this.byId.set(v.id, v);
      v.fillFrame();
    }
    this.receiver = new Vds1CmdReceiver(this.protocolVersion, (id) => this.byId.get(id), this.vehicles[0].id);
    this.router = w.comms ? new CommsRouter(w.comms, this.vehicles, this.protocolVersion) : null;
    if (this.router) this.warnings.push(...this.router.warnings);
    this.loop = new RealTimeLoop({ dt: cfg.dt, timeScale: cfg.timeScale ?? 1, maxLagTicks: 1, clock: this.clock }, (t) => this.tick(t));
    this.timeSettings = cfg.time ?? defaultTimeSettings('realtime');
    this.dtUs = Math.round(cfg.dt * 1e6);
    // the fleet is one asset that the real-time loop steps itself (tracked: mayStep / stepped)
    const dtUs = this.dtUs;
    const timed = new TimedWorld(this.timeSettings, { nativeSteps: () => [{ name: PLANT_ASSET, stepUs: dtUs }], assets: () => [] }, { clock: this.clock });
    this.time = timed.session;
    // the loop ticks the plant once per tick: in lockstep its step must be every asset's step
    if (this.time.mode === 'lockstep' && this.time.conductor.coreStepUs !== this.dtUs) throw new TimeSettingsError('step_ms', `lockstep steps the plant by its own step ${this.dtUs / 1000} ms (1/rate); step_ms is ${this.timeSettings.step_ms}`);
    this.dataPort = new JsonDataPort({
      vehicles: this.vehicles,
      dt: cfg.dt,
      timeScale: () => this.loop.timeScale,
      now: () => this.clock.now(),
      running: () => this.running,
      lastTickAt: () => this.lastTick,
      protocolVersion: this.protocolVersion,
      comms: () => this.commsInfo(),
    });
  }

  /** Builds the fleet and binds every socket (nothing ticks until run()). */
  static async create(cfg: RealtimeConfig): Promise<RealtimeServer> {
    const s = new RealtimeServer(cfg);
    try {
      await s.bind();
    } catch (err) {
      await s.close();
      throw err;
    }
    return s;
  }

  get mode(): 'legacy' | 'comms' {
    return this.router ? 'comms' : 'legacy';
  }

  get dt(): number {
    return this.cfg.dt;
  }

  get isRunning(): boolean {
    return this.running;
  }

  private onSocketError = () => {
    this.txErrors++;
  };

  private async bind(): Promise<void> {
    const address = this.bindAddress;
    const recvBufferSize = 1 << 20;
    this.txSocket = await senderSocket(this.onSocketError);
    this.dataPort.useSocket(this.txSocket);
    if (this.router) {
      for (const rx of this.router.rx) {
        const sock = await bindUdp({ port: rx.port, address, recvBufferSize, onError: this.onSocketError });
        const vid = rx.defaultVehicleId;
        sock.on('message', (msg: Buffer, rinfo: RemoteInfo) => this.onDatagram(msg, rinfo, vid, false));
        this.rxSockets.push(sock);
        this.cmdPorts.push(sock.address().port);
      }
      return;
    }
    const sock = await bindUdp({ port: this.cfg.cmdPort ?? DEFAULT_CMD_PORT, address, recvBufferSize, onError: this.onSocketError });
    const vid = this.vehicles[0].id;
    sock.on('message', (msg: Buffer, rinfo: RemoteInfo) => this.onDatagram(msg, rinfo, vid, true));
    this.rxSockets.push(sock);
    this.cmdPorts.push(sock.address().port);
    this.subscribers.push({ address: this.cfg.stateIp ?? DEFAULT_STATE_IP, port: this.cfg.statePort ?? DEFAULT_STATE_PORT, lastSeen: this.clock.now(), seed: true });
    for (let i = 0; i < this.vehicles.length; i++) this.legacyRings.push(new TxRing(MAX_STATE_BYTES));
  }

  /** One datagram on a command port: decode, route, latch. Never throws. */
  private onDatagram(msg: Buffer, rinfo: RemoteInfo, defaultVehicleId: number, legacy: boolean): void {
    try {
      if (!this.sources.allows(rinfo.address)) {
        this.sourcesRefused++;
        return;
      }
      const now = this.clock.now();
      const v = this.receiver.receive(msg, msg.length, defaultVehicleId);
      if (!v) return;
      v.applyCmd(this.receiver.cmd, now);
      if (legacy) this.touchSubscriber(rinfo.address, rinfo.port, now);
    } catch {
      this.handlerErrors++;
    }
  }

  private touchSubscriber(address: string, port: number, now: number): void {
    for (const s of this.subscribers) {
      if (s.port === port && s.address === address) {
        s.lastSeen = now;
        return;
      }
    }
    let auto = 0;
    for (const s of this.subscribers) if (!s.seed) auto++;
    if (auto >= this.maxAutoSubscribers) {
      this.subscribersRefused++;
      return;
    }
    this.subscribers.push({ address, port, lastSeen: now, seed: false });
  }

  private pruneSubscribers(now: number): void {
    const subs = this.subscribers;
    const timeout = this.cfg.subscriberTimeoutS ?? SUBSCRIBER_TIMEOUT_S;
    for (let i = subs.length - 1; i >= 0; i--) if (!subs[i].seed && now - subs[i].lastSeen > timeout) subs.splice(i, 1);
  }

  private tick(now: number): boolean {
    // the loop's schedule in simulation time, ticks an overrun skipped included: this tick covers up to its end
    const ls = this.loop.stats;
    if (!this.time.mayStep(PLANT_ASSET, (ls.ticks + ls.skippedTicks) * this.dtUs)) {
      this.heldTicks++;
      return true;
    }
    this.lastTick = now;
    const dt = this.cfg.dt;
    const ioTimeout = this.cfg.ioTimeoutS ?? 0;
    if (!this.router) this.pruneSubscribers(now);
    const vs = this.vehicles;
    for (let i = 0; i < vs.length; i++) {
      vs[i].prepareTick(now, ioTimeout);
      vs[i].session.tick(dt);
    }
    for (let i = 0; i < vs.length; i++) vs[i].fillFrame();
    this.time.stepped(PLANT_ASSET);
    const tEnd = this.cfg.tEndS ?? 0;
    const done = tEnd > 0 && vs[0].session.simTime >= tEnd - 1e-12;
    const sock = this.txSocket;
    if (sock) {
      if (this.router) {
        const before = this.seq;
        this.seq = this.router.emit(sock, this.seq, now, Date.now());
        this.txFrames += (this.seq - before) >>> 0;
      } else {
        const legacySock = this.rxSockets[0];
        const subs = this.subscribers;
        for (let i = 0; i < vs.length; i++) {
          const f = vs[i].frame;
          f.seq = this.seq;
          f.timestamp = now;
          this.seq = (this.seq + 1) >>> 0;
          const buf = this.legacyRings[i].next();
          const len = encodeState(buf, f, this.protocolVersion);
          this.txFrames++;
          for (let k = 0; k < subs.length; k++) legacySock.send(buf, 0, len, subs[k].port, subs[k].address, this.onLegacySent);
        }
      }
      this.dataPort.tick(now);
    }
    return !done;
  }

  /** Runs the loop until stop() or t_end. */
  async run(): Promise<RealTimeLoopStats> {
    this.running = true;
    const now = this.clock.now();
    for (const v of this.vehicles) v.watchdog.restart(now);
    if (this.cfg.timeScaleFile) {
      const file = this.cfg.timeScaleFile;
      this.timeScaleTimer = setInterval(() => {
        readFile(file, 'utf8').then(
          (text) => {
            const x = Number.parseFloat(text.trim());
            if (Number.isFinite(x)) this.loop.timeScale = x;
          },
          () => undefined,
        );
      }, 250);
      this.timeScaleTimer.unref();
    }
    try {
      return await this.loop.run();
    } finally {
      this.running = false;
      if (this.timeScaleTimer) clearInterval(this.timeScaleTimer);
    }
  }

  stop(): void {
    this.loop.stop();
  }

  async close(): Promise<void> {
    this.stop();
    if (this.timeScaleTimer) clearInterval(this.timeScaleTimer);
    await Promise.all([...this.rxSockets.map((s) => closeSocket(s)), closeSocket(this.txSocket)]);
    this.rxSockets.length = 0;
    this.txSocket = undefined;
  }

  /** Server monotonic time of the last tick [s]. */
  get lastTickAt(): number {
    return this.lastTick;
  }

  counters(): RealtimeCounters {
    const ls = this.loop.stats;
    const r = this.router;
    const drops = rejectCounts();
    for (const k of REJECT_REASONS) drops[k] = this.receiver.drops[k];
    return {
      ticks: ls.ticks,
      overruns: ls.overruns,
      skippedTicks: ls.skippedTicks,
      maxLateS: ls.maxLateS,
      rx: this.receiver.received,
      accepted: this.receiver.accepted,
      drops,
      txFrames: this.txFrames,
      txDatagrams: this.txDatagrams + (r ? r.tx.reduce((a, c) => a + c.datagrams, 0) : 0) + this.dataPort.stats.telemetrySent,
      txErrors: this.txErrors + (r ? r.tx.reduce((a, c) => a + c.sendErrors, 0) : 0) + this.dataPort.stats.telemetryErrors,
      txOversize: r ? r.tx.reduce((a, c) => a + c.oversize, 0) : 0,
      handlerErrors: this.handlerErrors,
      subscribers: this.subscribers.length,
      subscribersRefused: this.subscribersRefused,
      refusedSources: this.sourcesRefused,
      heldTicks: this.heldTicks,
      vehicles: this.vehicles.map((v) => ({
        id: v.id,
        failsafe: v.watchdog.active,
        failsafeEntries: v.watchdog.entries,
        failsafeTicks: v.watchdog.ticks,
        accepted: v.cmdsAccepted,
        lastEntryDelayS: v.watchdog.entries > 0 ? v.lastEntryDelayS : null,
        maxEntryDelayS: v.watchdog.entries > 0 ? v.maxEntryDelayS : null,
      })),
    };
  }

  /** The conductor's status (the plant and external assets: time, skew to Tc, held counts). */
  timeStatus(): TimeJson {
    return sessionStatusJson(this.time);
  }

  /** The comms section of the JSON snapshot. */
  commsInfo(): Record<string, unknown> {
    if (this.router) {
      return {
        mode: 'comms',
        name: this.router.spec.name,
        cmd_ports: [...this.cmdPorts],
        tx: this.router.tx.map((c) => ({ source: c.source, template: c.template.name, to: c.dests.map((d) => `${d.ip}:${d.port}`) })),
        bind: this.bindAddress,
        allow: this.sources.entries,
        sources_refused: this.sourcesRefused,
        ...(this.allowWarning ? { warning: this.allowWarning } : {}),
      };
    }
    return {
      mode: 'legacy',
      cmd_port: this.cmdPorts[0] ?? null,
      state: `${this.cfg.stateIp ?? DEFAULT_STATE_IP}:${this.cfg.statePort ?? DEFAULT_STATE_PORT}`,
      subscribers: this.subscribers.map((s) => `${s.address}:${s.port}`),
      subscribers_refused: this.subscribersRefused,
      max_auto_subscribers: this.maxAutoSubscribers,
      bind: this.bindAddress,
      allow: this.sources.entries,
      sources_refused: this.sourcesRefused,
      ...(this.allowWarning ? { warning: this.allowWarning } : {}),
    };
  }
}
