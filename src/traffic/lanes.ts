/**
 * A lane network: lane centre lines from the map, linked by the map's lane graph when it has one, else by
 * geometry (a lane follows another when it starts within 1.5 m of the other's end, heading the same way).
 * Answers where a point is on the network (a kdbush index over points every 2 m along the lanes), points
 * ahead along it, and random starts; used for NPC starts and goals, the safety shield's lane-following
 * continuation and the quality metrics (wrong-way driving, speed limits).
 */
import KDBush from 'kdbush';
import type { RoadEntities } from '../map/road-entities.js';
import type { LaneGraphJson } from '../map/scene-json.js';
import { EntityType } from '../map/types.js';
import type { SeededRandom } from '../util/random.js';
import { hypot } from '../util/hypot.js';
import type { Pose } from '../vehicle/index.js';
import { LANE_JOIN_DISTANCE_M, LANE_TWIN_KEEP_RIGHT_M, LANE_TWIN_TAPER_M } from './tuning.js';

interface Lane {
  readonly xs: Float32Array;
  readonly ys: Float32Array;
  readonly cum: Float64Array;
  readonly length: number;
  next: number[];
  /** m/s from the lane graph; NaN when unknown */
  speedLimit: number;
  /** the map's id of the lane (its lane-graph id, else `road<index>`) */
  id: string;
  /** index of the JSON road the lane came from */
  roadIndex: number;
  /** neighbours in the same direction (lane indices, −1 when none) */
  left: number;
  right: number;
  /** the lane runs inside an intersection (NGII LinkType 1) */
  internal: boolean;
  /** 1 on a structure (bridge, tunnel, underpass, overpass): it does not meet the lanes it crosses in plan */
  level: number;
}

/** A planned sequence of lanes (a route) inside a shared buffer, and where along it sampling is. */
export interface PlannedLanes {
  lanes: Int32Array;
  offset: number;
  count: number;
  /** index (from offset) of the lane being sampled; advanced by samplePath */
  at: number;
}

export interface LanePosition {
  lane: number;
  /** distance along the lane, m */
  s: number;
  /** lateral distance from the centre line, m */
  offset: number;
}

/** Spacing of the indexed points along each lane [m]. */
const INDEX_SPACING = 2;

export class LaneNetwork {
  readonly lanes: Lane[] = [];
  /** indexed points: lane and segment (index of its end point) of each */
  private readonly pointLane: Int32Array;
  private readonly pointSeg: Int32Array;
  private readonly index: KDBush | null;
  private readonly hits: Int32Array;

  constructor(entities: RoadEntities, graph?: LaneGraphJson) {
    const laneOfRoad = new Map<number, number>();
    entities.polylines.forEach((p, roadIndex) => {
      if (!p || p.type !== EntityType.RoadLane || p.xs.length < 2) return;
      const cum = new Float64Array(p.xs.length);
      for (let i = 1; i < p.xs.length; i++) cum[i] = cum[i - 1] + Math.hypot(p.xs[i] - p.xs[i - 1], p.ys[i] - p.ys[i - 1]);
      laneOfRoad.set(roadIndex, this.lanes.length);
      this.lanes.push({ xs: p.xs, ys: p.ys, cum, length: cum[cum.length - 1], next: [], speedLimit: NaN, id: `road${roadIndex}`, roadIndex, left: -1, right: -1, internal: false, level: 0 });
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
        const L = this.lanes[li];
        L.next = (l.next ?? []).map((n) => byId.get(String(n))).filter((n): n is number => n !== undefined);
        if (typeof l.speed_limit === 'number' && l.speed_limit > 0) L.speedLimit = l.speed_limit;
        L.id = String(l.id);
        L.left = l.left === null || l.left === undefined ? -1 : byId.get(String(l.left)) ?? -1;
        L.right = l.right === null || l.right === undefined ? -1 : byId.get(String(l.right)) ?? -1;
        L.internal = String(l.link_type ?? '') === '1';
        L.level = l.level ?? 0;
      }
      this.dropReversals();
    } else {
      this.linkByGeometry();
    }
    this.keepRightOfTwins();
    const pl: number[] = [], ps: number[] = [], px: number[] = [], py: number[] = [];
    this.lanes.forEach((L, li) => {
      for (let i = 1; i < L.xs.length; i++) {
        const len = L.cum[i] - L.cum[i - 1];
        const n = Math.max(1, Math.ceil(len / INDEX_SPACING));
        for (let k = 0; k < n; k++) {
          const t = (k + 0.5) / n;
          pl.push(li); ps.push(i);
          px.push(L.xs[i - 1] + t * (L.xs[i] - L.xs[i - 1]));
          py.push(L.ys[i - 1] + t * (L.ys[i] - L.ys[i - 1]));
        }
      }
    });
    this.pointLane = Int32Array.from(pl);
    this.pointSeg = Int32Array.from(ps);
    this.hits = new Int32Array(Math.max(1, pl.length));
    this.index = pl.length > 0 ? new KDBush(pl.length, 32, Float64Array) : null;
    for (let i = 0; i < pl.length; i++) this.index!.add(px[i], py[i]);
    this.index?.finish();
  }

  /**
   * Some HD maps link a lane to one that leaves its end in the opposite direction (FMTC draws a two-way
   * connector as two lanes on one centreline, each the other's successor): no vehicle turns on the spot, so
   * a route never takes a successor that starts more than 90° off the lane's last heading.
   */
  private dropReversals(): void {
    for (const A of this.lanes) {
      const n = A.xs.length;
      const ah = Math.atan2(A.ys[n - 1] - A.ys[n - 2], A.xs[n - 1] - A.xs[n - 2]);
      A.next = A.next.filter((b) => {
        const B = this.lanes[b];
        return Math.cos(Math.atan2(B.ys[1] - B.ys[0], B.xs[1] - B.xs[0]) - ah) > 0;
      });
    }
  }

  /**
   * Some maps draw a two-way road as one centre line carrying two lanes, one each way (FMTC's connectors and
   * its circle): vehicles meeting there would meet head-on. Each such lane keeps LANE_TWIN_KEEP_RIGHT_M to the right
   * of the shared line, easing in from its ends so it still joins its neighbours. Only this network (routes,
   * goals, starts) moves; the map the policy observes is unchanged.
   */
  private keepRightOfTwins(): void {
    const L = this.lanes;
    const twins: number[] = [];
    const moved: Array<[number, Lane]> = [];
    for (let a = 0; a < L.length; a++) {
      const A = L[a];
      const na = A.xs.length;
      for (let b = 0; b < L.length; b++) {
        const B = L[b];
        const nb = B.xs.length;
        if (a === b || Math.abs(A.length - B.length) > 0.1 * A.length + 1) continue;
        if (Math.hypot(B.xs[0] - A.xs[na - 1], B.ys[0] - A.ys[na - 1]) > LANE_JOIN_DISTANCE_M) continue;
        if (Math.hypot(B.xs[nb - 1] - A.xs[0], B.ys[nb - 1] - A.ys[0]) > LANE_JOIN_DISTANCE_M) continue;
        const mid = this.pose(a, 0.5 * A.length);
        if (distanceToPolyline(mid.x, mid.y, B.xs, B.ys) > 0.5) continue;
        twins.push(a);
        break;
      }
    }
    for (const a of twins) {
      const A = L[a];
      // resampled every metre or so (a straight lane may be just its two ends), then moved right
      const n = Math.max(2, Math.ceil(A.length) + 1);
      const xs = new Float32Array(n), ys = new Float32Array(n);
      const step = A.length / (n - 1);
      for (let k = 0; k < n; k++) {
        const s = k * step;
        const p = this.pose(a, s);
        const off = LANE_TWIN_KEEP_RIGHT_M * Math.min(1, s / LANE_TWIN_TAPER_M, (A.length - s) / LANE_TWIN_TAPER_M);
        xs[k] = p.x + off * Math.sin(p.yaw);
        ys[k] = p.y - off * Math.cos(p.yaw);
      }
      const cum = new Float64Array(n);
      for (let i = 1; i < n; i++) cum[i] = cum[i - 1] + Math.hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1]);
      moved.push([a, { ...A, xs, ys, cum, length: cum[n - 1] }]);
    }
    for (const [a, lane] of moved) L[a] = lane;
    this.twinCount = twins.length;
  }

  /** lanes that share their centre line with a lane the other way (moved to keep right) */
  twinCount = 0;

  private idIndex: Map<string, number> | null = null;

  /** The lane with this map id (lane-graph id, or `road<index>`); −1 when there is none. */
  laneById(id: string): number {
    if (!this.idIndex) {
      this.idIndex = new Map();
      this.lanes.forEach((L, i) => this.idIndex!.set(L.id, i));
    }
    return this.idIndex.get(id) ?? -1;
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
        if (Math.hypot(B.xs[0] - ex, B.ys[0] - ey) > LANE_JOIN_DISTANCE_M) continue;
        const bh = Math.atan2(B.ys[1] - B.ys[0], B.xs[1] - B.xs[0]);
        if (Math.cos(bh - ah) > Math.cos(Math.PI / 4)) A.next.push(b);
      }
    }
  }

  pose(lane: number, s: number): Pose {
    return poseAlong(this.lanes[lane], s);
  }

  /** pose's point without its direction (no atan2): the same x and y, written into `out`. */
  pointInto(lane: number, s: number, out: { x: number; y: number }): void {
    const { xs, ys, cum } = this.lanes[lane];
    const sc = Math.min(Math.max(s, 0), cum[cum.length - 1]);
    const i = segmentEnd(cum, sc);
    const seg = cum[i] - cum[i - 1] || 1;
    const t = (sc - cum[i - 1]) / seg;
    out.x = xs[i - 1] + t * (xs[i] - xs[i - 1]);
    out.y = ys[i - 1] + t * (ys[i] - ys[i - 1]);
  }

  /**
   * The lane position nearest to (x, y), within `maxDistance`, whose direction is within `maxAngle` (default
   * 60°) of `yaw` (any direction if yaw is undefined). Writes into `out` when given (no allocation).
   */
  locate(x: number, y: number, yaw?: number, maxDistance = 10, out?: LanePosition, maxAngle = Math.PI / 3): LanePosition | null {
    if (!this.index) return null;
    const n = this.index.withinInto(x, y, maxDistance + INDEX_SPACING / 2, this.hits);
    const cosMax = Math.cos(maxAngle);
    let bestD = maxDistance;
    let bestLane = -1;
    let bestS = 0;
    const cy = yaw === undefined ? 0 : Math.cos(yaw), sy = yaw === undefined ? 0 : Math.sin(yaw);
    for (let h = 0; h < n; h++) {
      const p = this.hits[h];
      const li = this.pointLane[p];
      const i = this.pointSeg[p];
      const { xs, ys, cum } = this.lanes[li];
      const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
      const len2 = dx * dx + dy * dy || 1;
      const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
      const d = hypot(x - (xs[i - 1] + t * dx), y - (ys[i - 1] + t * dy));
      if (d >= bestD) continue;
      if (yaw !== undefined && (cy * dx + sy * dy) / Math.sqrt(len2) < cosMax) continue;
      bestD = d;
      bestLane = li;
      bestS = cum[i - 1] + t * Math.sqrt(len2);
    }
    if (bestLane < 0) return null;
    const r = out ?? { lane: 0, s: 0, offset: 0 };
    r.lane = bestLane;
    r.s = bestS;
    r.offset = bestD;
    return r;
  }

  /** Is there a lane within `maxDistance` of (x, y) running against `yaw` (more than 120° off)? */
  hasLaneAgainst(x: number, y: number, yaw: number, maxDistance: number): boolean {
    if (!this.index) return false;
    const n = this.index.withinInto(x, y, maxDistance + INDEX_SPACING / 2, this.hits);
    const c = Math.cos(yaw), sn = Math.sin(yaw);
    for (let h = 0; h < n; h++) {
      const p = this.hits[h];
      const { xs, ys } = this.lanes[this.pointLane[p]];
      const i = this.pointSeg[p];
      const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
      const len = hypot(dx, dy) || 1;
      if ((c * dx + sn * dy) / len > -0.5) continue;
      const len2 = len * len;
      const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
      if (hypot(x - (xs[i - 1] + t * dx), y - (ys[i - 1] + t * dy)) <= maxDistance) return true;
    }
    return false;
  }

  /** The lane's direction [rad] at distance s along it. */
  headingAt(lane: number, s: number): number {
    const { xs, ys, cum } = this.lanes[lane];
    let i = 1;
    while (i < cum.length - 1 && cum[i] < s) i++;
    return Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]);
  }

  /**
   * Writes into `out` the point `distance` m ahead of (lane, s) along the lanes; at a fork it takes the
   * successor whose end lies nearest to (towardX, towardY). Allocation-free (for the shield's rollouts).
   */
  pointAhead(lane: number, s: number, distance: number, towardX: number, towardY: number, out: { x: number; y: number; yaw: number }): void {
    let li = lane;
    let pos = s + distance;
    for (let hops = 0; hops < 32; hops++) {
      const L = this.lanes[li];
      if (pos <= L.length || L.next.length === 0) break;
      pos -= L.length;
      li = this.chooseNext(L, towardX, towardY);
    }
    const { xs, ys, cum } = this.lanes[li];
    const sc = Math.min(Math.max(pos, 0), cum[cum.length - 1]);
    let i = 1;
    while (i < cum.length - 1 && cum[i] < sc) i++;
    const seg = cum[i] - cum[i - 1] || 1;
    const t = (sc - cum[i - 1]) / seg;
    out.x = xs[i - 1] + t * (xs[i] - xs[i - 1]);
    out.y = ys[i - 1] + t * (ys[i] - ys[i - 1]);
    out.yaw = Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]);
  }

  /** The point `distance` metres ahead of (lane, s), following successor lanes (chosen with `rng` at forks). */
  ahead(lane: number, s: number, distance: number, rng?: SeededRandom): Pose & { lane: number; s: number } {
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
  aheadInSight(lane: number, s: number, maxDistance: number, maxDeviation: number, rng?: SeededRandom, minDistance = 15, step = 2): Pose & { lane: number; s: number } {
    const start = this.pose(lane, s);
    const path: Array<Pose & { lane: number; s: number }> = [];
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
   * Samples the lane path ahead of (lane, s) every `spacing` m for `maxLength` m (or until the network ends)
   * into outX/outY from index 0; at a fork it takes the successor whose end lies nearest to (towardX,
   * towardY), or the straightest one when that is NaN. Returns the number of samples. Allocation-free.
   */
  samplePath(lane: number, s: number, spacing: number, maxLength: number, towardX: number, towardY: number, outX: Float32Array, outY: Float32Array, outOffset: number, maxSamples: number, plan?: PlannedLanes): number {
    let li = lane;
    let L = this.lanes[li];
    let sc = Math.min(Math.max(s, 0), L.length);
    // segment holding sc (binary search on the cumulative lengths)
    let lo = 1, hi = L.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (L.cum[mid] < sc) lo = mid + 1;
      else hi = mid;
    }
    let i = lo;
    let n = 0;
    let d = 0;
    while (n < maxSamples && d <= maxLength) {
      while (sc > L.cum[i] && i < L.cum.length - 1) i++;
      if (sc > L.length) {
        if (L.next.length === 0) break;
        sc -= L.length;
        // the planned next lane when there is one (and it follows this one), else the fork heuristics
        let planned = -1;
        if (plan && plan.at + 1 < plan.count) {
          const cand = plan.lanes[plan.offset + plan.at + 1];
          if (L.next.includes(cand)) {
            planned = cand;
            plan.at++;
          }
        }
        li = planned >= 0 ? planned : this.chooseNext(L, towardX, towardY);
        L = this.lanes[li];
        i = 1;
        continue;
      }
      const seg = L.cum[i] - L.cum[i - 1] || 1;
      const t = (sc - L.cum[i - 1]) / seg;
      outX[outOffset + n] = L.xs[i - 1] + t * (L.xs[i] - L.xs[i - 1]);
      outY[outOffset + n] = L.ys[i - 1] + t * (L.ys[i] - L.ys[i - 1]);
      n++;
      sc += spacing;
      d += spacing;
    }
    return n;
  }

  /**
   * The lanes from `lane` on for about `distance` m past `s`, into `out` (the first is `lane`); at a fork the
   * successor toward (towardX, towardY), the straightest one when that is NaN. Returns how many. Allocation-free.
   */
  lanesAhead(lane: number, s: number, distance: number, towardX: number, towardY: number, out: Int32Array): number {
    let li = lane;
    let n = 0;
    let reach = this.lanes[li].length - s;
    out[n++] = li;
    while (n < out.length && reach < distance) {
      const L = this.lanes[li];
      if (L.next.length === 0) break;
      li = this.chooseNext(L, towardX, towardY);
      out[n++] = li;
      reach += this.lanes[li].length;
    }
    return n;
  }

  private chooseNext(L: Lane, towardX: number, towardY: number): number {
    if (L.next.length === 1) return L.next[0];
    let best = L.next[0];
    let bestScore = Infinity;
    const k = L.xs.length - 1;
    const h = Math.atan2(L.ys[k] - L.ys[k - 1], L.xs[k] - L.xs[k - 1]);
    for (const nx of L.next) {
      const N = this.lanes[nx];
      const m = N.xs.length - 1;
      const score = Number.isNaN(towardX)
        ? -Math.cos(Math.atan2(N.ys[1] - N.ys[0], N.xs[1] - N.xs[0]) - h)
        : (N.xs[m] - towardX) ** 2 + (N.ys[m] - towardY) ** 2;
      if (score < bestScore) {
        bestScore = score;
        best = nx;
      }
    }
    return best;
  }

  /** A random point on the network, uniform by length. */
  randomPoint(rng: SeededRandom): { lane: number; s: number } | null {
    const n = this.pointLane.length;
    if (n === 0) return null;
    return this.pointOf(Math.floor(rng.next() * n), rng);
  }

  /** A random point on the network within `radius` of one of `centres` (uniform by length over their union). */
  randomPointNear(rng: SeededRandom, centres: ReadonlyArray<{ x: number; y: number }>, radius: number): { lane: number; s: number } | null {
    if (!this.index || centres.length === 0) return null;
    // pick a centre, then a point near it; points near several centres are a little more likely, which is fine
    const c = centres[Math.floor(rng.next() * centres.length)];
    const n = this.index.withinInto(c.x, c.y, radius, this.hits);
    if (n === 0) return null;
    return this.pointOf(this.hits[Math.floor(rng.next() * n)], rng);
  }

  /** A random position on the segment of an indexed point (segments have points in proportion to length). */
  private pointOf(p: number, rng: SeededRandom): { lane: number; s: number } {
    const lane = this.pointLane[p];
    const i = this.pointSeg[p];
    const { cum } = this.lanes[lane];
    return { lane, s: cum[i - 1] + rng.next() * (cum[i] - cum[i - 1]) };
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

function distanceToPolyline(x: number, y: number, xs: Float32Array, ys: Float32Array): number {
  let best = Infinity;
  for (let i = 1; i < xs.length; i++) {
    const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
    const len2 = dx * dx + dy * dy || 1;
    const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
    best = Math.min(best, Math.hypot(x - xs[i - 1] - t * dx, y - ys[i - 1] - t * dy));
  }
  return best;
}

/** The pose at distance s (clamped) along a polyline with its cumulative lengths. */
export function poseAlong(line: { readonly xs: ArrayLike<number>; readonly ys: ArrayLike<number>; readonly cum: ArrayLike<number> }, s: number): Pose {
  const { xs, ys, cum } = line;
  const sc = Math.min(Math.max(s, 0), cum[cum.length - 1]);
  const i = segmentEnd(cum, sc);
  const seg = cum[i] - cum[i - 1] || 1;
  const t = (sc - cum[i - 1]) / seg;
  return { x: xs[i - 1] + t * (xs[i] - xs[i - 1]), y: ys[i - 1] + t * (ys[i] - ys[i - 1]), yaw: Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]) };
}

/** The first segment end (index ≥ 1) at or past sc along a lane (cum never decreases: a binary search finds what a scan from 1 finds). */
function segmentEnd(cum: ArrayLike<number>, sc: number): number {
  let i = 1, hi = cum.length - 1;
  while (i < hi) {
    const mid = (i + hi) >> 1;
    if (cum[mid] < sc) i = mid + 1;
    else hi = mid;
  }
  return i;
}
