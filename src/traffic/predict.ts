/**
 * Where every vehicle will be over the next seconds, for the safety shield: each vehicle on a lane follows
 * that lane (its sideways offset from the centre line fading out over `OFFSET_FADE_M` of travel, as a
 * shielded NPC steers back), either at its present speed or braking to a stop; a vehicle off the lanes, or across them,
 * goes straight on. NPCs take forks towards their goal; egos the straightest way. Computed once per step
 * for all vehicles into typed arrays (nothing allocated per step), so every NPC's checks share them.
 */
import { STEP_DT } from './bicycle.js';
import type { LaneNetwork, LanePosition, PlannedLanes } from './lanes.js';
import type { StopConstraints } from './stops.js';
import { AgentKind, type World } from './world.js';
import { hypot } from '../util/hypot.js';

/** lanes of an NPC's plan kept per slot (the current one first) */
export const MAX_PLAN = 16;

/** The planned lanes of each slot (the engine's routes of live NPCs). */
export interface Plans {
  readonly planLanes: Int32Array;
  readonly planCount: Int32Array;
  readonly planS: Float32Array;
  /** lines NPCs stop at this step (an NPC held at one is predicted to stop there) */
  readonly stops?: StopConstraints;
}

/** Prediction modes: keeps its speed, or brakes to a stop. */
/** the far edge of a vehicle's prediction: keeping its speed (an ego: speeding up, see EGO_PREDICT_ACCEL) */
export const KEEP_SPEED = 0;
export const BRAKE = 1;

const SPACING = 1;
/** car-following (IDM): comfortable acceleration and deceleration, standstill gap, time headway */
const IDM_A = 2;
const IDM_B = 2.5;
const IDM_S0 = 2.5;
const IDM_T = 1.2;
/** car-following looks this far along the path beyond where the rollout reaches [m] (IDM at rest: 1 % of a at 25 m) */
const FOLLOW_REACH_M = 25;
/** an ego's prediction reaches as far as speeding up at this [m/s²] to at least EGO_PREDICT_MAX_V [m/s] */
const EGO_PREDICT_ACCEL = 2;
const EGO_PREDICT_MAX_V = 14;
/** the lane path is looked at at least this far ahead (for the curve speed limit) [m] */
const PATH_MIN_M = 60;
/** the sideways offset fades out over this much travel (a stopped car does not slide sideways) [m] */
const OFFSET_FADE_M = 20;
/** the heading turns to the lane's over this much travel [m] */
const HEADING_BLEND_M = 5;
/** a vehicle further than this from its lane, or more than this far off its direction, goes straight */
const MAX_LANE_OFFSET = 3.5;
const MAX_LANE_ANGLE = (75 * Math.PI) / 180;

export class MotionPredictor {
  /** predicted pose of slot j in mode m at step k (1..steps): index ((j·2 + m)·steps + k − 1) */
  readonly px: Float32Array;
  readonly py: Float32Array;
  readonly pyaw: Float32Array;
  /** per slot: 1 when its path follows a lane */
  readonly onLane: Uint8Array;
  /** per slot: the lane path ahead, every SPACING m (for the NPC's own continuation) */
  readonly pathX: Float32Array;
  readonly pathY: Float32Array;
  /** per slot: the direction of each segment of its lane path, atan2 of its ends (computed once per step) */
  readonly pathYaw: Float64Array;
  readonly pathN: Int32Array;
  readonly maxPath: number;
  /** per slot: the speed from which it can still slow down for every bend of its lane path ahead [m/s] */
  readonly curveLimit: Float32Array;
  /**
   * Per slot and step k (index j·steps + k − 1): the stretch of path the vehicle may be on, between braking to
   * a stop and keeping its speed, as a centre, a direction (its cosine and sine) and the extra half length it
   * adds to the box.
   */
  readonly envX: Float32Array;
  readonly envY: Float32Array;
  readonly envCos: Float64Array;
  readonly envSin: Float64Array;
  readonly envHalf: Float32Array;
  /** per slot: the box [minX, minY, maxX, maxY] holding every predicted pose (centres only) */
  readonly bounds: Float32Array;
  /**
   * Per NPC: the highest acceleration car-following allows behind the nearest vehicle on its lane path ahead
   * (the Intelligent Driver Model's interaction term), Infinity with nothing ahead [m/s²].
   */
  readonly followLimit: Float32Array;
  /** per NPC: the vehicle (slot) car-following keeps its distance to, −1 with none */
  readonly leader: Int32Array;
  private readonly pos: LanePosition = { lane: 0, s: 0, offset: 0 };
  private plans: Plans | null = null;
  private readonly plan: PlannedLanes = { lanes: new Int32Array(0), offset: 0, count: 0, at: 0 };
  private readonly pt = { x: 0, y: 0, yaw: 0 };

  constructor(capacity: number, private readonly lanes: LaneNetwork | null, readonly steps: number, readonly brakeDecel: number, readonly maxSpeed = 40) {
    const n = capacity * 2 * steps;
    this.px = new Float32Array(n);
    this.py = new Float32Array(n);
    this.pyaw = new Float32Array(n);
    this.onLane = new Uint8Array(capacity);
    this.maxPath = Math.ceil(Math.max(maxSpeed * steps * STEP_DT + 20, PATH_MIN_M) / SPACING) + 2;
    this.pathX = new Float32Array(capacity * this.maxPath);
    this.pathY = new Float32Array(capacity * this.maxPath);
    this.pathYaw = new Float64Array(capacity * this.maxPath);
    this.pathN = new Int32Array(capacity);
    this.curveLimit = new Float32Array(capacity).fill(Infinity);
    this.envX = new Float32Array(capacity * steps);
    this.envY = new Float32Array(capacity * steps);
    this.envCos = new Float64Array(capacity * steps);
    this.envSin = new Float64Array(capacity * steps);
    this.envHalf = new Float32Array(capacity * steps);
    this.bounds = new Float32Array(capacity * 4);
    this.followLimit = new Float32Array(capacity).fill(Infinity);
    this.leader = new Int32Array(capacity).fill(-1);
  }

  /**
   * The curve speed limit of slot j from its lane path (sampled every SPACING m): at distance d the bend of
   * curvature κ may be taken at sqrt(aLat/κ), and the vehicle can slow down to that at `decel`.
   */
  private bendLimit(j: number, aLat: number, decel: number): number {
    const n = this.pathN[j];
    const b = j * this.maxPath;
    const w = 4; // curvature = heading change over 4 m of path
    let limit = Infinity;
    for (let k = 0; k + w + 1 < n; k++) {
      const h0 = this.pathYaw[b + k];
      const h1 = this.pathYaw[b + k + w];
      let dh = h1 - h0;
      dh -= 2 * Math.PI * Math.round(dh / (2 * Math.PI));
      const kappa = Math.abs(dh) / (w * SPACING);
      if (kappa < 1e-3) continue;
      const vBend = Math.sqrt(aLat / kappa);
      const v = Math.sqrt(vBend * vBend + 2 * decel * k * SPACING);
      if (v < limit) limit = v;
    }
    return limit;
  }

  /**
   * Predicts every present vehicle of the world, and the curve speed limit of each NPC (bends taken at no
   * more than `aLat` of lateral acceleration, slowing down for them at `decel`).
   */
  prepare(world: World, aLat: number, decel: number, plans?: Plans): void {
    this.plans = plans ?? null;
    for (let j = 0; j < world.count; j++) {
      if (!world.present[j]) continue;
      this.predict(world, j);
      this.envelope(j, world.x[j], world.y[j]);
      this.curveLimit[j] = this.onLane[j] && world.kind[j] === AgentKind.Controlled ? this.bendLimit(j, aLat, decel) : Infinity;
    }
    for (let j = 0; j < world.count; j++) {
      this.leader[j] = -1;
      this.followLimit[j] = world.present[j] && world.kind[j] === AgentKind.Controlled && this.onLane[j] ? this.follow(world, j) : Infinity;
    }
  }

  /**
   * IDM car-following for slot j behind the nearest vehicle whose centre lies on its lane path ahead (within
   * half the two widths plus 0.5 m of it): a = a·(1 − (s_/s)²) with s_ = s0 + v·T + v·Δv / (2·sqrt(a·b)), the
   * closing speed Δv measured along the path.
   */
  private follow(world: World, j: number): number {
    const n = this.pathN[j];
    const b = j * this.maxPath;
    const v = world.speed(j);
    // where a leader can matter: the path as far as the rollout reaches and FOLLOW_REACH_M beyond (a stopped
    // NPC's predicted bounds are its own spot: its queue's leader lies outside them)
    const reach = Math.min(n, Math.ceil((v * this.steps * STEP_DT + FOLLOW_REACH_M) / SPACING) + 1);
    let bx0 = Infinity, by0 = Infinity, bx1 = -Infinity, by1 = -Infinity;
    for (let k = 0; k < reach; k++) {
      const px = this.pathX[b + k], py = this.pathY[b + k];
      if (px < bx0) bx0 = px;
      if (px > bx1) bx1 = px;
      if (py < by0) by0 = py;
      if (py > by1) by1 = py;
    }
    bx0 -= 3; by0 -= 3; bx1 += 3; by1 += 3;
    let gapBest = Infinity, dvBest = 0, leader = -1;
    for (let o = 0; o < world.count; o++) {
      if (o === j || !world.present[o] || (world.done[o] && world.kind[o] !== AgentKind.External)) continue;
      const ox = world.x[o], oy = world.y[o];
      if (ox < bx0 || ox > bx1 || oy < by0 || oy > by1) continue;
      // nearest point of the path (sampled every SPACING m)
      let bestD = Infinity, bestK = -1;
      for (let k = 0; k < n; k++) {
        const dx = this.pathX[b + k] - ox, dy = this.pathY[b + k] - oy;
        const d = dx * dx + dy * dy;
        if (d < bestD) { bestD = d; bestK = k; }
      }
      if (bestK <= 0) continue; // behind or beside the start: not ahead
      const lateral = Math.sqrt(bestD);
      if (lateral > 0.5 * (world.width[j] + world.width[o]) + 0.5) continue;
      const gap = bestK * SPACING - 0.5 * (world.length[j] + world.length[o]);
      if (gap >= gapBest) continue;
      // its speed along our path
      const k1 = Math.min(n - 1, bestK + 1), k0 = k1 - 1;
      const tx = this.pathX[b + k1] - this.pathX[b + k0], ty = this.pathY[b + k1] - this.pathY[b + k0];
      const tl = hypot(tx, ty) || 1;
      const vAlong = (world.vx[o] * tx + world.vy[o] * ty) / tl;
      gapBest = gap;
      dvBest = v - vAlong;
      leader = o;
    }
    if (gapBest === Infinity) return Infinity;
    this.leader[j] = leader;
    const sStar = IDM_S0 + Math.max(0, v * IDM_T + (v * dvBest) / (2 * Math.sqrt(IDM_A * IDM_B)));
    const s = Math.max(0.1, gapBest);
    return IDM_A * (1 - (sStar / s) ** 2);
  }

  private predict(world: World, j: number): void {
    const K = this.steps;
    const x0 = world.x[j], y0 = world.y[j], yaw0 = world.yaw[j];
    const v = Math.min(world.speed(j), this.maxSpeed);
    const reversing = world.vx[j] * Math.cos(yaw0) + world.vy[j] * Math.sin(yaw0) < 0;
    const dir = reversing ? -1 : 1;
    this.pathN[j] = 0;
    this.onLane[j] = 0;
    let ox = 0, oy = 0;
    const lanes = this.lanes;
    if (lanes && !reversing) {
      // an NPC with a plan is predicted along it (from its place on the planned lane), others along the
      // nearest lane going their way
      const plans = this.plans;
      let at: LanePosition | null = null;
      let plan: PlannedLanes | undefined;
      if (plans && plans.planCount[j] > 0) {
        const P = this.plan;
        P.lanes = plans.planLanes;
        P.offset = j * MAX_PLAN;
        P.count = plans.planCount[j];
        P.at = 0;
        plan = P;
        this.pos.lane = plans.planLanes[j * MAX_PLAN];
        this.pos.s = plans.planS[j];
        at = this.pos;
      } else {
        at = lanes.locate(x0, y0, yaw0, MAX_LANE_OFFSET, this.pos, MAX_LANE_ANGLE);
      }
      if (at) {
        const external = world.kind[j] === AgentKind.External;
        const n = lanes.samplePath(at.lane, at.s, SPACING, Math.max(v * K * STEP_DT + 20, PATH_MIN_M), external ? NaN : world.goalX[j], external ? NaN : world.goalY[j], this.pathX, this.pathY, j * this.maxPath, this.maxPath, plan);
        if (n >= 2) {
          this.pathN[j] = n;
          this.onLane[j] = 1;
          const b = j * this.maxPath;
          for (let i = 0; i + 1 < n; i++) this.pathYaw[b + i] = Math.atan2(this.pathY[b + i + 1] - this.pathY[b + i], this.pathX[b + i + 1] - this.pathX[b + i]);
          ox = x0 - this.pathX[j * this.maxPath];
          oy = y0 - this.pathY[j * this.maxPath];
        }
      }
    }
    // an ego (a car in the loop, a simulated ego) may also speed up: a car pulling away from a stop into a
    // crossing was predicted standing, and an NPC at speed crossed in front of it
    const a = world.kind[j] === AgentKind.External ? EGO_PREDICT_ACCEL : 0;
    const tCap = a > 0 ? Math.max(0, (Math.max(v, EGO_PREDICT_MAX_V) - v) / a) : 0;
    // an NPC held at a line (its own checks keep its front behind it) gets no further along its path
    const stops = this.plans?.stops;
    const stopAt = stops && this.onLane[j] && world.kind[j] === AgentKind.Controlled && stops.line[j] < Infinity ? Math.max(0, stops.line[j] - 0.5 * world.length[j]) : Infinity;
    for (let m = 0; m < 2; m++) {
      const base = (j * 2 + m) * K;
      for (let k = 1; k <= K; k++) {
        const t = k * STEP_DT;
        let d: number;
        if (m === KEEP_SPEED) {
          const ta = t < tCap ? t : tCap;
          d = v * t + a * ta * (t - 0.5 * ta);
        } else {
          const tStop = v / this.brakeDecel;
          d = t >= tStop ? 0.5 * v * tStop : v * t - 0.5 * this.brakeDecel * t * t;
        }
        if (d > stopAt) d = stopAt;
        const idx = base + k - 1;
        if (this.onLane[j]) {
          this.pathPoint(j, d, this.pt);
          const fade = Math.max(0, 1 - d / OFFSET_FADE_M);
          this.px[idx] = this.pt.x + ox * fade;
          this.py[idx] = this.pt.y + oy * fade;
          const w = Math.min(1, d / HEADING_BLEND_M);
          let dy = this.pt.yaw - yaw0;
          dy -= 2 * Math.PI * Math.round(dy / (2 * Math.PI));
          this.pyaw[idx] = yaw0 + w * dy;
        } else {
          this.px[idx] = x0 + dir * d * Math.cos(yaw0);
          this.py[idx] = y0 + dir * d * Math.sin(yaw0);
          this.pyaw[idx] = yaw0;
        }
      }
    }
  }

  /** The stretch between the braking and the keep-speed predictions at each step, and the slot's bounds. */
  private envelope(j: number, x0: number, y0: number): void {
    const K = this.steps;
    // (· 1: doubles from the start, so the optimised loop keeps them unboxed: the same values)
    let minX = x0 * 1, minY = y0 * 1, maxX = x0 * 1, maxY = y0 * 1;
    let lastYaw = NaN, lastCos = 0.5, lastSin = 0.5;
    for (let k = 0; k < K; k++) {
      const b = (j * 2 + BRAKE) * K + k, c = (j * 2 + KEEP_SPEED) * K + k, e = j * K + k;
      const bx = this.px[b], by = this.py[b], cx = this.px[c], cy = this.py[c];
      const ex = cx - bx, ey = cy - by;
      const span = hypot(ex, ey);
      if (span > 0.05) {
        this.envX[e] = bx + 0.5 * ex;
        this.envY[e] = by + 0.5 * ey;
        // the stretch's direction (from braking to keeping speed), as its cosine and sine
        this.envCos[e] = ex / span;
        this.envSin[e] = ey / span;
        this.envHalf[e] = 0.5 * span;
      } else {
        this.envX[e] = bx;
        this.envY[e] = by;
        // the braking pose's heading (a stopped vehicle's is the same at every step: its cosines once)
        const yaw = this.pyaw[b];
        if (yaw !== lastYaw) {
          lastYaw = yaw;
          lastCos = Math.cos(yaw);
          lastSin = Math.sin(yaw);
        }
        this.envCos[e] = lastCos;
        this.envSin[e] = lastSin;
        this.envHalf[e] = 0;
      }
      if (cx < minX) minX = cx; if (cx > maxX) maxX = cx; if (cy < minY) minY = cy; if (cy > maxY) maxY = cy;
      if (bx < minX) minX = bx; if (bx > maxX) maxX = bx; if (by < minY) minY = by; if (by > maxY) maxY = by;
    }
    this.bounds[j * 4] = minX; this.bounds[j * 4 + 1] = minY; this.bounds[j * 4 + 2] = maxX; this.bounds[j * 4 + 3] = maxY;
  }

  /**
   * Distance from (at.x, at.y) to slot j's lane path near `at.d` m along it (the stretch from d − 4 to d + 4 m);
   * Infinity when it has no path.
   */
  offsetFromPath(j: number, at: { d: number; x: number; y: number }): number {
    // (the point in an object: doubles passed to a call that is not inlined are boxed)
    const d = at.d, x = at.x, y = at.y;
    const n = this.pathN[j];
    if (n < 2) return Infinity;
    const b = j * this.maxPath;
    const from = Math.max(0, Math.floor(d / SPACING) - 4), to = Math.min(n - 1, Math.ceil(d / SPACING) + 4);
    let best = Infinity;
    for (let i = from; i < to; i++) {
      const ax = this.pathX[b + i], ay = this.pathY[b + i];
      const dx = this.pathX[b + i + 1] - ax, dy = this.pathY[b + i + 1] - ay;
      const len2 = dx * dx + dy * dy || 1;
      const t = Math.min(1, Math.max(0, ((x - ax) * dx + (y - ay) * dy) / len2));
      const e = hypot(x - ax - t * dx, y - ay - t * dy);
      if (e < best) best = e;
    }
    return best;
  }

  /** The point `d` m along slot j's lane path (clamped to its ends), with the path's direction there. */
  pathPoint(j: number, d: number, out: { x: number; y: number; yaw: number }): void {
    const n = this.pathN[j];
    const b = j * this.maxPath;
    const f = Math.min(Math.max(d / SPACING, 0), n - 1);
    const i = Math.min(Math.floor(f), n - 2);
    const t = f - i;
    const ax = this.pathX[b + i], ay = this.pathY[b + i], bx = this.pathX[b + i + 1], by = this.pathY[b + i + 1];
    out.x = ax + t * (bx - ax);
    out.y = ay + t * (by - ay);
    out.yaw = this.pathYaw[b + i]; // Math.atan2(by - ay, bx - ax), once per step
  }
}
