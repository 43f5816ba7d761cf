/**
 * Where every vehicle will be over the next seconds, for the safety shield: each vehicle on a lane follows
 * that lane (its sideways offset from the centre line fading out over `PREDICT_OFFSET_FADE_M` of travel, as a
 * shielded NPC steers back), either at its present speed or braking to a stop; a vehicle off the lanes, or across them,
 * goes straight on. NPCs take forks towards their goal; egos the straightest way. Computed once per step
 * for all vehicles into typed arrays (nothing allocated per step), so every NPC's checks share them.
 */
import { STEP_DT } from './bicycle.js';
import type { LaneNetwork, LanePosition, PlannedLanes } from './lanes.js';
import type { StopConstraints } from './stops.js';
import { AgentKind, type World } from './world.js';
import { PathInputs } from './path-inputs.js';
import { CarFollowing } from './follow.js';
import { hypot } from '../util/hypot.js';
import { PREDICT_BEND_SEGMENTS, PREDICT_EGO_ACCEL_MPS2, PREDICT_EGO_MAX_SPEED_MPS, PREDICT_HEADING_BLEND_M, PREDICT_MAX_LANE_ANGLE_RAD, PREDICT_MAX_LANE_OFFSET_M, PREDICT_OFFSET_FADE_M, PREDICT_PATH_MIN_M } from './tuning.js';

/** lanes of an NPC's plan kept per slot (the current one first) */
export const MAX_PLAN = 16;

/** The planned lanes of each slot (the engine's routes of live NPCs). */
export interface Plans {
  readonly planLanes: Int32Array;
  readonly planCount: Int32Array;
  readonly planS: Float32Array;
}

/** Prediction modes: keeps its speed, or brakes to a stop. */
/** the far edge of a vehicle's prediction: keeping its speed (an ego: speeding up, see PREDICT_EGO_ACCEL_MPS2) */
export const KEEP_SPEED = 0;
export const BRAKE = 1;

const SPACING = 1;
/** predict(): what it made afresh */
const FRESH = 2;
const POSES = 1;
const KEPT = 0;

export class MotionPredictor {
  /**
   * predicted pose of slot j in mode m at step k (1..steps): index ((j·2 + m)·steps + k − 1); the heading only in
   * the braking mode (the keep-speed mode's is never used, so not computed)
   */
  readonly px: Float32Array;
  readonly py: Float32Array;
  readonly pyaw: Float32Array;
  /** per slot: 1 when its path follows a lane */
  readonly onLane: Uint8Array;
  /** per slot: the lane path ahead, every SPACING m (for the NPC's own continuation) */
  readonly pathX: Float32Array;
  readonly pathY: Float32Array;
  /**
   * per slot: the direction of each segment of its lane path, atan2 of its ends, computed once per step as far as
   * first needed (yawUpTo; pathPoint makes sure of it): segments 0 .. yawN − 1
   */
  readonly pathYaw: Float64Array;
  private readonly yawN: Int32Array;
  readonly pathN: Int32Array;
  /** per slot: bumped whenever its lane path is sampled afresh (what is made from a path is valid while it stays) */
  readonly pathStamp: Int32Array;
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
  /** car-following (followLimit and leader) */
  private readonly following: CarFollowing;
  private readonly pos: LanePosition = { lane: 0, s: 0, offset: 0 };
  private plans: Plans | null = null;
  /** lines NPCs stop at this step (an NPC held at one is predicted to stop there) */
  private stops: StopConstraints | null = null;
  private readonly plan: PlannedLanes = { lanes: new Int32Array(0), offset: 0, count: 0, at: 0 };
  /** offsetFromPath's scratch: squared distance and offsets to each segment looked at; its result */
  private readonly nearSq = new Float64Array(3 * 10);
  private readonly offset = new Float64Array(1);
  /** per slot: the largest extra half length its envelope adds at any step (envHalf) [m] */
  readonly envHalfMax: Float32Array;
  /**
   * work done so far: path directions computed (atan2), path points the car-following search measured, and
   * lane paths kept (their vehicle's inputs unchanged)
   */
  readonly work = { directions: 0, followPoints: 0, kept: 0, keptPoses: 0 };
  /** the inputs each slot's lane path was made from, and the settings all curve limits were made with */
  private readonly inputs: PathInputs;
  /** per slot: the speed its poses were last predicted at (NaN: not yet) */
  private readonly speedOf: Float64Array;
  private aLat = NaN;
  private decel = NaN;

  /**
   * reference: every path direction computed, every bend point and every path point of the car-following search
   * looked at, instead of the shortcuts that provably change nothing (the engine's `reference` option)
   */
  constructor(capacity: number, private readonly lanes: LaneNetwork | null, readonly steps: number, readonly brakeDecel: number, readonly maxSpeed = 40, private readonly reference = false) {
    const n = capacity * 2 * steps;
    this.px = new Float32Array(n);
    this.py = new Float32Array(n);
    this.pyaw = new Float32Array(n);
    this.onLane = new Uint8Array(capacity);
    this.maxPath = Math.ceil(Math.max(maxSpeed * steps * STEP_DT + 20, PREDICT_PATH_MIN_M) / SPACING) + 2;
    this.pathX = new Float32Array(capacity * this.maxPath);
    this.pathY = new Float32Array(capacity * this.maxPath);
    this.pathYaw = new Float64Array(capacity * this.maxPath);
    this.yawN = new Int32Array(capacity);
    this.envHalfMax = new Float32Array(capacity);
    this.pathN = new Int32Array(capacity);
    this.pathStamp = new Int32Array(capacity);
    this.curveLimit = new Float32Array(capacity).fill(Infinity);
    this.envX = new Float32Array(capacity * steps);
    this.envY = new Float32Array(capacity * steps);
    this.envCos = new Float64Array(capacity * steps);
    this.envSin = new Float64Array(capacity * steps);
    this.envHalf = new Float32Array(capacity * steps);
    this.bounds = new Float32Array(capacity * 4);
    this.followLimit = new Float32Array(capacity).fill(Infinity);
    this.leader = new Int32Array(capacity).fill(-1);
    this.following = new CarFollowing(capacity, this.maxPath, reference);
    this.inputs = new PathInputs(capacity, MAX_PLAN);
    this.speedOf = new Float64Array(capacity).fill(NaN);
  }

  /**
   * The curve speed limit of slot j from its lane path (sampled every SPACING m): at distance d the bend of
   * curvature κ may be taken at sqrt(aLat/κ), and the vehicle can slow down to that at `decel`.
   */
  private bendLimit(j: number, aLat: number, decel: number): number {
    const n = this.pathN[j];
    const b = j * this.maxPath;
    const w = PREDICT_BEND_SEGMENTS; // curvature = heading change over 4 m of path
    const X = this.pathX, Y = this.pathY, H = this.pathYaw;
    // the path's directions computed so far (yawUpTo's, inline: no call in the loop)
    let yawN = this.yawN[j];
    let limit = Infinity;
    for (let k = 0; k + w + 1 < n; k++) {
      if (!this.reference) {
        // no point from here on can lower the limit: v = sqrt(vBend² + q) ≥ sqrt(q), q growing with k (rounding
        // is monotonic)
        if (limit < Infinity && Math.sqrt(2 * decel * k * SPACING) >= limit) break;
        for (; yawN <= k + w; yawN++) H[b + yawN] = Math.atan2(Y[b + yawN + 1] - Y[b + yawN], X[b + yawN + 1] - X[b + yawN]);
      }
      const h0 = this.pathYaw[b + k];
      const h1 = this.pathYaw[b + k + w];
      let dh = h1 - h0;
      // (within ±π the wrap subtracts 2π·±0: dh itself, or +0 for −0, whose magnitude is the same)
      if (this.reference || !(dh > -Math.PI && dh < Math.PI)) dh -= 2 * Math.PI * Math.round(dh / (2 * Math.PI));
      const kappa = Math.abs(dh) / (w * SPACING);
      if (kappa < 1e-3) continue;
      const vBendSq = aLat / kappa;
      // v below would be at least limit·(1 + 4e-10): not lower (both roots' rounding is far smaller)
      if (!this.reference && vBendSq + 2 * decel * k * SPACING >= limit * limit * (1 + 1e-9)) continue;
      const vBend = Math.sqrt(vBendSq);
      const v = Math.sqrt(vBend * vBend + 2 * decel * k * SPACING);
      if (v < limit) limit = v;
    }
    if (yawN > this.yawN[j]) {
      this.work.directions += yawN - this.yawN[j];
      this.yawN[j] = yawN;
    }
    return limit;
  }

  /** Makes pathYaw hold the directions of slot j's path segments 0 .. upto − 1 (those not computed yet this step). */
  private yawUpTo(j: number, upto: number): void {
    let k = this.yawN[j];
    if (k >= upto) return;
    const b = j * this.maxPath;
    const X = this.pathX, Y = this.pathY;
    this.work.directions += upto - k;
    for (; k < upto; k++) this.pathYaw[b + k] = Math.atan2(Y[b + k + 1] - Y[b + k], X[b + k + 1] - X[b + k]);
    this.yawN[j] = upto;
  }

  /**
   * Predicts every present vehicle of the world, and the curve speed limit of each NPC (bends taken at no
   * more than `aLat` of lateral acceleration, slowing down for them at `decel`).
   */
  prepare(world: World, aLat: number, decel: number, plans?: Plans, stops?: StopConstraints): void {
    this.plans = plans ?? null;
    this.stops = stops ?? null;
    // (without plans every path is sampled afresh: none is known to be from the inputs kept)
    if (aLat !== this.aLat || decel !== this.decel || !plans) {
      this.inputs.clear();
      this.aLat = aLat;
      this.decel = decel;
    }
    for (let j = 0; j < world.count; j++) {
      if (!world.present[j]) continue;
      const made = this.predict(world, j);
      if (made === KEPT) continue;
      this.envelope(j, world.x[j], world.y[j]);
      // (a lane path kept from the last step has its curve limit still)
      if (made === FRESH) this.curveLimit[j] = this.onLane[j] && world.kind[j] === AgentKind.Controlled ? this.bendLimit(j, aLat, decel) : Infinity;
    }
    this.following.prepare(world);
    for (let j = 0; j < world.count; j++) {
      this.leader[j] = -1;
      this.followLimit[j] = world.present[j] && world.kind[j] === AgentKind.Controlled && this.onLane[j] ? this.following.limit(world, j, this) : Infinity;
    }
  }

  /**
   * Predicts slot j's poses: returns FRESH with a lane path made afresh, POSES with the path it had (see
   * PathInputs), KEPT with the poses it had too (their envelope as well).
   */
  private predict(world: World, j: number): number {
    const K = this.steps;
    const x0 = world.x[j], y0 = world.y[j], yaw0 = world.yaw[j];
    const v = Math.min(world.speed(j), this.maxSpeed);
    const reversing = world.vx[j] * Math.cos(yaw0) + world.vy[j] * Math.sin(yaw0) < 0;
    const dir = reversing ? -1 : 1;
    const pathLength = Math.max(v * K * STEP_DT + 20, PREDICT_PATH_MIN_M);
    // the same inputs as the lane path it has (a vehicle standing still): the same path
    const fresh = this.reference || !this.plans || !this.inputs.unchanged(world, j, this.plans, reversing, pathLength);
    const stood = this.speedOf[j] === 0;
    this.speedOf[j] = v;
    if (fresh) this.lanePath(world, j, reversing, pathLength);
    else {
      this.work.kept++;
      // standing (speed 0, an NPC: no speeding up) as at its last prediction, from the same pose and path: every
      // predicted pose is the one at d = 0 along the same path, as last time, and so is its envelope
      if (v === 0 && stood && world.kind[j] !== AgentKind.External) {
        this.work.keptPoses++;
        return KEPT;
      }
    }
    let ox = 0, oy = 0;
    if (this.onLane[j]) {
      ox = x0 - this.pathX[j * this.maxPath];
      oy = y0 - this.pathY[j * this.maxPath];
    }
    this.poses(world, j, v, dir, ox, oy);
    return fresh ? FRESH : POSES;
  }

  /**
   * Slot j's lane path ahead, `length` m of it: an NPC with a plan is predicted along it (from its place on the
   * planned lane), others along the nearest lane going their way; none when reversing or off the lanes.
   */
  private lanePath(world: World, j: number, reversing: boolean, length: number): void {
    this.pathStamp[j]++;
    this.pathN[j] = 0;
    this.onLane[j] = 0;
    this.yawN[j] = 0;
    const lanes = this.lanes;
    if (!lanes || reversing) return;
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
      at = lanes.locate(world.x[j], world.y[j], world.yaw[j], PREDICT_MAX_LANE_OFFSET_M, this.pos, PREDICT_MAX_LANE_ANGLE_RAD);
    }
    if (!at) return;
    const external = world.kind[j] === AgentKind.External;
    const n = lanes.samplePath(at.lane, at.s, SPACING, length, external ? NaN : world.goalX[j], external ? NaN : world.goalY[j], this.pathX, this.pathY, j * this.maxPath, this.maxPath, plan);
    if (n < 2) return;
    this.pathN[j] = n;
    this.onLane[j] = 1;
    if (this.reference) this.yawUpTo(j, n - 1);
  }

  /** Slot j's predicted poses in both modes along its lane path (or straight on), at speed v in direction dir. */
  private poses(world: World, j: number, v: number, dir: number, ox: number, oy: number): void {
    const K = this.steps;
    const x0 = world.x[j], y0 = world.y[j], yaw0 = world.yaw[j];
    // an ego (a car in the loop, a simulated ego) may also speed up: a car pulling away from a stop into a
    // crossing was predicted standing, and an NPC at speed crossed in front of it
    const a = world.kind[j] === AgentKind.External ? PREDICT_EGO_ACCEL_MPS2 : 0;
    const tCap = a > 0 ? Math.max(0, (Math.max(v, PREDICT_EGO_MAX_SPEED_MPS) - v) / a) : 0;
    // an NPC held at a line (its own checks keep its front behind it) gets no further along its path
    const stops = this.stops;
    const stopAt = stops && this.onLane[j] && world.kind[j] === AgentKind.Controlled && stops.line[j] < Infinity ? Math.max(0, stops.line[j] - 0.5 * world.length[j]) : Infinity;
    const onLane = this.onLane[j] === 1;
    const n = this.pathN[j], b = j * this.maxPath;
    const X = this.pathX, Y = this.pathY;
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
        if (onLane) {
          // the point d m along the path and the path's direction there (pathPoint's arithmetic, inlined)
          const f = Math.min(Math.max(d / SPACING, 0), n - 1);
          const i = Math.min(Math.floor(f), n - 2);
          const u = f - i;
          const ax = X[b + i], ay = Y[b + i];
          const ptX = ax + u * (X[b + i + 1] - ax), ptY = ay + u * (Y[b + i + 1] - ay);
          const fade = Math.max(0, 1 - d / PREDICT_OFFSET_FADE_M);
          this.px[idx] = ptX + ox * fade;
          this.py[idx] = ptY + oy * fade;
          if (m === KEEP_SPEED) continue; // (its headings are not used)
          if (i >= this.yawN[j]) this.yawUpTo(j, Math.min(n - 1, i + 9));
          const w = Math.min(1, d / PREDICT_HEADING_BLEND_M);
          let dy = this.pathYaw[b + i] - yaw0;
          // (within ±π the wrap subtracts 2π·±0: dy itself, or +0 for −0, which gives the same sum below)
          if (!(dy > -Math.PI && dy < Math.PI)) dy -= 2 * Math.PI * Math.round(dy / (2 * Math.PI));
          this.pyaw[idx] = yaw0 + w * dy;
        } else {
          this.px[idx] = x0 + dir * d * Math.cos(yaw0);
          this.py[idx] = y0 + dir * d * Math.sin(yaw0);
          if (m === BRAKE) this.pyaw[idx] = yaw0;
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
    let halfMax = 0;
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
        if (this.envHalf[e] > halfMax) halfMax = this.envHalf[e];
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
    this.envHalfMax[j] = halfMax;
  }

  /**
   * Distance from (at.x, at.y) to slot j's lane path near `at.d` m along it (the stretch from d − 4 to d + 4 m);
   * Infinity when it has no path.
   */
  offsetFromPath(j: number, at: { d: number; x: number; y: number }): number {
    this.offsetAt(j, at);
    return this.offset[0];
  }

  /** offsetFromPath(j, at) > limit (a boolean: a double returned from a call that is not inlined is boxed). */
  offsetExceeds(j: number, at: { d: number; x: number; y: number }, limit: { value: number }): boolean {
    const n = this.pathN[j];
    if (!this.reference && n >= 2) {
      // the segment at d first: within the limit (with 1e-9 to spare over both roundings), the least offset is too
      const d = at.d, x = at.x, y = at.y;
      const from = Math.max(0, Math.floor(d / SPACING) - 4), to = Math.min(n - 1, Math.ceil(d / SPACING) + 4);
      const i = Math.min(to - 1, Math.max(from, Math.floor(d / SPACING)));
      if (i >= from) {
        const b = j * this.maxPath;
        const ax = this.pathX[b + i], ay = this.pathY[b + i];
        const dx = this.pathX[b + i + 1] - ax, dy = this.pathY[b + i + 1] - ay;
        const len2 = dx * dx + dy * dy || 1;
        const t = Math.min(1, Math.max(0, ((x - ax) * dx + (y - ay) * dy) / len2));
        const ex = x - ax - t * dx, ey = y - ay - t * dy;
        if (ex * ex + ey * ey <= limit.value * limit.value * (1 - 1e-9)) return false;
      }
    }
    this.offsetAt(j, at);
    return this.offset[0] > limit.value;
  }

  /** offsetFromPath into offset[0]. */
  private offsetAt(j: number, at: { d: number; x: number; y: number }): void {
    // (the point in an object: doubles passed to a call that is not inlined are boxed)
    const d = at.d, x = at.x, y = at.y;
    const n = this.pathN[j];
    this.offset[0] = Infinity;
    if (n < 2) return;
    const b = j * this.maxPath;
    const from = Math.max(0, Math.floor(d / SPACING) - 4), to = Math.min(n - 1, Math.ceil(d / SPACING) + 4);
    let best = Infinity;
    if (this.reference) {
      for (let i = from; i < to; i++) {
        const ax = this.pathX[b + i], ay = this.pathY[b + i];
        const dx = this.pathX[b + i + 1] - ax, dy = this.pathY[b + i + 1] - ay;
        const len2 = dx * dx + dy * dy || 1;
        const t = Math.min(1, Math.max(0, ((x - ax) * dx + (y - ay) * dy) / len2));
        const e = hypot(x - ax - t * dx, y - ay - t * dy);
        if (e < best) best = e;
      }
      this.offset[0] = best;
      return;
    }
    // the hypot of the segments whose squared distance is within 1e-9 (relative) of the least: any other is
    // further by far more than either rounding (a few 1e-16), so its hypot is not the least
    const near = this.nearSq;
    let least = Infinity;
    for (let i = from; i < to; i++) {
      const ax = this.pathX[b + i], ay = this.pathY[b + i];
      const dx = this.pathX[b + i + 1] - ax, dy = this.pathY[b + i + 1] - ay;
      const len2 = dx * dx + dy * dy || 1;
      const t = Math.min(1, Math.max(0, ((x - ax) * dx + (y - ay) * dy) / len2));
      const ex = x - ax - t * dx, ey = y - ay - t * dy;
      const e2 = ex * ex + ey * ey;
      near[3 * (i - from)] = e2; near[3 * (i - from) + 1] = ex; near[3 * (i - from) + 2] = ey;
      if (e2 < least) least = e2;
    }
    const bound = least * (1 + 1e-9);
    for (let i = 0; i < to - from; i++) {
      if (!(near[3 * i] <= bound)) continue;
      const e = hypot(near[3 * i + 1], near[3 * i + 2]);
      if (e < best) best = e;
    }
    this.offset[0] = best;
  }

  /** The point `d` m along slot j's lane path (clamped to its ends), with the path's direction there. */
  pathPoint(j: number, d: number, out: { x: number; y: number; yaw: number }): void {
    const i = this.pathXY(j, d, out);
    if (i >= this.yawN[j]) this.yawUpTo(j, i + 1);
    out.yaw = this.pathYaw[i + j * this.maxPath]; // Math.atan2(by - ay, bx - ax), once per step
  }

  /** pathPoint without the direction; returns the segment the point lies on. */
  pathXY(j: number, d: number, out: { x: number; y: number }): number {
    const n = this.pathN[j];
    const b = j * this.maxPath;
    const f = Math.min(Math.max(d / SPACING, 0), n - 1);
    const i = Math.min(Math.floor(f), n - 2);
    const t = f - i;
    const ax = this.pathX[b + i], ay = this.pathY[b + i], bx = this.pathX[b + i + 1], by = this.pathY[b + i + 1];
    out.x = ax + t * (bx - ax);
    out.y = ay + t * (by - ay);
    return i;
  }
}
