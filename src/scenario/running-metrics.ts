/**
 * The built-in metrics' figures, kept up to date sample by sample (RunningMetrics, an observer of the trace) rather
 * than computed from a stored series, so a run of any length keeps a fixed amount of memory: sums, maxima, the lap
 * detector's state, and for the ISO figures the post-step window (at most ISO_KEEP_ROWS samples; thinned beyond).
 * Each figure is the same number, to the bit, as the whole-series formula gives; the registry (metrics.ts) names
 * them and says what each means.
 */
import { type StepSteerMetrics, stepSteerMetrics } from '../plant/validation/iso7401.js';
import { type DrivingLine, type LineProjection, project } from './line.js';
import { type Trace, type TraceObserver, TRACE_COLUMNS, TRACE_WIDTH } from './trace.js';

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

const LAP_NEAR_M = 8;
const LAP_AWAY_M = 15;

/** End times of the laps (the rule: see metrics.ts). */
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
  /** the simulation times of the first and the latest row [s] (what a figure that needs time was given) */
  firstT = NaN;
  lastT = NaN;
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
    this.firstT = this.lastT = NaN;
    this.window.clear();
  }

  row(d: Float64Array, o: number): void {
    const t = d[o + C_T], x = d[o + C_X], y = d[o + C_Y], yaw = d[o + C_YAW], vx = d[o + C_VX];
    const first = this.n === 0;
    this.n++;
    if (first) this.firstT = t;
    this.lastT = t;
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
