/**
 * The junctions' movements numbered once for the whole layout (mg = base[j] + m), with what the rule layer looks up
 * about them in every step: which movements enter on a lane and which drive it further on, each path sampled every
 * metre, and where a vehicle on one is clear of the junction. Built once, so the per-step rooms only read it.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import type { ControlledJunction, TrafficLayout } from './layout.js';
import { LOOKAHEAD_M } from './rule-params.js';

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

  /** Is (lane, s) inside a junction: on a movement between its entry and where a vehicle is clear of the junction? */
  insideJunction(lane: number, s: number): boolean {
    if (!this.coverOnLane) {
      const cover = new Map<number, Array<[number, number]>>();
      this.refs.forEach(({ j, m }, mg) => {
        const mv = this.layout.junctions[j].movements[m];
        const extra = this.clear[mg] - mv.length;
        mv.pieces.forEach((p, q) => push(cover, p.lane, [p.s0, q === mv.pieces.length - 1 ? p.s1 + extra : p.s1] as [number, number]));
      });
      this.coverOnLane = cover;
    }
    for (const [a, b] of this.coverOnLane.get(lane) ?? NONE) if (s >= a - 1 && s <= b + 1) return true;
    return false;
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
