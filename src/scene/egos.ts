/**
 * The egos of a scene: real cars fed by GNSS and simulated ones, as injected vehicles the NPCs observe and
 * collide with but never move. Each report is a pose in the map frame stamped with the simulation time it
 * arrived at; a real car's fix is placed at the time it was measured (arrival − its latency, which the stream
 * adapter measures from the fix's own stamp: src/time/fix-clock.ts), and at a policy step or a frame the ego is
 * moved from its latest fix to that time with the acceleration and yaw rate its fixes show (ego-motion.ts).
 * Fixes that arrive out of their order are dropped and counted. Life cycle:
 * live → stale after `ego_timeout_s` without a report (NPCs stop seeing it) → forgotten after `ego_forget_s`
 * (its id and world slot are freed). Reset and removal forget at once.
 *
 * A car without a heading (a single-antenna GNSS): a report may leave the yaw out, and the registry derives it
 * from the ego's successive fixes — its course over ground, atan2 of the displacement in the map frame (which
 * is the yaw itself: the map frame is the UTM grid, so no heading ⇄ yaw conversion is involved) — once the car
 * reports at least COURSE_MIN_SPEED_MPS and has moved COURSE_MIN_DISPLACEMENT_M since the fix the last course
 * was taken from. Otherwise it holds the last heading it had; before it ever had one, it takes the direction of
 * the nearest lane (within EGO_LANE_HEADING_MAX_M), else grid north. The derivation is part of the scene, fed
 * only by the logged reports and their times, so a replay of the input log derives the same yaw bit for bit.
 */
import type { ClockSource } from '../time/fix-clock.js';
import type { TrafficEngine } from '../traffic/engine.js';
import type { KinematicState, ObjectKind } from '../vehicle/index.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import type { SceneConfig } from './config.js';
import { InputError } from './errors.js';
import { EgoMotion } from './ego-motion.js';
import type { SceneEventListener } from './events.js';
import type { VehicleState } from '../vehicle/index.js';

/**
 * Course over ground: the yaw is derived from the displacement between fixes only while the car reports at
 * least this speed [m/s]. Below walking pace the displacement between fixes is mostly the receiver's noise and
 * a car that barely moves keeps its heading anyway. The reported speed (a receiver's Doppler speed) decides,
 * not displacement over time: one jump of the fix at standstill would fake a speed.
 */
export const COURSE_MIN_SPEED_MPS = 1;
/**
 * … and only over at least this displacement [m] since the fix the last course was taken from: a baseline long
 * against the metre or so a consumer receiver wanders (a 0.3 m error across it turns the course by < 9°), and
 * short enough to follow a car (0.2 s at 36 km/h, 2 s at the speed threshold).
 */
export const COURSE_MIN_DISPLACEMENT_M = 2;
/** Before an ego without a heading has one: the direction of the nearest lane within this distance [m], else grid north. */
export const EGO_LANE_HEADING_MAX_M = 5;

/**
 * Where an ego's yaw comes from: its report (`reported`), its course over ground (`course`), the last of those
 * held while it stands or creeps (`held`), the nearest lane before it had any (`lane`), or nothing: grid north
 * (`none`, and it is not moved along that between reports).
 */
export type HeadingSource = 'reported' | 'course' | 'held' | 'lane' | 'none';

export interface EgoReport {
  egoId: string;
  x: number;
  y: number;
  /** rad, counter-clockwise from map east; left out when the sender has no heading (derived, see above) */
  yaw?: number;
  /** m/s along the heading */
  speed: number;
  length?: number;
  width?: number;
  /** the sender's own timestamp, echoed back */
  clientTimestamp?: number | null;
  /** a stamped fix of a real car: when it was measured and what is known of the car's clock (the stream adapter) */
  timing?: EgoFixTiming;
  /**
   * a simulated ego the server drives itself (`vils serve --scenario`): the age of its report is how far its
   * plant lags behind the scene (the time conductor reports that as lagging), not a lost stream, so it is never
   * made stale or forgotten for silence — the scene extrapolates it from its last report
   */
  simulated?: boolean;
  /**
   * a scripted actor of a test case (src/scenario/story): a vehicle the server moves, seen by the NPCs and the
   * rules as an ego is, but listed among the NPCs of the frames (as the car's stack sees traffic), with id
   * ACTOR_ID_BASE + its number
   */
  actor?: boolean;
  /** a test case found it touching the vehicle under test at this time: flagged (collided) in the frames until its next report */
  contact?: boolean;
  /** a scripted actor that is a person (absent: a vehicle), listed with this kind among the NPCs */
  kind?: ObjectKind;
}

/**
 * When a real car's fix was measured, as the stream adapter placed it on the server's clock (src/time/fix-clock.ts).
 * Part of the logged report, so a replay places the fix where the live scene did.
 */
export interface EgoFixTiming {
  /** the fix was measured this long before it arrived (transport latency, server clock) [s] */
  latencyS: number;
  /** the car's clock minus the server's, as estimated [s] */
  offsetS: number;
  source: ClockSource;
  /** fixes the adapter dropped as out of order, and clock jumps it saw, so far */
  outOfOrder: number;
  clockJumps: number;
}

/** an actor's id in the frames' NPC list: this plus its number in the scene (NPC ids stay far below it) */
export const ACTOR_ID_BASE = 1_000_000;

/** An ego as the scene holds it: the car moved on to the snapshot's time, with what is known of its fixes. */
export interface EgoState extends VehicleState {
  egoId: string;
  stale: boolean;
  collided: boolean;
  /** simulation time of the latest report */
  receivedAt: number;
  /** simulation time the latest fix was measured at (its arrival less its latency), the one before it (NaN: none), and the fixes taken */
  fixTime: number;
  prevFixTime: number;
  fixCount: number;
  /** the latest fix itself: pose and speed at fixTime (x/y/yaw/speed are the car moved on to the snapshot's time) */
  fixX: number;
  fixY: number;
  fixYaw: number;
  fixSpeed: number;
  /** from the fixes at their own times: longitudinal acceleration [m/s²] and yaw rate [rad/s, counter-clockwise] */
  accel: number;
  yawRate: number;
  clientTimestamp: number | null;
  /** a stamped real car's latest latency [s], clock offset [s] and how it is known (absent otherwise) */
  latencyS?: number;
  clockOffsetS?: number;
  clockSource?: ClockSource;
  /** fixes dropped as out of order (by the adapter and here) and clock jumps, since the ego connected */
  outOfOrder?: number;
  clockJumps?: number;
  /** where the yaw comes from (absent from frames recorded before it existed) */
  headingSource?: HeadingSource;
  /** a scripted actor (EgoReport.actor): its number in the scene (present only for actors) */
  actorNumber?: number;
  /** EgoReport.contact of its latest report (present only when true) */
  contact?: boolean;
  /** EgoReport.kind of a scripted actor that is a person (absent: a vehicle) */
  kind?: ObjectKind;
}

interface Ego extends EgoState {
  /** the latest fix at its own time, and the car moved from it (EgoState x/y/yaw/speed are the pose at the latest step) */
  motion: EgoMotion;
  headingSource: HeadingSource;
  /** the fix the next course over ground is measured from */
  anchorX: number;
  anchorY: number;
  /** it has had a reported or derived heading (held from then on) */
  headingKnown: boolean;
  /** EgoReport.simulated: never stale or forgotten for silence */
  simulated: boolean;
  /** fixes this registry dropped as arriving out of order (behind the latest fix's time) */
  lateFixes: number;
}

type Heading = Pick<Ego, 'yaw' | 'headingSource' | 'anchorX' | 'anchorY' | 'headingKnown'>;

/** the kinds of yaw a fit may run across: the car's own, derived from its fixes, a placeholder */
function headingFamily(h: HeadingSource): number {
  return h === 'reported' ? 0 : h === 'course' || h === 'held' ? 1 : 2;
}

export class EgoRegistry {
  private readonly egos = new Map<string, Ego>();
  /** contacts between an ego and an NPC, counted per ego-step */
  collisionSteps = 0;
  /** actors numbered so far (numbers are not reused until a reset) */
  private actors = 0;

  constructor(
    private readonly config: SceneConfig,
    private readonly emit: SceneEventListener,
    /** the lanes, for the direction of an ego without a heading yet */
    private readonly lanes?: Pick<LaneNetwork, 'locate' | 'headingAt'>,
  ) {}

  get size(): number {
    return this.egos.size;
  }

  has(id: string): boolean {
    return this.egos.has(id);
  }

  /**
   * Takes a report that arrived at simulation time `t`. Refuses a new id when max_egos egos are tracked. A real
   * car's fix measured before its latest one (its timing puts it behind) is dropped and counted: false.
   */
  update(r: EgoReport, t: number): boolean {
    const prev = this.egos.get(r.egoId);
    if (!prev && this.egos.size >= this.config.max_egos) {
      throw new InputError(`this scene already tracks ${this.config.max_egos} egos (max_egos); reuse an ego_id, or remove one (DELETE /api/egos/:id) or wait ${this.config.ego_forget_s} s until a silent one is forgotten`);
    }
    const timing = r.timing;
    // (to the microsecond, a GNSS stamp's resolution: the epoch seconds it came from carry float noise below that)
    const fixTime = timing ? Math.round((t - timing.latencyS) * 1e6) / 1e6 : t;
    if (prev && timing && fixTime <= prev.fixTime) {
      prev.lateFixes++;
      if (prev.outOfOrder !== undefined) prev.outOfOrder++;
      return false;
    }
    const motion = prev?.motion ?? new EgoMotion();
    const heading = this.heading(r, fixTime, prev);
    // a yaw from another kind of source (reported against derived, or a placeholder) is no continuation of the last:
    // the yaw rate is fitted afresh from it
    if (prev && headingFamily(heading.headingSource) !== headingFamily(prev.headingSource)) motion.resetRates();
    motion.addFix(fixTime, r.x, r.y, heading.yaw, r.speed, heading.headingKnown);
    const ego: Ego = {
      egoId: r.egoId, x: prev?.x ?? r.x, y: prev?.y ?? r.y, yaw: prev?.yaw ?? heading.yaw, speed: prev?.speed ?? r.speed,
      length: r.length ?? prev?.length ?? this.config.ego_length,
      width: r.width ?? prev?.width ?? this.config.ego_width,
      stale: prev?.stale ?? false, collided: prev?.collided ?? false,
      receivedAt: t, fixTime, prevFixTime: prev?.fixTime ?? NaN, fixCount: (prev?.fixCount ?? 0) + 1, accel: motion.accel, yawRate: motion.yawRate,
      fixX: motion.x, fixY: motion.y, fixYaw: motion.yaw, fixSpeed: motion.speed,
      clientTimestamp: r.clientTimestamp ?? null, simulated: r.simulated === true, motion, lateFixes: prev?.lateFixes ?? 0,
      headingSource: heading.headingSource, anchorX: heading.anchorX, anchorY: heading.anchorY, headingKnown: heading.headingKnown,
    };
    if (timing) {
      ego.latencyS = timing.latencyS;
      ego.clockOffsetS = timing.offsetS;
      ego.clockSource = timing.source;
      ego.outOfOrder = timing.outOfOrder + ego.lateFixes;
      ego.clockJumps = timing.clockJumps;
    }
    if (r.actor) ego.actorNumber = prev?.actorNumber ?? this.actors++;
    if (r.contact) ego.contact = true;
    if (r.kind !== undefined && r.kind !== 'vehicle') ego.kind = r.kind;
    this.egos.set(r.egoId, ego);
    if (!prev) this.emit({ type: 'ego_connected', egoId: r.egoId, t });
    return true;
  }

  /** The yaw of a report: as reported, else its course over ground, held, the lane's or north (see the top). */
  private heading(r: EgoReport, t: number, prev: Ego | undefined): Heading {
    if (r.yaw !== undefined) return { yaw: r.yaw, headingSource: 'reported', anchorX: r.x, anchorY: r.y, headingKnown: true };
    // after a silence longer than ego_timeout_s the way between the fixes is unknown: measure from this one
    const track = prev && t - prev.fixTime <= this.config.ego_timeout_s ? prev : undefined;
    const moving = track !== undefined && r.speed >= COURSE_MIN_SPEED_MPS;
    if (moving) {
      const dx = r.x - track.anchorX, dy = r.y - track.anchorY;
      if (Math.hypot(dx, dy) >= COURSE_MIN_DISPLACEMENT_M) return { yaw: Math.atan2(dy, dx), headingSource: 'course', anchorX: r.x, anchorY: r.y, headingKnown: true };
    }
    // not far enough yet (keep measuring from the anchor), or too slow (measure from here once it moves)
    const anchorX = moving ? track.anchorX : r.x, anchorY = moving ? track.anchorY : r.y;
    if (prev?.headingKnown) return { yaw: prev.motion.yaw, headingSource: 'held', anchorX, anchorY, headingKnown: true };
    const at = this.lanes?.locate(r.x, r.y, undefined, EGO_LANE_HEADING_MAX_M) ?? null;
    if (at) return { yaw: this.lanes!.headingAt(at.lane, at.s), headingSource: 'lane', anchorX, anchorY, headingKnown: false };
    return { yaw: Math.PI / 2, headingSource: 'none', anchorX, anchorY, headingKnown: false };
  }

  /** Forgets one ego at once. */
  remove(id: string, engine: TrafficEngine, t: number, reason: 'reset' | 'removed' = 'removed'): boolean {
    if (!this.egos.delete(id)) return false;
    engine.removeExternal(id);
    this.emit({ type: 'ego_forgotten', egoId: id, t, reason });
    return true;
  }

  clear(engine: TrafficEngine, t: number): void {
    for (const id of [...this.egos.keys()]) this.remove(id, engine, t, 'reset');
    this.collisionSteps = 0;
    this.actors = 0;
  }

  /** The ego moved from its latest fix to time t (with no idea of its heading — north as a placeholder — it stays put). */
  private extrapolate(e: Ego, t: number): void {
    e.motion.poseAt(t, e as KinematicState, e.headingSource !== 'none', e.simulated ? Infinity : undefined);
  }

  /**
   * Before the policy step at time t: live egos go into the engine at their pose at t; silent ones turn
   * stale (out of the engine) and, later, are forgotten.
   */
  place(engine: TrafficEngine, t: number): void {
    for (const e of this.egos.values()) {
      // a simulated ego's report age is its plant's lag (EgoReport.simulated): never a reason to drop it
      const age = e.simulated ? 0 : t - e.receivedAt;
      if (age > this.config.ego_forget_s) {
        this.egos.delete(e.egoId);
        engine.removeExternal(e.egoId);
        this.emit({ type: 'ego_forgotten', egoId: e.egoId, t, reason: 'timeout' });
        continue;
      }
      if (age > this.config.ego_timeout_s) {
        if (!e.stale) {
          e.stale = true;
          e.collided = false;
          engine.removeExternal(e.egoId);
          this.emit({ type: 'ego_stale', egoId: e.egoId, t, ageS: age });
        }
        continue;
      }
      if (e.stale) {
        e.stale = false;
        this.emit({ type: 'ego_resumed', egoId: e.egoId, t });
      }
      this.extrapolate(e, t);
      engine.setExternal(e.egoId, { x: e.x, y: e.y, yaw: e.yaw, speed: e.speed, length: e.length, width: e.width, collisionScale: 1 });
    }
  }

  /** After the step: which egos an NPC touched (reported once per contact, counted per step). */
  afterStep(engine: TrafficEngine, t: number, touching: (egoId: string) => number[]): void {
    for (const e of this.egos.values()) {
      const hit = !e.stale && engine.externalCollided(e.egoId);
      if (hit) {
        this.collisionSteps++;
        if (!e.collided) this.emit({ type: 'ego_collided', egoId: e.egoId, t, npcIds: touching(e.egoId) });
      }
      e.collided = hit;
    }
  }

  /** Egos as of time t (poses moved to t; stale ones where they were last seen). */
  list(t: number): EgoState[] {
    const out: EgoState[] = [];
    for (const e of this.egos.values()) {
      if (!e.stale) this.extrapolate(e, t);
      const s: EgoState = {
        egoId: e.egoId, x: e.x, y: e.y, yaw: e.yaw, speed: e.speed, length: e.length, width: e.width,
        stale: e.stale, collided: e.collided, receivedAt: e.receivedAt, fixTime: e.fixTime, prevFixTime: e.prevFixTime, fixCount: e.fixCount, accel: e.accel, yawRate: e.yawRate,
        fixX: e.fixX, fixY: e.fixY, fixYaw: e.fixYaw, fixSpeed: e.fixSpeed,
        clientTimestamp: e.clientTimestamp, headingSource: e.headingSource,
      };
      if (e.clockSource !== undefined) {
        s.latencyS = e.latencyS;
        s.clockOffsetS = e.clockOffsetS;
        s.clockSource = e.clockSource;
        s.outOfOrder = e.outOfOrder;
        s.clockJumps = e.clockJumps;
      }
      if (e.actorNumber !== undefined) s.actorNumber = e.actorNumber;
      if (e.contact) s.contact = true;
      if (e.kind !== undefined) s.kind = e.kind;
      out.push(s);
    }
    return out;
  }
}
