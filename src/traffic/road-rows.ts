/**
 * The road rows of an observation (spec §5): the first 200 road entities within the radius of the observer, in
 * creation order, each as 13 floats in the observer's frame. For the ObservationBuilder: the entities' own
 * columns are made once per map (in one table, an entity's values side by side), and an observer standing
 * still gets the rows it had: they are a function of its position and heading alone (the entities within the
 * radius, and their coordinates in its frame), so an observer seen from the same pose, bit for bit, as the rows
 * kept for it has those rows. Rows are kept for an observer that stood still since its last observation (a
 * queue at a red light: a third of the NPC-steps on the demo track and on FMTC), copied as they were written.
 */
import { ROAD_FEATURES, ROAD_ROWS } from '../policy/layout.js';
import type { RadiusMemo, RoadIndex } from '../map/spatial-index.js';

export const MAX_ROAD_SCALE = 100;
/** nmm(v) = 2·((v + 1000) / 2000) − 1 = v / 1000 (spec §2.4) */
export const POSITION_NORM = 1000;
const TWO_PI = 2 * Math.PI;
/** the entity table: per road entity x, y, heading, half length, width and height over MAX_ROAD_SCALE, type */
const STRIDE = 8;

/** Relative heading wrapped to (−π, π], as atan2 of the relative rotation gives it (without the trig). */
export function relativeHeading(other: number, ego: number): number {
  let d = other - ego;
  if (d > Math.PI || d <= -Math.PI) {
    // (within ±2π, d % 2π is d itself: fmod is exact, the library call is not needed)
    if (!(d > -TWO_PI && d < TWO_PI)) d %= TWO_PI;
    if (d > Math.PI) d -= TWO_PI;
    else if (d <= -Math.PI) d += TWO_PI;
  }
  return d;
}

export class RoadRows {
  private table = new Float32Array(0);
  private tableOf: RoadIndex | null = null;
  private readonly ids = new Int32Array(ROAD_ROWS);
  /** per observer slot: the pose it was last observed from (x, y, yaw), to tell that it stands still */
  private readonly last: Float64Array;
  /** per observer slot: the pose its kept rows were seen from, and how many rows (−1: none kept) */
  private readonly keptPose: Float64Array;
  private readonly keptN: Int32Array;
  /**
   * per observer slot: its kept rows (room for ROAD_ROWS each, made up front: the memory a scene holds does not
   * grow as more of its vehicles come to stand, and keeping rows allocates nothing)
   */
  private readonly kept: Float32Array[];
  /** rows written so far, and of them copied from kept rows */
  readonly work = { rows: 0, keptRows: 0 };

  /** reference: every observer's rows computed afresh (the engine's `reference` option) */
  constructor(capacity: number, private readonly near: RadiusMemo, private readonly reference = false) {
    this.last = new Float64Array(capacity * 3).fill(NaN);
    this.keptPose = new Float64Array(capacity * 3);
    this.keptN = new Int32Array(capacity).fill(-1);
    this.kept = Array.from({ length: capacity }, () => new Float32Array(ROAD_ROWS * ROAD_FEATURES));
  }

  /**
   * Writes the road rows of the observer in slot i at (x, y) heading yaw (c, sn its cosine and sine) within
   * `radius` into `road` from index r; returns how many.
   */
  write(roads: RoadIndex, i: number, x: number, y: number, yaw: number, c: number, sn: number, radius: number, road: Float32Array, r: number): number {
    if (this.tableOf !== roads) this.makeTable(roads);
    const p = 3 * i;
    const stood = same(this.last[p], x) && same(this.last[p + 1], y) && same(this.last[p + 2], yaw);
    this.last[p] = x; this.last[p + 1] = y; this.last[p + 2] = yaw;
    const n = this.keptN[i];
    if (n >= 0 && same(this.keptPose[p], x) && same(this.keptPose[p + 1], y) && same(this.keptPose[p + 2], yaw)) {
      copyRows(this.kept[i], 0, road, r, n * ROAD_FEATURES);
      this.work.rows += n;
      this.work.keptRows += n;
      return n;
    }
    const m = this.near.firstInRadius(roads, i, x, y, radius, ROAD_ROWS, this.ids);
    writeRows(road, r, this.ids, m, this.table, x, y, c, sn, yaw);
    this.work.rows += m;
    this.keptN[i] = -1;
    if (stood && !this.reference) this.keep(i, road, r, m, x, y, yaw);
    return m;
  }

  /** Keeps the m rows just written from index r as observer i's at this pose. */
  private keep(i: number, road: Float32Array, r: number, m: number, x: number, y: number, yaw: number): void {
    copyRows(road, r, this.kept[i], 0, m * ROAD_FEATURES);
    this.keptN[i] = m;
    this.keptPose[3 * i] = x; this.keptPose[3 * i + 1] = y; this.keptPose[3 * i + 2] = yaw;
  }

  private makeTable(roads: RoadIndex): void {
    const ent = roads.entities;
    const t = new Float32Array(STRIDE * ent.count);
    for (let id = 0; id < ent.count; id++) {
      const q = STRIDE * id;
      t[q] = ent.x[id];
      t[q + 1] = ent.y[id];
      t[q + 2] = ent.heading[id];
      t[q + 3] = ent.halfLength[id] / MAX_ROAD_SCALE;
      t[q + 4] = ent.halfWidth[id] / MAX_ROAD_SCALE;
      t[q + 5] = ent.halfHeight[id] / MAX_ROAD_SCALE;
      t[q + 6] = ent.type[id];
    }
    this.table = t;
    this.tableOf = roads;
    this.keptN.fill(-1);
  }
}

/** Copies `len` floats from `from`[a…] to `to`[b…] (float32 to float32: bit for bit; no view made). */
function copyRows(from: Float32Array, a: number, to: Float32Array, b: number, len: number): void {
  for (let k = 0; k < len; k++) to[b + k] = from[a + k];
}

/** Object.is for numbers: the same value, −0 apart from 0, NaN never the same (then nothing is kept). */
function same(a: number, b: number): boolean {
  return a === b && (a !== 0 || 1 / a === 1 / b);
}

/**
 * The rows of the entities `ids[0..m)` seen from (x, y) heading yaw (c, sn its cosine and sine), into `road` from
 * index r, from the entity table `t`.
 */
function writeRows(road: Float32Array, r: number, ids: Int32Array, m: number, t: Float32Array, x: number, y: number, c: number, sn: number, yaw: number): void {
  for (let k = 0, row = r; k < m; k++, row += ROAD_FEATURES) {
    const q = ids[k] * STRIDE;
    const dx = t[q] - x;
    const dy = t[q + 1] - y;
    road[row] = (c * dx + sn * dy) / POSITION_NORM;
    road[row + 1] = (-sn * dx + c * dy) / POSITION_NORM;
    road[row + 2] = t[q + 3];
    road[row + 3] = t[q + 4];
    road[row + 4] = t[q + 5];
    road[row + 5] = relativeHeading(t[q + 2], yaw) / TWO_PI;
    road[row + 6] = 0; road[row + 7] = 0; road[row + 8] = 0; road[row + 9] = 0;
    road[row + 10] = 0; road[row + 11] = 0; road[row + 12] = 0;
    road[row + 6 + t[q + 6]] = 1;
  }
}
