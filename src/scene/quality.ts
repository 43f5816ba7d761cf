/**
 * NPC quality figures, one definition for every consumer: the server's status, `vils drive`, `vils eval`
 * and the benchmarks. Fed once per policy step with the NPCs as they are after it (and the egos), and with
 * trip events (a trip runs from a spawn to the end of its route, or ends when the NPC is removed).
 *
 * Definitions (per NPC-step unless said otherwise):
 * - vehicle contact: the vehicles' boxes at their real size overlapping (src/traffic/contacts.ts); road edge:
 *   GPUDrive's flag (0.7-scaled boxes; an edge or stop sign);
 * - contact and off-road *events*: a step touching where the NPC's previous step did not, per NPC-hour;
 * - heading jitter: the heading changed by more than 10° in one 0.1 s step;
 * - wrong way: no lane within 2.5 m runs the NPC's way, but one runs against it;
 * - stuck: an NPC below 0.5 m/s for more than 10 s with no vehicle within 15 m ahead (counted once per NPC);
 *   one a traffic rule holds (a red light, a stop sign, giving way, a full junction) is waiting, not stuck, unless
 *   it has waited RULE_STUCK_S (longer than any signal cycle);
 *   "ahead" is a centre within ±35° of its heading, a body reaching into its path, or the vehicle its shield
 *   holds it back for (a car crossing in front);
 * - speed share: the mean speed over the mean speed limit where the NPCs are;
 * - shield: the step's action was overridden by the safety shield (or it braked in an emergency).
 */
import { wrapPi } from '../geo/frame.js';
import { POLICY_DT, type NpcView } from '../traffic/engine.js';
import type { LaneNetwork, LanePosition } from '../traffic/lanes.js';
import { ShieldOutcome } from '../traffic/shield.js';
import { hypot } from '../util/hypot.js';
import { heldBackNear, vehicleAhead, type VehiclePoint } from './vehicle-ahead.js';

export { outcomeRates, sumOutcomes, type AgentOutcomes } from './agent-outcomes.js';
export { mayReachPath, type VehiclePoint } from './vehicle-ahead.js';

export interface TripStats {
  started: number;
  reachedGoal: number;
  /** removed before reaching the goal */
  abandoned: number;
  withCollision: number;
  withOffroad: number;
}

export interface QualitySummary {
  npc_steps: number;
  /** share of NPC-steps touching another vehicle / a road edge */
  vehicle_contact_step_share: number;
  /** NPC-steps touching another vehicle (NPC or ego) */
  vehicle_contact_steps: number;
  road_edge_step_share: number;
  /** distinct NPCs seen, and the share that ever touched a vehicle / a road edge */
  npcs_seen: number;
  npcs_ever_collided: number;
  npcs_ever_offroad: number;
  contacts_per_npc_hour: number;
  offroad_events_per_npc_hour: number;
  /** mean distance of the NPCs from the centre line of the nearest lane going their way (within 4 m) [m] */
  mean_lane_offset_m: number;
  /** NPC-steps with a heading change of more than 10° */
  heading_jitter_step_share: number;
  wrong_way_steps: number;
  wrong_way_step_share: number;
  /** share of the NPCs seen that got stuck */
  stuck_npc_share: number;
  stuck_npcs: number;
  /** auto NPCs recycled because they stood in a ring of NPCs waiting for one another */
  gridlock_recycles: number;
  mean_speed_mps: number;
  /** mean speed over the mean lane speed limit where the NPCs drove */
  speed_share_of_limit: number;
  /** NPC-steps where the shield overrode the (smoothed) policy choice, incl. emergency braking */
  shield_override_share: number;
  shield_emergency_share: number;
  /** NPC-steps where a smoother near-best action replaced the policy's first choice */
  smoothing_share: number;
  trips: number;
  reached_goal: number;
  abandoned: number;
  under_way: number;
  /** over the trips that ended */
  goal_rate: number;
  trip_collision_rate: number;
  trip_offroad_rate: number;
  /** mean distance driven per trip that ended [m] */
  mean_trip_length_m: number;
  /** contacts between egos and NPCs (ego-steps) */
  ego_contact_steps: number;
}

interface OpenTrip {
  startStep: number;
  collided: boolean;
  offroad: boolean;
  distance: number;
}

interface NpcTrack {
  collided: boolean;
  offroad: boolean;
  /** step since which the NPC has been slow with nothing ahead (−1: not slow) */
  slowSince: number;
  /** step since which it has been stopped nose to nose with an NPC coming the other way (−1: not) */
  deadlockSince: number;
  stuck: boolean;
  /** the vehicle ahead of it after the last step while it was slow: an NPC's id, BLOCKED_BY_EGO, or −1 */
  blocker: number;
  /** step since which a traffic rule has held it (−1: not held) */
  ruleSince: number;
}

/** blockerOf(): the vehicle ahead is an ego */
export const BLOCKED_BY_EGO = -2;

const JITTER_RAD = (10 * Math.PI) / 180;
const STUCK_SPEED = 0.5;
/** nose to nose, two NPCs creep: a deadlock is slower than this [m/s] */
const DEADLOCK_SPEED = 1;
const STUCK_STEPS = Math.round(10 / POLICY_DT);
/** held by a traffic rule longer than any signal cycle (120 s) with margin: stuck after all */
const RULE_STUCK_STEPS = Math.round(180 / POLICY_DT);
const WRONG_WAY_M = 2.5;
const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

export class QualityMetrics {
  npcSteps = 0;
  vehicleContactSteps = 0;
  roadEdgeSteps = 0;
  private contactEvents = 0;
  private offroadEvents = 0;
  private jitterSteps = 0;
  private wrongWaySteps = 0;
  private speedSum = 0;
  private limitSum = 0;
  private limitSpeedSum = 0;
  private shieldOverrides = 0;
  private shieldEmergencies = 0;
  private smoothed = 0;
  private stuckCount = 0;
  private gridlockRecycles = 0;
  private offsetSum = 0;
  private offsetN = 0;
  private readonly at: LanePosition = { lane: 0, s: 0, offset: 0 };
  private tripDistance = 0;
  egoContactSteps = 0;
  private readonly seen = new Set<number>();
  private readonly everCollided = new Set<number>();
  private readonly everOffroad = new Set<number>();
  private readonly tracks = new Map<number, NpcTrack>();
  readonly trips: TripStats = { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 };
  private readonly openTrips = new Map<number, OpenTrip>();

  constructor(private readonly lanes: LaneNetwork | null = null, private readonly defaultLimit = 50 / 3.6) {}

  reset(): void {
    this.npcSteps = this.vehicleContactSteps = this.roadEdgeSteps = 0;
    this.contactEvents = this.offroadEvents = this.jitterSteps = this.wrongWaySteps = 0;
    this.speedSum = this.limitSum = this.limitSpeedSum = 0;
    this.shieldOverrides = this.shieldEmergencies = this.smoothed = this.stuckCount = this.gridlockRecycles = 0;
    this.tripDistance = 0;
    this.offsetSum = this.offsetN = 0;
    this.egoContactSteps = 0;
    this.seen.clear();
    this.everCollided.clear();
    this.everOffroad.clear();
    this.tracks.clear();
    Object.assign(this.trips, { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 });
    this.openTrips.clear();
  }

  startTrip(id: number, step: number): void {
    this.trips.started++;
    this.openTrips.set(id, { startStep: step, collided: false, offroad: false, distance: 0 });
  }

  endTrip(id: number, reached: boolean): void {
    const t = this.openTrips.get(id);
    if (!t) return;
    this.openTrips.delete(id);
    if (reached) this.trips.reachedGoal++;
    else this.trips.abandoned++;
    if (t.collided) this.trips.withCollision++;
    if (t.offroad) this.trips.withOffroad++;
    this.tripDistance += t.distance;
  }

  /** An NPC left the scene: forget its per-NPC state. */
  forget(id: number): void {
    this.tracks.delete(id);
  }

  /** An NPC was recycled out of a gridlock (see Population). */
  noteGridlockRecycle(): void {
    this.gridlockRecycles++;
  }

  /** The vehicle in front of a slow NPC after the last step (an NPC's id, BLOCKED_BY_EGO), or −1. */
  blockerOf(id: number): number {
    return this.tracks.get(id)?.blocker ?? -1;
  }

  /** The step since which an NPC has been stuck: slow with nothing ahead, or nose to nose with an NPC; −1 if not. */
  slowSince(id: number): number {
    const t = this.tracks.get(id);
    if (!t) return -1;
    return t.slowSince >= 0 ? t.slowSince : t.deadlockSince;
  }

  /** Trips under way, and how many of them started more than `olderThanSteps` steps before `step`. */
  openTripCount(step = 0, olderThanSteps = Infinity): number {
    if (olderThanSteps === Infinity) return this.openTrips.size;
    let n = 0;
    for (const t of this.openTrips.values()) if (step - t.startStep > olderThanSteps) n++;
    return n;
  }

  /**
   * The NPCs after policy step `step`, with every vehicle's position (NPCs and live egos) for the
   * "something ahead" test of stuck NPCs, and the number of egos an NPC touched in this step.
   */
  observeStep(npcs: readonly NpcView[], step: number, vehicles: readonly VehiclePoint[] = npcs, egoContacts = 0): void {
    this.egoContactSteps += egoContacts;
    for (const n of npcs) {
      this.npcSteps++;
      this.seen.add(n.id);
      let tr = this.tracks.get(n.id);
      if (!tr) {
        tr = { collided: false, offroad: false, slowSince: -1, deadlockSince: -1, stuck: false, blocker: -1, ruleSince: -1 };
        this.tracks.set(n.id, tr);
      }
      const trip = this.openTrips.get(n.id);
      const moved = hypot(n.x - n.prevX, n.y - n.prevY);
      if (trip) trip.distance += moved;
      if (n.collided) {
        this.vehicleContactSteps++;
        this.everCollided.add(n.id);
        if (trip) trip.collided = true;
        if (!tr.collided) this.contactEvents++;
      }
      if (n.offroad) {
        this.roadEdgeSteps++;
        this.everOffroad.add(n.id);
        if (trip) trip.offroad = true;
        if (!tr.offroad) this.offroadEvents++;
      }
      tr.collided = n.collided;
      tr.offroad = n.offroad;
      if (Math.abs(wrapPi(n.yaw - n.prevYaw)) > JITTER_RAD) this.jitterSteps++;
      if (n.shield === ShieldOutcome.Overridden || n.shield === ShieldOutcome.Emergency) this.shieldOverrides++;
      if (n.shield === ShieldOutcome.Emergency) this.shieldEmergencies++;
      if (n.shield === ShieldOutcome.Smoothed) this.smoothed++;
      const speed = moved / POLICY_DT;
      this.speedSum += speed;
      const limit = this.limitAt(n);
      this.limitSum += limit;
      this.limitSpeedSum += speed;
      if (this.lanes) {
        const at = this.lanes.locate(n.x, n.y, n.yaw, 4, this.at);
        if (at) {
          this.offsetSum += at.offset;
          this.offsetN++;
        }
        if ((!at || at.offset > WRONG_WAY_M) && this.lanes.hasLaneAgainst(n.x, n.y, n.yaw, WRONG_WAY_M)) this.wrongWaySteps++;
      }
      // stuck: slow for long with nothing ahead; deadlocked: slow, facing an NPC that faces it
      const ahead = speed < DEADLOCK_SPEED ? vehicleAhead(n, vehicles) : null;
      tr.blocker = ahead === null ? -1 : ahead.id ?? BLOCKED_BY_EGO;
      // held at a line by a traffic rule: waiting, unless for longer than any signal cycle
      const ruleHeld = n.hold !== 'none' && speed < STUCK_SPEED;
      if (ruleHeld) {
        if (tr.ruleSince < 0) tr.ruleSince = step;
        if (!tr.stuck && step - tr.ruleSince > RULE_STUCK_STEPS) {
          tr.stuck = true;
          this.stuckCount++;
        }
      } else tr.ruleSince = -1;
      if (speed < STUCK_SPEED && !ahead && !ruleHeld && !heldBackNear(n, vehicles)) {
        if (tr.slowSince < 0) tr.slowSince = step;
        if (!tr.stuck && step - tr.slowSince > STUCK_STEPS) {
          tr.stuck = true;
          this.stuckCount++;
        }
      } else {
        tr.slowSince = -1;
      }
      const headOn = ahead !== null && ahead.id !== undefined && ahead.yaw !== undefined && Math.cos(ahead.yaw - n.yaw) < -0.5;
      if (headOn) {
        if (tr.deadlockSince < 0) tr.deadlockSince = step;
      } else {
        tr.deadlockSince = -1;
      }
    }
  }

  private limitAt(n: NpcView): number {
    if (Number.isFinite(n.maxSpeed)) return n.maxSpeed;
    if (this.lanes) {
      const at = this.lanes.locate(n.x, n.y, n.yaw, 5);
      const l = at ? this.lanes.lanes[at.lane].speedLimit : NaN;
      if (Number.isFinite(l)) return l;
    }
    return this.defaultLimit;
  }

  summary(): QualitySummary {
    const t = this.trips;
    const ended = t.reachedGoal + t.abandoned;
    const npcHours = (this.npcSteps * POLICY_DT) / 3600;
    return {
      npc_steps: this.npcSteps,
      vehicle_contact_step_share: share(this.vehicleContactSteps, this.npcSteps),
      vehicle_contact_steps: this.vehicleContactSteps,
      road_edge_step_share: share(this.roadEdgeSteps, this.npcSteps),
      npcs_seen: this.seen.size,
      npcs_ever_collided: share(this.everCollided.size, this.seen.size),
      npcs_ever_offroad: share(this.everOffroad.size, this.seen.size),
      contacts_per_npc_hour: share(this.contactEvents, npcHours),
      offroad_events_per_npc_hour: share(this.offroadEvents, npcHours),
      mean_lane_offset_m: share(this.offsetSum, this.offsetN),
      heading_jitter_step_share: share(this.jitterSteps, this.npcSteps),
      wrong_way_steps: this.wrongWaySteps,
      wrong_way_step_share: share(this.wrongWaySteps, this.npcSteps),
      stuck_npc_share: share(this.stuckCount, this.seen.size),
      stuck_npcs: this.stuckCount,
      gridlock_recycles: this.gridlockRecycles,
      mean_speed_mps: share(this.speedSum, this.npcSteps),
      speed_share_of_limit: share(this.limitSpeedSum, this.limitSum),
      shield_override_share: share(this.shieldOverrides, this.npcSteps),
      shield_emergency_share: share(this.shieldEmergencies, this.npcSteps),
      smoothing_share: share(this.smoothed, this.npcSteps),
      trips: t.started,
      reached_goal: t.reachedGoal,
      abandoned: t.abandoned,
      under_way: this.openTrips.size,
      goal_rate: share(t.reachedGoal, ended),
      trip_collision_rate: share(t.withCollision, ended),
      trip_offroad_rate: share(t.withOffroad, ended),
      mean_trip_length_m: share(this.tripDistance, ended),
      ego_contact_steps: this.egoContactSteps,
    };
  }
}
