/**
 * NPC quality figures, one definition for every consumer: the server's status, `vils drive`, `vils eval`
 * and the benchmarks. Fed once per policy step with the NPCs as they are after it, and with trip events
 * (a trip runs from a spawn or a new goal to the goal, or ends when the NPC is removed).
 */
import type { NpcView } from '../traffic/engine.js';

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
  road_edge_step_share: number;
  /** distinct NPCs seen, and the share that ever touched a vehicle / a road edge */
  npcs_seen: number;
  npcs_ever_collided: number;
  npcs_ever_offroad: number;
  trips: number;
  reached_goal: number;
  abandoned: number;
  under_way: number;
  /** over the trips that ended */
  goal_rate: number;
  trip_collision_rate: number;
  trip_offroad_rate: number;
}

/** Outcome counts of a set of agents (GPUDrive evaluation: each agent counts once per outcome). */
export interface AgentOutcomes {
  agents: number;
  goal: number;
  collided: number;
  offroad: number;
}

export function outcomeRates(o: AgentOutcomes): { agents: number; goal_rate: number; collision_rate: number; offroad_rate: number } {
  const r = (k: number) => (o.agents === 0 ? 0 : k / o.agents);
  return { agents: o.agents, goal_rate: r(o.goal), collision_rate: r(o.collided), offroad_rate: r(o.offroad) };
}

export function sumOutcomes(list: readonly AgentOutcomes[]): AgentOutcomes {
  const t: AgentOutcomes = { agents: 0, goal: 0, collided: 0, offroad: 0 };
  for (const o of list) {
    t.agents += o.agents;
    t.goal += o.goal;
    t.collided += o.collided;
    t.offroad += o.offroad;
  }
  return t;
}

interface OpenTrip {
  startStep: number;
  collided: boolean;
  offroad: boolean;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

export class QualityMetrics {
  npcSteps = 0;
  vehicleContactSteps = 0;
  roadEdgeSteps = 0;
  private readonly seen = new Set<number>();
  private readonly everCollided = new Set<number>();
  private readonly everOffroad = new Set<number>();
  readonly trips: TripStats = { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 };
  private readonly openTrips = new Map<number, OpenTrip>();

  reset(): void {
    this.npcSteps = this.vehicleContactSteps = this.roadEdgeSteps = 0;
    this.seen.clear();
    this.everCollided.clear();
    this.everOffroad.clear();
    Object.assign(this.trips, { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 });
    this.openTrips.clear();
  }

  startTrip(id: number, step: number): void {
    this.trips.started++;
    this.openTrips.set(id, { startStep: step, collided: false, offroad: false });
  }

  endTrip(id: number, reached: boolean): void {
    const t = this.openTrips.get(id);
    if (!t) return;
    this.openTrips.delete(id);
    if (reached) this.trips.reachedGoal++;
    else this.trips.abandoned++;
    if (t.collided) this.trips.withCollision++;
    if (t.offroad) this.trips.withOffroad++;
  }

  /** Trips under way, and how many of them started more than `olderThanSteps` steps before `step`. */
  openTripCount(step = 0, olderThanSteps = Infinity): number {
    if (olderThanSteps === Infinity) return this.openTrips.size;
    let n = 0;
    for (const t of this.openTrips.values()) if (step - t.startStep > olderThanSteps) n++;
    return n;
  }

  /** The NPCs after a policy step. */
  observeStep(npcs: readonly NpcView[]): void {
    for (const n of npcs) {
      this.npcSteps++;
      this.seen.add(n.id);
      const trip = this.openTrips.get(n.id);
      if (n.collided) {
        this.vehicleContactSteps++;
        this.everCollided.add(n.id);
        if (trip) trip.collided = true;
      }
      if (n.offroad) {
        this.roadEdgeSteps++;
        this.everOffroad.add(n.id);
        if (trip) trip.offroad = true;
      }
    }
  }

  summary(): QualitySummary {
    const t = this.trips;
    const ended = t.reachedGoal + t.abandoned;
    return {
      npc_steps: this.npcSteps,
      vehicle_contact_step_share: share(this.vehicleContactSteps, this.npcSteps),
      road_edge_step_share: share(this.roadEdgeSteps, this.npcSteps),
      npcs_seen: this.seen.size,
      npcs_ever_collided: share(this.everCollided.size, this.seen.size),
      npcs_ever_offroad: share(this.everOffroad.size, this.seen.size),
      trips: t.started,
      reached_goal: t.reachedGoal,
      abandoned: t.abandoned,
      under_way: this.openTrips.size,
      goal_rate: share(t.reachedGoal, ended),
      trip_collision_rate: share(t.withCollision, ended),
      trip_offroad_rate: share(t.withOffroad, ended),
    };
  }
}
