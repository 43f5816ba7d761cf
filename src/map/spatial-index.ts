/**
 * Radius queries over road entity centres (kdbush). GPUDrive walks entities in creation order and keeps
 * the first 200 within 50 m (spec §5.4), so the index answers "which are in range" and the ids are then
 * put back into creation order. Queries write into caller-owned buffers: nothing is allocated per query.
 */
import KDBush from 'kdbush';
import { EntityType } from './types.js';
import type { RoadEntities } from './road-entities.js';

/** In-place ascending heap sort of a[0..n): no allocation, O(n log n). */
export function sortIdsInPlace(a: Int32Array, n: number): void {
  const sift = (start: number, end: number) => {
    let root = start;
    for (;;) {
      let child = 2 * root + 1;
      if (child > end) return;
      if (child + 1 <= end && a[child] < a[child + 1]) child++;
      if (a[root] >= a[child]) return;
      const t = a[root]; a[root] = a[child]; a[child] = t;
      root = child;
    }
  };
  for (let s = (n >> 1) - 1; s >= 0; s--) sift(s, n - 1);
  for (let end = n - 1; end > 0; end--) {
    const t = a[0]; a[0] = a[end]; a[end] = t;
    sift(0, end - 1);
  }
}

export class RoadIndex {
  private readonly all: KDBush | null;
  private readonly scratch: Int32Array;
  /** Collidable entities for vehicles: road edges and stop signs (spec §7.10). */
  readonly collidable: Int32Array;
  private readonly collidableIndex: KDBush | null;
  /** Largest distance from a collidable entity's centre to its box corner. */
  readonly collidableReach: number;

  constructor(readonly entities: RoadEntities) {
    const n = entities.count;
    this.scratch = new Int32Array(Math.max(1, n));
    this.all = n > 0 ? new KDBush(n, 64, Float64Array) : null;
    for (let i = 0; i < n; i++) this.all!.add(entities.x[i], entities.y[i]);
    this.all?.finish();

    const coll: number[] = [];
    let reach = 0;
    for (let i = 0; i < n; i++) {
      const t = entities.type[i];
      if (t === EntityType.RoadEdge || t === EntityType.StopSign) {
        coll.push(i);
        reach = Math.max(reach, Math.hypot(entities.halfLength[i], entities.halfWidth[i]));
      }
    }
    this.collidable = Int32Array.from(coll);
    this.collidableReach = reach;
    this.collidableIndex = coll.length > 0 ? new KDBush(coll.length, 64, Float64Array) : null;
    for (const i of coll) this.collidableIndex!.add(entities.x[i], entities.y[i]);
    this.collidableIndex?.finish();
  }

  /**
   * Writes into `out` the first `max` entity ids (creation order) whose centre is within `radius` of (x, y)
   * (distance ≤ radius), and returns how many were written.
   */
  firstInRadius(x: number, y: number, radius: number, max: number, out: Int32Array): number {
    if (!this.all) return 0;
    const n = this.all.withinInto(x, y, radius, this.scratch);
    sortIdsInPlace(this.scratch, n);
    const m = Math.min(n, max);
    for (let i = 0; i < m; i++) out[i] = this.scratch[i];
    return m;
  }

  /** Collidable entity ids (into `entities`) whose centre is within `radius` of (x, y); unordered. */
  collidableNear(x: number, y: number, radius: number, out: Int32Array): number {
    if (!this.collidableIndex) return 0;
    const n = this.collidableIndex.withinInto(x, y, radius, this.scratch);
    for (let i = 0; i < n; i++) out[i] = this.collidable[this.scratch[i]];
    return n;
  }
}
