/**
 * The time conductor: Hakoniwa's simulation-time synchronisation (../shared/spec/time-sync.md) as a pure core.
 * No clock, no I/O, no timers: its one hub, the session (session.ts, with asset-server.ts for the assets in other
 * processes and run-session.ts for sessions without a loop of their own), decides *when* participants count up;
 * this file decides *what* a count-up does.
 *
 * Model. One core time Tc and assets i with times Ti, all integer microseconds. The core has a step ΔTc, each
 * asset its own step ΔTi, a multiple of ΔTc and at most dmax. Every count-up either progresses (adds its step)
 * or retains (adds 0):
 *   - asset i:  T'i = Ti + ΔTi;  progress iff T'i ≤ Tc                       (assetMayProgress)
 *   - core:     T'c = Tc + ΔTc;  progress iff max_i (T'c − Ti) ≤ dmax        (coreMayProgress)
 * There is no handshake: each side reads the other's current time and decides alone. Because Tc and every Ti
 * only grow, a stale read is always on the safe side (a stale Tc is smaller, a stale Ti is smaller), which is
 * why the rule works across threads and processes that see each other's times late.
 *
 * Invariants (checkInvariants), true after every count-up, join and leave in 'afap' and 'lockstep':
 *   (a.2) max_i Ti ≤ Tc     (c.2) Tc ≤ min_i Ti + dmax     (a.5) |Ti − Tj| ≤ dmax for all i, j.
 *
 * Liveness. The rule alone can deadlock: with Tc = 0, dmax = 10 and one asset of step 20, the asset waits for
 * Tc ≥ 20 and the core for the asset. join() therefore requires ΔTi to be a multiple of ΔTc and ΔTi ≤ dmax, and
 * keeps every Ti a multiple of ΔTi (hence of ΔTc). Then, for the slowest asset m, if the core is retained,
 * Tc + ΔTc > Tm + dmax, so Tc − Tm ≥ floor(dmax/ΔTc)·ΔTc ≥ ΔTm (both sides are multiples of ΔTc), and m may
 * progress: some participant can always count up.
 *
 * Join and leave. An asset joins at any time at Ti = floor(Tc / ΔTi)·ΔTi, the largest multiple of its own
 * step not above Tc. That keeps (a.2) (Ti ≤ Tc), and (c.2) and (a.5) because Tc − Ti < ΔTi ≤ dmax while every
 * other asset is already in [Tc − dmax, Tc]. Leaving only removes constraints, so it keeps all three.
 *
 * Modes.
 *   - 'afap' (as fast as possible: SIL, batch, replay): the pure rule above, bounded by dmax.
 *   - 'lockstep': dmax = ΔTc and every asset's step must equal ΔTc. The core then progresses only when every
 *     asset has reached Tc, and an asset only to Tc: every asset sees every step, and the core advances only
 *     when every asset has reported its step.
 *   - 'realtime' (a real car in the loop, or a session paced by the wall clock): the wall clock is the master.
 *     Assets of kind 'wallclock' (the real ego's GNSS stream) are never retained: their count-up always
 *     progresses and, when it passes Tc, drags Tc along (Tc := T'w, on the core grid since ΔTw is a multiple
 *     of ΔTc), so (a.2) still holds for them. The core rule is applied to the wall-clock assets only, so the
 *     core never runs more than dmax ahead of the real car, and a simulated asset can never hold the core (nor
 *     therefore the car) back. Simulated assets still obey the asset rule, so (a.2) holds for every asset,
 *     always. (c.2) and (a.5) cannot be *prevented* for simulated assets (that would mean retaining the car);
 *     they are *reported* instead: a simulated asset with Tc − Ti > dmax is `lagging`, its outputs are the ones
 *     `staleOutputs()` tells the caller to mark stale (or extrapolate), and checkInvariants() checks (c.2) and
 *     (a.5) over the assets in sync (the wall-clock assets and the simulated assets that are not lagging).
 *     A lagging asset that catches up is in sync again; nothing is removed for lagging. Wall-clock assets fed
 *     by one wall clock stay within the larger of their steps (≤ dmax) of each other; if one of several stops
 *     reporting (a dropped GNSS stream) while another drags Tc on, the (c.2)/(a.5) breach among them is
 *     likewise reported by checkInvariants(), not prevented, and the session's timeout removes the silent one.
 *
 * Reports. An asset in another thread or process applies the asset rule itself and reports its new time
 * (report()). The conductor accepts a report only if it is on the asset's grid, not behind its current time,
 * and not ahead of Tc (a wall-clock asset may be ahead: it drags Tc); anything else is refused with a reason
 * and counted, so a misbehaving asset cannot break (a.2). A report may jump several steps at once (a lost
 * datagram is superseded by the next): that equals a run of progressing count-ups, each legal.
 */

export type ConductorMode = 'afap' | 'lockstep' | 'realtime';
export type AssetKind = 'simulated' | 'wallclock';

export const MODES: readonly ConductorMode[] = ['afap', 'lockstep', 'realtime'];

export interface ConductorOptions {
  readonly mode?: ConductorMode;
  /** ΔTc [µs]. */
  readonly coreStepUs: number;
  /** dmax [µs]; in 'lockstep' it must be omitted or equal to coreStepUs. */
  readonly dmaxUs?: number;
  /** How many departed assets status() remembers (default 32). */
  readonly departedKept?: number;
}

export interface JoinOptions {
  /** ΔTi [µs]: a multiple of the core step, at most dmax. */
  readonly stepUs: number;
  readonly kind?: AssetKind;
  /** The caller's clock [s] at the join, kept as the first "last report". */
  readonly atS?: number;
}

export type JoinRefusal = 'bad_name' | 'name_taken' | 'bad_step' | 'step_not_multiple_of_core' | 'step_above_dmax' | 'lockstep_step' | 'wallclock_needs_realtime';

export class JoinError extends Error {
  constructor(readonly reason: JoinRefusal, message: string) {
    super(message);
    this.name = 'JoinError';
  }
}

export type ReportRefusal = 'unknown_asset' | 'not_integer' | 'off_grid' | 'behind' | 'ahead_of_core';

export interface ReportResult {
  readonly accepted: boolean;
  /** Why the report was refused (absent when accepted). */
  readonly reason?: ReportRefusal;
  /** The asset's time as the conductor holds it after the report [µs]. */
  readonly timeUs: number;
  /** Steps the report advanced the asset by (0 for a repeat of its current time). */
  readonly steps: number;
}

/** Per-asset statistics (what /api/status and the web map show). */
export interface AssetStatus {
  readonly name: string;
  readonly kind: AssetKind;
  readonly stepUs: number;
  /** Ti [µs]. */
  readonly timeUs: number;
  /** Tc − Ti [µs] now. */
  readonly skewUs: number;
  /** Tc − Ti sampled at every progressing core count-up: number of samples, mean, standard deviation, maximum [µs]. */
  readonly skewSamples: number;
  readonly skewMeanUs: number;
  readonly skewStdUs: number;
  readonly skewMaxUs: number;
  readonly joinedAtUs: number;
  /** Count-ups that progressed (a report of k steps counts k). */
  readonly progressed: number;
  /** Count-ups that were retained (held): counted here, or reported by an external asset about itself. */
  readonly retained: number;
  /** Core count-ups this asset held back (it was among the assets with T'c − Ti > dmax). */
  readonly heldCore: number;
  /** Reports refused, by reason. */
  readonly refused: Partial<Record<ReportRefusal, number>>;
  /** The caller's clock at the last count-up or report [s] (NaN if the caller never gave one). */
  readonly lastReportAtS: number;
  /** realtime only: Tc − Ti > dmax (its outputs are stale). */
  readonly lagging: boolean;
}

export interface DepartedAsset {
  readonly name: string;
  readonly reason: string;
  readonly atUs: number;
  readonly final: AssetStatus;
}

export interface ConductorStatus {
  readonly mode: ConductorMode;
  readonly coreTimeUs: number;
  readonly coreStepUs: number;
  readonly dmaxUs: number;
  readonly core: { readonly progressed: number; readonly retained: number; readonly dragged: number };
  readonly assets: AssetStatus[];
  readonly lagging: string[];
  readonly departed: DepartedAsset[];
}

export type Invariant = 'a.2' | 'c.2' | 'a.5';

export interface Violation {
  readonly invariant: Invariant;
  readonly detail: string;
}

/** The asset rule: may an asset at `timeUs` with step `stepUs` progress while the core is at `coreTimeUs`? */
export function assetMayProgress(timeUs: number, stepUs: number, coreTimeUs: number): boolean {
  return timeUs + stepUs <= coreTimeUs;
}

/** The core rule: may the core progress, given the smallest time among the assets that hold it (+∞: none)? */
export function coreMayProgress(coreTimeUs: number, coreStepUs: number, minAssetTimeUs: number, dmaxUs: number): boolean {
  return coreTimeUs + coreStepUs - minAssetTimeUs <= dmaxUs;
}

/** Where an asset of step `stepUs` starts when it joins at core time `coreTimeUs`. */
export function joinTimeUs(coreTimeUs: number, stepUs: number): number {
  return Math.floor(coreTimeUs / stepUs) * stepUs;
}

const NAME_RE = /^[A-Za-z0-9_.:@/-]{1,64}$/;

/** Asset names: 1–64 characters of letters, digits and _ . : @ / -. */
export function isValidAssetName(name: unknown): name is string {
  return typeof name === 'string' && NAME_RE.test(name);
}

interface AssetState {
  readonly name: string;
  readonly kind: AssetKind;
  readonly stepUs: number;
  timeUs: number;
  readonly joinedAtUs: number;
  progressed: number;
  retained: number;
  heldCore: number;
  refused: Partial<Record<ReportRefusal, number>>;
  lastReportAtS: number;
  skewN: number;
  skewMean: number;
  skewM2: number;
  skewMax: number;
}

function positiveInt(v: number, what: string): number {
  if (!Number.isSafeInteger(v) || v <= 0) throw new RangeError(`${what} must be a positive integer number of microseconds, got ${v}`);
  return v;
}

export class Conductor {
  readonly mode: ConductorMode;
  readonly coreStepUs: number;
  readonly dmaxUs: number;
  private tc = 0;
  private readonly assets = new Map<string, AssetState>();
  private readonly departedList: DepartedAsset[] = [];
  private readonly departedKept: number;
  private coreProgressed = 0;
  private coreRetained = 0;
  private coreDragged = 0;

  constructor(opts: ConductorOptions) {
    this.mode = opts.mode ?? 'afap';
    if (!MODES.includes(this.mode)) throw new RangeError(`mode must be one of ${MODES.join(', ')}, got ${String(this.mode)}`);
    this.coreStepUs = positiveInt(opts.coreStepUs, 'coreStepUs');
    if (this.mode === 'lockstep') {
      if (opts.dmaxUs !== undefined && opts.dmaxUs !== this.coreStepUs) throw new RangeError(`lockstep runs with dmax = the core step (${this.coreStepUs} µs), got dmax ${opts.dmaxUs}`);
      this.dmaxUs = this.coreStepUs;
    } else {
      if (opts.dmaxUs === undefined) throw new RangeError('dmaxUs is required outside lockstep');
      this.dmaxUs = positiveInt(opts.dmaxUs, 'dmaxUs');
      if (this.dmaxUs < this.coreStepUs) throw new RangeError(`dmax (${this.dmaxUs} µs) must be at least the core step (${this.coreStepUs} µs)`);
    }
    this.departedKept = opts.departedKept ?? 32;
  }

  /** Tc [µs]. */
  get timeUs(): number {
    return this.tc;
  }

  get size(): number {
    return this.assets.size;
  }

  has(name: string): boolean {
    return this.assets.has(name);
  }

  names(): string[] {
    return [...this.assets.keys()];
  }

  /** Ti [µs] of a present asset, undefined otherwise. */
  assetTimeUs(name: string): number | undefined {
    return this.assets.get(name)?.timeUs;
  }

  /**
   * Adds an asset at Ti = floor(Tc / ΔTi)·ΔTi (see the header: keeps (a.2), (c.2), (a.5) and liveness).
   * Throws JoinError with a reason when the name or step is not acceptable.
   */
  join(name: string, opts: JoinOptions): AssetStatus {
    const kind = opts.kind ?? 'simulated';
    if (!isValidAssetName(name)) throw new JoinError('bad_name', `asset names are 1–64 characters of [A-Za-z0-9_.:@/-], got ${JSON.stringify(name)}`);
    if (this.assets.has(name)) throw new JoinError('name_taken', `an asset named ${name} is already present`);
    const step = opts.stepUs;
    if (!Number.isSafeInteger(step) || step <= 0) throw new JoinError('bad_step', `the step must be a positive integer number of µs, got ${step}`);
    if (kind !== 'simulated' && kind !== 'wallclock') throw new JoinError('bad_step', `kind must be simulated or wallclock, got ${String(kind)}`);
    if (kind === 'wallclock' && this.mode !== 'realtime') throw new JoinError('wallclock_needs_realtime', `a wall-clock asset (${name}) needs the realtime mode, the conductor runs ${this.mode}`);
    if (this.mode === 'lockstep' && step !== this.coreStepUs) throw new JoinError('lockstep_step', `lockstep needs every step equal to the core step ${this.coreStepUs} µs, ${name} has ${step}`);
    if (step % this.coreStepUs !== 0) throw new JoinError('step_not_multiple_of_core', `the step of ${name} (${step} µs) must be a multiple of the core step ${this.coreStepUs} µs`);
    if (step > this.dmaxUs) throw new JoinError('step_above_dmax', `the step of ${name} (${step} µs) must not exceed dmax ${this.dmaxUs} µs`);
    const t = joinTimeUs(this.tc, step);
    const a: AssetState = {
      name, kind, stepUs: step, timeUs: t, joinedAtUs: t, progressed: 0, retained: 0, heldCore: 0, refused: {},
      lastReportAtS: opts.atS ?? NaN, skewN: 0, skewMean: 0, skewM2: 0, skewMax: 0,
    };
    this.assets.set(name, a);
    return this.statusOf(a);
  }

  /** Removes an asset (reason: 'left', 'timeout', 'error', ...); returns its final status, undefined if absent. */
  leave(name: string, reason = 'left'): AssetStatus | undefined {
    const a = this.assets.get(name);
    if (!a) return undefined;
    this.assets.delete(name);
    const final = this.statusOf(a);
    this.departedList.push({ name, reason, atUs: this.tc, final });
    if (this.departedList.length > this.departedKept) this.departedList.splice(0, this.departedList.length - this.departedKept);
    return final;
  }

  /** Would the asset progress if it counted up now? (The session asks before it runs an in-process step.) */
  mayProgress(name: string): boolean {
    const a = this.need(name);
    return a.kind === 'wallclock' || assetMayProgress(a.timeUs, a.stepUs, this.tc);
  }

  /**
   * One count-up of an asset by the rule: progress (Ti += ΔTi) iff T'i ≤ Tc, else retain. A wall-clock asset
   * always progresses and drags Tc to T'i when it passes it. Returns whether it progressed.
   */
  countUp(name: string, atS?: number): boolean {
    const a = this.need(name);
    if (atS !== undefined) a.lastReportAtS = atS;
    const next = a.timeUs + a.stepUs;
    if (a.kind === 'wallclock') {
      a.timeUs = next;
      a.progressed++;
      this.drag(next);
      return true;
    }
    if (next <= this.tc) {
      a.timeUs = next;
      a.progressed++;
      return true;
    }
    a.retained++;
    return false;
  }

  /**
   * An asset that applies the rule itself reports its time. Accepted iff on its grid, not behind, and not ahead
   * of Tc (a wall-clock asset may be ahead: it drags Tc). `held` is the asset's own running count of retained
   * count-ups, if it keeps one.
   */
  report(name: string, timeUs: number, opts: { atS?: number; held?: number } = {}): ReportResult {
    const a = this.assets.get(name);
    if (!a) return { accepted: false, reason: 'unknown_asset', timeUs: NaN, steps: 0 };
    if (opts.atS !== undefined) a.lastReportAtS = opts.atS;
    if (opts.held !== undefined && Number.isSafeInteger(opts.held) && opts.held > a.retained) a.retained = opts.held;
    const refuse = (reason: ReportRefusal): ReportResult => {
      a.refused[reason] = (a.refused[reason] ?? 0) + 1;
      return { accepted: false, reason, timeUs: a.timeUs, steps: 0 };
    };
    if (!Number.isSafeInteger(timeUs)) return refuse('not_integer');
    if (timeUs < a.timeUs) return refuse('behind');
    if ((timeUs - a.timeUs) % a.stepUs !== 0) return refuse('off_grid');
    if (a.kind !== 'wallclock' && timeUs > this.tc) return refuse('ahead_of_core');
    const steps = (timeUs - a.timeUs) / a.stepUs;
    a.timeUs = timeUs;
    a.progressed += steps;
    if (a.kind === 'wallclock') this.drag(timeUs);
    return { accepted: true, timeUs, steps };
  }

  /** The smallest Ti among the assets that hold the core (all in afap/lockstep, wall-clock ones in realtime). */
  minHoldingTimeUs(): number {
    let m = Infinity;
    for (const a of this.assets.values()) if (this.holdsCore(a) && a.timeUs < m) m = a.timeUs;
    return m;
  }

  /** Would the core progress if it counted up now? */
  coreMayProgress(): boolean {
    return coreMayProgress(this.tc, this.coreStepUs, this.minHoldingTimeUs(), this.dmaxUs);
  }

  /** One count-up of the core by the rule: progress (Tc += ΔTc) iff max_i (T'c − Ti) ≤ dmax, else retain. */
  countUpCore(): boolean {
    const next = this.tc + this.coreStepUs;
    if (!coreMayProgress(this.tc, this.coreStepUs, this.minHoldingTimeUs(), this.dmaxUs)) {
      this.coreRetained++;
      for (const a of this.assets.values()) if (this.holdsCore(a) && next - a.timeUs > this.dmaxUs) a.heldCore++;
      return false;
    }
    this.tc = next;
    this.coreProgressed++;
    this.sampleSkews();
    return true;
  }

  /** realtime: the simulated assets with Tc − Ti > dmax. Always empty in afap and lockstep (the rule prevents it). */
  lagging(): string[] {
    const out: string[] = [];
    for (const a of this.assets.values()) if (this.isLagging(a)) out.push(a.name);
    return out;
  }

  /** The assets whose outputs a caller should mark stale or extrapolate now (realtime: the lagging ones). */
  staleOutputs(): string[] {
    return this.lagging();
  }

  assetStatus(name: string): AssetStatus | undefined {
    const a = this.assets.get(name);
    return a && this.statusOf(a);
  }

  status(): ConductorStatus {
    return {
      mode: this.mode,
      coreTimeUs: this.tc,
      coreStepUs: this.coreStepUs,
      dmaxUs: this.dmaxUs,
      core: { progressed: this.coreProgressed, retained: this.coreRetained, dragged: this.coreDragged },
      assets: [...this.assets.values()].map((a) => this.statusOf(a)),
      lagging: this.lagging(),
      departed: [...this.departedList],
    };
  }

  /**
   * (a.2) over every asset; (c.2) and (a.5) over the assets in sync (all of them outside realtime; in realtime
   * the wall-clock assets and the simulated assets that are not lagging). Empty when all hold.
   */
  checkInvariants(): Violation[] {
    const out: Violation[] = [];
    let lo = Infinity;
    let hi = -Infinity;
    let loName = '';
    let hiName = '';
    for (const a of this.assets.values()) {
      if (a.timeUs > this.tc) out.push({ invariant: 'a.2', detail: `${a.name}: Ti ${a.timeUs} > Tc ${this.tc}` });
      if (this.isLagging(a)) continue;
      if (a.timeUs < lo) [lo, loName] = [a.timeUs, a.name];
      if (a.timeUs > hi) [hi, hiName] = [a.timeUs, a.name];
    }
    if (lo === Infinity) return out;
    if (this.tc > lo + this.dmaxUs) out.push({ invariant: 'c.2', detail: `Tc ${this.tc} > ${loName} ${lo} + dmax ${this.dmaxUs}` });
    if (hi - lo > this.dmaxUs) out.push({ invariant: 'a.5', detail: `${hiName} ${hi} − ${loName} ${lo} > dmax ${this.dmaxUs}` });
    return out;
  }

  private holdsCore(a: AssetState): boolean {
    return this.mode !== 'realtime' || a.kind === 'wallclock';
  }

  private isLagging(a: AssetState): boolean {
    return this.mode === 'realtime' && a.kind === 'simulated' && this.tc - a.timeUs > this.dmaxUs;
  }

  private drag(t: number): void {
    if (t > this.tc) {
      this.tc = t;
      this.coreDragged++;
      this.sampleSkews();
    }
  }

  private sampleSkews(): void {
    for (const a of this.assets.values()) {
      const s = this.tc - a.timeUs;
      a.skewN++;
      const d = s - a.skewMean;
      a.skewMean += d / a.skewN;
      a.skewM2 += d * (s - a.skewMean);
      if (s > a.skewMax) a.skewMax = s;
    }
  }

  private need(name: string): AssetState {
    const a = this.assets.get(name);
    if (!a) throw new RangeError(`no asset named ${name}`);
    return a;
  }

  private statusOf(a: AssetState): AssetStatus {
    return {
      name: a.name,
      kind: a.kind,
      stepUs: a.stepUs,
      timeUs: a.timeUs,
      skewUs: this.tc - a.timeUs,
      skewSamples: a.skewN,
      skewMeanUs: a.skewMean,
      skewStdUs: a.skewN > 1 ? Math.sqrt(a.skewM2 / a.skewN) : 0,
      skewMaxUs: a.skewMax,
      joinedAtUs: a.joinedAtUs,
      progressed: a.progressed,
      retained: a.retained,
      heldCore: a.heldCore,
      refused: { ...a.refused },
      lastReportAtS: a.lastReportAtS,
      lagging: this.isLagging(a),
    };
  }
}
