/**
 * The junctions' movements numbered once for the whole layout (mg = base[j] + m), with what the rule layer looks up
 * about them in every step: which movements enter on a lane and which drive it further on, each path sampled every
 * metre, and where a vehicle on one is clear of the junction; and which movements a vehicle off them stands in the
 * way of. Built once, so the per-step rooms only read it.
 */
import { insideConvex, OPPOSED_COS, PASSING_GAP_M } from '../../map/junctions.js';
import type { LaneNetwork } from '../../traffic/lanes.js';
import type { ControlledJunction, TrafficLayout } from './layout.js';
import { LOOKAHEAD_M, OCCUPY_M } from './kit-params.js';

export interface MovementRef {
  readonly j: number;
  readonly m: number;
}

export class MovementIndex {
  /** global movement index = base[j] + m */
  readonly base: Int32Array;
  readonly refs: MovementRef[] = [];
  /** per lane: the movements whose entry lies on it */
  readonly entriesOnLane: number[][];
  /** per lane: movements that drive it after their first piece: [mg, piece index] */
  readonly laterOnLane: Array<Array<[number, number]>>;
  /** each movement's path from entry, sampled every metre (geometric occupancy) */
  readonly pathX: Float32Array[] = [];
  readonly pathY: Float32Array[] = [];
  /** per junction: its polygon's bounding box (x0, y0, x1, y1) */
  readonly bbox: Float32Array;
  /**
   * per movement: distance from its entry to where a vehicle on it is clear of the whole junction (its exit, or
   * further along its last lane where other movements of the junction still run: standing there blocks them)
   */
  readonly clear: Float64Array;
  private coverOnLane: Map<number, Array<[number, number]>> | null = null;

  constructor(readonly layout: TrafficLayout, private readonly lanes: LaneNetwork) {
    const J = layout.junctions;
    const nl = lanes.lanes.length;
    this.entriesOnLane = Array.from({ length: nl }, () => []);
    this.laterOnLane = Array.from({ length: nl }, () => []);
    this.base = new Int32Array(J.length + 1);
    for (let j = 0; j < J.length; j++) this.base[j + 1] = this.base[j] + J[j].movements.length;
    const total = this.base[J.length];
    this.bbox = new Float32Array(J.length * 4);
    J.forEach((cj, j) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const p of cj.junction.polygon) {
        x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
      }
      this.bbox.set([x0, y0, x1, y1], j * 4);
      cj.movements.forEach((m, mi) => {
        const mg = this.refs.length;
        this.refs.push({ j, m: mi });
        this.entriesOnLane[m.entry.lane].push(mg);
        m.pieces.forEach((p, q) => {
          if (q > 0) this.laterOnLane[p.lane].push([mg, q]);
        });
        const n = Math.max(2, Math.ceil(m.length) + 1);
        const xs = new Float32Array(n), ys = new Float32Array(n);
        let k = 0;
        for (const p of m.pieces) {
          for (let s = p.s0; s <= p.s1 + 1e-6 && k < n; s += 1) {
            const pt = this.lanes.pose(p.lane, s);
            xs[k] = pt.x; ys[k] = pt.y; k++;
          }
        }
        this.pathX.push(xs.subarray(0, Math.max(k, 1)));
        this.pathY.push(ys.subarray(0, Math.max(k, 1)));
      });
    });
    this.clear = new Float64Array(total);
    J.forEach((cj, j) => cj.movements.forEach((mv, m) => {
      let s1 = mv.exit.s;
      for (let changed = true; changed;) {
        changed = false;
        for (const k of cj.movements) {
          for (const p of k.pieces) {
            if (p.lane === mv.exit.lane && p.s0 <= s1 + 0.5 && p.s1 > s1 + 1e-6) {
              s1 = p.s1;
              changed = true;
            }
          }
        }
      }
      this.clear[this.base[j] + m] = mv.length + (s1 - mv.exit.s);
    }));
  }

  /**
   * The movements a vehicle at (x, y) heading yaw, off any movement it is matched to, is in the way of: inside a
   * junction's outline with its centre within `reach` of the movement's path — or, going the other way beside it as
   * on a two-way road, within PASSING_GAP_M (the junction table's own rule for opposed lanes). Calls
   * visit(mg, index of the nearest path point) for each.
   */
  movementsAt(x: number, y: number, yaw: number, reach: number, visit: (mg: number, at: number) => void): void {
    const J = this.layout.junctions;
    const b = this.bbox;
    const hx = Math.cos(yaw), hy = Math.sin(yaw);
    for (let j = 0; j < J.length; j++) {
      if (x < b[j * 4] || x > b[j * 4 + 2] || y < b[j * 4 + 1] || y > b[j * 4 + 3]) continue;
      if (!insideConvex(J[j].junction.polygon, x, y)) continue;
      for (let m = 0; m < J[j].movements.length; m++) {
        const mg = this.base[j] + m;
        const xs = this.pathX[mg], ys = this.pathY[mg];
        let best = Infinity, at = 0;
        for (let k = 0; k < xs.length; k++) {
          const dd = (xs[k] - x) ** 2 + (ys[k] - y) ** 2;
          if (dd < best) { best = dd; at = k; }
        }
        const k0 = Math.max(at - 1, 0), k1 = Math.min(at + 1, xs.length - 1);
        const px = xs[k1] - xs[k0], py = ys[k1] - ys[k0];
        const opposed = hx * px + hy * py < OPPOSED_COS * Math.hypot(px, py);
        if (best <= (opposed ? PASSING_GAP_M * PASSING_GAP_M : reach * reach)) visit(mg, at);
      }
    }
  }

  /**
   * Would a vehicle of `length` with its centre at (lane, s), heading along the lane, be in a junction anywhere along
   * its body (and a margin), on this lane or those before or after it, or in the way of a movement's path? Where auto
   * NPCs may start (asked per spawn attempt, not per step: it walks every lane for those before this one).
   */
  vehicleInJunction(lane: number, s: number, length: number, width: number): boolean {
    const half = 0.5 * length + 0.5;
    const L = this.lanes.lanes[lane];
    if (this.coveredBetween(lane, s - half, s + half)) return true;
    if (s - half < 0) for (let p = 0; p < this.lanes.lanes.length; p++) {
      const P = this.lanes.lanes[p];
      if (P.next.includes(lane) && this.coveredBetween(p, P.length + s - half, P.length)) return true;
    }
    if (s + half > L.length) for (const n of L.next) if (this.coveredBetween(n, 0, s + half - L.length)) return true;
    const pose = this.lanes.pose(lane, s);
    let hit = false;
    this.movementsAt(pose.x, pose.y, pose.yaw, OCCUPY_M + 0.5 * width, () => { hit = true; });
    return hit;
  }

  /** Does a movement cover any of [a, b] on the lane (between its entry and where a vehicle is clear of the junction)? */
  private coveredBetween(lane: number, a: number, b: number): boolean {
    for (const [c0, c1] of this.cover().get(lane) ?? NONE) if (b >= c0 && a <= c1) return true;
    return false;
  }

  private cover(): Map<number, Array<[number, number]>> {
    if (!this.coverOnLane) {
      const cover = new Map<number, Array<[number, number]>>();
      this.refs.forEach(({ j, m }, mg) => {
        const mv = this.layout.junctions[j].movements[m];
        const extra = this.clear[mg] - mv.length;
        mv.pieces.forEach((p, q) => push(cover, p.lane, [p.s0, q === mv.pieces.length - 1 ? p.s1 + extra : p.s1] as [number, number]));
      });
      this.coverOnLane = cover;
    }
    return this.coverOnLane;
  }

  /** Distance along `lanes` from s0 on the first to the next junction entry (a line an NPC may have to stop at); Infinity when none. */
  distanceToLine(lanes: readonly number[], s0: number): number {
    let d = -s0;
    for (let k = 0; k < lanes.length && d < LOOKAHEAD_M; k++) {
      let best = Infinity;
      for (const mg of this.entriesOnLane[lanes[k]]) {
        const { j, m } = this.refs[mg];
        const e = d + this.layout.junctions[j].movements[m].entry.s;
        if (e >= 0 && e < best) best = e;
      }
      if (best < Infinity) return best;
      d += this.lanes.lanes[lanes[k]].length;
    }
    return Infinity;
  }

  junctionOf(mg: number): ControlledJunction {
    return this.layout.junctions[this.refs[mg].j];
  }
}

const NONE: ReadonlyArray<[number, number]> = [];

function push<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  let l = map.get(k);
  if (!l) map.set(k, (l = []));
  l.push(v);
}
