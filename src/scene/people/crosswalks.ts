/**
 * The crosswalks of a map as the people and the give-way rule use them: each as a rectangle in its own frame
 * (u along the walking axis from kerb a to kerb b, w across it, along the road), and, per lane, where its centre
 * line runs through each crosswalk (the distances along the lane where it enters and leaves it, and the axis
 * coordinate u it crosses at). Built once per scene from the map's records; read per step, never rebuilt.
 */
import type { CrosswalkRecord } from '../../map/traffic-control.js';
import type { LaneNetwork } from '../../traffic/lanes.js';

/** lanes are sampled this finely to find where they run through a crosswalk [m] */
const SAMPLE_M = 0.25;
/** people wait at least this far back from the end of the stripes, and further (up to WAIT_MAX_M, in WAIT_STEP_M)
 * until no lane centre line is within WAIT_CLEAR_M (half a lane, half a person and a margin) [m] */
const WAIT_MIN_M = 0.4, WAIT_MAX_M = 4, WAIT_STEP_M = 0.4, WAIT_CLEAR_M = 2.5;

export class CrosswalkGeometry {
  readonly count: number;
  readonly ids: readonly string[];
  /** kerb a, the unit walking axis a→b and its normal (u, w frame) */
  readonly ax: Float64Array;
  readonly ay: Float64Array;
  readonly ux: Float64Array;
  readonly uy: Float64Array;
  /** kerb to kerb [m] and half the crossing's width along the road [m] */
  readonly length: Float64Array;
  readonly halfWidth: Float64Array;
  /** where people wait: this far back from kerb a (u = −waitA) and from kerb b (u = length + waitB) [m] */
  readonly waitA: Float64Array;
  readonly waitB: Float64Array;
  /** per lane: its crossings are rows crossFirst[lane] … crossFirst[lane + 1] − 1 */
  readonly crossFirst: Int32Array;
  /** per crossing row: the crosswalk, the lane's s entering and leaving it [m], and the range of axis coordinates its
   * centre line covers on the stripes (an oblique or turning lane covers more than a point) [m] */
  readonly crossCw: Int32Array;
  readonly crossSIn: Float64Array;
  readonly crossSOut: Float64Array;
  readonly crossULo: Float64Array;
  readonly crossUHi: Float64Array;

  constructor(records: readonly CrosswalkRecord[], lanes: LaneNetwork) {
    const n = records.length;
    this.count = n;
    this.ids = records.map((r) => r.id);
    this.ax = new Float64Array(n); this.ay = new Float64Array(n);
    this.ux = new Float64Array(n); this.uy = new Float64Array(n);
    this.length = new Float64Array(n); this.halfWidth = new Float64Array(n);
    this.waitA = new Float64Array(n); this.waitB = new Float64Array(n);
    records.forEach((r, c) => {
      const dx = r.b.x - r.a.x, dy = r.b.y - r.a.y;
      const len = Math.hypot(dx, dy);
      if (!(len > 0.5) || !(r.width > 0.2)) throw new Error(`crosswalk ${r.id}: axis ${len.toFixed(2)} m long and ${r.width} m wide is not a crossing`);
      this.ax[c] = r.a.x; this.ay[c] = r.a.y;
      this.ux[c] = dx / len; this.uy[c] = dy / len;
      this.length[c] = len;
      this.halfWidth[c] = 0.5 * r.width;
      this.waitA[c] = waitBack(lanes, r.a.x, r.a.y, -dx / len, -dy / len);
      this.waitB[c] = waitBack(lanes, r.b.x, r.b.y, dx / len, dy / len);
    });
    const rows: Array<{ lane: number; cw: number; sIn: number; sOut: number; uLo: number; uHi: number }> = [];
    const L = lanes.lanes;
    for (let lane = 0; lane < L.length; lane++) {
      const ln = L[lane];
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      for (let i = 0; i < ln.xs.length; i++) {
        minX = Math.min(minX, ln.xs[i]); maxX = Math.max(maxX, ln.xs[i]);
        minY = Math.min(minY, ln.ys[i]); maxY = Math.max(maxY, ln.ys[i]);
      }
      for (let c = 0; c < n; c++) {
        const reach = this.length[c] + this.halfWidth[c];
        if (this.ax[c] < minX - reach || this.ax[c] > maxX + reach || this.ay[c] < minY - reach || this.ay[c] > maxY + reach) continue;
        let sIn = NaN, sOut = NaN, uLo = Infinity, uHi = -Infinity;
        const p = { x: 0, y: 0 };
        const steps = Math.max(1, Math.ceil(ln.length / SAMPLE_M));
        for (let k = 0; k <= steps; k++) {
          const s = (ln.length * k) / steps;
          lanes.pointInto(lane, s, p);
          const u = this.u(c, p.x, p.y);
          const inside = u >= 0 && u <= this.length[c] && Math.abs(this.w(c, p.x, p.y)) <= this.halfWidth[c];
          if (inside) {
            if (Number.isNaN(sIn)) sIn = s;
            sOut = s;
            uLo = Math.min(uLo, u);
            uHi = Math.max(uHi, u);
          } else if (!Number.isNaN(sIn)) break;
        }
        if (!Number.isNaN(sIn)) rows.push({ lane, cw: c, sIn, sOut, uLo, uHi });
      }
    }
    this.crossFirst = new Int32Array(L.length + 1);
    for (const r of rows) this.crossFirst[r.lane + 1]++;
    for (let l = 0; l < L.length; l++) this.crossFirst[l + 1] += this.crossFirst[l];
    this.crossCw = new Int32Array(rows.length);
    this.crossSIn = new Float64Array(rows.length);
    this.crossSOut = new Float64Array(rows.length);
    this.crossULo = new Float64Array(rows.length);
    this.crossUHi = new Float64Array(rows.length);
    // rows were made lane by lane in order: row k is already at its place
    rows.forEach((r, k) => {
      this.crossCw[k] = r.cw;
      this.crossSIn[k] = r.sIn;
      this.crossSOut[k] = r.sOut;
      this.crossULo[k] = r.uLo;
      this.crossUHi[k] = r.uHi;
    });
  }

  /** axis coordinate of a point: 0 at kerb a, length at kerb b [m] */
  u(c: number, x: number, y: number): number {
    return (x - this.ax[c]) * this.ux[c] + (y - this.ay[c]) * this.uy[c];
  }

  /** coordinate across the axis (along the road) [m] */
  w(c: number, x: number, y: number): number {
    return -(x - this.ax[c]) * this.uy[c] + (y - this.ay[c]) * this.ux[c];
  }

  /** Distance from a point to the crosswalk's rectangle (0 inside) [m]. */
  distance(c: number, x: number, y: number): number {
    const u = this.u(c, x, y);
    const eu = u < 0 ? -u : u > this.length[c] ? u - this.length[c] : 0;
    const ew = Math.max(Math.abs(this.w(c, x, y)) - this.halfWidth[c], 0);
    return Math.sqrt(eu * eu + ew * ew);
  }
}

/** How far back from a kerb end (x, y), going (ux, uy) away from the crossing, a person waits clear of the lanes [m]. */
function waitBack(lanes: LaneNetwork, x: number, y: number, ux: number, uy: number): number {
  for (let back = WAIT_MIN_M; back <= WAIT_MAX_M + 1e-9; back += WAIT_STEP_M) {
    if (!lanes.locate(x + back * ux, y + back * uy, undefined, WAIT_CLEAR_M)) return back;
  }
  return WAIT_MIN_M;
}
