/**
 * Drives a Conductor: decides when the core and the in-process assets count up, and keeps external assets
 * (asset-server.ts, the shared-memory workers of `vils time-grid`) honest with timeouts.
 *
 * Core schedule:
 *   - greedy (speed = Infinity, the default outside realtime): the core counts up, by the rule, as far as it
 *     may whenever an asset reports, joins or leaves: Hakoniwa's as-fast-as-possible conductor.
 *   - paced (a finite speed): the core counts up once per Pacer tick of ΔTc/speed seconds, by the rule, and a
 *     retained count-up is simply lost (Hakoniwa's core at its wall interval Δtc): Tc runs at `speed` when the
 *     assets keep up and slower when they do not, never in a burst to catch up.
 *   - realtime (speed defaults to 1): the wall clock is the master, Tc ≈ Tc0 + speed·(now − t0) on the core
 *     grid, counted up count-up by count-up to that target at every tick (it does catch up after a late tick);
 *     only wall-clock assets may hold it, and they keep up by construction.
 *
 * In-process assets are async functions step(fromUs, toUs); each runs its own loop: when the rule lets it
 * progress it runs the step and then counts up, otherwise it counts a retained count-up and waits for Tc to
 * change. A wall-clock asset (realtime) is counted up by the clock instead and never waits; its step calls
 * are queued. A step that throws removes its asset ('error'); a step still running after `assetTimeoutS`
 * removes it ('timeout'), so it cannot wedge the rest (its late completion is ignored).
 *
 * External assets are attached and report their own times; one not heard from for `assetTimeoutS` is removed
 * ('timeout'). They must re-send their report while they wait for Tc (a heartbeat), as the protocol says.
 */
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { Pacer } from './pacer.js';
import { ConductorWatch } from './watch.js';
import type { AssetKind, AssetStatus, Conductor, ConductorStatus, ReportRefusal, ReportResult, Violation } from './conductor.js';

export interface InProcessAsset {
  readonly name: string;
  readonly stepUs: number;
  readonly kind?: AssetKind;
  /** Simulates [fromUs, toUs]. Called only when the rule allows it (a wall-clock asset: when the clock reaches toUs). */
  step(fromUs: number, toUs: number): Promise<void> | void;
}

export interface RunnerOptions {
  readonly clock?: Clock;
  /** Simulated seconds per clock second for a paced core; Infinity = greedy. Default: 1 in realtime, Infinity otherwise. */
  readonly speed?: number;
  /** Pacer tick [s] (default: one core step at `speed`; in realtime at least 1 ms). Outside realtime it sets the pace. */
  readonly tickS?: number;
  /** Stop when Tc reaches this [µs] and no asset in sync can progress any more without passing it. */
  readonly endUs?: number;
  /** An external asset silent, or an in-process step running, for longer than this [s] is removed (default 2; Infinity: never). */
  readonly assetTimeoutS?: number;
  /** Check the invariants after every count-up and report (default true); violations are counted in the summary. */
  readonly checkInvariants?: boolean;
}

export type RunnerEvent =
  | { readonly type: 'joined'; readonly name: string; readonly status: AssetStatus }
  | { readonly type: 'left'; readonly name: string; readonly reason: string; readonly status: AssetStatus }
  | { readonly type: 'lagging'; readonly name: string; readonly skewUs: number }
  | { readonly type: 'in_sync'; readonly name: string }
  | { readonly type: 'refused'; readonly name: string; readonly reason: ReportRefusal; readonly timeUs: number }
  | { readonly type: 'violation'; readonly violation: Violation; readonly coreTimeUs: number };

export interface RunSummary {
  readonly coreTimeUs: number;
  readonly wallS: number;
  /** Invariant checks made and violations found (0 unless a wall-clock asset misbehaves in realtime). */
  readonly checks: number;
  readonly violations: number;
  readonly firstViolations: Violation[];
  readonly status: ConductorStatus;
}

interface Entry {
  readonly name: string;
  readonly external: boolean;
  readonly kind: AssetKind;
  readonly asset?: InProcessAsset;
  lastHeardS: number;
  busySinceS: number;
  /** Queue of a wall-clock asset's step calls. */
  chain: Promise<void>;
}

export class ConductorRunner {
  readonly conductor: Conductor;
  private readonly clock: Clock;
  private readonly speed: number;
  private readonly tickS: number;
  private readonly endUs: number;
  private readonly timeoutS: number;
  private readonly entries = new Map<string, Entry>();
  private readonly tcListeners = new Set<(tcUs: number) => void>();
  private readonly eventListeners = new Set<(e: RunnerEvent) => void>();
  private readonly watch: ConductorWatch;
  private tcWaiters: (() => void)[] = [];
  private wakeCore: (() => void) | undefined;
  private running = false;
  private stopped = false;
  private lastTc: number;
  private startS = NaN;
  private tc0 = 0;

  constructor(conductor: Conductor, opts: RunnerOptions = {}) {
    this.conductor = conductor;
    this.clock = opts.clock ?? systemClock;
    this.speed = opts.speed ?? (conductor.mode === 'realtime' ? 1 : Infinity);
    if (!(this.speed > 0)) throw new RangeError(`speed must be positive (Infinity: greedy), got ${this.speed}`);
    if (conductor.mode === 'realtime' && !Number.isFinite(this.speed)) throw new RangeError('realtime needs a finite speed (the wall clock is the master)');
    const stepS = conductor.coreStepUs / 1e6 / this.speed;
    this.tickS = opts.tickS ?? (conductor.mode === 'realtime' ? Math.max(0.001, stepS) : stepS);
    this.endUs = opts.endUs ?? Infinity;
    this.timeoutS = opts.assetTimeoutS ?? 2;
    this.watch = new ConductorWatch(opts.checkInvariants ?? true, (e) => this.emit(e));
    this.lastTc = conductor.timeUs;
  }

  get paced(): boolean {
    return Number.isFinite(this.speed);
  }

  /** Calls fn with Tc after every change of Tc. Returns an unsubscribe function. */
  onTc(fn: (tcUs: number) => void): () => void {
    this.tcListeners.add(fn);
    return () => this.tcListeners.delete(fn);
  }

  onEvent(fn: (e: RunnerEvent) => void): () => void {
    this.eventListeners.add(fn);
    return () => this.eventListeners.delete(fn);
  }

  /** Adds an in-process asset (before or during run()). Throws the conductor's JoinError if it is refused. */
  addAsset(asset: InProcessAsset): AssetStatus {
    const status = this.conductor.join(asset.name, { stepUs: asset.stepUs, kind: asset.kind, atS: this.clock.now() });
    const e: Entry = { name: asset.name, external: false, kind: status.kind, asset, lastHeardS: this.clock.now(), busySinceS: NaN, chain: Promise.resolve() };
    this.entries.set(asset.name, e);
    this.joined(status);
    if (this.running && e.kind === 'simulated') void this.assetLoop(e);
    return status;
  }

  /** Adds an external asset, which reports its own times with report(). Throws JoinError if refused. */
  attach(name: string, opts: { stepUs: number; kind?: AssetKind }): AssetStatus {
    const status = this.conductor.join(name, { stepUs: opts.stepUs, kind: opts.kind, atS: this.clock.now() });
    this.entries.set(name, { name, external: true, kind: status.kind, lastHeardS: this.clock.now(), busySinceS: NaN, chain: Promise.resolve() });
    this.joined(status);
    return status;
  }

  /** An external asset's report (also its heartbeat). */
  report(name: string, timeUs: number, held?: number): ReportResult {
    const e = this.entries.get(name);
    if (!e || !e.external) return { accepted: false, reason: 'unknown_asset', timeUs: NaN, steps: 0 };
    e.lastHeardS = this.clock.now();
    const r = this.conductor.report(name, timeUs, { atS: e.lastHeardS, held });
    if (!r.accepted) this.emit({ type: 'refused', name, reason: r.reason ?? 'unknown_asset', timeUs });
    else if (r.steps > 0) {
      this.afterChange();
      this.poke();
    }
    return r;
  }

  /** Removes an asset (reason 'left', 'timeout', 'error', ...). */
  remove(name: string, reason = 'left'): void {
    const e = this.entries.get(name);
    if (!e) return;
    this.entries.delete(name);
    this.watch.lagging.delete(name);
    const status = this.conductor.leave(name, reason);
    if (status) this.emit({ type: 'left', name, reason, status });
    this.poke();
    this.wakeAssets();
  }

  stop(): void {
    this.stopped = true;
    this.poke();
    this.wakeAssets();
  }

  /** Runs until stop(), or until endUs is reached. */
  async run(): Promise<RunSummary> {
    if (this.running) throw new Error('the runner is already running');
    this.running = true;
    this.stopped = false;
    const c = this.conductor;
    this.startS = this.clock.now();
    this.tc0 = c.timeUs;
    const pacer = this.paced ? new Pacer(this.tickS) : undefined;
    pacer?.start(this.startS);
    for (const e of this.entries.values()) if (!e.external && e.kind === 'simulated') void this.assetLoop(e);
    const sweepS = Math.min(0.05, this.timeoutS / 4);
    let nextSweep = this.startS + sweepS;
    let sleeping: Promise<void> | undefined;
    let sleepingUntil = NaN;
    while (!this.stopped) {
      const now = this.clock.now();
      let ticked = false;
      if (pacer && now >= pacer.due) {
        pacer.begin(now);
        ticked = true;
      }
      if (now >= nextSweep) {
        this.sweep(now);
        nextSweep = now + sweepS;
      }
      this.countUpCore(now, ticked);
      if (this.done()) break;
      const wake = new Promise<void>((resolve) => (this.wakeCore = resolve));
      const until = pacer ? Math.min(pacer.due, nextSweep) : nextSweep;
      if (!sleeping || sleepingUntil !== until) {
        sleepingUntil = until;
        sleeping = this.clock.sleepUntil(until);
      }
      await Promise.race([wake, sleeping]);
      this.wakeCore = undefined;
    }
    this.running = false;
    this.stopped = true;
    this.wakeAssets();
    return {
      coreTimeUs: c.timeUs,
      wallS: this.clock.now() - this.startS,
      checks: this.watch.checks,
      violations: this.watch.violations,
      firstViolations: [...this.watch.firstViolations],
      status: c.status(),
    };
  }

  /** The simulated time the clock says the core should be at [µs] (realtime), Infinity when greedy. */
  private targetUs(now: number): number {
    if (!this.paced) return Infinity;
    const step = this.conductor.coreStepUs;
    return this.tc0 + Math.floor(((now - this.startS) * this.speed * 1e6) / step + 1e-9) * step;
  }

  private countUpCore(now: number, ticked: boolean): void {
    const c = this.conductor;
    const target = Math.min(this.targetUs(now), this.endUs);
    // wall-clock assets first: they are the master and drag Tc
    for (const e of this.entries.values()) {
      if (e.external || e.kind !== 'wallclock' || !e.asset) continue;
      const asset = e.asset;
      for (let t = c.assetTimeUs(e.name) ?? Infinity; t + asset.stepUs <= target; t += asset.stepUs) {
        c.countUp(e.name, now);
        const from = t;
        e.chain = e.chain.then(() => asset.step(from, from + asset.stepUs)).catch((err: unknown) => this.failed(e, err));
        this.afterChange();
      }
    }
    if (c.size === 0 && !this.paced) return; // greedy: nothing to synchronise, nothing to wait for
    if (this.paced && c.mode !== 'realtime') {
      if (ticked && c.timeUs + c.coreStepUs <= this.endUs && c.countUpCore()) this.afterChange();
    } else while (c.timeUs + c.coreStepUs <= target && c.countUpCore()) this.afterChange();
    if (c.timeUs !== this.lastTc) {
      this.lastTc = c.timeUs;
      for (const fn of this.tcListeners) fn(c.timeUs);
      this.wakeAssets();
    }
  }

  private done(): boolean {
    if (!Number.isFinite(this.endUs)) return false;
    const c = this.conductor;
    if (c.timeUs < this.endUs) return false;
    const lagging = new Set(c.lagging());
    for (const e of this.entries.values()) {
      if (e.kind === 'wallclock' || lagging.has(e.name)) continue;
      const st = c.assetStatus(e.name);
      if (st && st.timeUs + st.stepUs <= this.endUs) return false;
    }
    return true;
  }

  private sweep(now: number): void {
    if (!Number.isFinite(this.timeoutS)) return;
    for (const e of [...this.entries.values()]) {
      const since = e.external ? e.lastHeardS : e.busySinceS;
      if (!Number.isNaN(since) && now - since > this.timeoutS) this.remove(e.name, 'timeout');
    }
  }

  private async assetLoop(e: Entry): Promise<void> {
    const c = this.conductor;
    const asset = e.asset;
    if (!asset) return;
    while (!this.stopped && this.entries.get(e.name) === e) {
      const from = c.assetTimeUs(e.name) ?? 0;
      if (from + asset.stepUs > this.endUs) {
        await this.tcChanged();
        continue;
      }
      if (!c.mayProgress(e.name)) {
        c.countUp(e.name); // retained
        await this.tcChanged();
        continue;
      }
      e.busySinceS = this.clock.now();
      try {
        await asset.step(from, from + asset.stepUs);
      } catch (err) {
        this.failed(e, err);
        return;
      }
      if (this.entries.get(e.name) !== e) return; // removed (timeout) while stepping
      e.busySinceS = NaN;
      c.countUp(e.name, this.clock.now());
      this.afterChange();
      this.poke();
    }
  }

  private failed(e: Entry, err: unknown): void {
    if (this.entries.get(e.name) !== e) return;
    this.remove(e.name, `error: ${(err as Error)?.message ?? String(err)}`);
  }

  private tcChanged(): Promise<void> {
    return new Promise((resolve) => this.tcWaiters.push(resolve));
  }

  private wakeAssets(): void {
    const w = this.tcWaiters;
    this.tcWaiters = [];
    for (const fn of w) fn();
  }

  private poke(): void {
    this.wakeCore?.();
  }

  private joined(status: AssetStatus): void {
    this.emit({ type: 'joined', name: status.name, status });
    this.afterChange();
    this.poke();
  }

  private afterChange(): void {
    if (this.conductor.mode === 'realtime') this.watch.trackLagging(this.conductor);
    this.watch.checkInvariants(this.conductor);
  }

  private emit(e: RunnerEvent): void {
    for (const fn of this.eventListeners) fn(e);
  }
}
