/**
 * The conductor of one VILS session: a Conductor (conductor.ts) with the session's in-process assets (the NPC
 * world, each simulated ego's plant, each plant of `vils realtime`), the external assets that join over the
 * UDP protocol (asset-server.ts takes a session as its AssetHub), and a cooperative driver, advance(target),
 * that the caller's own loop calls: the live scene runner once per tick, `vils run` once per chunk.
 *
 * It is the one hub around the Conductor: every loop that runs a session goes through it. A caller with a loop
 * of its own (the live scene, `vils run`, `vils realtime`) calls advance(); one without (the shared-memory cells
 * of `vils time-grid`, tests with external assets) hands the session to runSession (run-session.ts), which
 * loops advance() greedily, paced or on the wall clock. In-process assets step one after another in a fixed
 * order and the core counts up between them, by the rules: the order never depends on the event loop. Assets
 * may add data dependencies (`ready`), which the rule alone does not express: the world's policy step at s
 * needs every simulated ego's report at exactly s, and an ego needs the world's step at the last 0.1 s boundary
 * before it ticks on (src/scenario/assets.ts). With them, a session's results do not depend on the order in
 * which its assets happen to step, so a scenario stays bit-for-bit deterministic under the conductor.
 *
 * Modes (conductor.ts):
 *   - afap / lockstep: advance(target) steps in-process assets and counts the core up to `target` as the rule
 *     lets it; when only external assets can move the session on, it waits for their reports (up to maxWaitS,
 *     then returns short of the target, `held`). A caller pacing by the wall clock passes the wall clock's time
 *     as the target (at most real time, slower when an asset holds the core); a greedy one passes the end.
 *   - realtime: a wall-clock asset (`wallName`) is dragged to the target first, so the core follows the caller's
 *     clock and nothing ever holds it; in-process assets then step up to Tc. With `wallName: null` the session
 *     has no wall clock of its own (its wall-clock assets join over the protocol): the core counts up to the
 *     target by the rule, which in realtime only wall-clock assets can hold. A `detachable` asset (a simulated
 *     ego) steps only within the advance's wall-time budget; one left behind by more than dmax is lagging, and
 *     `waitsFor(name)` tells its dependents not to wait for it but to use its last output (extrapolated). The
 *     NPC world is not detachable: the frame is its output, so the tick runs its step as it always did.
 *
 * Held counts: a count-up an asset could not make because of the rule is counted once per value of Tc (an asset
 * that waits through three changes of Tc was held three times), as an external asset counts its own.
 */
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { Conductor, type AssetKind, type AssetStatus, type ConductorMode, type ReportResult } from './conductor.js';
import type { AdvanceOptions, AdvanceResult, AssetHub, RunnerEvent, SessionAsset, SessionStatus, TimeSessionOptions } from './session-types.js';
import { ConductorWatch } from './watch.js';

export type { AdvanceOptions, AdvanceResult, AssetHub, RunnerEvent, SessionAsset, SessionStatus, TimeSessionOptions } from './session-types.js';

interface InProcess {
  readonly asset: SessionAsset;
  /** the Tc at which its last held count-up was counted */
  heldAt: number;
}

interface External {
  lastHeardS: number;
}

export class TimeSession implements AssetHub {
  readonly mode: ConductorMode;
  readonly wallName: string | null;
  /** the clock of the session's timeouts, waits and budgets (runSession's default) */
  readonly clock: Clock;
  private c: Conductor;
  private readonly opts: TimeSessionOptions;
  private readonly timeoutS: number;
  private readonly inProcess: InProcess[] = [];
  private readonly externals = new Map<string, External>();
  private readonly tracked = new Map<string, number>();
  private readonly trackedHeldAt = new Map<string, number>();
  private readonly tcListeners = new Set<(tcUs: number) => void>();
  private readonly eventListeners = new Set<(e: RunnerEvent) => void>();
  private readonly watch: ConductorWatch;
  private wake: (() => void) | undefined;
  /** the pending sleep of waitForChange and when it ends [s] (reused: one timer, not one per wait) */
  private sleeping: Promise<void> | undefined;
  private sleepingUntil = -Infinity;
  private budgetSpent = false;
  private lastTc = 0;
  /** advances that ended short of their target (afap / lockstep) and their wait [s] */
  private heldAdvances = 0;
  private waitedS = 0;
  private resets = 0;

  constructor(opts: TimeSessionOptions) {
    this.opts = opts;
    this.mode = opts.mode;
    this.clock = opts.clock ?? systemClock;
    this.timeoutS = opts.assetTimeoutS ?? 2;
    this.watch = new ConductorWatch(opts.checkInvariants ?? true, (e) => this.emit(e));
    this.wallName = opts.mode === 'realtime' ? (opts.wallName === undefined ? 'wall-clock' : opts.wallName) : null;
    this.c = this.fresh();
  }

  private fresh(): Conductor {
    const o = this.opts;
    const c = new Conductor({ mode: o.mode, coreStepUs: o.coreStepUs, dmaxUs: o.mode === 'lockstep' ? undefined : o.dmaxUs });
    if (this.wallName) c.join(this.wallName, { stepUs: o.coreStepUs, kind: 'wallclock', atS: this.clock.now() });
    return c;
  }

  get conductor(): Conductor {
    return this.c;
  }

  /** Tc [µs] */
  get timeUs(): number {
    return this.c.timeUs;
  }

  /** Adds an in-process asset (stepped in the order added). Throws the conductor's JoinError if refused. */
  add(asset: SessionAsset): AssetStatus {
    const st = this.c.join(asset.name, { stepUs: asset.stepUs, atS: this.clock.now() });
    this.inProcess.push({ asset, heldAt: -1 });
    this.emit({ type: 'joined', name: asset.name, status: st });
    return st;
  }

  /** Removes an in-process or external asset. */
  remove(name: string, reason = 'left'): void {
    const i = this.inProcess.findIndex((p) => p.asset.name === name);
    if (i >= 0) this.inProcess.splice(i, 1);
    this.externals.delete(name);
    this.tracked.delete(name);
    this.watch.lagging.delete(name);
    const st = this.c.leave(name, reason);
    if (st) this.emit({ type: 'left', name, reason, status: st });
    this.wake?.();
  }

  // ---- in-process assets the caller steps itself (a plant on its own real-time loop) ----

  /** Adds an asset that the caller steps itself and tells the session about (mayStep, stepped). */
  track(name: string, stepUs: number): AssetStatus {
    const st = this.c.join(name, { stepUs, atS: this.clock.now() });
    this.tracked.set(name, stepUs);
    this.emit({ type: 'joined', name, status: st });
    return st;
  }

  /**
   * May the tracked asset take its next step now? First the core: realtime drags the wall clock to targetUs;
   * afap / lockstep count the core up towards targetUs as far as the rule lets it. Then the asset rule; a
   * refusal is counted as held (once per value of Tc). Synchronous, for a loop that cannot await.
   */
  mayStep(name: string, targetUs: number): boolean {
    const c = this.c;
    if (this.wallName) {
      const to = Math.floor(targetUs / c.coreStepUs) * c.coreStepUs;
      if (to > (c.assetTimeUs(this.wallName) ?? 0)) {
        c.report(this.wallName, to, { atS: this.clock.now() });
        this.afterChange();
      }
    } else {
      while (c.timeUs + c.coreStepUs <= targetUs && c.countUpCore()) this.afterChange();
    }
    if (c.timeUs !== this.lastTc) this.notifyTc();
    if (this.externals.size > 0) this.sweep();
    if (c.mayProgress(name)) return true;
    if (this.trackedHeldAt.get(name) !== c.timeUs) {
      this.trackedHeldAt.set(name, c.timeUs);
      c.countUp(name);
    }
    return false;
  }

  /** The tracked asset took the step mayStep allowed. */
  stepped(name: string): void {
    this.c.countUp(name, this.clock.now());
    this.afterChange();
    if (this.mode === 'realtime') this.trackLagging();
  }

  // ---- AssetHub: external assets ----

  attach(name: string, opts: { stepUs: number; kind?: AssetKind }): AssetStatus {
    const st = this.c.join(name, { stepUs: opts.stepUs, kind: opts.kind, atS: this.clock.now() });
    this.externals.set(name, { lastHeardS: this.clock.now() });
    this.emit({ type: 'joined', name, status: st });
    this.afterChange();
    this.wake?.();
    return st;
  }

  report(name: string, timeUs: number, held?: number): ReportResult {
    const e = this.externals.get(name);
    if (!e) return { accepted: false, reason: 'unknown_asset', timeUs: NaN, steps: 0 };
    e.lastHeardS = this.clock.now();
    const r = this.c.report(name, timeUs, { atS: e.lastHeardS, held });
    if (!r.accepted) this.emit({ type: 'refused', name, reason: r.reason ?? 'unknown_asset', timeUs });
    else if (r.steps > 0) {
      this.afterChange();
      if (this.mode === 'realtime') this.trackLagging();
      if (this.c.timeUs !== this.lastTc) this.notifyTc();
      this.wake?.();
    }
    return r;
  }

  onTc(fn: (tcUs: number) => void): () => void {
    this.tcListeners.add(fn);
    return () => this.tcListeners.delete(fn);
  }

  onEvent(fn: (e: RunnerEvent) => void): () => void {
    this.eventListeners.add(fn);
    return () => this.eventListeners.delete(fn);
  }

  /** Names of the external assets. */
  externalNames(): string[] {
    return [...this.externals.keys()];
  }

  /**
   * Should a dependent wait for this asset's output? Always outside realtime; in realtime not when the asset is
   * lagging or the advance's budget is spent (the dependent then uses its last output, extrapolated).
   */
  waitsFor(name: string): boolean {
    if (this.mode !== 'realtime') return true;
    return !this.budgetSpent && !this.watch.lagging.has(name);
  }

  /** realtime: the simulated assets more than dmax behind Tc (their outputs are stale). */
  lagging(): string[] {
    return [...this.watch.lagging];
  }

  /**
   * Back to time 0 (a scene reset): a fresh conductor with the same in-process assets; external assets are
   * removed with reason 'reset' (the protocol tells them, and they register again at the new Tc).
   */
  reset(): void {
    for (const name of [...this.externals.keys()]) this.remove(name, 'reset');
    this.c = this.fresh();
    for (const p of this.inProcess) {
      this.c.join(p.asset.name, { stepUs: p.asset.stepUs, atS: this.clock.now() });
      p.heldAt = -1;
    }
    for (const [name, stepUs] of this.tracked) this.c.join(name, { stepUs, atS: this.clock.now() });
    this.trackedHeldAt.clear();
    this.watch.lagging.clear();
    this.lastTc = 0;
    this.resets++;
    this.notifyTc();
  }

  /** Advances the session towards Tc = targetUs (see the header for what each mode does). */
  async advance(targetUs: number, opts: AdvanceOptions = {}): Promise<AdvanceResult> {
    this.sweep();
    if (this.mode === 'realtime') return this.advanceRealtime(targetUs, opts.budgetS ?? Infinity);
    const c = this.c;
    const maxWaitS = opts.maxWaitS ?? Infinity;
    let waited = 0;
    for (;;) {
      let moved = await this.stepInProcess(Infinity);
      while (c.timeUs + c.coreStepUs <= targetUs && c.countUpCore()) {
        moved = true;
        this.afterChange();
      }
      if (c.timeUs !== this.lastTc) this.notifyTc();
      if (moved) continue;
      if (c.timeUs + c.coreStepUs > targetUs) return { tcUs: c.timeUs, held: false, waitedS: waited };
      // the core is held and no in-process asset can move: only an external report (or a removal) helps
      if (this.externals.size === 0) throw new Error(`time session stuck at Tc ${c.timeUs} µs: no asset can progress (${this.describe()})`);
      const left = maxWaitS - waited;
      if (left <= 1e-6) {
        this.heldAdvances++;
        return { tcUs: c.timeUs, held: true, waitedS: waited };
      }
      const t0 = this.clock.now();
      await this.waitForChange(Math.min(left, this.sweepPeriodS()));
      const dt = this.clock.now() - t0;
      waited += dt;
      this.waitedS += dt;
      this.sweep();
    }
  }

  private async advanceRealtime(targetUs: number, budgetS: number): Promise<AdvanceResult> {
    const c = this.c;
    const step = c.coreStepUs;
    const to = Math.floor(targetUs / step) * step;
    if (this.wallName) {
      // the wall clock jumps to the target in one report (= a run of count-ups, each legal): it drags Tc along
      if (to > (c.assetTimeUs(this.wallName) ?? 0)) {
        c.report(this.wallName, to, { atS: this.clock.now() });
        this.afterChange();
      }
    } else while (c.timeUs + step <= to && c.countUpCore()) this.afterChange();
    if (c.timeUs !== this.lastTc) this.notifyTc();
    this.budgetSpent = false;
    const deadline = Number.isFinite(budgetS) ? this.clock.now() + budgetS : Infinity;
    while (await this.stepInProcess(deadline));
    this.budgetSpent = false;
    this.trackLagging();
    return { tcUs: c.timeUs, held: false, waitedS: 0 };
  }

  /** One pass over the in-process assets, each stepping while the rule and its data let it. */
  private async stepInProcess(deadline: number): Promise<boolean> {
    const c = this.c;
    let moved = false;
    for (const p of [...this.inProcess]) {
      const a = p.asset;
      for (;;) {
        if (!c.has(a.name)) break;
        if ((a.detachable ?? true) && this.mode === 'realtime' && this.clock.now() >= deadline) {
          this.budgetSpent = true;
          break;
        }
        if (!c.mayProgress(a.name)) {
          if (p.heldAt !== c.timeUs) {
            p.heldAt = c.timeUs;
            c.countUp(a.name); // retained: counted as held
          }
          break;
        }
        const from = c.assetTimeUs(a.name) ?? 0;
        if (a.ready && !a.ready(from)) break;
        const r = a.step(from, from + a.stepUs);
        if (r) await r;
        if (!c.has(a.name)) break;
        c.countUp(a.name, this.clock.now());
        moved = true;
        this.afterChange();
      }
    }
    return moved;
  }

  /**
   * Resolves when an external asset joins, reports progress or is removed, or after maxS [s] at the latest:
   * advance() waits here for external assets, and so does a driver with nothing else to do (runSession). One
   * waiter at a time.
   */
  waitForChange(maxS: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        if (this.wake === finish) this.wake = undefined; // an earlier waiter's late timer must not unhook a later one
        resolve();
      };
      this.wake = finish;
      void this.sleepUntil(this.clock.now() + maxS).then(finish);
    });
  }

  /** A pending sleep that ends no later than t is reused: a waiter woken by a report leaves its sleep running. */
  private sleepUntil(t: number): Promise<void> {
    if (this.sleeping && this.sleepingUntil <= t && this.sleepingUntil > this.clock.now()) return this.sleeping;
    this.sleepingUntil = t;
    this.sleeping = this.clock.sleepUntil(t);
    return this.sleeping;
  }

  private sweepPeriodS(): number {
    return Number.isFinite(this.timeoutS) ? Math.max(0.01, this.timeoutS / 4) : 0.25;
  }

  /** Removes the external assets silent for longer than the timeout. */
  sweep(): void {
    if (!Number.isFinite(this.timeoutS) || this.externals.size === 0) return;
    const now = this.clock.now();
    for (const [name, e] of [...this.externals]) if (now - e.lastHeardS > this.timeoutS) this.remove(name, 'timeout');
  }

  private notifyTc(): void {
    this.lastTc = this.c.timeUs;
    for (const fn of this.tcListeners) fn(this.c.timeUs);
  }

  private afterChange(): void {
    this.watch.checkInvariants(this.c);
  }

  private trackLagging(): void {
    this.watch.trackLagging(this.c);
  }

  private describe(): string {
    return this.c.status().assets.map((a) => `${a.name} ${a.timeUs}`).join(', ');
  }

  private emit(e: RunnerEvent): void {
    for (const fn of this.eventListeners) fn(e);
  }

  /** Which assets are external (attached over the protocol). */
  isExternal(name: string): boolean {
    return this.externals.has(name);
  }

  /** Seconds since an external asset was last heard from (NaN for an in-process one). */
  silenceS(name: string): number {
    const e = this.externals.get(name);
    return e ? this.clock.now() - e.lastHeardS : NaN;
  }

  /** The conductor's status plus the session's own counters. */
  status(): SessionStatus {
    return {
      ...this.c.status(),
      checks: this.watch.checks,
      violations: this.watch.violations,
      firstViolations: [...this.watch.firstViolations],
      heldAdvances: this.heldAdvances,
      waitedS: this.waitedS,
      resets: this.resets,
      external: this.externalNames(),
    };
  }
}
