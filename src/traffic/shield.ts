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
 *     lane is near-best too where the policy rates it so: it comes first for an NPC more than `SHIELD_LANE_RETURN_M`
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
 * The check (the vehicles and edges that matter, the rollout) is in shield-rollout.ts. Allocation-free per step:
 * every buffer is owned by the shield.
 */
import { ACTION_ACCEL, ACTION_STEER, ACTION_COUNT, ACCEL_VALUES, STEER_VALUES } from '../policy/actions.js';
import type { RoadIndex } from '../map/spatial-index.js';
import { MAX_TURN_K2, STEP_DT } from './bicycle.js';
import type { LaneNetwork } from './lanes.js';
import { MotionPredictor, type Plans } from './predict.js';
import type { StopConstraints } from './stops.js';
import { clamp, LANE_FAIL, maxTurnAt, SAFE, ShieldRollout } from './shield-rollout.js';
import type { World } from './world.js';
import type { ShieldOptions } from './shield-options.js';
import { SHIELD_CURVE_DECEL_MPS2, SHIELD_ESCAPE_MIN_SPEED_MPS, SHIELD_LANE_RETURN_M, SHIELD_MIN_REAL_TURN_RAD, SHIELD_MOVE_OFF_ACCEL_MPS2, SHIELD_MOVE_OFF_SPEED_MPS, SHIELD_MOVE_OFF_STEPS, SHIELD_SAME_TURN_RAD, SHIELD_STALL_SPEED_MPS, SHIELD_STALL_STEPS } from './tuning.js';

export type { ShieldOptions };

export const DEFAULT_SHIELD_OPTIONS: ShieldOptions = {
  smoothingMargin: 12,
  intentGain: 0.35,
  maxTurnDeg: 10,
  maxLateralAccel: 4,
  curveLateralAccel: 3.5,
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
/** candidates remembered per NPC and step (chooseFor tries at most 16) */
const MAX_TRIED = 20;

export class SafetyShield {
  /** per slot: ShieldOutcome of the last step */
  readonly outcome: Uint8Array;
  /** per slot: the policy's smoothed steering intent, as a heading change per step [rad] */
  private readonly intent: Float32Array;
  /** per slot: policy steps it has stood (below SHIELD_STALL_SPEED_MPS) */
  private readonly stillSteps: Int32Array;
  /** per slot: policy steps it still moves off for (after a stall) */
  private readonly moveOff: Int32Array;
  private readonly used = new Uint8Array(ACTION_COUNT);
  private readonly near = new Int32Array(ACTION_COUNT);
  private readonly marked = new Uint8Array(ACTION_COUNT);
  /**
   * per slot: the vehicle (slot) that held the NPC back this step, or −1: the one whose predicted motion first
   * failed one of its candidates, else the one car-following kept it behind (when that capped the policy's
   * acceleration)
   */
  readonly waitingFor: Int32Array;
  readonly predictor: MotionPredictor;
  /** the vehicles and edges that matter to the NPC being chosen for, and the rollout of its candidates */
  private readonly rollout: ShieldRollout;
  /** candidates checked for the NPC being chosen for: acceleration, steering and check() result */
  private readonly triedAccel = new Float64Array(MAX_TRIED);
  private readonly triedSteer = new Float64Array(MAX_TRIED);
  private triedN = 0;
  private fallbackStep = 0;
  private fallbackAccel = 0;
  private fallbackSteer = 0;
  /** the NPC's present pose (its offset from its lane path) */
  private readonly here = { x: 0, y: 0, d: 0 };
  private readonly target = { x: 0, y: 0 };
  /**
   * work done so far: candidates checked, continuation steps computed, road entities and vehicles
   * distance-tested
   */
  readonly work = { checks: 0, continuationSteps: 0, edgeTests: 0, vehicleTests: 0 };

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
    this.stillSteps = new Int32Array(capacity);
    this.moveOff = new Int32Array(capacity);
    this.waitingFor = new Int32Array(capacity).fill(-1);
    const steps = Math.max(1, Math.round(options.horizonS / STEP_DT));
    this.predictor = new MotionPredictor(capacity, lanes, steps, options.brakeDecel, undefined, reference);
    this.rollout = new ShieldRollout(capacity, roads, options, this.predictor, this.waitingFor, this.work, reference);
  }

  /** A new NPC in slot i: no steering intent yet. */
  reset(i: number): void {
    this.intent[i] = 0;
    this.stillSteps[i] = 0;
    this.moveOff[i] = 0;
    this.outcome[i] = 0;
    this.rollout.forget(i);
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
  prepare(world: World, plans?: Plans, stops?: StopConstraints): void {
    this.predictor.prepare(world, this.options.curveLateralAccel, SHIELD_CURVE_DECEL_MPS2, plans, stops);
    this.rollout.prepare(world, stops ?? null);
  }

  /**
   * After prepare, before the policy's result: gathers what matters to each NPC that will choose (`slots[0..n)`,
   * in the order chooseFor will be called for them; see ShieldRollout.gatherAhead), so that this part of the
   * choice is done while the policy infers. The reference gathers at each choice.
   */
  gatherAhead(world: World, slots: ArrayLike<number>, n: number): void {
    if (this.reference) return;
    for (let k = 0; k < n; k++) this.rollout.gatherAhead(world, slots[k]);
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
    if (!this.rollout.restore(i)) this.rollout.gather(world, i);
    this.fallbackStep = 0;
    this.triedN = 0;
    this.waitingFor[i] = -1;
    const speed = world.speed(i);
    const len = world.length[i];
    const accel = ACTION_ACCEL[best];
    // the policy's steering, as it means it: the running mean of the heading change it asks for, no faster
    // than a car can turn at this speed
    const intent = this.updateIntent(i, logits, base, best, speed, len);
    const maxTurn = maxTurnAt(this.options, speed);
    const turnPref = o.smoothingMargin > 0 ? clamp(intent, maxTurn) : turnSigned(best, speed, len);
    const vPol = speed + 0.5 * govern(i, accel) * STEP_DT;
    const steerPref = o.smoothingMargin > 0 ? steerFor(turnPref, vPol, len) : ACTION_STEER[best];
    const policyTurn = turnSigned(best, speed, len);
    const smoothed = Math.abs(turnPref - policyTurn) > SHIELD_SAME_TURN_RAD;
    // steering back along the lane (pure pursuit towards the lane path), where the policy rates it nearly as
    // high as its first choice (the steering of its accel row closest to it is within smoothingMargin)
    const laneTurn = this.laneTurn(world, i, speed);
    const laneNear = o.smoothingMargin > 0 && !Number.isNaN(laneTurn) && this.nearBest(logits, base, best, clamp(laneTurn, maxTurn), speed, len);
    // 0. drifting off its lane: back towards it (a slow drift, a little each step, would otherwise take the
    // NPC across into the opposite lane: the corridor check lets an NPC already off-centre stay where it is)
    const here = this.here;
    here.x = world.x[i]; here.y = world.y[i]; here.d = 0;
    if (laneNear && this.predictor.offsetFromPath(i, here) > SHIELD_LANE_RETURN_M && this.tryControl(world, i, govern(i, accel), steerFor(clamp(laneTurn, maxTurn), vPol, len), out)) {
      this.outcome[i] = ShieldOutcome.Smoothed;
      return;
    }
    // 0b. stalled: standing for a while, the policy asking for no acceleration, nothing ahead to follow
    this.stillSteps[i] = speed < SHIELD_STALL_SPEED_MPS ? this.stillSteps[i] + 1 : 0;
    if (this.stillSteps[i] > SHIELD_STALL_STEPS) this.moveOff[i] = SHIELD_MOVE_OFF_STEPS;
    if (this.moveOff[i] > 0) {
      this.moveOff[i]--;
      const want = speed < SHIELD_MOVE_OFF_SPEED_MPS ? SHIELD_MOVE_OFF_ACCEL_MPS2 : 0;
      if (accel < want && !Number.isNaN(laneTurn) && this.predictor.followLimit[i] >= want) {
        const a = govern(i, want);
        if (a >= want && this.tryControl(world, i, a, steerFor(clamp(laneTurn, maxTurn), speed + 0.5 * a * STEP_DT, len), out)) {
          this.outcome[i] = ShieldOutcome.Overridden;
          return;
        }
        // held by a line, a vehicle ahead or the rollout: the policy's own choice, checked as ever
        this.moveOff[i] = 0;
      }
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
    if (held >= 0 && this.rollout.yields[held] && speed > SHIELD_ESCAPE_MIN_SPEED_MPS && !Number.isNaN(laneTurn)) {
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
    this.rollout.keepGoing = true;
    const r = this.rollout.check(world, i, accel, steer);
    this.rollout.keepGoing = false;
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
    const r = this.rollout.check(world, i, accel, steer);
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

  /**
   * The steering angle that takes NPC i back towards its lane path (pure pursuit, no faster than a car turns at
   * its speed) when it drives at `accel` this step; NaN off the lanes. For the contact guard (contact-guard.ts).
   */
  laneSteer(world: World, i: number, accel: number): number {
    const speed = world.speed(i);
    const turn = this.laneTurn(world, i, speed);
    if (Number.isNaN(turn)) return NaN;
    return steerFor(clamp(turn, maxTurnAt(this.options, speed)), speed + 0.5 * accel * STEP_DT, world.length[i]);
  }

  /** The heading change per step that steers NPC i back towards its lane path (pure pursuit); NaN off the lanes. */
  private laneTurn(world: World, i: number, speed: number): number {
    const pred = this.predictor;
    if (!pred.onLane[i]) return NaN;
    const lookahead = Math.max(6, 1.2 * speed);
    pred.pathXY(i, lookahead, this.target);
    const alpha = Math.atan2(this.target.y - world.y[i], this.target.x - world.x[i]) - world.yaw[i];
    const curvature = (2 * Math.sin(alpha)) / lookahead;
    return curvature * speed * STEP_DT;
  }
}

/** Heading change in one step for action a at speed v (classic bicycle, spec §6.2) [rad]. */
function turnSigned(a: number, v: number, length: number): number {
  const s = a % STEER_COUNT;
  const vm = v + 0.5 * ACCEL_VALUES[(a - s) / STEER_COUNT] * STEP_DT;
  return ((vm * COS_BETA[s] * TAN_STEER[s]) / length) * STEP_DT;
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
