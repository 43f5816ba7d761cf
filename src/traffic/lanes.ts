/**
 * A lane network for choosing NPC starts and goals: lane centre lines from the map, linked by the map's
 * lane graph when it has one, else by geometry (a lane follows another when it starts within 1.5 m of
 * the other's end, heading the same way). Goals are points a given distance ahead along the network.
 */
import type { RoadEntities } from '../map/road-entities.js';
import type { LaneGraphJson } from '../map/scene-json.js';
import { EntityType } from '../map/types.js';
import type { SeededRandom } from '../util/random.js';

interface Lane {
  readonly xs: Float32Array;
  readonly ys: Float32Array;
  readonly cum: Float64Array;
  readonly length: number;
  next: number[];
  /** m/s from the lane graph; NaN when unknown */
  speedLimit: number;
}

export interface LanePosition {
  lane: number;
  /** distance along the lane, m */
  s: number;
  /** lateral distance from the centre line, m */
  offset: number;
}

export interface Pose2 {
  x: number;
  y: number;
  yaw: number;
}

const JOIN_DISTANCE = 1.5;

export class LaneNetwork {
  readonly lanes: Lane[] = [];

  constructor(entities: RoadEntities, graph?: LaneGraphJson) {
    const laneOfRoad = new Map<number, number>();
    entities.polylines.forEach((p, roadIndex) => {
      if (!p || p.type !== EntityType.RoadLane || p.xs.length < 2) return;
      const cum = new Float64Array(p.xs.length);
      for (let i = 1; i < p.xs.length; i++) cum[i] = cum[i - 1] + Math.hypot(p.xs[i] - p.xs[i - 1], p.ys[i] - p.ys[i - 1]);
      laneOfRoad.set(roadIndex, this.lanes.length);
      this.lanes.push({ xs: p.xs, ys: p.ys, cum, length: cum[cum.length - 1], next: [], speedLimit: NaN });
    });
    if (graph && graph.lanes.length > 0) {
      const byId = new Map<string, number>();
      for (const l of graph.lanes) {
        const li = laneOfRoad.get(l.road_index);
        if (li !== undefined) byId.set(String(l.id), li);
      }
      for (const l of graph.lanes) {
        const li = byId.get(String(l.id));
        if (li === undefined) continue;
        this.lanes[li].next = (l.next ?? []).map((n) => byId.get(String(n))).filter((n): n is number => n !== undefined);
        if (typeof l.speed_limit === 'number' && l.speed_limit > 0) this.lanes[li].speedLimit = l.speed_limit;
      }
    } else {
      this.linkByGeometry();
    }
  }

  private linkByGeometry(): void {
    for (let a = 0; a < this.lanes.length; a++) {
      const A = this.lanes[a];
      const n = A.xs.length;
      const ex = A.xs[n - 1], ey = A.ys[n - 1];
      const ah = Math.atan2(A.ys[n - 1] - A.ys[n - 2], A.xs[n - 1] - A.xs[n - 2]);
      for (let b = 0; b < this.lanes.length; b++) {
        if (a === b) continue;
        const B = this.lanes[b];
        if (Math.hypot(B.xs[0] - ex, B.ys[0] - ey) > JOIN_DISTANCE) continue;
        const bh = Math.atan2(B.ys[1] - B.ys[0], B.xs[1] - B.xs[0]);
        if (Math.cos(bh - ah) > Math.cos(Math.PI / 4)) A.next.push(b);
      }
    }
  }

  pose(lane: number, s: number): Pose2 {
    const { xs, ys, cum } = this.lanes[lane];
    const sc = Math.min(Math.max(s, 0), cum[cum.length - 1]);
    let i = 1;
    while (i < cum.length - 1 && cum[i] < sc) i++;
    const seg = cum[i] - cum[i - 1] || 1;
    const t = (sc - cum[i - 1]) / seg;
    return { x: xs[i - 1] + t * (xs[i] - xs[i - 1]), y: ys[i - 1] + t * (ys[i] - ys[i - 1]), yaw: Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]) };
  }

  /** The lane position nearest to (x, y) whose direction is within 60° of `yaw` (any direction if yaw is undefined). */
  locate(x: number, y: number, yaw?: number, maxDistance = 10): LanePosition | null {
    let best: LanePosition | null = null;
    let bestD = maxDistance;
    for (let li = 0; li < this.lanes.length; li++) {
      const { xs, ys, cum } = this.lanes[li];
      for (let i = 1; i < xs.length; i++) {
        const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
        const len2 = dx * dx + dy * dy || 1;
        const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
        const px = xs[i - 1] + t * dx, py = ys[i - 1] + t * dy;
        const d = Math.hypot(x - px, y - py);
        if (d >= bestD) continue;
        if (yaw !== undefined && Math.cos(Math.atan2(dy, dx) - yaw) < 0.5) continue;
        bestD = d;
        best = { lane: li, s: cum[i - 1] + t * Math.sqrt(len2), offset: d };
      }
    }
    return best;
  }

  /** The point `distance` metres ahead of (lane, s), following successor lanes (chosen with `rng` at forks). */
  ahead(lane: number, s: number, distance: number, rng?: SeededRandom): Pose2 & { lane: number; s: number } {
    let li = lane;
    let pos = s + distance;
    for (let hops = 0; hops < 64; hops++) {
      const L = this.lanes[li];
      if (pos <= L.length || L.next.length === 0) {
        const s2 = Math.min(pos, L.length);
        return { ...this.pose(li, s2), lane: li, s: s2 };
      }
      pos -= L.length;
      li = L.next.length === 1 || !rng ? L.next[0] : L.next[Math.floor(rng.next() * L.next.length)];
    }
    return { ...this.pose(li, this.lanes[li].length), lane: li, s: this.lanes[li].length };
  }

  /**
   * Like `ahead`, but stops early where the lane bends away from the straight line to the goal by more than
   * `maxDeviation` m: the policy heads for its goal fairly directly, so a goal round a bend pulls it across
   * the infield. Never shorter than `minDistance` (unless the lane network ends).
   */
  aheadInSight(lane: number, s: number, maxDistance: number, maxDeviation: number, rng?: SeededRandom, minDistance = 15, step = 2): Pose2 & { lane: number; s: number } {
    const start = this.pose(lane, s);
    const path: Array<Pose2 & { lane: number; s: number }> = [];
    let best = this.ahead(lane, s, Math.min(minDistance, maxDistance), rng);
    // Sample the path once with a fixed fork choice, so the goal lies on one branch.
    let li = lane;
    let pos = s;
    for (let d = step; d <= maxDistance + 1e-9; d += step) {
      pos += step;
      while (pos > this.lanes[li].length && this.lanes[li].next.length > 0) {
        pos -= this.lanes[li].length;
        li = this.lanes[li].next.length === 1 || !rng ? this.lanes[li].next[0] : this.lanes[li].next[Math.floor(rng.next() * this.lanes[li].next.length)];
      }
      const sc = Math.min(pos, this.lanes[li].length);
      path.push({ ...this.pose(li, sc), lane: li, s: sc });
      if (sc < pos) break; // the network ends
    }
    for (let k = 0; k < path.length; k++) {
      const end = path[k];
      const dx = end.x - start.x, dy = end.y - start.y;
      const len = Math.hypot(dx, dy) || 1;
      let dev = 0;
      for (let j = 0; j < k; j++) dev = Math.max(dev, Math.abs((path[j].x - start.x) * dy - (path[j].y - start.y) * dx) / len);
      if ((k + 1) * step > minDistance && dev > maxDeviation) break;
      if ((k + 1) * step >= Math.min(minDistance, maxDistance)) best = end;
    }
    return best;
  }

  /**
   * A random start on a lane (length-weighted) at least `clearance` m from every `avoid` point (each with
   * its own extra radius), with a goal `goalDistance` ahead along the network. Null if none is found.
   */
  randomStart(rng: SeededRandom, goalDistance: number, avoid: ReadonlyArray<{ x: number; y: number; r: number }>, clearance = 10, maxDeviation = Infinity) {
    if (this.lanes.length === 0) return null;
    const total = this.lanes.reduce((a, l) => a + l.length, 0);
    for (let attempt = 0; attempt < 100; attempt++) {
      let r = rng.next() * total;
      let li = 0;
      while (li < this.lanes.length - 1 && r > this.lanes[li].length) {
        r -= this.lanes[li].length;
        li++;
      }
      const start = this.pose(li, r);
      if (avoid.some((p) => Math.hypot(p.x - start.x, p.y - start.y) < clearance + p.r)) continue;
      const goal = Number.isFinite(maxDeviation) ? this.aheadInSight(li, r, goalDistance, maxDeviation, rng) : this.ahead(li, r, goalDistance, rng);
      if (Math.hypot(goal.x - start.x, goal.y - start.y) < 5) continue;
      return { start, goal };
    }
    return null;
  }
}
