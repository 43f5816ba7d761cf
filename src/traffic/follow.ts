/**
 * Car-following for the motion predictor (IDM, the Intelligent Driver Model's interaction term): the highest
 * acceleration an NPC may take behind the nearest vehicle whose centre lies on its lane path ahead. The vehicles
 * near a path are found by x (XOrder) and tested exactly as all of them would be; a path's nearest point to a
 * vehicle is searched chunk by chunk, a chunk whose bounding box is no nearer than the best point so far (or too
 * far to the side for any use) being left out: the same nearest point, the first of the least squared distances.
 */
import { STEP_DT } from './bicycle.js';
import { AgentKind, type World } from './world.js';
import { XOrder } from './x-order.js';
import { hypot } from '../util/hypot.js';
import { FOLLOW_IDM_ACCEL_MPS2, FOLLOW_IDM_DECEL_MPS2, FOLLOW_IDM_GAP_M, FOLLOW_IDM_HEADWAY_S, FOLLOW_REACH_M } from './tuning.js';

/** What car-following reads of the motion predictor's lane paths (MotionPredictor satisfies it; predict.ts owns them). */
export interface FollowPaths {
  readonly pathX: Float32Array;
  readonly pathY: Float32Array;
  readonly pathN: Int32Array;
  /** per slot: bumped when its path changes (boxes cached for it are stale) */
  readonly pathStamp: Int32Array;
  readonly maxPath: number;
  readonly steps: number;
  readonly leader: Int32Array;
  readonly work: { followPoints: number };
}

const SPACING = 1;
/** path points per chunk of the nearest-point search's bounding boxes */
const CHUNK = 8;

export class CarFollowing {
  /** the vehicles that may lead another this step (see prepare), in slot order and by x */
  private readonly leaders: Int32Array;
  private leadersN = 0;
  private readonly leadersByX: XOrder;
  /** the leaders near a path (scratch) */
  private readonly near: Int32Array;
  /**
   * per slot: the bounding boxes of its path's chunks of CHUNK points [minX, minY, maxX, maxY], made for the path
   * of stamp boxedFor (MotionPredictor.pathStamp)
   */
  private readonly chunkBox: Float64Array;
  private readonly boxedFor: Int32Array;
  private readonly maxChunks: number;

  /** reference: every vehicle and every path point looked at (the engine's `reference` option) */
  constructor(capacity: number, maxPath: number, private readonly reference: boolean) {
    this.leaders = new Int32Array(capacity);
    this.leadersByX = new XOrder(capacity);
    this.near = new Int32Array(capacity);
    this.maxChunks = Math.ceil(maxPath / CHUNK);
    this.chunkBox = new Float64Array(capacity * this.maxChunks * 4);
    this.boxedFor = new Int32Array(capacity).fill(-1);
  }

  /** Once per step: the vehicles a leader may be (present, and not done unless an ego). */
  prepare(world: World): void {
    let m = 0;
    this.leadersByX.clear();
    for (let o = 0; o < world.count; o++) {
      if (!world.present[o] || (world.done[o] && world.kind[o] !== AgentKind.External)) continue;
      this.leaders[m++] = o;
      this.leadersByX.add(o, world.x[o]);
    }
    this.leadersN = m;
    this.leadersByX.sort();
  }

  /**
   * IDM car-following for slot j behind the nearest vehicle whose centre lies on its lane path ahead (within
   * half the two widths plus 0.5 m of it): a = a·(1 − (s_/s)²) with s_ = s0 + v·T + v·Δv / (2·sqrt(a·b)), the
   * closing speed Δv measured along the path.
   */
  limit(world: World, j: number, p: FollowPaths): number {
    const n = p.pathN[j];
    const b = j * p.maxPath;
    const X = p.pathX, Y = p.pathY;
    const v = world.speed(j);
    // where a leader can matter: the path as far as the rollout reaches and FOLLOW_REACH_M beyond (a stopped
    // NPC's predicted bounds are its own spot: its queue's leader lies outside them)
    const reach = Math.min(n, Math.ceil((v * p.steps * STEP_DT + FOLLOW_REACH_M) / SPACING) + 1);
    let bx0 = Infinity, by0 = Infinity, bx1 = -Infinity, by1 = -Infinity;
    const chunks = this.reference ? 0 : Math.ceil(n / CHUNK);
    // the path's chunk boxes (made when its path was sampled: a kept path has them still), and from the whole
    // chunks before `reach` and the points of the one it ends in, the box of the path's first `reach` points
    // (the same least and greatest coordinates)
    const cb = this.chunkBox;
    const cbase = j * this.maxChunks * 4;
    let from = 0;
    if (chunks > 0) {
      if (this.boxedFor[j] !== p.pathStamp[j]) {
        this.chunkBoxes(p, b, n, cbase);
        this.boxedFor[j] = p.pathStamp[j];
      }
      for (let c = 0; (c + 1) * CHUNK <= reach; c++, from += CHUNK) {
        const o = cbase + 4 * c;
        if (cb[o] < bx0) bx0 = cb[o];
        if (cb[o + 2] > bx1) bx1 = cb[o + 2];
        if (cb[o + 1] < by0) by0 = cb[o + 1];
        if (cb[o + 3] > by1) by1 = cb[o + 3];
      }
    }
    for (let k = from; k < reach; k++) {
      const px = X[b + k], py = Y[b + k];
      if (px < bx0) bx0 = px;
      if (px > bx1) bx1 = px;
      if (py < by0) by0 = py;
      if (py > by1) by1 = py;
    }
    bx0 -= 3; by0 -= 3; bx1 += 3; by1 += 3;
    let gapBest = Infinity, dvBest = 0, leader = -1;
    // the leaders within the box's x range, in slot order (all of them for the reference)
    const inRange = this.reference ? this.leadersN : this.leadersByX.inRange(bx0, bx1, this.near);
    const list = this.reference ? this.leaders : this.near;
    for (let q = 0; q < inRange; q++) {
      const o = list[q];
      if (o === j) continue;
      const ox = world.x[o], oy = world.y[o];
      if (ox < bx0 || ox > bx1 || oy < by0 || oy > by1) continue;
      const maxLateral = 0.5 * (world.width[j] + world.width[o]) + 0.5;
      // nearest point of the path (sampled every SPACING m): the first of the smallest squared distances
      let bestD = Infinity, bestK = -1;
      if (chunks === 0) {
        p.work.followPoints += n;
        for (let k = 0; k < n; k++) {
          const dx = X[b + k] - ox, dy = Y[b + k] - oy;
          const d = dx * dx + dy * dy;
          if (d < bestD) { bestD = d; bestK = k; }
        }
      } else {
        for (let c = 0; c < chunks; c++) {
          // a chunk whose box is no nearer than the best point so far holds no nearer point (the differences of
          // float32 coordinates are exact, squares and sums round monotonically); nor one whose nearest point
          // would be too far to the side for any use (then it is not the nearest, or is rejected below)
          const o = cbase + 4 * c;
          let gx = cb[o] - ox, gy = cb[o + 1] - oy;
          if (!(gx > 0)) gx = ox - cb[o + 2] > 0 ? ox - cb[o + 2] : 0;
          if (!(gy > 0)) gy = oy - cb[o + 3] > 0 ? oy - cb[o + 3] : 0;
          const lb = gx * gx + gy * gy;
          if (lb >= bestD || Math.sqrt(lb) > maxLateral) continue;
          const end = Math.min(n, (c + 1) * CHUNK);
          p.work.followPoints += end - c * CHUNK;
          for (let k = c * CHUNK; k < end; k++) {
            const dx = X[b + k] - ox, dy = Y[b + k] - oy;
            const d = dx * dx + dy * dy;
            if (d < bestD) { bestD = d; bestK = k; }
          }
        }
      }
      if (bestK <= 0) continue; // behind or beside the start: not ahead
      const lateral = Math.sqrt(bestD);
      if (lateral > maxLateral) continue;
      const gap = bestK * SPACING - 0.5 * (world.length[j] + world.length[o]);
      if (gap >= gapBest) continue;
      // its speed along our path
      const k1 = Math.min(n - 1, bestK + 1), k0 = k1 - 1;
      const tx = X[b + k1] - X[b + k0], ty = Y[b + k1] - Y[b + k0];
      const tl = hypot(tx, ty) || 1;
      const vAlong = (world.vx[o] * tx + world.vy[o] * ty) / tl;
      gapBest = gap;
      dvBest = v - vAlong;
      leader = o;
    }
    if (gapBest === Infinity) return Infinity;
    p.leader[j] = leader;
    const sStar = FOLLOW_IDM_GAP_M + Math.max(0, v * FOLLOW_IDM_HEADWAY_S + (v * dvBest) / (2 * Math.sqrt(FOLLOW_IDM_ACCEL_MPS2 * FOLLOW_IDM_DECEL_MPS2)));
    const s = Math.max(0.1, gapBest);
    return FOLLOW_IDM_ACCEL_MPS2 * (1 - (sStar / s) ** 2);
  }

  /** The bounding boxes of a path's chunks of CHUNK points (path from index b, n points) into chunkBox from cbase. */
  private chunkBoxes(p: FollowPaths, b: number, n: number, cbase: number): void {
    const X = p.pathX, Y = p.pathY, cb = this.chunkBox;
    for (let c = 0; c * CHUNK < n; c++) {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const end = Math.min(n, (c + 1) * CHUNK);
      for (let k = c * CHUNK; k < end; k++) {
        const px = X[b + k], py = Y[b + k];
        if (px < x0) x0 = px;
        if (px > x1) x1 = px;
        if (py < y0) y0 = py;
        if (py > y1) y1 = py;
      }
      const o = cbase + 4 * c;
      cb[o] = x0; cb[o + 1] = y0; cb[o + 2] = x1; cb[o + 3] = y1;
    }
  }
}
