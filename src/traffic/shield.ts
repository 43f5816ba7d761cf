/**
 * A safety shield over the policy, for live NPCs only (`vils eval` never uses it): the policy still drives,
 * but an NPC only takes an action after which it can still stop without touching a vehicle and follow its
 * lane without touching a road edge.
 *
 * For each NPC the 91 actions are tried in order of preference, and the first one that passes is taken:
 *  1. Preference: the policy's logits, smoothed. Among the near-best actions (logit within `smoothingMargin`
 *     of the best) the one that turns the NPC least comes first, the rest follow by logit. The policy
 *     alternates hard steering (±1.047 rad is a 17° heading change in 0.1 s at 10 m/s) where a small one does
 *     nearly as well; a perception stack sees that as a vehicle shaking on the spot. Steering back along the
 *     lane is near-best too where the policy rates it so: it comes first for an NPC more than `LANE_RETURN_M`
 *     off its lane path (a drift of a few centimetres a step would otherwise take it into the opposite
 *     lane), and right after the preferred steering for the others.
 *  2. Check (a short rollout of GPUDrive's bicycle model): the action for one step, then a continuation that
 *     brakes at `brakeDecel` and steers along the NPC's lane path (pure pursuit), for up to `horizonS` or
 *     until stopped. Every other vehicle (NPCs and egos) is predicted along its lane (MotionPredictor), both
 *     keeping its speed and braking to a stop; the NPC's box, enlarged by margins, must overlap neither, and
 *     within `edgeHorizonS` must not touch a road edge or stop sign. Vehicles behind the NPC going its way
 *     are left to look after themselves (a follower brakes for its leader, not the other way round). A
 *     vehicle already closer than the margins is checked against smaller boxes (the full size, then
 *     GPUDrive's 0.7 collision box), so two NPCs that came too close can still part.
 *  3. If none of the first `maxCandidates` passes, the best braking action that passes; else, when what fails
 *     them is a vehicle giving way to the NPC that could not stop short of it (a crossing), going on along the
 *     lane without braking where that keeps clear of everything; else the hardest braking straight ahead.
 * Allocation-free per step: every buffer is owned by the shield.
 */
import { ACTION_ACCEL, ACTION_STEER, ACTION_COUNT, ACCEL_VALUES, STEER_VALUES } from '../policy/actions.js';
import { RadiusMemo, type RoadIndex } from '../map/spatial-index.js';
import { MAX_TURN_K2, stepBicycle, stepTurning, STEP_DT, type KinematicState } from './bicycle.js';
import type { LaneNetwork } from './lanes.js';
import { obbOverlapCS } from './obb.js';
import { BRAKE, KEEP_SPEED, MotionPredictor, type Plans } from './predict.js';
import type { StopConstraints } from './stops.js';
import { AgentKind, type World } from './world.js';
import { hypot } from '../util/hypot.js';

export interface ShieldOptions {
  /** logit margin within which the steering closest to the policy's intent is preferred (0: no smoothing) */
  readonly smoothingMargin: number;
  /** weight of the newest step in the running mean of the policy's steering intent (0..1) */
  readonly intentGain: number;
  /** the smoothed choice turns the NPC by at most this much per 0.1 s step where it can [deg] */
  readonly maxTurnDeg: number;
  /** … and by no more than this lateral acceleration allows [m/s²] */
  readonly maxLateralAccel: number;
  /** longest rollout [s] */
  readonly horizonS: number;
  /** road edges are checked this far into the rollout [s] */
  readonly edgeHorizonS: number;
  /** deceleration of the continuation [m/s²] */
  readonly brakeDecel: number;
  /** added to the NPC's half length / half width against vehicles [m] */
  readonly marginLon: number;
  readonly marginLat: number;
  /** scale on the NPC's box against road edges (1: full size; GPUDrive's off-road test uses 0.7) */
  readonly edgeBoxScale: number;
  /** how far the NPC's centre may stray from its lane's centre line within edgeHorizonS [m] */
  readonly laneCorridor: number;
  /** candidates tried in preference order before falling back to braking */
  readonly maxCandidates: number;
}

export const DEFAULT_SHIELD_OPTIONS: ShieldOptions = {
  smoothingMargin: 12,
  intentGain: 0.35,
  maxTurnDeg: 10,
  maxLateralAccel: 4,
  horizonS: 3.0,
  edgeHorizonS: 1.5,
  brakeDecel: 4.0,
  marginLon: 0.5,
  marginLat: 0.25,
  edgeBoxScale: 0.78,
  laneCorridor: 1.2,
  maxCandidates: 12,
};

/** What the shield did for one NPC in the last step. */
export const ShieldOutcome = {
  /** took the policy's first choice */
  Policy: 0,
  /** took a near-best action (logit within smoothingMargin of the first choice) instead of it: a smoother
   * steering, or one back along its lane */
  Smoothed: 1,
  /** overrode the preferred action with a later candidate or a braking action */
  Overridden: 2,
  /** nothing passed: braked as hard as possible */
  Emergency: 3,
} as const;

const STEER_COUNT = STEER_VALUES.length;
const TAN_STEER = Float64Array.from(STEER_VALUES, (s) => Math.fround(Math.tan(s)));
const COS_BETA = Float64Array.from(TAN_STEER, (t) => Math.cos(Math.atan(0.5 * t)));
/** steering values whose tan is huge (±1.571 rad): the classic model moves the car almost sideways */
const SIDEWAYS = Uint8Array.from(TAN_STEER, (t) => (Math.abs(t) > 100 ? 1 : 0));
const STRAIGHT = STEER_VALUES.indexOf(0);
/** a heading change below this (steer ±3.142: tan ≈ 0.0004) is driving straight, not turning [rad] */
const MIN_REAL_TURN = 0.01;
/** check(): the control is safe */
const SAFE = 0x7fffffff;
/** check(): leaving the lane at step k is LANE_FAIL + k */
const LANE_FAIL = 100000;
/** slowing down for a bend ahead at this deceleration [m/s²] */
const CURVE_DECEL = 2;
/** an NPC further than this from its lane path steers back towards it where the policy rates that near-best [m] */
const LANE_RETURN_M = 0.5;
/** heading changes closer than this are the same steering [rad] */
const SAME_TURN = 0.01;
/** GPUDrive's collision box scale (spec §7.9) */
const COLLISION_BOX = 0.7;
/** a vehicle behind within 25° of our heading and about in our track follows us: keeping clear is its job */
const FOLLOW_COS = Math.cos((25 * Math.PI) / 180);
const FOLLOW_LAT_M = 1;
/** vehicle check levels (see boxes()): share of the margins, and box scale */
const LEVEL_MARGIN = [1, 0.5, 0, 0, 0, 0.04];
const LEVEL_SCALE = [1, 1, 1, 0.85, 0.75, COLLISION_BOX];
const LEVELS = LEVEL_MARGIN.length;
/** box scales tried against edges the NPC is already close to (the first is options.edgeBoxScale) */
const EDGE_SCALES = [NaN, COLLISION_BOX, 0.5, 0.3];
/** candidates remembered per NPC and step (chooseFor tries at most 16) */
const MAX_TRIED = 20;
/** an NPC slower than this has no way to clear to make: it brakes [m/s] */
const ESCAPE_MIN_SPEED = 1;
/** the radius an NPC's edge memo is kept for is rounded up to a multiple of this [m] */
const EDGE_MEMO_STEP_M = 5;
/** slack on the reach bound of a rollout when leaving out edges it cannot touch [m] */
const REACH_SLACK_M = 0.5;

export class SafetyShield {
  /** per slot: ShieldOutcome of the last step */
  readonly outcome: Uint8Array;
  /** per slot: the policy's smoothed steering intent, as a heading change per step [rad] */
  private readonly intent: Float32Array;
  private readonly used = new Uint8Array(ACTION_COUNT);
  private readonly near = new Int32Array(ACTION_COUNT);
  private readonly marked = new Uint8Array(ACTION_COUNT);
  /** collidable entities near NPC i (the spatial index's answer), and those of them its rollouts can reach */
  private readonly edgeIdsNear: Int32Array;
  private readonly edgeIds: Int32Array;
  /** per slot: road edges and stop signs near where it was (see edgesNear) */
  private readonly edgeMemo: RadiusMemo;
  private readonly others: Int32Array;
  /** per other: the check level (see boxes()) */
  private readonly tight: Uint8Array;
  /** per entry of `others`: NPC i's half length and width, the other's, and NPC i's half diagonal at its level */
  private readonly otherBox: Float32Array;
  /** per other: 1 when it is an NPC that yields to this one (only its braking prediction counts) */
  private readonly yields: Uint8Array;
  /** right of way decided in the last step, per pair (i·capacity + j): 1 when i went first (hysteresis) */
  private readonly priorityMemo: Uint8Array;
  /**
   * per slot: the vehicle (slot) that held the NPC back this step, or −1: the one whose predicted motion first
   * failed one of its candidates, else the one car-following kept it behind (when that capped the policy's
   * acceleration)
   */
  readonly waitingFor: Int32Array;
  private readonly capacity: number;
  readonly predictor: MotionPredictor;
  private othersN = 0;
  private edgesN = 0;
  private edgesNearN = 0;
  /** the edge list touchesEdge reads: edgeIds (reachable) or edgeIdsNear (all near; see check) */
  private edgeList: Int32Array;
  private edgeListN = 0;
  /** the largest |acceleration| a rollout takes after its first step, and that edgeIds assumes for the first */
  private readonly accelBound: number;
  /** a stopped rollout stays where it is (a braking deceleration that is not negative): see check */
  private readonly parkable: boolean;
  /** per slot: the cosine and sine of its heading this step (set by prepare) */
  private readonly cosYaw: Float64Array;
  private readonly sinYaw: Float64Array;
  /** some vehicle in `others` is moving (> 0.1 m/s) */
  private othersMove = false;
  /** check(): the continuation keeps the speed instead of braking (clearing the way, see choose step 4) */
  private keepGoing = false;
  /** candidates checked for the NPC being chosen for: acceleration, steering and check() result */
  private readonly triedAccel = new Float64Array(MAX_TRIED);
  private readonly triedSteer = new Float64Array(MAX_TRIED);
  private triedN = 0;
  private fallbackStep = 0;
  private fallbackAccel = 0;
  private fallbackSteer = 0;
  /** the box scale used against edges in this NPC's checks (smaller when it is already close to one) */
  private edgeScale = 1;
  /** the rollout's state, and how far it has travelled (d) */
  private readonly st: KinematicState & { d: number; c: number; sn: number } = { x: 0, y: 0, yaw: 0, vx: 0, vy: 0, d: 0, c: 0.5, sn: 0.5 };
  /** the NPC's present pose (edge and lane checks from where it is) */
  private readonly here = { x: 0, y: 0, yaw: 0, d: 0, c: 0.5, sn: 0.5 };
  /** half extents of the box touchesEdge checks */
  private edgeHL = 0;
  private edgeHW = 0;
  private readonly target = { x: 0, y: 0, yaw: 0 };
  private readonly steps: number;
  private readonly edgeSteps: number;
  /** lines NPCs must stop at this step (traffic rules), set by prepare */
  private stops: StopConstraints | null = null;
  /** work done so far: candidates checked, continuation steps computed, road entities distance-tested */
  readonly work = { checks: 0, continuationSteps: 0, edgeTests: 0 };

  /**
   * reference: check every candidate afresh, test every edge near the NPC and roll parked rollouts on, instead
   * of the shortcuts that provably change nothing (the engine's `reference` option; see the exactness test)
   */
  constructor(
    capacity: number,
    private readonly roads: RoadIndex | null,
    private readonly lanes: LaneNetwork | null,
    readonly options: ShieldOptions = DEFAULT_SHIELD_OPTIONS,
    private readonly reference = false,
  ) {
    this.outcome = new Uint8Array(capacity);
    this.intent = new Float32Array(capacity);
    this.edgeIds = new Int32Array(Math.max(1, roads?.collidable.length ?? 1));
    this.edgeIdsNear = new Int32Array(this.edgeIds.length);
    this.edgeMemo = new RadiusMemo(capacity, 5, true);
    this.cosYaw = new Float64Array(capacity);
    this.sinYaw = new Float64Array(capacity);
    this.edgeList = this.edgeIds;
    let maxAccel = options.brakeDecel;
    for (const a of ACCEL_VALUES) maxAccel = Math.max(maxAccel, Math.abs(a));
    this.accelBound = maxAccel;
    this.parkable = options.brakeDecel >= 0 && !reference;
    this.others = new Int32Array(capacity);
    this.tight = new Uint8Array(capacity);
    this.otherBox = new Float32Array(capacity * 5);
    this.yields = new Uint8Array(capacity);
    this.priorityMemo = new Uint8Array(capacity * capacity);
    this.waitingFor = new Int32Array(capacity).fill(-1);
    this.capacity = capacity;
    this.steps = Math.max(1, Math.round(options.horizonS / STEP_DT));
    this.edgeSteps = Math.max(1, Math.round(options.edgeHorizonS / STEP_DT));
    this.predictor = new MotionPredictor(capacity, lanes, this.steps, options.brakeDecel);
  }

  /** A new NPC in slot i: no steering intent yet. */
  reset(i: number): void {
    this.intent[i] = 0;
    this.outcome[i] = 0;
    const c = this.capacity;
    for (let j = 0; j < c; j++) {
      this.priorityMemo[i * c + j] = 0;
      this.priorityMemo[j * c + i] = 0;
    }
  }

  /**
   * The policy's steering intent for NPC i: a running mean of the heading change its softmax expects over
   * the steering values of its chosen accel. The policy steers bang-bang (±1.047 rad one step, the other
   * way the next); the mean is what it is after.
   */
  private updateIntent(i: number, logits: Float32Array, base: number, best: number, speed: number, len: number): number {
    const row = best - (best % STEER_COUNT);
    const top = logits[base + best];
    let sum = 0, wsum = 0;
    for (let st = 0; st < STEER_COUNT; st++) {
      const w = Math.exp(logits[base + row + st] - top);
      sum += w * turnSigned(row + st, speed, len);
      wsum += w;
    }
    const expected = sum / wsum;
    this.intent[i] += this.options.intentGain * (expected - this.intent[i]);
    return this.intent[i];
  }

  /** Predicts every vehicle once per step, before any NPC's action is chosen. */
  prepare(world: World, plans?: Plans): void {
    this.stops = plans?.stops ?? null;
    this.predictor.prepare(world, this.options.maxLateralAccel, CURVE_DECEL, plans);
    for (let j = 0; j < world.count; j++) {
      this.cosYaw[j] = Math.cos(world.yaw[j]);
      this.sinYaw[j] = Math.sin(world.yaw[j]);
    }
  }

  /** The speed NPC i may drive at to take the bends of its lane ahead (see MotionPredictor) [m/s]. */
  curveLimit(i: number): number {
    return this.predictor.curveLimit[i];
  }

  /** The acceleration car-following allows NPC i behind the vehicle ahead on its lane (see MotionPredictor) [m/s²]. */
  followLimit(i: number): number {
    return this.predictor.followLimit[i];
  }

  /**
   * The controls NPC `i` drives with this step, from its logits at `logits[base .. base+91)` and the
   * policy's own choice `best` (argmax, or a sample): writes `accel` [m/s²] and `steer` [rad, the classic
   * model's steering angle] and records what it did in `outcome[i]`. `govern(slot, accel)` caps the
   * acceleration (the speed governor).
   */
  chooseFor(world: World, i: number, logits: Float32Array, base: number, best: number, govern: (slot: number, accel: number) => number, out: { accel: number; steer: number }): void {
    this.choose(world, i, logits, base, best, govern, out);
    // held back by car-following alone: that leader is what it waits for (two NPCs nosed into a junction,
    // each on the other's lane path ahead, wait for each other: a gridlock ring, see scene/gridlock.ts)
    const pred = this.predictor;
    if (this.waitingFor[i] < 0 && pred.leader[i] >= 0 && pred.followLimit[i] < ACTION_ACCEL[best]) this.waitingFor[i] = pred.leader[i];
  }

  private choose(world: World, i: number, logits: Float32Array, base: number, best: number, govern: (slot: number, accel: number) => number, out: { accel: number; steer: number }): void {
    const o = this.options;
    this.gather(world, i);
    this.fallbackStep = 0;
    this.triedN = 0;
    this.waitingFor[i] = -1;
    const speed = world.speed(i);
    const len = world.length[i];
    const accel = ACTION_ACCEL[best];
    // the policy's steering, as it means it: the running mean of the heading change it asks for, no faster
    // than a car can turn at this speed
    const intent = this.updateIntent(i, logits, base, best, speed, len);
    const maxTurn = this.maxTurnAt(speed);
    const turnPref = o.smoothingMargin > 0 ? clamp(intent, maxTurn) : turnSigned(best, speed, len);
    const vPol = speed + 0.5 * govern(i, accel) * STEP_DT;
    const steerPref = o.smoothingMargin > 0 ? steerFor(turnPref, vPol, len) : ACTION_STEER[best];
    const policyTurn = turnSigned(best, speed, len);
    const smoothed = Math.abs(turnPref - policyTurn) > SAME_TURN;
    // steering back along the lane (pure pursuit towards the lane path), where the policy rates it nearly as
    // high as its first choice (the steering of its accel row closest to it is within smoothingMargin)
    const laneTurn = this.laneTurn(world, i, speed);
    const laneNear = o.smoothingMargin > 0 && !Number.isNaN(laneTurn) && this.nearBest(logits, base, best, clamp(laneTurn, maxTurn), speed, len);
    // 0. drifting off its lane: back towards it (a slow drift, a little each step, would otherwise take the
    // NPC across into the opposite lane: the corridor check lets an NPC already off-centre stay where it is)
    const here = this.here;
    here.x = world.x[i]; here.y = world.y[i]; here.d = 0;
    if (laneNear && this.predictor.offsetFromPath(i, here) > LANE_RETURN_M && this.tryControl(world, i, govern(i, accel), steerFor(clamp(laneTurn, maxTurn), vPol, len), out)) {
      this.outcome[i] = ShieldOutcome.Smoothed;
      return;
    }
    // 1. the policy's acceleration with its smoothed steering
    if (this.tryControl(world, i, govern(i, accel), steerPref, out)) {
      this.outcome[i] = smoothed ? ShieldOutcome.Smoothed : ShieldOutcome.Policy;
      return;
    }
    // 1b. the policy's acceleration along its lane, where the policy rates that nearly as high
    if (laneNear && this.tryControl(world, i, govern(i, accel), steerFor(clamp(laneTurn, maxTurn), vPol, len), out)) {
      this.outcome[i] = ShieldOutcome.Smoothed;
      return;
    }
    // 2. gentler accelerations, then braking, each with the smoothed steering and then steering back along
    // the lane
    for (let ai = ACCEL_VALUES.indexOf(accel) - 1; ai >= 0; ai--) {
      const a = govern(i, ACCEL_VALUES[ai]);
      const v = speed + 0.5 * a * STEP_DT;
      if (this.tryControl(world, i, a, steerFor(turnPref, v, len), out)) {
        this.outcome[i] = ShieldOutcome.Overridden;
        return;
      }
      if (!Number.isNaN(laneTurn) && this.tryControl(world, i, a, steerFor(clamp(laneTurn, maxTurn), v, len), out)) {
        this.outcome[i] = ShieldOutcome.Overridden;
        return;
      }
    }
    // 3. keep the policy's acceleration but steer along the lane (an NPC drifting towards an edge)
    if (!Number.isNaN(laneTurn)) {
      const a = govern(i, accel);
      if (this.tryControl(world, i, a, steerFor(clamp(laneTurn, maxTurn), speed + 0.5 * a * STEP_DT, len), out)) {
        this.outcome[i] = ShieldOutcome.Overridden;
        return;
      }
    }
    // 4. nothing passes because a vehicle that gives way to this NPC could not stop short of it (two NPCs at a
    // crossing: braking too, the one with the right of way would stop in the other's path, and the other
    // could no longer stop): clear its path instead, going on along the lane without braking, where that
    // keeps clear of everything as predicted
    const held = this.waitingFor[i];
    if (held >= 0 && this.yields[held] && speed > ESCAPE_MIN_SPEED && !Number.isNaN(laneTurn)) {
      const a = govern(i, accel);
      if (this.tryGoingOn(world, i, a, steerFor(clamp(laneTurn, maxTurn), speed + 0.5 * a * STEP_DT, len), out) ||
        (a > 0 && this.tryGoingOn(world, i, 0, steerFor(clamp(laneTurn, maxTurn), speed, len), out))) {
        this.outcome[i] = ShieldOutcome.Emergency;
        return;
      }
    }
    // 5. nothing passes: the candidate that only meets an edge or leaves its lane, latest; else brake as hard
    // as possible, along the lane where there is one
    if (this.fallbackStep > 0) {
      out.accel = this.fallbackAccel;
      out.steer = this.fallbackSteer;
      this.outcome[i] = ShieldOutcome.Emergency;
      return;
    }
    out.accel = ACCEL_VALUES[0];
    out.steer = Number.isNaN(laneTurn) ? 0 : steerFor(clamp(laneTurn, maxTurn), speed + 0.5 * out.accel * STEP_DT, len);
    this.outcome[i] = ShieldOutcome.Emergency;
  }

  /** Is the steering of the policy's accel row closest to this heading change within smoothingMargin of the best? */
  private nearBest(logits: Float32Array, base: number, best: number, turn: number, speed: number, len: number): boolean {
    const row = best - (best % STEER_COUNT);
    let pick = -1, gap = Infinity;
    for (let st = 0; st < STEER_COUNT; st++) {
      if (SIDEWAYS[st]) continue;
      const d = Math.abs(turnSigned(row + st, speed, len) - turn);
      if (d < gap) {
        gap = d;
        pick = st;
      }
    }
    return pick >= 0 && logits[base + row + pick] >= logits[base + best] - this.options.smoothingMargin;
  }

  /** Is this control safe when the NPC then keeps its speed along the lane instead of braking? (No memo, no fallback.) */
  private tryGoingOn(world: World, i: number, accel: number, steer: number, out: { accel: number; steer: number }): boolean {
    this.keepGoing = true;
    const r = this.check(world, i, accel, steer);
    this.keepGoing = false;
    if (r !== SAFE) return false;
    out.accel = accel;
    out.steer = steer;
    return true;
  }

  private tryControl(world: World, i: number, accel: number, steer: number, out: { accel: number; steer: number }): boolean {
    // a candidate tried before for this NPC in this step (the governor maps several accelerations to one, and
    // the lane's steering may equal the smoothed one) fails again: check() depends on nothing else, and its one
    // side effect (waitingFor) was had the first time
    for (let t = 0; t < this.triedN; t++) {
      if (Object.is(this.triedAccel[t], accel) && Object.is(this.triedSteer[t], steer)) return false;
    }
    const r = this.check(world, i, accel, steer);
    if (this.triedN < MAX_TRIED && !this.reference) {
      this.triedAccel[this.triedN] = accel;
      this.triedSteer[this.triedN++] = steer;
    }
    if (r === SAFE) {
      out.accel = accel;
      out.steer = steer;
      return true;
    }
    // the least bad candidate so far: only ever one that keeps clear of vehicles and its lane, and that
    // meets the road edge latest (used when nothing is safe)
    if (r > 0 && r < LANE_FAIL && r > this.fallbackStep) {
      this.fallbackStep = r;
      this.fallbackAccel = accel;
      this.fallbackSteer = steer;
    }
    return false;
  }

  /** The heading change per step a car may make at this speed: lateral acceleration and a hard cap [rad]. */
  private maxTurnAt(speed: number): number {
    const o = this.options;
    const cap = (o.maxTurnDeg * Math.PI) / 180;
    return speed > 0.1 ? Math.min(cap, (o.maxLateralAccel / speed) * STEP_DT) : cap;
  }

  /** The heading change per step that steers NPC i back towards its lane path (pure pursuit); NaN off the lanes. */
  private laneTurn(world: World, i: number, speed: number): number {
    const pred = this.predictor;
    if (!pred.onLane[i]) return NaN;
    const lookahead = Math.max(6, 1.2 * speed);
    pred.pathPoint(i, lookahead, this.target);
    const alpha = Math.atan2(this.target.y - world.y[i], this.target.x - world.x[i]) - world.yaw[i];
    const curvature = (2 * Math.sin(alpha)) / lookahead;
    return curvature * speed * STEP_DT;
  }

  /** The vehicles that matter to NPC i in this step, and the road edges within reach of its rollouts. */
  private gather(world: World, i: number): void {
    const vi = world.speed(i);
    const ci = this.cosYaw[i], si = this.sinYaw[i];
    // where NPC i's rollouts can go: its predicted bounds, widened by how far it may stray from them
    const pb = this.predictor.bounds;
    const spread = world.length[i] + this.options.laneCorridor + 2 + this.options.marginLon;
    const aMinX = Math.min(pb[i * 4], world.x[i]) - spread, aMinY = Math.min(pb[i * 4 + 1], world.y[i]) - spread;
    const aMaxX = Math.max(pb[i * 4 + 2], world.x[i]) + spread, aMaxY = Math.max(pb[i * 4 + 3], world.y[i]) + spread;
    let m = 0;
    for (let j = 0; j < world.count; j++) {
      if (j === i || !world.present[j] || (world.done[j] && world.kind[j] !== AgentKind.External)) continue;
      const hj = 0.5 * (world.length[j] + world.width[j]);
      if (pb[j * 4] - hj > aMaxX || pb[j * 4 + 2] + hj < aMinX || pb[j * 4 + 1] - hj > aMaxY || pb[j * 4 + 3] + hj < aMinY) continue;
      const dx = world.x[j] - world.x[i], dy = world.y[j] - world.y[i];
      // a vehicle behind going the same way follows us: it is its job to keep clear
      const along = dx * ci + dy * si;
      // (a car converging from behind at an angle, as at a merge, is not following: it is considered)
      const lat = Math.abs(-dx * si + dy * ci);
      const follows = Math.cos(world.yaw[j] - world.yaw[i]) > FOLLOW_COS && lat < 0.5 * (world.width[i] + world.width[j]) + FOLLOW_LAT_M;
      if (follows && along < -0.5 * world.length[i]) continue;
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
    this.edgesNearN = roads ? this.edgesNear(roads, i, world.x[i], world.y[i], vi * this.options.edgeHorizonS + world.length[i] + roads.collidableReach) : 0;
    this.edgesN = this.reachableEdges(world, i, vi);
    this.edgeList = this.edgeIds;
    this.edgeListN = this.edgesN;
    // close to an edge already: check with the largest box that is clear of it now, so the NPC can only
    // move away from it (never further in, never through it)
    const hl = 0.5 * world.length[i], hw = 0.5 * world.width[i];
    this.edgeScale = 0;
    if (this.edgesNearN > 0) {
      for (let q = 0; q < 4; q++) {
        const scale = q === 0 ? this.options.edgeBoxScale : EDGE_SCALES[q];
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
   * roads.collidableNear(x, y, radius) into edgeIdsNear, in another order (every use of the list is a yes/no
   * over all of it): the NPC's memo of edges near where it was, kept for the radius rounded up to 5 m (a change
   * of speed rarely refreshes it).
   */
  private edgesNear(roads: RoadIndex, i: number, x: number, y: number, radius: number): number {
    const listRadius = EDGE_MEMO_STEP_M * Math.ceil(radius / EDGE_MEMO_STEP_M);
    return this.edgeMemo.firstInRadius(roads, i, x, y, radius, this.edgeIdsNear.length, this.edgeIdsNear, listRadius);
  }

  /**
   * Of the edges near NPC i (edgeIdsNear), those its rollouts can touch, into edgeIds in the same order;
   * returns how many. A rollout's edge checks come within edgeSteps steps; with no acceleration larger than
   * accelBound in size, the speed after k steps is at most v0 + k·A·dt and the distance covered in K steps at
   * most K·dt·v0 + A·(K·dt)²/2 (each step moves the car by its mid-step speed × dt, whatever the steering). An
   * edge whose centre is further than that, plus the NPC's box (at its largest scale) and the edge's reach,
   * plus a slack, fails touchesEdge's distance test at every pose checked: leaving it out changes nothing.
   */
  private reachableEdges(world: World, i: number, v0: number): number {
    const roads = this.roads;
    if (!roads) return 0;
    if (this.reference) {
      this.edgeIds.set(this.edgeIdsNear.subarray(0, this.edgesNearN));
      return this.edgesNearN;
    }
    const e = roads.entities;
    const T = this.edgeSteps * STEP_DT;
    const travel = (T * v0 + 0.5 * this.accelBound * T * T) * 1.001;
    const r = hypot(0.5 * world.length[i], 0.5 * world.width[i]) * Math.max(1, this.options.edgeBoxScale);
    const x = world.x[i], y = world.y[i];
    let n = 0;
    for (let k = 0; k < this.edgesNearN; k++) {
      const id = this.edgeIdsNear[k];
      const dx = e.x[id] - x, dy = e.y[id] - y;
      const reach = travel + r + e.halfLength[id] + e.halfWidth[id] + REACH_SLACK_M;
      if (dx * dx + dy * dy <= reach * reach) this.edgeIds[n++] = id;
    }
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
    const hl = box[0], hw = box[1], hlj = box[2], hwj = box[3];
    return obbOverlapCS(world.x[i], world.y[i], this.cosYaw[i], this.sinYaw[i], hl, hw, world.x[j], world.y[j], this.cosYaw[j], this.sinYaw[j], hlj, hwj);
  }

  private readonly box4: [number, number, number, number] = [0, 0, 0, 0];

  /**
   * Half extents of NPC i and vehicle j at a check level: full size with all, half or none of the margins,
   * then smaller boxes down to GPUDrive's 0.7 collision box with a few centimetres to spare (touching counts
   * as a contact there). A pair already closer than a level is checked at the next one, so it may part or
   * hold its distance but never close in.
   */
  private boxes(world: World, i: number, j: number, level: number): [number, number, number, number] {
    const b = this.box4;
    const margin = LEVEL_MARGIN[level];
    const si = LEVEL_SCALE[level];
    const sj = level === LEVELS - 1 ? world.collisionScale[j] : Math.max(LEVEL_SCALE[level], world.collisionScale[j]);
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
  private check(world: World, i: number, accel: number, steer: number): number {
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
    this.edgeList = anyAccel ? this.edgeIdsNear : this.edgeIds;
    this.edgeListN = anyAccel ? this.edgesNearN : this.edgesN;
    const v0 = hypot(s.vx, s.vy);
    stepBicycle(s, accel, steer, len);
    // the heading's cosines, for the vehicle and edge checks of each pose and the continuation's steps
    s.c = Math.cos(s.yaw); s.sn = Math.sin(s.yaw);
    let speed = hypot(s.vx, s.vy);
    // a reversing step (negative speed) keeps its direction of travel
    let dir = Math.cos(Math.atan2(s.vy, s.vx) - s.yaw) < 0 ? -1 : 1;
    const onLane = pred.onLane[i] === 1;
    let travelled = 0.5 * (v0 + speed) * STEP_DT;
    // a line to stop at: the front may not pass it (a candidate after which it could only is refused)
    const stopLine = this.stops ? this.stops.line[i] : Infinity;
    const stopTravel = stopLine < Infinity ? stopLine - 0.5 * len + 1e-3 : Infinity;
    // its lane: the NPC keeps within laneCorridor of the centre line (or, already further out, gets no further)
    const here = this.here;
    here.x = world.x[i]; here.y = world.y[i]; here.d = 0;
    const corridor = onLane ? Math.max(o.laneCorridor, pred.offsetFromPath(i, here) + 0.05) : Infinity;
    // parked: stopped (speed 0, velocity zeroed) at a pose no continuation step changes (see below); the pose
    // has passed the edge and lane checks since
    let parked = false;
    let parkedClear = false;
    for (let k = 1; k <= this.steps; k++) {
      if (this.touchesVehicle(world, i, k)) return -k;
      if (travelled > stopTravel) return -k;
      // edges and the lane every other step: a car moves less than its (scaled) length in two steps, so a
      // line it would cross is met at one of the steps checked
      if (k <= this.edgeSteps && (k & 1) === 1 && !parkedClear) {
        if (this.touchesEdge(s)) return k;
        s.d = travelled;
        if (pred.offsetFromPath(i, s) > corridor) return LANE_FAIL + k;
        // the same pose and distance travelled pass these checks every time
        parkedClear = parked;
      }
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
          pred.pathPoint(i, travelled + lookahead, this.target);
          const dx = this.target.x - s.x, dy = this.target.y - s.y;
          const dist = hypot(dx, dy);
          // sin of the angle between the heading and the target
          const sinAlpha = dist > 0 ? (s.c * dy - s.sn * dx) / dist : 0;
          turn = clamp(((2 * sinAlpha) / lookahead) * vm * STEP_DT, this.maxTurnAt(vm));
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
      }
    }
    // still moving at the horizon: it goes on braking, and must still stop short of its line
    if (stopTravel < Infinity && travelled + (speed * speed) / (2 * Math.max(o.brakeDecel, 0.1)) > stopTravel) return -this.steps;
    return SAFE;
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
    const ids = this.edgeList;
    this.work.edgeTests += this.edgeListN;
    for (let k = 0; k < this.edgeListN; k++) {
      const id = ids[k];
      const dx = e.x[id] - x, dy = e.y[id] - y;
      const reach = r + e.halfLength[id] + e.halfWidth[id];
      if (dx * dx + dy * dy > reach * reach) continue;
      if (obbOverlapCS(x, y, c, sn, hl, hw, e.x[id], e.y[id], roads.headingCos[id], roads.headingSin[id], e.halfLength[id], e.halfWidth[id])) return true;
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
    for (let m = 0; m < this.othersN; m++) {
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
      if (obbOverlapCS(x, y, c, sn, hl, hw, jx, jy, jc, js, jhl, hwj)) {
        if (this.waitingFor[i] < 0) this.waitingFor[i] = j;
        return true;
      }
    }
    return false;
  }
}

/** Heading change in one step for action a at speed v (classic bicycle, spec §6.2) [rad]. */
function turnSigned(a: number, v: number, length: number): number {
  const s = a % STEER_COUNT;
  const vm = v + 0.5 * ACCEL_VALUES[(a - s) / STEER_COUNT] * STEP_DT;
  return ((vm * COS_BETA[s] * TAN_STEER[s]) / length) * STEP_DT;
}

/** Limits a heading change to ±max. */
function clamp(turn: number, max: number): number {
  return turn > max ? max : turn < -max ? -max : turn;
}

/**
 * The steering angle that turns a car of this length by `turn` rad in one step at mid-step speed v (the
 * classic model: turn = v·dt·cos β·tan δ / L with β = atan(tan δ / 2), solved for tan δ).
 */
export function steerFor(turn: number, v: number, length: number): number {
  if (v < 0.05) return 0;
  const k = (turn * length) / (v * STEP_DT);
  const k2 = Math.min(k * k, MAX_TURN_K2);
  return Math.atan(Math.sign(k) * Math.sqrt(k2 / (1 - k2 / 4)));
}
