/**
 * Builds GPUDrive observations (spec §2–§5) for a batch of agents into one reused Float32Array:
 * per agent [ego(6) | 63 partners × 6 | 200 road rows × 13] = 2984 floats, all in the ego frame
 * x' = cos(yaw)·dx + sin(yaw)·dy (forward), y' = −sin(yaw)·dx + cos(yaw)·dy (left).
 */
import { OBS_SIZE, PARTNER_FEATURES, PARTNER_OFFSET, PARTNER_ROWS, ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS } from '../policy/layout.js';
import type { RoadIndex } from '../map/spatial-index.js';
import { AgentKind, type World } from './world.js';

export const OBS_RADIUS = 50;
export const MAX_SPEED = 100;
export const MAX_VEH_LEN = 30;
export const MAX_VEH_WIDTH = 15;
export const MAX_ROAD_SCALE = 100;
/** nmm(v) = 2·((v + 1000) / 2000) − 1 = v / 1000 (spec §2.4) */
export const POSITION_NORM = 1000;
const TWO_PI = 2 * Math.PI;

/** Relative heading wrapped to (−π, π], as atan2 of the relative rotation gives it (without the trig). */
export function relativeHeading(other: number, ego: number): number {
  let d = other - ego;
  if (d > Math.PI || d <= -Math.PI) {
    d %= TWO_PI;
    if (d > Math.PI) d -= TWO_PI;
    else if (d <= -Math.PI) d += TWO_PI;
  }
  return d;
}

export class ObservationBuilder {
  private readonly roadIds = new Int32Array(ROAD_ROWS);
  private readonly order: Int32Array;
  private orderCount = 0;

  constructor(capacity: number, readonly radius = OBS_RADIUS) {
    this.order = new Int32Array(capacity);
  }

  /** Partner candidate order: injected external agents first (never dropped), then creation order. */
  private prepareOrder(world: World): void {
    let n = 0;
    for (let i = 0; i < world.count; i++) if (world.present[i] && world.kind[i] === AgentKind.External) this.order[n++] = i;
    for (let i = 0; i < world.count; i++) if (world.present[i] && world.kind[i] !== AgentKind.External) this.order[n++] = i;
    this.orderCount = n;
  }

  /**
   * Writes observations of `observers[0..n)` into `out` (agent k at k·2984). `sizeScale` is the policy's
   * factor on length/width (0.7 for the shipped checkpoints). `roads` may be null (no map).
   */
  build(world: World, roads: RoadIndex | null, observers: ArrayLike<number>, n: number, out: Float32Array, sizeScale: number): void {
    this.prepareOrder(world);
    for (let k = 0; k < n; k++) this.buildOne(world, roads, observers[k], out, k * OBS_SIZE, sizeScale);
  }

  private buildOne(world: World, roads: RoadIndex | null, i: number, out: Float32Array, base: number, s: number): void {
    const ex = world.x[i];
    const ey = world.y[i];
    const yaw = world.yaw[i];
    const c = Math.cos(yaw);
    const sn = Math.sin(yaw);
    const r2 = this.radius * this.radius;

    // ego (§3)
    const gdx = world.goalX[i] - ex;
    const gdy = world.goalY[i] - ey;
    out[base] = world.speed(i) / MAX_SPEED;
    out[base + 1] = (world.length[i] * s) / MAX_VEH_LEN;
    out[base + 2] = (world.width[i] * s) / MAX_VEH_WIDTH;
    out[base + 3] = (c * gdx + sn * gdy) / POSITION_NORM;
    out[base + 4] = (-sn * gdx + c * gdy) / POSITION_NORM;
    out[base + 5] = world.collided[i] ? 1 : 0;

    // partners (§4): visible agents written compactly from slot 0, the rest zero rows
    let p = 0;
    let row = base + PARTNER_OFFSET;
    for (let k = 0; k < this.orderCount && p < PARTNER_ROWS; k++) {
      const j = this.order[k];
      if (j === i) continue;
      const dx = world.x[j] - ex;
      const dy = world.y[j] - ey;
      if (dx * dx + dy * dy > r2) continue;
      out[row] = world.speed(j) / MAX_SPEED;
      out[row + 1] = (c * dx + sn * dy) / POSITION_NORM;
      out[row + 2] = (-sn * dx + c * dy) / POSITION_NORM;
      out[row + 3] = relativeHeading(world.yaw[j], yaw) / TWO_PI;
      out[row + 4] = (world.length[j] * s) / MAX_VEH_LEN;
      out[row + 5] = (world.width[j] * s) / MAX_VEH_WIDTH;
      row += PARTNER_FEATURES;
      p++;
    }
    out.fill(0, row, base + ROAD_OFFSET);

    // road graph (§5): the first 200 entities within the radius, in creation order
    const m = roads ? roads.firstInRadius(ex, ey, this.radius, ROAD_ROWS, this.roadIds) : 0;
    row = base + ROAD_OFFSET;
    if (roads) {
      const e = roads.entities;
      for (let k = 0; k < m; k++, row += ROAD_FEATURES) {
        const id = this.roadIds[k];
        const dx = e.x[id] - ex;
        const dy = e.y[id] - ey;
        out[row] = (c * dx + sn * dy) / POSITION_NORM;
        out[row + 1] = (-sn * dx + c * dy) / POSITION_NORM;
        out[row + 2] = e.halfLength[id] / MAX_ROAD_SCALE;
        out[row + 3] = e.halfWidth[id] / MAX_ROAD_SCALE;
        out[row + 4] = e.halfHeight[id] / MAX_ROAD_SCALE;
        out[row + 5] = relativeHeading(e.heading[id], yaw) / TWO_PI;
        out[row + 6] = 0; out[row + 7] = 0; out[row + 8] = 0; out[row + 9] = 0;
        out[row + 10] = 0; out[row + 11] = 0; out[row + 12] = 0;
        out[row + 6 + e.type[id]] = 1;
      }
    }
    // padding rows: type None one-hot
    const end = base + OBS_SIZE;
    if (row < end) {
      out.fill(0, row, end);
      for (; row < end; row += ROAD_FEATURES) out[row + 6] = 1;
    }
  }
}
