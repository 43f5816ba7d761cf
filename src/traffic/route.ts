/**
 * A route along the lane network for one live NPC: a sequence of lanes planned ahead from a start (forks
 * chosen at random), the NPC's progress along it, and the goal the policy is shown: a point ahead on the
 * route, as far as `maxLead` but no further than the route stays within `maxDeviation` of the straight line
 * to it (the policy heads for its goal fairly directly, so a goal round a bend would pull it off the road).
 */
import type { SeededRandom } from '../util/random.js';
import type { LaneNetwork } from './lanes.js';
import { hypot } from '../util/hypot.js';
import type { Pose } from '../vehicle/index.js';
import { ROUTE_SEARCH_AHEAD_M, ROUTE_SEARCH_BACK_M } from './tuning.js';

export interface RouteGoal extends Pose {
  /** the goal is the route's end */
  final: boolean;
  /** distance along the route from the NPC's progress to the goal [m] */
  lead: number;
}

/** Route.goal's samples (distances and points), shared: goal() is synchronous and keeps nothing in them. */
let goalDs = new Float64Array(64);
let goalSx = new Float64Array(64);
let goalSy = new Float64Array(64);

/**
 * poseAtCell's cells: the route distance it reads, then the x, y and yaw it writes. Typed cells, not arguments
 * and objects: a double passed to a call V8 does not inline is boxed (16 B), and so is every double stored in
 * an object whose field V8 keeps as a tagged value (those of the {x, y, yaw} objects are, across the program);
 * the goal search makes a dozen such calls per NPC and step.
 */
const cell = new Float64Array(4);
const D = 0, X = 1, Y = 2, YAW = 3;

/** Where Route.goal writes when asked to (a class of its own: its fields hold doubles in place). */
export class GoalPoint implements RouteGoal {
  x = 0;
  y = 0;
  yaw = 0;
  final = false;
  lead = 0;
}

/** Where Route.laneAtProgress writes when asked to. */
export class LaneAtProgress {
  index = 0;
  s = 0;
}

function growGoalSamples(): void {
  const n = goalDs.length * 2;
  const ds = new Float64Array(n);
  ds.set(goalDs);
  goalDs = ds;
  goalSx = new Float64Array(n);
  goalSy = new Float64Array(n);
}

/** Which of the exits `next` of lane `from` a route takes, for a uniform draw u ∈ [0, 1). */
export type ForkChooser = (from: number, next: readonly number[], u: number) => number;

export class Route {
  /** lanes in driving order; the route starts at startS on lanes[0] */
  readonly lanes: number[] = [];
  /** route distance at the start of each lane (lanes[0] starts at −startS) */
  private readonly offsets: number[] = [];
  readonly length: number;
  /** the NPC's progress: route distance of its projection [m] */
  progress = 0;
  /** distance from the route at the last update [m] */
  offRoute = 0;
  /** signed sideways offset from the route at the last update (positive: left of its direction) [m] */
  lateral = 0;

  /**
   * `via`: lanes to take first, in order, where the lane graph allows (a route continuing another keeps the
   * forks that one chose: an NPC at speed is already committed to them); forks after them are random: uniform, or
   * by `choose` (the exit of lane `from` a uniform draw u picks).
   */
  constructor(private readonly net: LaneNetwork, lane: number, private readonly startS: number, length: number, rng: SeededRandom, via: readonly number[] = [], choose?: ForkChooser) {
    let li = lane;
    let acc = -startS;
    for (let hops = 0; hops < 256; hops++) {
      this.lanes.push(li);
      this.offsets.push(acc);
      acc += net.lanes[li].length;
      const next = net.lanes[li].next;
      if (acc >= length || next.length === 0) break;
      const planned = hops + 1 < via.length && via[hops] === li && next.includes(via[hops + 1]) ? via[hops + 1] : -1;
      li = planned >= 0 ? planned : next.length === 1 ? next[0] : choose ? choose(li, next, rng.next()) : next[Math.floor(rng.next() * next.length)];
    }
    this.length = Math.min(length, acc);
  }

  /** Index into `lanes` of the lane at the NPC's progress, and its distance along that lane (written into `out` when given). */
  laneAtProgress(out: { index: number; s: number } = new LaneAtProgress()): { index: number; s: number } {
    let k = 0;
    while (k + 1 < this.lanes.length && this.offsets[k + 1] <= this.progress) k++;
    out.index = k;
    out.s = this.progress - this.offsets[k];
    return out;
  }

  /** Distance from the NPC's progress to the route's end [m]. */
  get remaining(): number {
    return this.length - this.progress;
  }

  /** The pose at route distance d (clamped to the route). */
  poseAt(d: number): Pose {
    const dc = Math.min(Math.max(d, 0), this.length);
    let k = 0;
    while (k + 1 < this.lanes.length && this.offsets[k + 1] <= dc) k++;
    return this.net.pose(this.lanes[k], dc - this.offsets[k]);
  }

  /** poseAt(d) written into `out` (nothing allocated but what storing into `out` takes). */
  poseInto(d: number, out: Pose): Pose {
    cell[D] = d;
    this.poseAtCell(true);
    out.x = cell[X];
    out.y = cell[Y];
    out.yaw = cell[YAW];
    return out;
  }

  /**
   * poseAt(cell[D]) into cell[X], cell[Y] and (with `withYaw`) cell[YAW]: LaneNetwork.pose's arithmetic on the
   * same segment (poseAlong: the point between the segment's ends, its direction by atan2; pointInto's point).
   */
  private poseAtCell(withYaw: boolean): void {
    const dc = Math.min(Math.max(cell[D], 0), this.length);
    let k = 0;
    while (k + 1 < this.lanes.length && this.offsets[k + 1] <= dc) k++;
    const { xs, ys, cum } = this.net.lanes[this.lanes[k]];
    const sc = Math.min(Math.max(dc - this.offsets[k], 0), cum[cum.length - 1]);
    // the first segment end (index ≥ 1) at or past sc, by poseAlong's bisection
    let i = 1, hi = cum.length - 1;
    while (i < hi) {
      const mid = (i + hi) >> 1;
      if (cum[mid] < sc) i = mid + 1;
      else hi = mid;
    }
    const seg = cum[i] - cum[i - 1] || 1;
    const t = (sc - cum[i - 1]) / seg;
    cell[X] = xs[i - 1] + t * (xs[i] - xs[i - 1]);
    cell[Y] = ys[i - 1] + t * (ys[i] - ys[i - 1]);
    if (withYaw) cell[YAW] = Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]);
  }

  /**
   * Moves the progress to the projection of (x, y) onto the route near the current progress; returns the
   * distance from the route (also kept in `offRoute`). With the NPC's heading and speed, `lateral` becomes
   * the sideways offset it will have `lookaheadS` from now if it keeps its heading (a damped offset).
   */
  update(x: number, y: number, yaw = NaN, speed = 0, lookaheadS = 0): number {
    let bestD = Infinity;
    let bestP = this.progress;
    let bestSide = 1;
    const from = this.progress - ROUTE_SEARCH_BACK_M, to = this.progress + ROUTE_SEARCH_AHEAD_M;
    for (let k = 0; k < this.lanes.length; k++) {
      const off = this.offsets[k];
      const L = this.net.lanes[this.lanes[k]];
      if (off > to || off + L.length < from) continue;
      const { xs, ys, cum } = L;
      for (let i = 1; i < xs.length; i++) {
        const s0 = off + cum[i - 1], s1 = off + cum[i];
        if (s1 < from || s0 > to) continue;
        const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
        const len2 = dx * dx + dy * dy || 1;
        const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
        const d = hypot(x - (xs[i - 1] + t * dx), y - (ys[i - 1] + t * dy));
        if (d < bestD) {
          bestD = d;
          bestP = s0 + t * (s1 - s0);
          bestSide = dx * (y - ys[i - 1]) - dy * (x - xs[i - 1]) >= 0 ? 1 : -1;
        }
      }
    }
    this.progress = Math.min(Math.max(bestP, 0), this.length);
    this.offRoute = bestD;
    this.lateral = bestSide * bestD;
    if (!Number.isNaN(yaw) && lookaheadS > 0) {
      cell[D] = this.progress;
      this.poseAtCell(true);
      let err = yaw - cell[YAW];
      err -= 2 * Math.PI * Math.round(err / (2 * Math.PI));
      this.lateral += speed * Math.sin(err) * lookaheadS;
    }
    return bestD;
  }

  /**
   * The goal to show: up to maxLead ahead, kept in sight of the straight line (at least minLead), shifted
   * sideways against the NPC's offset from the route by `lateralGain` × offset (the policy heads for its
   * goal, so this steers it back to the centre line).
   */
  goal(minLead: number, maxLead: number, maxDeviation: number, lateralGain = 0, step = 2, out?: RouteGoal): RouteGoal {
    // the samples' points only (their directions are not needed): poseAt's x and y
    cell[D] = this.progress;
    this.poseAtCell(false);
    const startX = cell[X], startY = cell[Y];
    const last = Math.min(maxLead, this.remaining);
    // the sample distances (every `step` m, then `last`); the samples themselves are computed as the search
    // reaches them, as it often stops before the last
    let count = 0;
    for (let d = step; d < last; d += step) {
      if (count + 1 >= goalDs.length) growGoalSamples();
      goalDs[count++] = d;
    }
    goalDs[count++] = last;
    const ds = goalDs, sx = goalSx, sy = goalSy;
    let chosen = Math.min(minLead, last);
    for (let k = 0; k < count; k++) {
      const d = k === count - 1 ? last : (k + 1) * step;
      cell[D] = this.progress + ds[k];
      this.poseAtCell(false);
      const endX = cell[X], endY = cell[Y];
      sx[k] = endX;
      sy[k] = endY;
      const dx = endX - startX, dy = endY - startY;
      const len = hypot(dx, dy) || 1;
      let dev = 0;
      for (let j = 0; j < k; j++) dev = Math.max(dev, Math.abs((sx[j] - startX) * dy - (sy[j] - startY) * dx) / len);
      if (d > minLead && dev > maxDeviation) break;
      chosen = Math.max(chosen, Math.min(d, last));
    }
    cell[D] = this.progress + chosen;
    this.poseAtCell(true);
    const yaw = cell[YAW];
    let x = cell[X], y = cell[Y];
    const final = this.progress + chosen >= this.length - 1e-6;
    if (lateralGain !== 0 && !final) {
      const shift = -lateralGain * this.lateral;
      x += -Math.sin(yaw) * shift;
      y += Math.cos(yaw) * shift;
    }
    if (!out) return { x, y, yaw, final, lead: chosen };
    out.x = x;
    out.y = y;
    out.yaw = yaw;
    out.final = final;
    out.lead = chosen;
    return out;
  }
}
