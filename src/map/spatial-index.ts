/**
 * Radius queries over road entity centres (a uniform grid, PointGrid). GPUDrive walks entities in creation order and keeps
 * the first 200 within 50 m (spec §5.4), so the index answers "which are in range" and the ids are then
 * put back into creation order. Queries write into caller-owned buffers: nothing is allocated per query.
 */
import { PointGrid } from './point-grid.js';
import { EntityType } from './types.js';
import type { RoadEntities } from './road-entities.js';

export class RoadIndex {
  private readonly all: PointGrid | null;
  private readonly scratch: Int32Array;
  private readonly bits: Int32Array;
  /** Collidable entities for vehicles: road edges and stop signs (spec §7.10). */
  readonly collidable: Int32Array;
  private readonly collidableIndex: PointGrid | null;
  /** Largest distance from a collidable entity's centre to its box corner. */
  readonly collidableReach: number;
  /** per entity: the cosine and sine of its heading, and the distance from its centre to a box corner */
  readonly headingCos: Float64Array;
  readonly headingSin: Float64Array;
  readonly cornerReach: Float64Array;

  constructor(readonly entities: RoadEntities) {
    const n = entities.count;
    this.scratch = new Int32Array(Math.max(1, n));
    this.bits = new Int32Array((n >>> 5) + 1);
    this.all = n > 0 ? new PointGrid(entities.x, entities.y, n) : null;

    const coll: number[] = [];
    let reach = 0;
    for (let i = 0; i < n; i++) {
      const t = entities.type[i];
      if (t === EntityType.RoadEdge || t === EntityType.StopSign) {
        coll.push(i);
        reach = Math.max(reach, Math.hypot(entities.halfLength[i], entities.halfWidth[i]));
      }
    }
    this.headingCos = new Float64Array(n);
    this.headingSin = new Float64Array(n);
    this.cornerReach = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      this.headingCos[i] = Math.cos(entities.heading[i]);
      this.headingSin[i] = Math.sin(entities.heading[i]);
      this.cornerReach[i] = Math.hypot(entities.halfLength[i], entities.halfWidth[i]);
    }
    this.collidable = Int32Array.from(coll);
    this.collidableReach = reach;
    this.collidableIndex = coll.length > 0 ? new PointGrid(coll.map((i) => entities.x[i]), coll.map((i) => entities.y[i]), coll.length, coll) : null;
  }

  /**
   * Writes into `out` the first `max` entity ids (creation order) whose centre is within `radius` of (x, y)
   * (distance ≤ radius), and returns how many were written.
   */
  firstInRadius(x: number, y: number, radius: number, max: number, out: Int32Array): number {
    if (!this.all) return 0;
    return this.inCreationOrder(this.all.withinInto(x, y, radius, this.scratch), max, out);
  }

  /** Every entity id within `radius` of (x, y), in creation order, into `out` (room for entities.count ids). */
  allInRadius(x: number, y: number, radius: number, out: Int32Array): number {
    return this.firstInRadius(x, y, radius, this.entities.count, out);
  }

  /**
   * The first `max` of the n hits in `scratch`, put back into creation order through a bitset over entity ids:
   * O(hits + id span / 32), cheaper than sorting, and exactly GPUDrive's first `max` in range.
   */
  private inCreationOrder(n: number, max: number, out: Int32Array): number {
    const bits = this.bits;
    let lo = bits.length;
    let hi = -1;
    for (let i = 0; i < n; i++) {
      const id = this.scratch[i];
      const w = id >>> 5;
      bits[w] |= 1 << (id & 31);
      if (w < lo) lo = w;
      if (w > hi) hi = w;
    }
    let m = 0;
    for (let w = lo; w <= hi; w++) {
      let word = bits[w];
      if (word === 0) continue;
      bits[w] = 0;
      while (word !== 0 && m < max) {
        const low = word & -word;
        out[m++] = (w << 5) + 31 - Math.clz32(low);
        word ^= low;
      }
      if (m >= max) {
        for (let r = w + 1; r <= hi; r++) bits[r] = 0;
        break;
      }
    }
    return m;
  }

  /** Collidable entity ids (into `entities`) whose centre is within `radius` of (x, y); unordered. */
  collidableNear(x: number, y: number, radius: number, out: Int32Array): number {
    if (!this.collidableIndex) return 0;
    return this.collidableIndex.withinInto(x, y, radius, out);
  }
}

/**
 * Radius queries for observers that move a little between them (an agent moves ≤ 1.5 m per 0.1 s step): per
 * observer slot, the entities within radius + `slack` of where it was last looked up (all entities in creation
 * order, or the collidable ones). While the observer stays within `slack` of that point, every entity within
 * `radius` of it is in that list (triangle inequality), so the list stands in for a grid walk. firstInRadius
 * filters it with the index's own distance test ((ex − x)² + (ey − y)² ≤ r² in doubles, as PointGrid computes
 * it) and keeps the first `max`: the index's answer id for id, without a grid walk or a sort. Buffers grow
 * when a list is longer than any before; nothing else allocates.
 */
export class RadiusMemo {
  private ids: Int32Array[];
  private readonly count: Int32Array;
  private readonly cx: Float64Array;
  private readonly cy: Float64Array;
  private readonly radiusOf: Float64Array;
  private readonly roadsOf: Array<RoadIndex | null>;
  private scratch = new Int32Array(0);

  constructor(capacity: number, readonly slack = 5, private readonly collidableOnly = false) {
    this.ids = Array.from({ length: capacity }, () => new Int32Array(0));
    this.count = new Int32Array(capacity);
    this.cx = new Float64Array(capacity);
    this.cy = new Float64Array(capacity);
    this.radiusOf = new Float64Array(capacity).fill(NaN);
    this.roadsOf = new Array<RoadIndex | null>(capacity).fill(null);
  }

  /**
   * Makes `list(slot)` hold (among others further out) every entity whose centre is within `radius` of
   * (x, y) — all of them in creation order, or the collidable ones — and returns its length.
   */
  around(roads: RoadIndex, slot: number, x: number, y: number, radius: number): number {
    const dx = x - this.cx[slot], dy = y - this.cy[slot];
    if (this.roadsOf[slot] !== roads || this.radiusOf[slot] !== radius || !(dx * dx + dy * dy <= this.slack * this.slack)) this.refresh(roads, slot, x, y, radius);
    return this.count[slot];
  }

  /** The list `around` made for this slot. */
  list(slot: number): Int32Array {
    return this.ids[slot];
  }

  /**
   * roads.firstInRadius(x, y, radius, max, out) for the observer in `slot` (collidable ones only: the same ids as
   * collidableNear, in the list's order). `listRadius` (≥ radius) is the radius the list is kept for: a radius
   * that changes a little from query to query (with the speed) then rarely refreshes it.
   */
  firstInRadius(roads: RoadIndex, slot: number, x: number, y: number, radius: number, max: number, out: Int32Array, listRadius = radius): number {
    const n = this.around(roads, slot, x, y, listRadius);
    const ids = this.ids[slot];
    const ex = roads.entities.x, ey = roads.entities.y;
    const r2 = radius * radius;
    let m = 0;
    for (let k = 0; k < n && m < max; k++) {
      const id = ids[k];
      const dx = ex[id] - x, dy = ey[id] - y;
      if (dx * dx + dy * dy <= r2) out[m++] = id;
    }
    return m;
  }

  /** Forgets every slot. */
  clear(): void {
    this.roadsOf.fill(null);
  }

  private refresh(roads: RoadIndex, slot: number, x: number, y: number, radius: number): void {
    if (this.scratch.length < roads.entities.count) this.scratch = new Int32Array(roads.entities.count);
    // a millimetre over radius + slack: the list is a superset whatever the rounding of the distances
    const r = radius + this.slack + 1e-3;
    const n = this.collidableOnly ? roads.collidableNear(x, y, r, this.scratch) : roads.allInRadius(x, y, r, this.scratch);
    if (this.ids[slot].length < n) this.ids[slot] = new Int32Array(Math.ceil(n * 1.25));
    const ids = this.ids[slot];
    for (let k = 0; k < n; k++) ids[k] = this.scratch[k];
    this.count[slot] = n;
    this.cx[slot] = x;
    this.cy[slot] = y;
    this.radiusOf[slot] = radius;
    this.roadsOf[slot] = roads;
  }
}
