/**
 * The per-tick record of a simulated vehicle, in VDSim's result columns (spec §9.3): t, x, y, yaw, vx, vy, r,
 * ax, ay, steer, Fz0-3, Fx0-3, Fy0-3, a0-3 (slip angle), k0-3 (slip ratio). Stored row after row in one
 * Float64Array (no object per row); written as CSV with each number in its shortest exact form, so two runs
 * that agree bit for bit write the same bytes.
 *
 * Bounded: the trace holds at most `keepRows` rows in memory (a ring: the latest ones; `rows` counts them all,
 * `retained` those held). What must see every row does so as it is pushed: observers (the running metrics,
 * metrics.ts) and a CSV file the rows are streamed to (`streamCsv`), so a run of any length keeps a fixed amount
 * of memory and still writes its whole CSV and computes its metrics over every row.
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { SimSession } from '../plant/session.js';

export const TRACE_COLUMNS = [
  't', 'x', 'y', 'yaw', 'vx', 'vy', 'r', 'ax', 'ay', 'steer',
  'Fz0', 'Fz1', 'Fz2', 'Fz3', 'Fx0', 'Fx1', 'Fx2', 'Fx3', 'Fy0', 'Fy1', 'Fy2', 'Fy3',
  'a0', 'a1', 'a2', 'a3', 'k0', 'k1', 'k2', 'k3',
] as const;
export type TraceColumn = (typeof TRACE_COLUMNS)[number];
const W = TRACE_COLUMNS.length;
/** Columns per row. */
export const TRACE_WIDTH = W;
export const TRACE_HEADER = TRACE_COLUMNS.join(',');

/**
 * Rows a trace holds in memory unless told otherwise: 2^20 (252 MB of Float64 per vehicle). A run's CSV text
 * (~600 bytes a row) stops fitting in a JavaScript string (2^29 characters) before that, so `toCsv` works for
 * every run it ever could; longer runs stream their CSV to a file (`streamCsv`).
 */
export const TRACE_KEEP_ROWS = 1 << 20;

/** Sees every row as it is pushed: `row(data, offset)` reads TRACE_WIDTH values from data[offset]. */
export interface TraceObserver {
  row(data: Float64Array, offset: number): void;
  /** the trace was cleared */
  reset(): void;
}

/** Appends CSV text to a file as rows come (buffered; positioned writes, so a clear can start it again). */
class CsvFile {
  private readonly fd: number;
  private pos = 0;
  private buf: string[] = [];
  private bufChars = 0;
  private closed = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
    this.restart();
  }

  restart(): void {
    this.buf = [];
    this.bufChars = 0;
    ftruncateSync(this.fd, 0);
    this.pos = 0;
    this.add(TRACE_HEADER + '\n');
  }

  add(text: string): void {
    this.buf.push(text);
    this.bufChars += text.length;
    if (this.bufChars >= 1 << 16) this.flush();
  }

  flush(): void {
    if (this.closed || this.bufChars === 0) return;
    const b = Buffer.from(this.buf.join(''), 'utf8');
    let off = 0;
    while (off < b.length) off += writeSync(this.fd, b, off, b.length - off, this.pos + off);
    this.pos += b.length;
    this.buf = [];
    this.bufChars = 0;
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }
}

export class Trace {
  private data: Float64Array;
  /** rows pushed since the last clear (all of them, held or not) */
  rows = 0;
  private keep: number;
  private readonly observers: TraceObserver[] = [];
  private csv: CsvFile | null = null;
  private readonly rowText = new Array<string>(W);

  constructor(opts: { keepRows?: number } = {}) {
    this.keep = Trace.checkKeep(opts.keepRows ?? TRACE_KEEP_ROWS);
    this.data = new Float64Array(W * Math.min(1024, this.keep));
  }

  private static checkKeep(n: number): number {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`trace keepRows: expected an integer ≥ 0, got ${n}`);
    return n;
  }

  /** Rows it may hold in memory. */
  get keepRows(): number {
    return this.keep;
  }

  /** Sets the rows it may hold (only while empty). */
  set keepRows(n: number) {
    if (this.rows > 0) throw new Error('trace keepRows: set it before the first row');
    this.keep = Trace.checkKeep(n);
    this.data = new Float64Array(W * Math.min(1024, this.keep));
  }

  /** Rows held in memory: the latest min(rows, keepRows). */
  get retained(): number {
    return Math.min(this.rows, this.keep);
  }

  /** Index (0 = the first row pushed) of the first row held. */
  get firstRetained(): number {
    return this.rows - this.retained;
  }

  /** Rows of storage allocated (never more than keepRows). */
  get capacityRows(): number {
    return this.data.length / W;
  }

  /** The CSV file the rows are streamed to, if any. */
  get csvPath(): string | null {
    return this.csv?.path ?? null;
  }

  /** Adds an observer (it sees the rows pushed from now on, and every clear). */
  observe(o: TraceObserver): void {
    this.observers.push(o);
  }

  /**
   * Streams every row to a CSV file from now on (the header, then each row as pushed; `clear` starts the file
   * again). The file's bytes equal `toCsv()`'s for the same rows. Only while empty.
   */
  streamCsv(path: string): void {
    if (this.rows > 0) throw new Error('trace streamCsv: start it before the first row');
    this.csv?.close();
    this.csv = new CsvFile(path);
  }

  /** Writes what is buffered to the CSV file. */
  flush(): void {
    this.csv?.flush();
  }

  /** Flushes and closes the CSV file (rows pushed afterwards are no longer streamed). */
  closeCsv(): void {
    this.csv?.close();
    this.csv = null;
  }

  clear(): void {
    this.rows = 0;
    for (const o of this.observers) o.reset();
    this.csv?.restart();
  }

  /** The storage offset of the next row, growing (up to keepRows) or wrapping the ring; -1 when keepRows is 0. */
  private slot(): number {
    const cap = this.data.length / W;
    if (this.rows >= cap && cap < this.keep) {
      const next = new Float64Array(W * Math.min(cap * 2, this.keep));
      next.set(this.data);
      this.data = next;
    }
    const n = this.data.length / W;
    return n === 0 ? -1 : (this.rows % n) * W;
  }

  private pushed(d: Float64Array, o: number): void {
    this.rows++;
    for (const ob of this.observers) ob.row(d, o);
    const csv = this.csv;
    if (csv) {
      const t = this.rowText;
      for (let c = 0; c < W; c++) t[c] = String(d[o + c]);
      csv.add(t.join(',') + '\n');
    }
  }

  private readonly scratch = new Float64Array(W);

  /** Appends one row from values in TRACE_COLUMNS order. */
  pushRow(values: ArrayLike<number>): void {
    let o = this.slot();
    const d = o < 0 ? this.scratch : this.data;
    if (o < 0) o = 0;
    for (let c = 0; c < W; c++) d[o + c] = values[c];
    this.pushed(d, o);
  }

  /** Appends the session's state after a tick (VDSim logs a row per step). */
  pushSession(s: SimSession): void {
    let o = this.slot();
    const d = o < 0 ? this.scratch : this.data;
    if (o < 0) o = 0;
    const st = s.truth;
    const g = s.diagnostics;
    d[o] = s.simTime;
    d[o + 1] = st.x;
    d[o + 2] = st.y;
    d[o + 3] = st.yaw;
    d[o + 4] = st.vx;
    d[o + 5] = st.vy;
    d[o + 6] = st.yawRate;
    d[o + 7] = g.ax;
    d[o + 8] = g.ay;
    d[o + 9] = s.applied.steer;
    for (let i = 0; i < 4; i++) {
      d[o + 10 + i] = g.Fz[i];
      d[o + 14 + i] = g.tireFx[i];
      d[o + 18 + i] = g.tireFy[i];
      d[o + 22 + i] = g.slipAngle[i];
      d[o + 26 + i] = g.slipRatio[i];
    }
    this.pushed(d, o);
  }

  /** Storage offset of row `row` (0 = the first pushed); it must be held. */
  private offset(row: number): number {
    if (!(row >= this.firstRetained && row < this.rows)) {
      throw new RangeError(`trace row ${row}: the trace holds rows ${this.firstRetained}–${this.rows - 1} (the latest ${this.keep})`);
    }
    return (row % (this.data.length / W)) * W;
  }

  /** One column of the rows held (the latest `retained`) as a fresh array. */
  column(name: TraceColumn): Float64Array {
    const c = TRACE_COLUMNS.indexOf(name);
    if (c < 0) throw new RangeError(`no trace column ${name}`);
    const n = this.retained, first = this.firstRetained;
    const out = new Float64Array(n);
    for (let r = 0; r < n; r++) out[r] = this.data[this.offset(first + r) + c];
    return out;
  }

  /** A value of row `row` (0 = the first pushed; it must be held). */
  value(row: number, name: TraceColumn): number {
    return this.data[this.offset(row) + TRACE_COLUMNS.indexOf(name)];
  }

  /** The whole trace as CSV text; refused when rows were let go (the streamed file holds them all). */
  toCsv(): string {
    if (this.retained < this.rows) {
      throw new RangeError(`the trace has ${this.rows} rows, more than the ${this.keep} it holds in memory: ` +
        (this.csv ? `its CSV is streamed to ${this.csv.path}` : `stream them to a file (Simulation.load(…, { csvFile }), Trace.streamCsv) or raise keepRows`));
    }
    const lines: string[] = [TRACE_HEADER];
    const row = this.rowText;
    for (let r = 0; r < this.rows; r++) {
      const o = this.offset(r);
      for (let c = 0; c < W; c++) row[c] = String(this.data[o + c]);
      lines.push(row.join(','));
    }
    return lines.join('\n') + '\n';
  }
}
