/**
 * The per-tick record of a simulated vehicle, in VDSim's result columns (spec §9.3): t, x, y, yaw, vx, vy, r,
 * ax, ay, steer, Fz0-3, Fx0-3, Fy0-3, a0-3 (slip angle), k0-3 (slip ratio). Stored column-wise in growing
 * Float64Arrays (no object per row); written as CSV with each number in its shortest exact form, so two runs
 * that agree bit for bit write the same bytes.
 */
import type { SimSession } from '../plant/session.js';

export const TRACE_COLUMNS = [
  't', 'x', 'y', 'yaw', 'vx', 'vy', 'r', 'ax', 'ay', 'steer',
  'Fz0', 'Fz1', 'Fz2', 'Fz3', 'Fx0', 'Fx1', 'Fx2', 'Fx3', 'Fy0', 'Fy1', 'Fy2', 'Fy3',
  'a0', 'a1', 'a2', 'a3', 'k0', 'k1', 'k2', 'k3',
] as const;
export type TraceColumn = (typeof TRACE_COLUMNS)[number];
const W = TRACE_COLUMNS.length;

export class Trace {
  private data = new Float64Array(W * 1024);
  rows = 0;

  clear(): void {
    this.rows = 0;
  }

  private grow(): void {
    const next = new Float64Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }

  /** Appends one row from values in TRACE_COLUMNS order. */
  pushRow(values: ArrayLike<number>): void {
    if ((this.rows + 1) * W > this.data.length) this.grow();
    const o = this.rows * W;
    for (let c = 0; c < W; c++) this.data[o + c] = values[c];
    this.rows++;
  }

  /** Appends the session's state after a tick (VDSim logs a row per step). */
  pushSession(s: SimSession): void {
    if ((this.rows + 1) * W > this.data.length) this.grow();
    const d = this.data;
    const o = this.rows * W;
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
    this.rows++;
  }

  /** One column as a fresh array of `rows` values. */
  column(name: TraceColumn): Float64Array {
    const c = TRACE_COLUMNS.indexOf(name);
    if (c < 0) throw new RangeError(`no trace column ${name}`);
    const out = new Float64Array(this.rows);
    for (let r = 0; r < this.rows; r++) out[r] = this.data[r * W + c];
    return out;
  }

  value(row: number, name: TraceColumn): number {
    return this.data[row * W + TRACE_COLUMNS.indexOf(name)];
  }

  toCsv(): string {
    const lines: string[] = [TRACE_COLUMNS.join(',')];
    const row = new Array<string>(W);
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < W; c++) row[c] = String(this.data[r * W + c]);
      lines.push(row.join(','));
    }
    return lines.join('\n') + '\n';
  }
}
