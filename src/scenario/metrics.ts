/**
 * The one metrics registry (seed 001 §3, spec §9.4), used by the Simulation API, `vils run` and the batch
 * runner. A metric is a function of a run's context: the vehicle's trace (trace.ts), the driving line, the
 * vehicle, and the scene's counts. Definitions:
 *
 * - cte_rms, cte_max: RMS and maximum of the distance from the CG to the driving line (point to polyline
 *   segment; the projection is searched near the previous one, so a figure of eight's crossing never jumps).
 * - heading_error_rms, heading_error_max: RMS and maximum of |yaw − heading of the nearest line segment|
 *   (wrapped to ±π) [rad] — designed by VDSim, never built there.
 * - lap_time, laps: the time of the first lap / the number of laps: a lap ends at the first return within 8 m
 *   of the start after having been more than 15 m away (VDSim's rule), heading within 60° of the start heading
 *   (VILS's addition: on a figure of eight the other lobe passes the start the other way) [s]; NaN without.
 * - peak_ay (max |a_y| [m/s²]), max_fz (max wheel load [N]), vmax (max horizontal speed [m/s]), dist (path
 *   length [m]), rms_slip (RMS over time of the largest |slip angle| of the four wheels [rad], VDSim's figure:
 *   every sample counts, standstill too, where the slip angle atan2(vy, vx) of a wheel is meaningless — near
 *   vx = 0 it is anything up to π, so a run that stands for a while reads about 1 rad), rms_slip_moving (the
 *   same over the samples with |vx| > SLIP_MOVING_MIN_VX_MPS only: the figure to compare runs by; NaN if the
 *   vehicle never moved).
 * - The ISO 7401 step-steer figures (apps/doe/metrics.py; the post-step trace begins at the first sample whose
 *   steer is at least half the largest): yaw_rate_ss, yaw_rate_peak, overshoot, time_to_peak, response_time,
 *   settling_time (5 %), ay_ss, peak_lat_g, ay_per_steer, yaw_rate_gain, understeer_k ((δ − L·r/vx)/a_y at
 *   steady state [rad/(m/s²)]).
 * - npc_contacts: ego–NPC contacts of this vehicle, counted per NPC step (0.1 s); ego_steps: NPC steps it
 *   took part in; red_runs: times it crossed a stop line while its signal showed red.
 *
 * Memory: the figures are kept up to date sample by sample (RunningMetrics, an observer of the trace), not
 * computed from a stored series, so a run of any length keeps a fixed amount: sums, maxima, the lap detector's
 * state, and for the ISO figures the post-step window (at most ISO_KEEP_ROWS samples; thinned beyond). Each
 * figure is the same number, to the bit, as the whole-series formula gives.
 */
import { type StepSteerMetrics, stepSteerMetrics } from '../plant/validation/iso7401.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { type DrivingLine, type LineProjection, project } from './line.js';
import { type Trace, type TraceObserver, TRACE_COLUMNS, TRACE_WIDTH } from './trace.js';

const G = 9.80665;
/** rms_slip_moving counts only the samples where the vehicle moves faster than this (|vx| [m/s]). */
export const SLIP_MOVING_MIN_VX_MPS = 0.5;
/**
 * The ISO 7401 figures are computed on the post-step samples (t, r, a_y, steer, vx), held from the first sample
 * that can still be the step: at most this many. A longer post-step series (a step-steer manoeuvre lasts
 * seconds; only a long run with ISO figures asked for gets here) is thinned to every 2nd, 4th … sample.
 */
export const ISO_KEEP_ROWS = 65_536;

const col = (n: (typeof TRACE_COLUMNS)[number]) => TRACE_COLUMNS.indexOf(n);
const C_T = col('t'), C_X = col('x'), C_Y = col('y'), C_YAW = col('yaw'), C_VX = col('vx'), C_VY = col('vy'), C_R = col('r'), C_AY = col('ay'), C_STEER = col('steer');
const C_FZ = col('Fz0'), C_A = col('a0');

const wrap = (a: number) => a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));

/** Sum of squares, count and largest magnitude of a series, fed one value at a time (NaN stays NaN). */
class Moments {
  sq = 0;
  n = 0;
  max = 0;
  add(v: number): void {
    this.sq += v * v;
    this.n++;
    this.max = Math.max(this.max, Math.abs(v));
  }
  get rms(): number {
    return this.n === 0 ? NaN : Math.sqrt(this.sq / this.n);
  }
  get maxAbs(): number {
    return this.n === 0 ? NaN : this.max;
  }
}

/** The post-step samples of a step-steer (see ISO_KEEP_ROWS): a window of five columns, bounded. */
class StepWindow {
  /** t, r, ay, steer, vx */
  private cols: Float64Array[] = [];
  private head = 0;
  len = 0;
  /** 1 = every sample kept; 2, 4 … once thinned */
  stride = 1;
  private since = 0;

  constructor(private readonly max: number) {}

  get capacity(): number {
    return this.cols.length ? this.cols[0].length : 0;
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
    this.stride = 1;
    this.since = 0;
  }

  steerAt(i: number): number {
    return this.cols[3][this.head + i];
  }

  dropFront(): void {
    this.head++;
    this.len--;
    if (this.len === 0) this.head = 0;
  }

  /** Appends a sample (every stride-th one once thinned; `force`: this one in any case). */
  push(t: number, r: number, ay: number, steer: number, vx: number, force: boolean): void {
    if (this.len > 0 && !force && ++this.since < this.stride) return;
    this.since = 0;
    if (this.head + this.len === this.capacity) this.makeRoom();
    const i = this.head + this.len;
    const c = this.cols;
    c[0][i] = t;
    c[1][i] = r;
    c[2][i] = ay;
    c[3][i] = steer;
    c[4][i] = vx;
    this.len++;
  }

  private makeRoom(): void {
    const cap = this.capacity;
    if (this.head > 0 && this.head >= cap / 4) {
      for (const a of this.cols) a.copyWithin(0, this.head, this.head + this.len);
      this.head = 0;
    } else if (cap < this.max) {
      const next = Math.min(this.max, Math.max(1024, cap * 2));
      this.cols = [0, 1, 2, 3, 4].map((k) => {
        const a = new Float64Array(next);
        if (cap) a.set(this.cols[k].subarray(this.head, this.head + this.len));
        return a;
      });
      this.head = 0;
    } else {
      // full: keep every other sample (the first, the step, stays) and take every 2·stride-th from now on
      for (const a of this.cols) {
        for (let k = 0, j = this.head; j < this.head + this.len; k++, j += 2) a[k] = a[j];
      }
      this.len = Math.ceil(this.len / 2);
      this.head = 0;
      this.stride *= 2;
    }
  }

  /** The held samples of column k (0 t, 1 r, 2 ay, 3 steer, 4 vx). */
  column(k: number): Float64Array {
    return this.cols.length ? this.cols[k].subarray(this.head, this.head + this.len) : new Float64Array(0);
  }
}

/**
 * Every figure of the registry's built-in metrics, kept up to date row by row (a trace observer), in memory
 * that does not grow with the run: sums, maxima, the lap detector's state, and the bounded step window. Each
 * figure is computed with the same operations in the same order as over the whole series, so it is the same
 * number to the bit.
 */
export class RunningMetrics implements TraceObserver {
  /** samples seen */
  n = 0;
  private readonly p: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
  private hint = -1;
  readonly cte = new Moments();
  readonly headingError = new Moments();
  readonly ay = new Moments();
  readonly fz = [new Moments(), new Moments(), new Moments(), new Moments()];
  readonly steer = new Moments();
  readonly slip = new Moments();
  readonly slipMoving = new Moments();
  private vmaxV = 0;
  private distV = 0;
  private px = 0;
  private py = 0;
  // the lap detector (lapTimes, one sample at a time)
  private x0 = 0;
  private y0 = 0;
  private h0 = 0;
  private lapT0 = 0;
  private left = false;
  laps = 0;
  firstLap = NaN;
  private readonly window: StepWindow;

  constructor(readonly line: DrivingLine | null, opts: { isoKeepRows?: number } = {}) {
    const k = opts.isoKeepRows ?? ISO_KEEP_ROWS;
    if (!Number.isInteger(k) || k < 2) throw new RangeError(`isoKeepRows: expected an integer ≥ 2, got ${k}`);
    this.window = new StepWindow(k);
  }

  /** The running figures of a trace's rows held in memory. */
  static of(trace: Trace, line: DrivingLine | null): RunningMetrics {
    const m = new RunningMetrics(line);
    const row = new Float64Array(TRACE_WIDTH);
    const cols = TRACE_COLUMNS.map((c) => trace.column(c));
    for (let i = 0; i < trace.retained; i++) {
      for (let c = 0; c < TRACE_WIDTH; c++) row[c] = cols[c][i];
      m.row(row, 0);
    }
    return m;
  }

  reset(): void {
    this.n = 0;
    this.hint = -1;
    for (const m of [this.cte, this.headingError, this.ay, ...this.fz, this.steer, this.slip, this.slipMoving]) {
      m.sq = 0;
      m.n = 0;
      m.max = 0;
    }
    this.vmaxV = 0;
    this.distV = 0;
    this.left = false;
    this.laps = 0;
    this.firstLap = NaN;
    this.window.clear();
  }

  row(d: Float64Array, o: number): void {
    const t = d[o + C_T], x = d[o + C_X], y = d[o + C_Y], yaw = d[o + C_YAW], vx = d[o + C_VX];
    const first = this.n === 0;
    this.n++;
    const line = this.line;
    if (line && line.xs.length >= 2) {
      project(line, x, y, this.p, this.hint);
      this.hint = this.p.seg;
      this.cte.add(this.p.cte);
      this.headingError.add(wrap(yaw - this.p.heading));
    }
    // laps
    if (first) {
      this.x0 = x;
      this.y0 = y;
      this.h0 = yaw;
      this.lapT0 = t;
    } else {
      const dd = Math.hypot(x - this.x0, y - this.y0);
      if (dd > LAP_AWAY_M) this.left = true;
      else if (this.left && dd < LAP_NEAR_M && Math.cos(yaw - this.h0) > 0.5) {
        if (this.laps++ === 0) this.firstLap = t - this.lapT0;
        this.lapT0 = t;
        this.left = false;
      }
      this.distV += Math.hypot(x - this.px, y - this.py);
    }
    this.px = x;
    this.py = y;
    this.ay.add(d[o + C_AY]);
    for (let i = 0; i < 4; i++) this.fz[i].add(d[o + C_FZ + i]);
    this.vmaxV = Math.max(this.vmaxV, Math.hypot(vx, d[o + C_VY]));
    const w = Math.max(Math.abs(d[o + C_A]), Math.abs(d[o + C_A + 1]), Math.abs(d[o + C_A + 2]), Math.abs(d[o + C_A + 3]));
    this.slip.add(w);
    if (Math.abs(vx) > SLIP_MOVING_MIN_VX_MPS) this.slipMoving.add(w);
    // the step window: from the first sample with |steer| ≥ half the largest so far (see stepSteer)
    const steer = d[o + C_STEER];
    const peakBefore = this.steer.max;
    this.steer.add(steer);
    const peak = this.steer.max;
    const as = Math.abs(steer);
    const win = this.window;
    const rises = peak > peakBefore;
    if (win.len > 0 || (as >= 0.5 * peak && as > 0.5e-9)) win.push(t, d[o + C_R], d[o + C_AY], steer, vx, rises);
    if (rises) while (win.len > 0 && Math.abs(win.steerAt(0)) < 0.5 * peak) win.dropFront();
  }

  get vmax(): number {
    return this.n === 0 ? NaN : this.vmaxV;
  }

  get dist(): number {
    return this.distV;
  }

  /** Samples held in the step window, and its storage (never more than isoKeepRows). */
  get stepWindow(): { len: number; capacity: number; stride: number } {
    return { len: this.window.len, capacity: this.window.capacity, stride: this.window.stride };
  }

  /** The ISO 7401 figures of the post-step samples (null when the steer never moves). */
  stepSteer(): (StepSteerMetrics & { steer: number; vx: number }) | null {
    const peak = this.steer.maxAbs;
    if (!(peak > 1e-9) || this.window.len === 0) return null;
    const t = this.window.column(0), r = this.window.column(1), ay = this.window.column(2), steer = this.window.column(3), vx = this.window.column(4);
    const tAfter = t.map((v) => v - t[0]);
    const m = stepSteerMetrics(r, ay, tAfter);
    const nTail = Math.max(1, Math.trunc(r.length / 5));
    const tail = (a: Float64Array) => a.subarray(a.length - nTail).reduce((p, c) => p + c, 0) / nTail;
    return { ...m, steer: tail(steer), vx: tail(vx) };
  }
}

export interface MetricContext {
  trace: Trace;
  line: DrivingLine | null;
  vehicle: Readonly<VehicleParams>;
  /** scene figures of this vehicle (absent without an NPC world) */
  scene?: { npcContacts: number; steps: number; redRuns: number };
  /**
   * The running figures of every row the trace was pushed (a RunningMetrics observing it on `line`); without
   * them they are computed from the rows the trace holds, which must then be all of them.
   */
  running?: RunningMetrics;
}

export interface MetricDefinition {
  name: string;
  unit: string;
  description: string;
  fn: (ctx: MetricContext & { running: RunningMetrics }, cache: Map<string, unknown>) => number;
}

const REGISTRY = new Map<string, MetricDefinition>();

export function registerMetric(def: MetricDefinition): void {
  REGISTRY.set(def.name, def);
}

export function listMetrics(): MetricDefinition[] {
  return [...REGISTRY.values()];
}

export function hasMetric(name: string): boolean {
  return REGISTRY.has(name);
}

/** The named metrics of one run (unknown names throw, listing the known ones). */
export function computeMetrics(names: readonly string[], ctx: MetricContext): Record<string, number> {
  for (const n of names) if (!REGISTRY.has(n)) throw new RangeError(`unknown metric '${n}' (known: ${[...REGISTRY.keys()].join(', ')})`);
  let running = ctx.running;
  if (!running) {
    if (ctx.trace.retained < ctx.trace.rows) {
      throw new RangeError(`metrics: the trace holds ${ctx.trace.retained} of its ${ctx.trace.rows} rows; give the RunningMetrics that observed them all (MetricContext.running)`);
    }
    running = RunningMetrics.of(ctx.trace, ctx.line);
  }
  const full = { ...ctx, running };
  const cache = new Map<string, unknown>();
  const out: Record<string, number> = {};
  for (const n of names) out[n] = REGISTRY.get(n)!.fn(full, cache);
  return out;
}

function cached<T>(cache: Map<string, unknown>, key: string, make: () => T): T {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

const LAP_NEAR_M = 8;
const LAP_AWAY_M = 15;

/** End times of the laps (see the header). */
export function lapTimes(t: ArrayLike<number>, x: ArrayLike<number>, y: ArrayLike<number>, yaw: ArrayLike<number>, near = LAP_NEAR_M, away = LAP_AWAY_M): number[] {
  const laps: number[] = [];
  if (t.length === 0) return laps;
  const x0 = x[0], y0 = y[0], h0 = yaw[0];
  let t0 = t[0];
  let left = false;
  for (let i = 1; i < t.length; i++) {
    const d = Math.hypot(x[i] - x0, y[i] - y0);
    if (d > away) left = true;
    else if (left && d < near && Math.cos(yaw[i] - h0) > 0.5) {
      laps.push(t[i] - t0);
      t0 = t[i];
      left = false;
    }
  }
  return laps;
}

type Ctx = MetricContext & { running: RunningMetrics };

const iso = (pick: (m: StepSteerMetrics & { steer: number; vx: number }, ctx: Ctx) => number) => (ctx: Ctx, cache: Map<string, unknown>) => {
  const m = cached(cache, 'iso', () => ctx.running.stepSteer());
  return m ? pick(m, ctx) : NaN;
};

const DEFS: MetricDefinition[] = [
  { name: 'cte_rms', unit: 'm', description: 'RMS cross-track error to the driving line', fn: (c) => c.running.cte.rms },
  { name: 'cte_max', unit: 'm', description: 'largest cross-track error to the driving line', fn: (c) => c.running.cte.maxAbs },
  { name: 'heading_error_rms', unit: 'rad', description: 'RMS of yaw minus the heading of the nearest line segment', fn: (c) => c.running.headingError.rms },
  { name: 'heading_error_max', unit: 'rad', description: 'largest |yaw − line heading|', fn: (c) => c.running.headingError.maxAbs },
  { name: 'lap_time', unit: 's', description: 'time of the first lap (back within 8 m of the start, same heading, after > 15 m away)', fn: (c) => c.running.firstLap },
  { name: 'laps', unit: '', description: 'laps completed', fn: (c) => c.running.laps },
  { name: 'peak_ay', unit: 'm/s²', description: 'largest |lateral acceleration|', fn: (c) => c.running.ay.maxAbs },
  { name: 'max_fz', unit: 'N', description: 'largest wheel load', fn: (c) => Math.max(...c.running.fz.map((m) => m.maxAbs)) },
  { name: 'vmax', unit: 'm/s', description: 'largest horizontal speed', fn: (c) => c.running.vmax },
  { name: 'dist', unit: 'm', description: 'path length', fn: (c) => c.running.dist },
  {
    name: 'rms_slip', unit: 'rad',
    description: `RMS over time of the largest |slip angle| of the four wheels, every sample (VDSim's figure: standstill counts too, where the slip angle means nothing and reads up to π; see rms_slip_moving)`,
    fn: (c) => c.running.slip.rms,
  },
  {
    name: 'rms_slip_moving', unit: 'rad',
    description: `RMS of the largest |slip angle| of the four wheels over the samples with |vx| > ${SLIP_MOVING_MIN_VX_MPS} m/s only (standstill left out; rms_slip is VDSim's figure with it); NaN if it never moved`,
    fn: (c) => c.running.slipMoving.rms,
  },
  { name: 'yaw_rate_ss', unit: 'rad/s', description: 'step steer: steady yaw rate (mean of the last 20 %)', fn: iso((m) => m.yawRateSs) },
  { name: 'yaw_rate_peak', unit: 'rad/s', description: 'step steer: peak yaw rate', fn: iso((m) => m.yawRatePeak) },
  { name: 'overshoot', unit: '', description: 'step steer: peak / steady yaw rate', fn: iso((m) => m.overshoot) },
  { name: 'time_to_peak', unit: 's', description: 'step steer: time from the step to the yaw-rate peak', fn: iso((m) => m.timeToPeakS) },
  { name: 'response_time', unit: 's', description: 'step steer: time to 90 % of the steady yaw rate', fn: iso((m) => m.responseTimeS) },
  { name: 'settling_time', unit: 's', description: 'step steer: end of the last sample outside ±5 % of the steady yaw rate', fn: iso((m) => m.settlingTime5pctS) },
  { name: 'ay_ss', unit: 'm/s²', description: 'step steer: steady lateral acceleration', fn: iso((m) => m.lateralAccelSs) },
  { name: 'peak_lat_g', unit: 'g', description: 'peak |a_y| in g', fn: (c) => c.running.ay.maxAbs / G },
  { name: 'ay_per_steer', unit: '(m/s²)/rad', description: 'step steer: lateral acceleration gain a_y,ss / δ_ss', fn: iso((m) => m.lateralAccelSs / m.steer) },
  { name: 'yaw_rate_gain', unit: '1/s', description: 'step steer: yaw-rate gain r_ss / δ_ss', fn: iso((m) => m.yawRateSs / m.steer) },
  { name: 'understeer_k', unit: 'rad/(m/s²)', description: 'step steer: (δ − L·r/vx) / a_y at steady state', fn: iso((m, c) => (m.steer - (c.vehicle.wheelbase * m.yawRateSs) / Math.max(m.vx, 1e-3)) / m.lateralAccelSs) },
  { name: 'npc_contacts', unit: '', description: 'ego–NPC contacts of this vehicle, per NPC step', fn: (c) => c.scene?.npcContacts ?? NaN },
  { name: 'red_runs', unit: '', description: 'times this vehicle crossed a stop line on red', fn: (c) => c.scene?.redRuns ?? NaN },
  { name: 'ego_steps', unit: '', description: 'NPC steps this vehicle took part in', fn: (c) => c.scene?.steps ?? NaN },
];
for (const d of DEFS) registerMetric(d);
