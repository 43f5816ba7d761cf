/**
 * The main thread's side of a served scenario's simulated egos running in a thread of their own
 * (sim-ego-worker.ts; `vils serve --scenario` in realtime mode, sim-egos.ts decides): it starts the worker,
 * tells it the scene's timeline (sampled from the runner every 2 ms and at every reset: the runner has no
 * events, and a pause or a stall is seen within a sample), hands it every policy step's traffic, submits the
 * egos' reports it posts as scene inputs (logged: a recording replays them exactly), answers the JSON data port
 * through it, and says what lags: the thread's late and skipped ticks, and how late the main thread takes the
 * reports. A thread that dies is logged and shown; the server goes on without its egos.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { IoCommand, TargetsPatch, TargetsView, UnknownVehicle, VehiclePorts } from '../cosim/ports.js';
import type { Scenario } from '../scenario/config.js';
import type { EgoReport } from '../scene/egos.js';
import type { SceneSnapshot } from '../scene/scene.js';
import type { StopLine } from '../vehicle/index.js';
import { projectRoot } from '../util/project-root.js';
import { RollingStats } from '../util/rolling-stats.js';
import { LATE_BUCKET_MS, hrtimeOriginNs, type EgoPriority, type FromWorker, type IoCall, type SimEgoWorkerData, type Timeline, type ToWorker, type WorkerStats } from './sim-ego-protocol.js';

/** The compiled worker: beside this module when it runs compiled, else dist/ (tests on the sources use it too). */
export function workerScript(): string {
  const here = fileURLToPath(new URL('./sim-ego-worker.js', import.meta.url));
  if (existsSync(here)) return here;
  const built = join(projectRoot(), 'dist', 'src', 'session', 'sim-ego-worker.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first (the simulated egos' thread runs the compiled code)`);
  return built;
}

export interface SimEgoThreadOptions {
  readonly scenario: Scenario;
  readonly egoIds: readonly string[];
  readonly bindAddress?: string;
  /** the scene's timeline now (running, simulation time, the runner's clock) */
  readonly timeline: () => Timeline;
  /** hands an ego report to the scene inputs at a simulation time */
  readonly report: (r: EgoReport, tS: number) => void;
  /** the thread died: `message` says why */
  readonly onFailed: (message: string) => void;
  /** an ego's fail-safe after this long without a command [s] (default 0.1) */
  readonly cmdTimeoutS?: number;
  /** plant time between reports [s] (default 0.01) */
  readonly reportEveryS?: number;
  /** the JSON data port's answer time limit [ms] (default 2000) */
  readonly ioTimeoutMs?: number;
  /** the thread's scheduling (default null: as it is) */
  readonly priority?: EgoPriority;
}

export type ThreadState = 'starting' | 'running' | 'failed' | 'closed';

/** The main thread takes the egos' reports later than this: it lags (a policy step: the scene's view of them is old). */
export const MAIN_LAG_WARN_MS = 100;

const now = () => performance.now() / 1000;

export class SimEgoThread implements VehiclePorts {
  private readonly worker: Worker;
  state: ThreadState = 'starting';
  error: string | null = null;
  cmdPorts: readonly number[] = [];
  /** the thread's scheduling as applied, or why not */
  priority = 'normal';
  stats: WorkerStats | null = null;
  /** reports submitted, and how late the main thread took them [ms] */
  reports = 0;
  readonly mainLagMs = new RollingStats(200);
  private epoch = 0;
  /** the timeline is told from the first reset on (before it the plants stand at their starts) */
  private armed = false;
  private told: Timeline | null = null;
  private readonly poller: NodeJS.Timeout;
  private nextIo = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private ready!: { resolve: () => void; reject: (e: Error) => void };
  private readonly started: Promise<void>;
  private closing: Promise<void> | null = null;
  private readonly exited: Promise<void>;
  private failureTold = false;
  private health0 = { overruns: 0, skipped: 0, late: [] as readonly number[] };

  private constructor(private readonly o: SimEgoThreadOptions) {
    this.started = new Promise((resolve, reject) => (this.ready = { resolve, reject }));
    const data: SimEgoWorkerData = {
      doc: o.scenario.resolved, file: o.scenario.file, egoIds: [...o.egoIds], bindAddress: o.bindAddress, originNs: hrtimeOriginNs(),
      cmdTimeoutS: o.cmdTimeoutS ?? 0.1, reportEveryUs: Math.round((o.reportEveryS ?? 0.01) * 1e6), priority: o.priority ?? null,
    };
    this.worker = new Worker(workerScript(), { workerData: data });
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (err) => this.fail(`it threw: ${err.message}`));
    this.exited = new Promise((resolve) => this.worker.once('exit', (code) => {
      if (this.state !== 'closed') this.fail(`it exited (code ${code})`);
      resolve();
    }));
    this.poller = setInterval(() => this.tell(), 2);
    this.poller.unref();
  }

  /** Starts the thread; resolves once its egos are built and their ports are open (rejects with why not). */
  static async start(o: SimEgoThreadOptions): Promise<SimEgoThread> {
    const t = new SimEgoThread(o);
    try {
      await t.started;
    } catch (err) {
      await t.close();
      throw err;
    }
    return t;
  }

  get alive(): boolean {
    return this.state === 'running';
  }

  private post(m: ToWorker): void {
    if (this.state === 'running' || this.state === 'starting') this.worker.postMessage(m);
  }

  private onMessage(m: FromWorker): void {
    switch (m.type) {
      case 'ready':
        this.state = 'running';
        this.cmdPorts = m.cmdPorts;
        this.stats = m.stats;
        this.priority = m.priority;
        this.ready.resolve();
        return;
      case 'failed':
        this.fail(m.message);
        return;
      case 'reports':
        // taken before a reset; or still queued when the thread failed (its egos have left the scene)
        if (m.epoch !== this.epoch || this.state !== 'running') return;
        this.mainLagMs.push((now() - m.wallS) * 1000);
        for (const r of m.reports) {
          this.reports++;
          this.o.report(r.report, r.t);
        }
        return;
      case 'stats':
        this.stats = m.stats;
        return;
      case 'io': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        p.resolve(m.value);
        return;
      }
      case 'closed':
        return;
    }
  }

  private fail(message: string): void {
    if (this.state === 'failed' || this.state === 'closed') return;
    const starting = this.state === 'starting';
    this.state = 'failed';
    this.error = message;
    clearInterval(this.poller);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`the simulated egos' thread failed: ${message}`));
    }
    this.pending.clear();
    if (starting) this.ready.reject(new Error(message));
    else this.o.onFailed(message);
  }

  /** Tells the thread the scene's timeline when it changed (a start, a pause, a stall given up, a reset). */
  tell(): void {
    if (!this.armed || this.state !== 'running') return;
    const tl = this.o.timeline();
    const last = this.told;
    const same = last !== null && last.running === tl.running && (tl.running ? Math.abs(tl.simS - tl.wallS - (last.simS - last.wallS)) < 1e-4 : tl.simS === last.simS);
    if (same) return;
    this.told = tl;
    this.post({ type: 'timeline', epoch: this.epoch, timeline: tl });
  }

  /**
   * The scene was reset: the plants back to their starts, a new epoch (reports of the old one are dropped), and
   * the new timeline once the runner has re-anchored (it does right after the reset hook returns).
   */
  reset(): void {
    this.armed = true;
    this.epoch++;
    this.told = null;
    this.post({ type: 'reset', epoch: this.epoch });
    queueMicrotask(() => this.tell());
  }

  /** A policy step's snapshot: the traffic each ego's autopilot sees. */
  observe(t: number, snap: SceneSnapshot, stops: readonly StopLine[]): void {
    if (!this.alive) return;
    const npcs = snap.npcs.map((n) => ({ x: n.x, y: n.y, vx: n.vx, vy: n.vy, length: n.length, width: n.width, yaw: n.yaw }));
    const egos = snap.egos.map((e) => ({ egoId: e.egoId, stale: e.stale, collided: e.collided, x: e.x, y: e.y, vx: e.speed * Math.cos(e.yaw), vy: e.speed * Math.sin(e.yaw), length: e.length, width: e.width, yaw: e.yaw }));
    const s = stops.map((p) => ({ x: p.x, y: p.y, yaw: p.yaw, exitX: p.exitX, exitY: p.exitY, length: p.length, yellow: p.yellow }));
    this.post({ type: 'traffic', epoch: this.epoch, t, npcs, egos, stops: s });
  }

  /** Throws in the thread (tests: a thread that dies must not take the server with it). */
  fault(message: string): void {
    this.post({ type: 'fault', message });
  }

  // ---- the JSON data port, answered by the thread ----

  private call<T>(c: IoCall): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`the simulated egos' thread is ${this.state}${this.error ? ` (${this.error})` : ''}`));
    const id = this.nextIo++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the simulated egos' thread did not answer within ${this.o.ioTimeoutMs ?? 2000} ms`));
      }, this.o.ioTimeoutMs ?? 2000);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.post({ type: 'io', id, call: c });
    });
  }

  vehicleIds(): number[] {
    return this.o.egoIds.map((id) => this.o.scenario.egos.find((e) => e.id === id)!.vehicleId);
  }

  liveVehicle(): number {
    return this.vehicleIds()[0];
  }

  command(cmd: IoCommand): Promise<Record<string, unknown> | UnknownVehicle> {
    return this.call({ op: 'command', cmd });
  }

  snapshot(): Promise<Record<string, unknown>> {
    return this.call({ op: 'snapshot' });
  }

  targets(): Promise<TargetsView> {
    return this.call({ op: 'targets' });
  }

  setTargets(patch: TargetsPatch): Promise<TargetsView | UnknownVehicle> {
    return this.call({ op: 'setTargets', patch });
  }

  // ---- what lags ----

  /** Tick lateness p50/p99 [ms] from a lateness histogram (LATE_BUCKET_MS buckets: a bucket's upper edge). */
  static latePercentiles(h: readonly number[]): { p50: number; p99: number; n: number } {
    const n = h.reduce((a, b) => a + b, 0);
    const at = (q: number) => {
      let acc = 0;
      for (let i = 0; i < h.length; i++) if ((acc += h[i]) >= q * n) return Math.round((i + 1) * LATE_BUCKET_MS * 10) / 10;
      return NaN;
    };
    return n === 0 ? { p50: 0, p99: 0, n } : { p50: at(0.5), p99: at(0.99), n };
  }

  /** GET /api/status `sim_egos.thread`. */
  status(): Record<string, unknown> {
    const s = this.stats;
    const lag = this.mainLagMs.summary();
    return {
      state: this.state, error: this.error, priority: this.priority,
      ticks: s?.ticks ?? 0, overruns: s?.overruns ?? 0, skipped_ticks: s?.skippedTicks ?? 0,
      late_ms: s ? { ...SimEgoThread.latePercentiles(s.lateHistogram), max: Math.round(s.maxLateMs * 1000) / 1000 } : null,
      plant_ahead_ms: s ? Math.round(s.aheadMs * 1000) / 1000 : null,
      reports: this.reports,
      main_lag_ms: lag,
      lagging: this.lagging(lag.p99),
    };
  }

  private lagging(mainP99: number): string[] {
    const out: string[] = [];
    if (this.state === 'failed') out.push('thread (failed)');
    if (mainP99 > MAIN_LAG_WARN_MS) out.push('main thread');
    return out;
  }

  /** A line for the periodic health log when something lagged since the last call (null: nothing did). */
  health(): string | null {
    const s = this.stats;
    if (this.state === 'failed') {
      // once: the failure itself was logged as an error when it happened
      if (this.failureTold) return null;
      this.failureTold = true;
      return `simulated egos' thread failed: ${this.error}; their STATE and commands have stopped`;
    }
    if (!s) return null;
    const h0 = this.health0;
    const overruns = s.overruns - h0.overruns;
    const skipped = s.skippedTicks - h0.skipped;
    const window = s.lateHistogram.map((c, i) => c - (h0.late[i] ?? 0));
    this.health0 = { overruns: s.overruns, skipped: s.skippedTicks, late: s.lateHistogram };
    const late = SimEgoThread.latePercentiles(window);
    const lag = this.mainLagMs.summary();
    const parts: string[] = [];
    if (overruns > 0) parts.push(`the egos' thread started ${overruns} tick${overruns === 1 ? '' : 's'} a period late or more (${skipped} skipped), tick lateness p99 ${late.p99} ms`);
    if (lag.p99 > MAIN_LAG_WARN_MS) parts.push(`the main thread takes the egos' reports late (p99 ${lag.p99.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms): the scene sees them late, their STATE is not delayed`);
    return parts.length ? `simulated egos: ${parts.join('; ')}` : null;
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.poller);
      const wasAlive = this.state === 'running' || this.state === 'starting';
      this.state = 'closed';
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error("the simulated egos' thread closed"));
      }
      this.pending.clear();
      if (wasAlive) {
        this.worker.postMessage({ type: 'close' } satisfies ToWorker);
        // its sockets closed (the last STATE out), then it ends; a thread that does not is terminated
        const limit = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
        await Promise.race([this.exited, limit]);
      }
      await this.worker.terminate();
    })();
    return this.closing;
  }
}
