/**
 * The crosswalks of a map as the people and the give-way rule use them: each as a rectangle in its own frame
 * (u along the walking axis from kerb a to kerb b, w across it, along the road), and, per lane, where its centre
 * line runs through each crosswalk (the distances along the lane where it enters and leaves it, and the axis
 * coordinate u it crosses at). Built once per scene from the map's records; read per step, never rebuilt.
 */
import type { CrosswalkRecord } from '../../map/traffic-control.js';
import type { LaneNetwork } from '../../traffic/lanes.js';
import { obbOverlap } from '../../traffic/obb.js';
import { GIVE_WAY_BODY_HALF_LENGTH_M, GIVE_WAY_BODY_HALF_WIDTH_M, WALKER_WAIT_CLEAR_M, WALKER_WAIT_MAX_M, WALKER_WAIT_MIN_M, WALKER_WAIT_STEP_M } from './tuning.js';

/** lanes are sampled this finely to find where they run through a crosswalk [m] */
const SAMPLE_M = 0.25;
const BODY_REACH_M = Math.hypot(GIVE_WAY_BODY_HALF_LENGTH_M, GIVE_WAY_BODY_HALF_WIDTH_M);

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
  /** where people wait: this far back from kerb a (u = −waitA) and from kerb b (u = length + waitB); NaN: no spot
   * there clear of the lanes, nobody waits at that kerb [m] */
  readonly waitA: Float64Array;
  readonly waitB: Float64Array;
  /** at each kerb's waiting spot, the range of offsets across the axis (walkers' lat) clear of the lanes as the
   * spot's axis point is: people wait within it (on FMTC one waiting at the crosswalk's edge, 2.4 m from a turning
   * lane's centre, was struck) [m] */
  readonly waitLatLoA: Float64Array;
  readonly waitLatHiA: Float64Array;
  readonly waitLatLoB: Float64Array;
  readonly waitLatHiB: Float64Array;
  /** per lane: its crossings are rows crossFirst[lane] … crossFirst[lane + 1] − 1 */
  readonly crossFirst: Int32Array;
  /** per crossing row: the crosswalk; where a body on the lane (GIVE_WAY_BODY_HALF_LENGTH_M, GIVE_WAY_BODY_HALF_WIDTH_M) has its front
   * as it first touches the stripes (sIn), and that less the body's length as it last touches them (sOut) [m]; the
   * range of axis coordinates the body covers meanwhile (an oblique or turning lane's body sweeps more than a point) [m] */
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
    this.waitLatLoA = new Float64Array(n); this.waitLatHiA = new Float64Array(n);
    this.waitLatLoB = new Float64Array(n); this.waitLatHiB = new Float64Array(n);
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
      const ux = dx / len, uy = dy / len, hw = 0.5 * r.width;
      const ax = r.a.x - this.waitA[c] * ux, ay = r.a.y - this.waitA[c] * uy;
      const bx = r.b.x + this.waitB[c] * ux, by = r.b.y + this.waitB[c] * uy;
      this.waitLatLoA[c] = -clearAcross(lanes, ax, ay, uy, -ux, hw);
      this.waitLatHiA[c] = clearAcross(lanes, ax, ay, -uy, ux, hw);
      this.waitLatLoB[c] = -clearAcross(lanes, bx, by, uy, -ux, hw);
      this.waitLatHiB[c] = clearAcross(lanes, bx, by, -uy, ux, hw);
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
        // the body of the largest NPC, centred on the lane's centre line and heading along it, sample by sample:
        // where it first and last touches the stripes, and the axis coordinates it covers meanwhile (a turning or
        // oblique lane's body sweeps far more of a crosswalk than its centre line does)
        let sFirst = NaN, sLast = NaN, uLo = Infinity, uHi = -Infinity;
        const p = { x: 0, y: 0 };
        const cx = this.ax[c] + 0.5 * this.length[c] * this.ux[c], cy = this.ay[c] + 0.5 * this.length[c] * this.uy[c];
        const cwYaw = Math.atan2(this.uy[c], this.ux[c]);
        const steps = Math.max(1, Math.ceil(ln.length / SAMPLE_M));
        for (let k = 0; k <= steps; k++) {
          const s = (ln.length * k) / steps;
          lanes.pointInto(lane, s, p);
          if (this.distance(c, p.x, p.y) > BODY_REACH_M) {
            if (!Number.isNaN(sFirst)) break;
            continue;
          }
          const yaw = lanes.headingAt(lane, s);
          if (!obbOverlap(p.x, p.y, yaw, GIVE_WAY_BODY_HALF_LENGTH_M, GIVE_WAY_BODY_HALF_WIDTH_M, cx, cy, cwYaw, 0.5 * this.length[c], this.halfWidth[c])) {
            if (!Number.isNaN(sFirst)) break;
            continue;
          }
          if (Number.isNaN(sFirst)) sFirst = s;
          sLast = s;
          const along = Math.abs(Math.cos(yaw) * this.ux[c] + Math.sin(yaw) * this.uy[c]);
          const extent = GIVE_WAY_BODY_HALF_LENGTH_M * along + GIVE_WAY_BODY_HALF_WIDTH_M * Math.sqrt(Math.max(0, 1 - along * along));
          const u = this.u(c, p.x, p.y);
          uLo = Math.min(uLo, Math.max(u - extent, 0));
          uHi = Math.max(uHi, Math.min(u + extent, this.length[c]));
        }
        // as the front's distances: where the front is when the body first touches, and where it is when the body
        // last touches less the body's length (so sOut − sIn + the body's length is how far it drives to clear it)
        const sIn = sFirst + GIVE_WAY_BODY_HALF_LENGTH_M, sOut = sLast - GIVE_WAY_BODY_HALF_LENGTH_M;
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

/**
 * How far from a waiting spot (x, y), going (dx, dy) across the axis, people may stand clear of the lanes, up to
 * `max` [m] (0 when the spot itself is not: NaN spots have nobody).
 */
function clearAcross(lanes: LaneNetwork, x: number, y: number, dx: number, dy: number, max: number): number {
  if (Number.isNaN(x)) return 0;
  let ok = 0;
  for (let off = WALKER_WAIT_STEP_M; off <= max + 1e-9; off += WALKER_WAIT_STEP_M) {
    if (lanes.locate(x + off * dx, y + off * dy, undefined, WALKER_WAIT_CLEAR_M)) break;
    ok = off;
  }
  return ok;
}

/**
 * How far back from a kerb end (x, y), going (ux, uy) away from the crossing, a person waits clear of the lanes [m];
 * NaN when no spot up to WALKER_WAIT_MAX_M is (a crosswalk ending on a traffic island or beside a slip lane): nobody waits
 * at that kerb — people only arrive at the other one, and those crossing to it leave as they step off.
 */
function waitBack(lanes: LaneNetwork, x: number, y: number, ux: number, uy: number): number {
  for (let back = WALKER_WAIT_MIN_M; back <= WALKER_WAIT_MAX_M + 1e-9; back += WALKER_WAIT_STEP_M) {
    if (!lanes.locate(x + back * ux, y + back * uy, undefined, WALKER_WAIT_CLEAR_M)) return back;
  }
  return NaN;
}
