/**
 * The egos of a scene: real cars fed by GNSS and simulated ones, as injected vehicles the NPCs observe and
 * collide with but never move. Each report is a pose in the map frame stamped with the simulation time it
 * arrived at; at a policy step an ego is moved along its heading at its speed to the step time. Life cycle:
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
import type { TrafficEngine } from '../traffic/engine.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import type { SceneConfig } from './config.js';
import { InputError } from './errors.js';
import type { SceneEventListener } from './events.js';

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
}

/** an actor's id in the frames' NPC list: this plus its number in the scene (NPC ids stay far below it) */
export const ACTOR_ID_BASE = 1_000_000;

export interface EgoState {
  egoId: string;
  x: number;
  y: number;
  yaw: number;
  speed: number;
  length: number;
  width: number;
  stale: boolean;
  collided: boolean;
  /** simulation time of the latest report */
  receivedAt: number;
  clientTimestamp: number | null;
  /** where the yaw comes from (absent from frames recorded before it existed) */
  headingSource?: HeadingSource;
  /** a scripted actor (EgoReport.actor): its number in the scene (present only for actors) */
  actorNumber?: number;
}

interface Ego extends EgoState {
  /** pose of the latest report (EgoState x/y are the pose at the latest step) */
  reportX: number;
  reportY: number;
  headingSource: HeadingSource;
  /** the fix the next course over ground is measured from */
  anchorX: number;
  anchorY: number;
  /** it has had a reported or derived heading (held from then on) */
  headingKnown: boolean;
  /** EgoReport.simulated: never stale or forgotten for silence */
  simulated: boolean;
}

type Heading = Pick<Ego, 'yaw' | 'headingSource' | 'anchorX' | 'anchorY' | 'headingKnown'>;

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

  /** Takes a report that arrived at simulation time `t`. Refuses a new id when max_egos egos are tracked. */
  update(r: EgoReport, t: number): void {
    const prev = this.egos.get(r.egoId);
    if (!prev && this.egos.size >= this.config.max_egos) {
      throw new InputError(`this scene already tracks ${this.config.max_egos} egos (max_egos); reuse an ego_id, or remove one (DELETE /api/egos/:id) or wait ${this.config.ego_forget_s} s until a silent one is forgotten`);
    }
    const ego: Ego = {
      egoId: r.egoId, x: prev?.x ?? r.x, y: prev?.y ?? r.y, speed: r.speed,
      length: r.length ?? prev?.length ?? this.config.ego_length,
      width: r.width ?? prev?.width ?? this.config.ego_width,
      stale: prev?.stale ?? false, collided: prev?.collided ?? false,
      receivedAt: t, clientTimestamp: r.clientTimestamp ?? null, reportX: r.x, reportY: r.y, simulated: r.simulated === true,
      ...this.heading(r, t, prev),
    };
    if (r.actor) ego.actorNumber = prev?.actorNumber ?? this.actors++;
    this.egos.set(r.egoId, ego);
    if (!prev) this.emit({ type: 'ego_connected', egoId: r.egoId, t });
  }

  /** The yaw of a report: as reported, else its course over ground, held, the lane's or north (see the top). */
  private heading(r: EgoReport, t: number, prev: Ego | undefined): Heading {
    if (r.yaw !== undefined) return { yaw: r.yaw, headingSource: 'reported', anchorX: r.x, anchorY: r.y, headingKnown: true };
    // after a silence longer than ego_timeout_s the way between the fixes is unknown: measure from this one
    const track = prev && t - prev.receivedAt <= this.config.ego_timeout_s ? prev : undefined;
    const moving = track !== undefined && r.speed >= COURSE_MIN_SPEED_MPS;
    if (moving) {
      const dx = r.x - track.anchorX, dy = r.y - track.anchorY;
      if (Math.hypot(dx, dy) >= COURSE_MIN_DISPLACEMENT_M) return { yaw: Math.atan2(dy, dx), headingSource: 'course', anchorX: r.x, anchorY: r.y, headingKnown: true };
    }
    // not far enough yet (keep measuring from the anchor), or too slow (measure from here once it moves)
    const anchorX = moving ? track.anchorX : r.x, anchorY = moving ? track.anchorY : r.y;
    if (prev?.headingKnown) return { yaw: prev.yaw, headingSource: 'held', anchorX, anchorY, headingKnown: true };
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

  /** The ego's report moved along its heading to time t. */
  private extrapolate(e: Ego, t: number): void {
    // with no idea of its heading (grid north as a placeholder) it stays where it was reported
    const dt = e.headingSource === 'none' ? 0 : t - e.receivedAt;
    e.x = e.reportX + e.speed * Math.cos(e.yaw) * dt;
    e.y = e.reportY + e.speed * Math.sin(e.yaw) * dt;
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
        stale: e.stale, collided: e.collided, receivedAt: e.receivedAt, clientTimestamp: e.clientTimestamp, headingSource: e.headingSource,
      };
      if (e.actorNumber !== undefined) s.actorNumber = e.actorNumber;
      out.push(s);
    }
    return out;
  }
}
