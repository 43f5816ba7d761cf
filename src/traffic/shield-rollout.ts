/**
 * The safety shield's check of a control (see shield.ts): for the NPC being chosen for, the vehicles that matter
 * to it this step and the road edges within reach of its rollouts (gather), then the rollout of one control
 * (check): the control for one step, then a continuation that brakes at `brakeDecel` (or keeps its speed, when
 * clearing the way) and steers along the NPC's lane path, checked against every other vehicle's predicted
 * motion, road edges and stop signs, its lane corridor and its stop line. Allocation-free per step: every buffer
 * is owned here.
 */
import { ACCEL_VALUES } from '../policy/actions.js';
import { RadiusMemo, type RoadIndex } from '../map/spatial-index.js';
import { stepBicycle, stepTurning, STEP_DT, type BicycleState } from './bicycle.js';
import { obbOverlapIn } from './obb.js';
import { BRAKE, type MotionPredictor } from './predict.js';
import type { ShieldOptions } from './shield-options.js';
import type { StopConstraints } from './stops.js';
import { AgentKind, type World } from './world.js';
import { XOrder } from './x-order.js';
import { GatheredStore } from './gathered.js';
import { hypot } from '../util/hypot.js';
import { ROLLOUT_EDGE_BOX_SCALES, ROLLOUT_FOLLOWER_COS, ROLLOUT_FOLLOWER_LAT_M, ROLLOUT_LEVEL_BOX_SCALE, ROLLOUT_LEVEL_MARGIN_SHARE } from './tuning.js';

/** check(): the control is safe */
export const SAFE = 0x7fffffff;
/** check(): leaving the lane at step k is LANE_FAIL + k */
export const LANE_FAIL = 100000;
const LEVELS = ROLLOUT_LEVEL_MARGIN_SHARE.length;
/** the radius an NPC's edge memo is kept for is rounded up to a multiple of this [m] */
const EDGE_MEMO_STEP_M = 5;
/** slack on the reach bound of a rollout when leaving out edges it cannot touch [m] */
const REACH_SLACK_M = 0.5;
/** slack on the reach bound of a rollout when leaving out vehicles it cannot meet [m] */
const MEET_SLACK_M = 1e-3;

/** The heading change per step a car may make at this speed: lateral acceleration and a hard cap [rad]. */
export function maxTurnAt(o: ShieldOptions, speed: number): number {
  const cap = (o.maxTurnDeg * Math.PI) / 180;
  return speed > 0.1 ? Math.min(cap, (o.maxLateralAccel / speed) * STEP_DT) : cap;
}

/** Limits a heading change to ±max. */
export function clamp(turn: number, max: number): number {
  return turn > max ? max : turn < -max ? -max : turn;
}

export class ShieldRollout {
  /** collidable entities near NPC i (the spatial index's answer), and those of them its rollouts can reach */
  private readonly edgeIdsNear: Int32Array;
  private readonly edgeIds: Int32Array;
  /** per slot: road edges and stop signs near where it was (see edgesNear) */
  private readonly edgeMemo: RadiusMemo;
  private readonly others: Int32Array;
  /** the entries of `others` the rollout being checked can come near (see meetable) */
  private readonly meet: Int32Array;
  private meetN = 0;
  /** vehicles that may matter to an NPC this step (present, not done unless an ego), in slot order (prepare) */
  private readonly candidates: Int32Array;
  private candidatesN = 0;
  /** per slot: its predicted bounds widened by half its length plus width [minX, maxX, minY, maxY] (prepare) */
  private readonly candidateBox: Float64Array;
  /** the candidates by their box's least x, the widest box, and gather's scratch */
  private readonly byX: XOrder;
  private widest = 0;
  private readonly nearBy: Int32Array;
  /** per other: the check level (see boxes()) */
  private readonly tight: Uint8Array;
  /** per entry of `others`: NPC i's half length and width, the other's, and NPC i's half diagonal at its level */
  private readonly otherBox: Float32Array;
  /** per other: 1 when it is an NPC that yields to this one (only its braking prediction counts) */
  readonly yields: Uint8Array;
  /** right of way decided in the last step, per pair (i·capacity + j): 1 when i went first (hysteresis) */
  private readonly priorityMemo: Uint8Array;
  private othersN = 0;
  private edgesN = 0;
  private edgesNearN = 0;
  /**
   * the edge list touchesEdge reads, from edgeListAt: the reachable edges or all near (see check); and where
   * those two lists are for the NPC being chosen for (edgeIds and edgeIdsNear, or what gatherAhead kept)
   */
  private edgeList: Int32Array;
  private edgeListAt = 0;
  private edgeListN = 0;
  private reachList: Int32Array;
  private reachAt = 0;
  private nearList: Int32Array;
  private nearAt = 0;
  /** the largest |acceleration| a rollout takes after its first step, and that edgeIds assumes for the first */
  private readonly accelBound: number;
  /** a stopped rollout stays where it is (a braking deceleration that is not negative): see check */
  private readonly parkable: boolean;
  /** per slot: the cosine and sine of its heading this step (set by prepare) */
  private readonly cosYaw: Float64Array;
  private readonly sinYaw: Float64Array;
  /** some vehicle in `others` is moving (> 0.1 m/s) */
  private othersMove = false;
  /** check(): the continuation keeps the speed instead of braking (clearing the way, see the shield's choose) */
  keepGoing = false;
  /** the box scale used against edges in this NPC's checks (smaller when it is already close to one) */
  private edgeScale = 1;
  /** the rollout's state, and how far it has travelled (d) */
  private readonly st: BicycleState & { d: number; c: number; sn: number } = { x: 0, y: 0, yaw: 0, vx: 0, vy: 0, d: 0, c: 0.5, sn: 0.5 };
  /** the NPC's present pose (edge and lane checks from where it is) */
  private readonly here = { x: 0, y: 0, yaw: 0, d: 0, c: 0.5, sn: 0.5 };
  /** half extents of the box touchesEdge checks */
  private edgeHL = 0;
  private edgeHW = 0;
  private readonly target = { x: 0, y: 0, yaw: 0 };
  private readonly steps: number;
  private readonly edgeSteps: number;
  /** what gatherAhead kept per NPC for this step */
  private readonly gathered: GatheredStore;
  /** lines NPCs must stop at this step (traffic rules), set by prepare */
  private stops: StopConstraints | null = null;

  /**
   * `waitingFor` and `work` are the shield's (touchesVehicle records the vehicle that held an NPC back; the
   * counters count the work done). reference: test every edge near the NPC and every vehicle, and roll parked
   * rollouts on (the engine's `reference` option; see the exactness test).
   */
  constructor(
    private readonly capacity: number,
    private readonly roads: RoadIndex | null,
    private readonly options: ShieldOptions,
    private readonly predictor: MotionPredictor,
    private readonly waitingFor: Int32Array,
    private readonly work: { checks: number; continuationSteps: number; edgeTests: number; vehicleTests: number },
    private readonly reference: boolean,
  ) {
    this.edgeIds = new Int32Array(Math.max(1, roads?.collidable.length ?? 1));
    this.edgeIdsNear = new Int32Array(this.edgeIds.length);
    this.edgeMemo = new RadiusMemo(capacity, 5, true);
    this.cosYaw = new Float64Array(capacity);
    this.sinYaw = new Float64Array(capacity);
    this.edgeList = this.reachList = this.edgeIds;
    this.nearList = this.edgeIdsNear;
    let maxAccel = options.brakeDecel;
    for (const a of ACCEL_VALUES) maxAccel = Math.max(maxAccel, Math.abs(a));
    this.accelBound = maxAccel;
    this.parkable = options.brakeDecel >= 0 && !reference;
    this.others = new Int32Array(capacity);
    this.meet = new Int32Array(capacity);
    this.candidates = new Int32Array(capacity);
    this.candidateBox = new Float64Array(capacity * 4);
    this.byX = new XOrder(capacity);
    this.nearBy = new Int32Array(capacity);
    this.tight = new Uint8Array(capacity);
    this.otherBox = new Float32Array(capacity * 5);
    this.yields = new Uint8Array(capacity);
    this.priorityMemo = new Uint8Array(capacity * capacity);
    this.gathered = new GatheredStore(capacity);
    this.steps = predictor.steps;
    this.edgeSteps = Math.max(1, Math.round(options.edgeHorizonS / STEP_DT));
  }

  /**
   * gather() for NPC i ahead of its choice (before the policy's result is in: see the shield's gatherAhead),
   * kept for restore(i). Exact: gather reads nothing a choice writes (the world, the predictions, the right of
   * way gathered for the NPCs before it), so gathering every NPC first, in the order they choose, gives each
   * what gathering it just before its choice would.
   */
  gatherAhead(world: World, i: number): void {
    this.gather(world, i);
    const g = this.gathered, c = this.capacity, m = this.othersN;
    g.othersN[i] = m;
    for (let k = 0; k < m; k++) {
      const j = this.others[k];
      g.others[i * c + k] = j;
      g.yields[i * c + k] = this.yields[j];
    }
    for (let k = 0; k < 5 * m; k++) g.otherBox[i * c * 5 + k] = this.otherBox[k];
    g.othersMove[i] = this.othersMove ? 1 : 0;
    g.edgeScale[i] = this.edgeScale;
    const near = this.edgesNearN, n = this.edgesN;
    const at = g.claimEdges(near + n);
    const E = g.edges;
    for (let k = 0; k < near; k++) E[at + k] = this.edgeIdsNear[k];
    for (let k = 0; k < n; k++) E[at + near + k] = this.edgeIds[k];
    g.edgeAt[i] = at;
    g.edgesNearN[i] = near;
    g.edgesN[i] = n;
    g.kept[i] = 1;
  }

  /** What gather(world, i) gave when gathered ahead this step (false: nothing kept; gather instead). */
  restore(i: number): boolean {
    const g = this.gathered;
    if (!g.kept[i]) return false;
    g.kept[i] = 0;
    const c = this.capacity, m = g.othersN[i];
    for (let k = 0; k < m; k++) {
      const j = g.others[i * c + k];
      this.others[k] = j;
      this.yields[j] = g.yields[i * c + k];
    }
    for (let k = 0; k < 5 * m; k++) this.otherBox[k] = g.otherBox[i * c * 5 + k];
    this.othersN = m;
    this.othersMove = g.othersMove[i] === 1;
    this.edgeScale = g.edgeScale[i];
    // (the kept lists read where they are)
    const at = g.edgeAt[i], near = g.edgesNearN[i], n = g.edgesN[i];
    this.nearList = this.reachList = g.edges;
    this.nearAt = at;
    this.reachAt = at + near;
    this.edgesNearN = near;
    this.edgesN = n;
    this.edgeList = this.reachList;
    this.edgeListAt = this.reachAt;
    this.edgeListN = n;
    return true;
  }

  /** A new NPC in slot i: no right of way remembered for it. */
  forget(i: number): void {
    const c = this.capacity;
    for (let j = 0; j < c; j++) {
      this.priorityMemo[i * c + j] = 0;
      this.priorityMemo[j * c + i] = 0;
    }
  }

  /** Once per step, after the vehicles are predicted: their heading cosines and the candidates' boxes. */
  prepare(world: World, stops: StopConstraints | null): void {
    this.stops = stops;
    this.gathered.begin();
    const pb = this.predictor.bounds, cb = this.candidateBox;
    let n = 0, width = 0;
    this.byX.clear();
    for (let j = 0; j < world.count; j++) {
      this.cosYaw[j] = Math.cos(world.yaw[j]);
      this.sinYaw[j] = Math.sin(world.yaw[j]);
      if (!world.present[j] || (world.done[j] && world.kind[j] !== AgentKind.External)) continue;
      this.candidates[n++] = j;
      const hj = 0.5 * (world.length[j] + world.width[j]);
      cb[j * 4] = pb[j * 4] - hj; cb[j * 4 + 1] = pb[j * 4 + 2] + hj; cb[j * 4 + 2] = pb[j * 4 + 1] - hj; cb[j * 4 + 3] = pb[j * 4 + 3] + hj;
      this.byX.add(j, cb[j * 4]);
      if (cb[j * 4 + 1] - cb[j * 4] > width) width = cb[j * 4 + 1] - cb[j * 4];
    }
    this.candidatesN = n;
    this.byX.sort();
    // a box reaching x = a starts at a − width or later (a metre to spare over the subtraction's rounding)
    this.widest = width * (1 + 1e-9) + 1;
  }

  /** The vehicles that matter to NPC i in this step, and the road edges within reach of its rollouts. */
  gather(world: World, i: number): void {
    const vi = world.speed(i);
    const ci = this.cosYaw[i], si = this.sinYaw[i];
    // where NPC i's rollouts can go: its predicted bounds, widened by how far it may stray from them
    const pb = this.predictor.bounds;
    const spread = world.length[i] + this.options.laneCorridor + 2 + this.options.marginLon;
    const aMinX = Math.min(pb[i * 4], world.x[i]) - spread, aMinY = Math.min(pb[i * 4 + 1], world.y[i]) - spread;
    const aMaxX = Math.max(pb[i * 4 + 2], world.x[i]) + spread, aMaxY = Math.max(pb[i * 4 + 3], world.y[i]) + spread;
    let m = 0;
    const cb = this.candidateBox;
    // the candidates whose box starts within [aMinX − widest, aMaxX], in slot order (all of them for the reference)
    const inRange = this.reference ? this.candidatesN : this.byX.inRange(aMinX - this.widest, aMaxX, this.nearBy);
    const list = this.reference ? this.candidates : this.nearBy;
    for (let q = 0; q < inRange; q++) {
      const j = list[q];
      if (j === i) continue;
      if (cb[j * 4] > aMaxX || cb[j * 4 + 1] < aMinX || cb[j * 4 + 2] > aMaxY || cb[j * 4 + 3] < aMinY) continue;
      const dx = world.x[j] - world.x[i], dy = world.y[j] - world.y[i];
      // a vehicle behind going the same way follows us: it is its job to keep clear
      const along = dx * ci + dy * si;
      if (along < -0.5 * world.length[i]) {
        // (a car converging from behind at an angle, as at a merge, is not following: it is considered)
        const lat = Math.abs(-dx * si + dy * ci);
        if (Math.cos(world.yaw[j] - world.yaw[i]) > ROLLOUT_FOLLOWER_COS && lat < 0.5 * (world.width[i] + world.width[j]) + ROLLOUT_FOLLOWER_LAT_M) continue;
      }
      // the largest box that is still clear of it now (already touching even at 0.7: it does not hold us back)
      let level = 0;
      while (level < LEVELS && this.overlapsNow(world, i, j, level)) level++;
      if (level === LEVELS) continue;
      this.tight[j] = level;
      const first = world.kind[j] === AgentKind.Controlled && this.hasPriority(world, i, j);
      this.priorityMemo[i * this.capacity + j] = first ? 1 : 0;
      this.yields[j] = first ? 1 : 0;
      const box = this.boxes(world, i, j, level);
      const hl = box[0], hw = box[1], hlj = box[2], hwj = box[3];
      const ob = this.otherBox;
      ob[m * 5] = hl; ob[m * 5 + 1] = hw; ob[m * 5 + 2] = hlj; ob[m * 5 + 3] = hwj; ob[m * 5 + 4] = hypot(hl, hw);
      this.others[m++] = j;
    }
    this.othersN = m;
    let moving = false;
    for (let k = 0; k < m && !moving; k++) moving = world.speed(this.others[k]) > 0.1;
    this.othersMove = moving;
    const roads = this.roads;
    this.edgesN = roads ? this.edgesNear(roads, world, i, vi * this.options.edgeHorizonS + world.length[i] + roads.collidableReach, vi) : (this.edgesNearN = 0);
    this.nearList = this.edgeIdsNear;
    this.reachList = this.edgeList = this.edgeIds;
    this.nearAt = this.reachAt = this.edgeListAt = 0;
    this.edgeListN = this.edgesN;
    // close to an edge already: check with the largest box that is clear of it now, so the NPC can only
    // move away from it (never further in, never through it)
    const hl = 0.5 * world.length[i], hw = 0.5 * world.width[i];
    this.edgeScale = 0;
    if (this.edgesNearN > 0) {
      for (let q = 0; q < 4; q++) {
        const scale = q === 0 ? this.options.edgeBoxScale : ROLLOUT_EDGE_BOX_SCALES[q];
        const here = this.here;
        here.x = world.x[i]; here.y = world.y[i]; here.yaw = world.yaw[i]; here.c = this.cosYaw[i]; here.sn = this.sinYaw[i];
        this.edgeHL = hl * scale; this.edgeHW = hw * scale;
        if (!this.touchesEdge(here)) {
          this.edgeScale = scale;
          break;
        }
      }
      if (this.edgeScale === 0) this.edgesN = this.edgesNearN = 0;
    }
  }

  /**
   * roads.collidableNear(x, y, radius) of NPC i's position into edgeIdsNear (its count into edgesNearN), in
   * another order (every use of the list is a yes/no over all of it): the NPC's memo of edges near where it was,
   * kept for the radius rounded up to 5 m (a change of speed rarely refreshes it). In the same pass, those of
   * them its rollouts can touch into edgeIds, in the same order; returns how many. A rollout's edge checks come
   * within edgeSteps steps; with no acceleration larger than accelBound in size, the speed after k steps is at
   * most v0 + k·A·dt and the distance covered in K steps at most K·dt·v0 + A·(K·dt)²/2 (each step moves the car
   * by its mid-step speed × dt, whatever the steering). An edge whose centre is further than that, plus the
   * NPC's box (at its largest scale) and the edge's reach, plus a slack, fails touchesEdge's distance test at
   * every pose checked: leaving it out changes nothing.
   */
  private edgesNear(roads: RoadIndex, world: World, i: number, radius: number, v0: number): number {
    const x = world.x[i], y = world.y[i];
    const listRadius = EDGE_MEMO_STEP_M * Math.ceil(radius / EDGE_MEMO_STEP_M);
    const listed = this.edgeMemo.around(roads, i, x, y, listRadius);
    const ids = this.edgeMemo.list(i);
    const e = roads.entities;
    const T = this.edgeSteps * STEP_DT;
    const travel = (T * v0 + 0.5 * this.accelBound * T * T) * 1.001;
    const r = hypot(0.5 * world.length[i], 0.5 * world.width[i]) * Math.max(1, this.options.edgeBoxScale);
    const r2 = radius * radius;
    const all = this.reference;
    let near = 0, n = 0;
    for (let k = 0; k < listed; k++) {
      const id = ids[k];
      const dx = e.x[id] - x, dy = e.y[id] - y;
      const d2 = dx * dx + dy * dy;
      if (!(d2 <= r2)) continue;
      this.edgeIdsNear[near++] = id;
      const reach = travel + r + e.halfLength[id] + e.halfWidth[id] + REACH_SLACK_M;
      if (all || d2 <= reach * reach) this.edgeIds[n++] = id;
    }
    this.edgesNearN = near;
    return n;
  }

  /**
   * Right of way between two NPCs, so they do not both stop at a crossing: a vehicle that has passed the
   * other's line of travel goes on, and of two approaching a crossing of their lines the one due there first
   * goes first (ties: the lower slot); a decision stands until the other is clearly (1 s) earlier, so two
   * NPCs slowing down for each other do not swap roles when it is too late to stop. The one with priority
   * assumes the other brakes; the other assumes nothing. Egos never yield.
   */
  private hasPriority(world: World, i: number, j: number): boolean {
    const ci = this.cosYaw[i], si = this.sinYaw[i];
    const cj = this.cosYaw[j], sj = this.sinYaw[j];
    const dx = world.x[j] - world.x[i], dy = world.y[j] - world.y[i];
    const jAheadOfI = dx * ci + dy * si > 0;
    const iAheadOfJ = -dx * cj - dy * sj > 0;
    if (!iAheadOfJ) return false; // j is past us, or level with us: it does not wait for us
    if (!jAheadOfI) return true; // we are in front of j
    // both heading for a crossing of their lines: who gets there first
    const den = ci * sj - si * cj;
    if (Math.abs(den) < 0.1) return i < j; // nearly parallel (oncoming): each keeps to its lane
    const ti = (dx * sj - dy * cj) / den;
    const tj = (dx * si - dy * ci) / den;
    const timeI = ti / Math.max(world.speed(i), 0.5);
    const timeJ = tj / Math.max(world.speed(j), 0.5);
    const c = this.capacity;
    if (this.priorityMemo[i * c + j]) return timeI < timeJ + 1;
    if (this.priorityMemo[j * c + i]) return timeI < timeJ - 1;
    return timeI < timeJ - 0.2 || (Math.abs(timeI - timeJ) <= 0.2 && i < j);
  }

  private overlapsNow(world: World, i: number, j: number, level: number): boolean {
    const box = this.boxes(world, i, j, level);
    const v = this.obb;
    v[0] = world.x[i]; v[1] = world.y[i]; v[2] = this.cosYaw[i]; v[3] = this.sinYaw[i]; v[4] = box[0]; v[5] = box[1];
    v[6] = world.x[j]; v[7] = world.y[j]; v[8] = this.cosYaw[j]; v[9] = this.sinYaw[j]; v[10] = box[2]; v[11] = box[3];
    return obbOverlapIn(v);
  }

  private readonly box4: [number, number, number, number] = [0, 0, 0, 0];
  /** how far the rollout's NPC may stray from its lane path (see check) */
  private readonly corridor = { value: 0 };
  /** obbOverlapIn's arguments */
  private readonly obb = new Float64Array(12);

  /**
   * Half extents of NPC i and vehicle j at a check level: full size with all, half or none of the margins,
   * then smaller boxes down to GPUDrive's 0.7 collision box with a few centimetres to spare (touching counts
   * as a contact there). A pair already closer than a level is checked at the next one, so it may part or
   * hold its distance but never close in.
   */
  private boxes(world: World, i: number, j: number, level: number): [number, number, number, number] {
    const b = this.box4;
    const margin = ROLLOUT_LEVEL_MARGIN_SHARE[level];
    const si = ROLLOUT_LEVEL_BOX_SCALE[level];
    const sj = level === LEVELS - 1 ? world.collisionScale[j] : Math.max(ROLLOUT_LEVEL_BOX_SCALE[level], world.collisionScale[j]);
    b[0] = 0.5 * world.length[i] * si + margin * this.options.marginLon;
    b[1] = 0.5 * world.width[i] * si + margin * this.options.marginLat;
    b[2] = 0.5 * world.length[j] * sj;
    b[3] = 0.5 * world.width[j] * sj;
    return b;
  }

  /** Does action `a` leave NPC i a way to stop clear of every vehicle and along its lane clear of edges? */
  /**
   * Rolls out one control: SAFE, or the step k at which the NPC meets an edge (k) or leaves its lane
   * (LANE_FAIL + k), or −k when it meets a vehicle.
   */
  check(world: World, i: number, accel: number, steer: number): number {
    const o = this.options;
    const s = this.st;
    const pred = this.predictor;
    this.work.checks++;
    s.x = world.x[i]; s.y = world.y[i]; s.yaw = world.yaw[i]; s.vx = world.vx[i]; s.vy = world.vy[i];
    const len = world.length[i];
    const hl = 0.5 * len, hw = 0.5 * world.width[i];
    this.edgeHL = hl * this.edgeScale;
    this.edgeHW = hw * this.edgeScale;
    // the reachable edges hold for a first step no harder than accelBound (every candidate chooseFor makes)
    const anyAccel = !(Math.abs(accel) <= this.accelBound);
    this.edgeList = anyAccel ? this.nearList : this.reachList;
    this.edgeListAt = anyAccel ? this.nearAt : this.reachAt;
    this.edgeListN = anyAccel ? this.edgesNearN : this.edgesN;
    const v0 = hypot(s.vx, s.vy);
    stepBicycle(s, accel, steer, len);
    // the heading's cosines, for the vehicle and edge checks of each pose and the continuation's steps
    s.c = Math.cos(s.yaw); s.sn = Math.sin(s.yaw);
    let speed = hypot(s.vx, s.vy);
    // a reversing step (negative speed) keeps its direction of travel
    let dir = Math.cos(Math.atan2(s.vy, s.vx) - s.yaw) < 0 ? -1 : 1;
    this.meetable(dir, speed);
    const onLane = pred.onLane[i] === 1;
    let travelled = 0.5 * (v0 + speed) * STEP_DT;
    // a line to stop at: the front may not pass it (a candidate after which it could only is refused)
    const stopLine = this.stops ? this.stops.line[i] : Infinity;
    const stopTravel = stopLine < Infinity ? stopLine - 0.5 * len + 1e-3 : Infinity;
    // its lane: the NPC keeps within laneCorridor of the centre line (or, already further out, gets no further)
    const here = this.here;
    here.x = world.x[i]; here.y = world.y[i]; here.d = 0;
    const corridor = this.corridor;
    corridor.value = onLane ? Math.max(o.laneCorridor, pred.offsetFromPath(i, here) + 0.05) : Infinity;
    // parked: stopped (speed 0, velocity zeroed) at a pose no continuation step changes (see below); the pose
    // has passed the edge and lane checks since
    let parked = false;
    let parkedClear = false;
    for (let k = 1; k <= this.steps; k++) {
      // past the edge and lane checks, braking: the vehicles it can still meet from here; with none, and its
      // stop line beyond where it can get to, every step left passes
      if (k === this.edgeSteps + 1 && dir > 0 && !this.keepGoing && o.brakeDecel > 0.1 && this.parkable) {
        this.meetable(dir, speed);
        const stopping = (speed * speed) / (2 * o.brakeDecel) + speed * STEP_DT;
        if (this.meetN === 0 && !(travelled + stopping * (1 + 1e-6) + MEET_SLACK_M > stopTravel)) return SAFE;
      }
      if (this.touchesVehicle(world, i, k)) return -k;
      if (travelled > stopTravel) return -k;
      // edges and the lane every other step: a car moves less than its (scaled) length in two steps, so a
      // line it would cross is met at one of the steps checked
      if (k <= this.edgeSteps && (k & 1) === 1 && !parkedClear) {
        if (this.touchesEdge(s)) return k;
        s.d = travelled;
        if (pred.offsetExceeds(i, s, corridor)) return LANE_FAIL + k;
        // the same pose and distance travelled pass these checks every time
        parkedClear = parked;
      }
      // parked for good, its pose past the edge and lane checks (or past their horizon) and its distance past the
      // stop line's, and out of reach of every vehicle: every step left passes as this one did
      if (parked && this.meetN === 0 && (parkedClear || k >= this.edgeSteps)) return SAFE;
      if (speed <= 0.05 && k > 1 && !this.othersMove) return SAFE;
      if (k === this.steps) break;
      // Parked, a continuation step is the identity: no deceleration (min(brakeDecel, 0)), so it moves by
      // 0·dt (x + ±0 = x for x ≠ 0) and turns by 0; speed stays 0, travelled gains 0. Only the other vehicles
      // move on.
      if (parked) continue;
      this.work.continuationSteps++;
      // continuation: brake, and steer along the lane path (pure pursuit) when there is one
      // (turning no harder than the NPC may: the same limit as its own steering)
      const decel = this.keepGoing ? 0 : Math.min(o.brakeDecel, speed / STEP_DT);
      const before = speed;
      if (dir > 0) {
        // the classic step with the steering that turns the car by `turn` (steerFor's), in closed form
        let turn = 0;
        const vm = speed - 0.5 * decel * STEP_DT;
        if (onLane && vm >= 0.05) {
          const lookahead = Math.max(5, speed);
          pred.pathXY(i, travelled + lookahead, this.target);
          const dx = this.target.x - s.x, dy = this.target.y - s.y;
          const dist = hypot(dx, dy);
          // sin of the angle between the heading and the target
          const sinAlpha = dist > 0 ? (s.c * dy - s.sn * dx) / dist : 0;
          turn = clamp(((2 * sinAlpha) / lookahead) * vm * STEP_DT, maxTurnAt(this.options, vm));
        }
        stepTurning(s, speed, decel, turn, len);
      } else {
        // reversing (the classic model's backward velocity): braking straight
        stepBicycle(s, -dir * decel, 0, len);
        s.c = Math.cos(s.yaw); s.sn = Math.sin(s.yaw);
      }
      speed = Math.max(0, before - decel * STEP_DT);
      travelled += 0.5 * (before + speed) * STEP_DT;
      if (speed === 0) {
        s.vx = 0; s.vy = 0; dir = 1;
        parked = this.parkable && s.x !== 0 && s.y !== 0 && s.yaw !== 0 && s.yaw >= -Math.PI && s.yaw <= Math.PI && len > 0;
        // standing there from now on: the vehicles it can still meet
        if (parked) this.meetable(1, 0);
      }
    }
    // still moving at the horizon: it goes on braking, and must still stop short of its line
    if (stopTravel < Infinity && travelled + (speed * speed) / (2 * Math.max(o.brakeDecel, 0.1)) > stopTravel) return -this.steps;
    return SAFE;
  }

  /**
   * The entries of `others` the rollout, now at its first pose, may come near, into `meet` in the same order.
   * From here on the continuation moves the NPC by its mid-step speed × dt a step, the speed never growing
   * (braking at brakeDecel ≥ 0, or keeping it): by at most D = min((K − 1)·v·dt, v²/(2·brakeDecel) + v·dt). An
   * other whose predicted positions (all within its bounds) are all further than D plus the largest reach of the
   * distance test in touchesVehicle fails that test at every step: leaving it out changes nothing.
   */
  private meetable(dir: number, speed: number): void {
    const o = this.options;
    let D = Infinity;
    if (!this.reference && dir > 0) {
      const keep = (this.steps - 1) * speed * STEP_DT;
      if (this.keepGoing) D = keep;
      else if (o.brakeDecel > 0) D = Math.min(keep, (speed * speed) / (2 * o.brakeDecel) + speed * STEP_DT);
      else if (o.brakeDecel === 0) D = keep;
    }
    let n = 0;
    if (D === Infinity) {
      for (let m = 0; m < this.othersN; m++) this.meet[n++] = m;
    } else {
      const x = this.st.x, y = this.st.y;
      const pb = this.predictor.bounds, hm = this.predictor.envHalfMax, ob = this.otherBox;
      const far = D * (1 + 1e-6) + MEET_SLACK_M;
      for (let m = 0; m < this.othersN; m++) {
        const j = this.others[m];
        const reach = ob[m * 5 + 4] + ob[m * 5 + 2] + ob[m * 5 + 3] + (this.yields[j] === 1 ? 0 : hm[j]) + far;
        const gx = Math.max(pb[j * 4] - x, x - pb[j * 4 + 2], 0), gy = Math.max(pb[j * 4 + 1] - y, y - pb[j * 4 + 3], 0);
        if (gx * gx + gy * gy <= reach * reach) this.meet[n++] = m;
      }
    }
    this.meetN = n;
  }

  /**
   * Does a box of half extents (edgeHL, edgeHW) at pose p touch a road edge or stop sign of the current list?
   * (The pose comes in an object and the box in fields: doubles passed to a call that is not inlined are boxed.)
   */
  private touchesEdge(p: { x: number; y: number; c: number; sn: number }): boolean {
    const x = p.x, y = p.y, c = p.c, sn = p.sn, hl = this.edgeHL, hw = this.edgeHW;
    const roads = this.roads;
    if (!roads) return false;
    const e = roads.entities;
    const r = hypot(hl, hw);
    const ids = this.edgeList, at = this.edgeListAt;
    this.work.edgeTests += this.edgeListN;
    for (let k = 0; k < this.edgeListN; k++) {
      const id = ids[at + k];
      const dx = e.x[id] - x, dy = e.y[id] - y;
      const reach = r + e.halfLength[id] + e.halfWidth[id];
      if (dx * dx + dy * dy > reach * reach) continue;
      const v = this.obb;
      v[0] = x; v[1] = y; v[2] = c; v[3] = sn; v[4] = hl; v[5] = hw;
      v[6] = e.x[id]; v[7] = e.y[id]; v[8] = roads.headingCos[id]; v[9] = roads.headingSin[id]; v[10] = e.halfLength[id]; v[11] = e.halfWidth[id];
      if (obbOverlapIn(v)) return true;
    }
    return false;
  }

  /**
   * Does NPC i at this pose, k steps ahead, overlap any other vehicle as predicted? A vehicle that does not
   * yield to NPC i may be anywhere between braking to a stop and keeping its speed, so it is checked as one
   * box stretched over that stretch of its path; one that yields, at its braking position only.
   */
  private touchesVehicle(world: World, i: number, k: number): boolean {
    // NPC i's pose from the rollout's state (doubles passed to a call that is not inlined are boxed)
    const x = this.st.x, y = this.st.y, c = this.st.c, sn = this.st.sn;
    const pred = this.predictor;
    const K = pred.steps;
    const ob = this.otherBox;
    this.work.vehicleTests += this.meetN;
    for (let q = 0; q < this.meetN; q++) {
      const m = this.meet[q];
      const j = this.others[m];
      const hl = ob[m * 5], hw = ob[m * 5 + 1], hlj = ob[m * 5 + 2], hwj = ob[m * 5 + 3];
      const yields = this.yields[j] === 1;
      const b = (j * 2 + BRAKE) * K + k - 1, e = j * K + k - 1;
      const jx = yields ? pred.px[b] : pred.envX[e], jy = yields ? pred.py[b] : pred.envY[e];
      const jhl = yields ? hlj : hlj + pred.envHalf[e];
      const reach = ob[m * 5 + 4] + jhl + hwj;
      const dx = jx - x, dy = jy - y;
      if (dx * dx + dy * dy > reach * reach) continue;
      const jc = yields ? Math.cos(pred.pyaw[b]) : pred.envCos[e], js = yields ? Math.sin(pred.pyaw[b]) : pred.envSin[e];
      const v = this.obb;
      v[0] = x; v[1] = y; v[2] = c; v[3] = sn; v[4] = hl; v[5] = hw; v[6] = jx; v[7] = jy; v[8] = jc; v[9] = js; v[10] = jhl; v[11] = hwj;
      if (obbOverlapIn(v)) {
        if (this.waitingFor[i] < 0) this.waitingFor[i] = j;
        return true;
      }
    }
    return false;
  }
}
