/**
 * Choosing NPC start poses and goals on the road: a point on a lane centre line, heading along it, and a
 * goal further along the lane (following the polyline). Used by benchmarks and by the live session when
 * a client gives no goal.
 */
import { EntityType } from '../map/types.js';
import type { RoadEntities } from '../map/road-entities.js';
import { SeededRandom } from '../policy/sampling.js';

export interface PoseOnLane {
  x: number;
  y: number;
  yaw: number;
  goalX: number;
  goalY: number;
}

interface Lane {
  xs: Float32Array;
  ys: Float32Array;
  cum: Float64Array;
}

export class LaneSampler {
  private readonly lanes: Lane[] = [];
  private readonly total: number;

  constructor(entities: RoadEntities, readonly minLength = 20) {
    let total = 0;
    for (const p of entities.polylines) {
      if (!p || p.type !== EntityType.RoadLane || p.xs.length < 2) continue;
      const cum = new Float64Array(p.xs.length);
      for (let i = 1; i < p.xs.length; i++) cum[i] = cum[i - 1] + Math.hypot(p.xs[i] - p.xs[i - 1], p.ys[i] - p.ys[i - 1]);
      if (cum[cum.length - 1] < minLength) continue;
      this.lanes.push({ xs: p.xs, ys: p.ys, cum });
      total += cum[cum.length - 1];
    }
    this.total = total;
  }

  get laneCount(): number {
    return this.lanes.length;
  }

  private pointAt(lane: Lane, s: number): { x: number; y: number; yaw: number } {
    const { xs, ys, cum } = lane;
    let i = 1;
    while (i < cum.length - 1 && cum[i] < s) i++;
    const seg = cum[i] - cum[i - 1] || 1;
    const t = Math.min(1, Math.max(0, (s - cum[i - 1]) / seg));
    return {
      x: xs[i - 1] + t * (xs[i] - xs[i - 1]),
      y: ys[i - 1] + t * (ys[i] - ys[i - 1]),
      yaw: Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]),
    };
  }

  /**
   * Draws a start on a lane (length-weighted) with a goal `goalAhead` metres further along it (or its end),
   * avoiding starts within `clearance` of `occupied` points. Returns null when no lane is long enough.
   */
  sample(rng: SeededRandom, goalAhead = 40, clearance = 8, occupied: ReadonlyArray<{ x: number; y: number }> = []): PoseOnLane | null {
    if (this.lanes.length === 0) return null;
    for (let attempt = 0; attempt < 200; attempt++) {
      let r = rng.next() * this.total;
      let lane = this.lanes[0];
      for (const l of this.lanes) {
        const len = l.cum[l.cum.length - 1];
        if (r < len) { lane = l; break; }
        r -= len;
      }
      const len = lane.cum[lane.cum.length - 1];
      const room = Math.max(0, len - this.minLength);
      const s = rng.next() * room;
      const start = this.pointAt(lane, s);
      if (occupied.some((p) => Math.hypot(p.x - start.x, p.y - start.y) < clearance)) continue;
      const goal = this.pointAt(lane, Math.min(len, s + goalAhead));
      if (Math.hypot(goal.x - start.x, goal.y - start.y) < 5) continue;
      return { x: start.x, y: start.y, yaw: start.yaw, goalX: goal.x, goalY: goal.y };
    }
    return null;
  }
}
