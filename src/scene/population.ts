/**
 * The NPC population of a scene: spawning (by request, or automatically up to `npc_target` around the egos),
 * routes along the lanes with goals chained along them, and what happens at a route's end. Every position
 * is in the map frame.
 *
 * Goals: each NPC follows a route (`trip_length_m` along the lane graph, forks at random). The policy is
 * shown a goal on the route ahead of the NPC, up to `goal_lead_m` away and kept in sight (see Route.goal);
 * it moves on as the NPC advances, so the NPC never has to "arrive" until the route ends. A trip is one
 * route; at its end an NPC drives on along a new route (auto NPCs while `respawn` is on, user NPCs unless
 * spawned with `keep_driving: false`), or leaves.
 */
import { POLICY_DT, type NpcView, type TrafficEngine } from '../traffic/engine.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import type { LanePosition } from '../traffic/lanes.js';
import { GoalPoint, LaneAtProgress, Route } from '../traffic/route.js';
import { SeededRandom } from '../util/random.js';
import { LaneQueues } from './lane-queues.js';
import type { SceneConfig } from './config.js';
import { InputError } from './errors.js';
import type { QualityMetrics } from './quality.js';
import { gridlockedNpcs } from './gridlock.js';
import { committedLanes, committedLanesInto, LaneScratch } from './next-route.js';
import { clearance, overlapping, type Obstacle } from './spawn-spots.js';
import { GOAL_RENEW_AHEAD_M, GRIDLOCK_STOPPED_BELOW_MPS, LANES_AHEAD_M, RECYCLE_OFF_LANES_S, REROUTE_OFF_ROUTE_M, ROUTE_END_BELOW_M, SPAWN_LINE_CLEAR_M, SPAWN_LINE_DECEL_MPS2 } from './tuning.js';

export { clearance, type Obstacle } from './spawn-spots.js';

export interface SpawnRequest {
  x: number;
  y: number;
  /** rad; default: along the nearest lane */
  yaw?: number;
  speed: number;
  length?: number;
  width?: number;
  /** default: a route along the lanes */
  goal?: { x: number; y: number };
  /** at the goal or the route's end, drive on along the lanes (default true) or leave */
  keepDriving?: boolean;
}

/** Where lanes.locate writes for update (a class of its own: its fields hold doubles in place). */
class LanePlace implements LanePosition {
  lane = 0;
  s = 0;
  offset = 0;
}

interface Plan {
  auto: boolean;
  keepDriving: boolean;
  /** null while driving to a goal the user gave */
  route: Route | null;
  /** the goal shown is the route's end (or the user's goal) */
  final: boolean;
  /** step since which the NPC has been off its route with no lane near (−1: not lost) */
  lostSince: number;
  /** step since which the NPC has been below GRIDLOCK_STOPPED_BELOW_MPS (−1: moving) */
  slowSince: number;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const deg = (rad: number) => Math.round((((rad * 180) / Math.PI) % 360 + 360) % 360);

/** Where the junctions are, for starting auto NPCs (src/scene/rules/ answer it). */
export interface JunctionSpots {
  vehicleInJunction(lane: number, s: number, length: number, width: number): boolean;
  distanceToLine(lanes: readonly number[], s0: number): number;
}

export class NpcPopulation {
  private readonly plans = new Map<number, Plan>();
  private rng: SeededRandom;
  /** update's scratch, reused from step to step: where an NPC is on its route, its goal, its lane, its plan */
  private readonly here = new LaneAtProgress();
  private readonly goalOut = new GoalPoint();
  private readonly at = new LanePlace();
  private readonly planLanes = new LaneScratch();
  /** the queues forks are weighed by (route_choice: queues), counted after every step */
  private readonly queues: LaneQueues;

  constructor(
    private readonly engine: TrafficEngine,
    private readonly lanes: LaneNetwork,
    private readonly config: SceneConfig,
    private readonly quality: QualityMetrics,
    private readonly checkInMap: (x: number, y: number, what: string) => void,
    private readonly junctions: JunctionSpots | null = null,
  ) {
    this.rng = new SeededRandom(config.seed);
    this.queues = new LaneQueues(lanes);
  }

  isAuto(id: number): boolean {
    return this.plans.get(id)?.auto ?? false;
  }

  get autoCount(): number {
    let n = 0;
    for (const p of this.plans.values()) if (p.auto) n++;
    return n;
  }

  reseed(seed: number): void {
    this.rng = new SeededRandom(seed);
  }

  /** Spawns an NPC on request; refuses a spot on top of a vehicle or against a one-way lane. Returns its id. */
  spawn(req: SpawnRequest, step: number, obstacles: readonly Obstacle[]): number {
    const engine = this.engine;
    if (engine.npcCount >= engine.maxNpcs) throw new InputError(`the world holds at most ${engine.maxNpcs} NPCs (remove some first)`);
    this.checkInMap(req.x, req.y, `spawn point (${r3(req.x)}, ${r3(req.y)})`);
    if (req.goal) this.checkInMap(req.goal.x, req.goal.y, `goal (${r3(req.goal.x)}, ${r3(req.goal.y)})`);
    const length = req.length ?? 4.5, width = req.width ?? 2.0;
    let located = this.lanes.locate(req.x, req.y, req.yaw, 15);
    if (!located && req.yaw !== undefined && !req.goal) {
      const against = this.lanes.locate(req.x, req.y, req.yaw + Math.PI, 15);
      if (against) {
        const laneYaw = this.lanes.headingAt(against.lane, against.s);
        throw new InputError(`the lane at the spawn point runs the other way (lane heading ${deg(laneYaw)}° in the map frame, requested ${deg(req.yaw)}°): spawn with the lane's direction or give a goal`);
      }
    }
    const yaw = req.yaw ?? (located ? this.lanes.headingAt(located.lane, located.s) : 0);
    if (!located && !req.goal) throw new InputError('no goal given and no lane within 15 m of the spawn point to drive along');
    const blocker = overlapping(req.x, req.y, yaw, length, width, obstacles);
    if (blocker) throw new InputError(`the spawn point is on top of ${blocker}: choose a free spot`);
    located = located ?? this.lanes.locate(req.x, req.y, yaw, 15);
    const route = !req.goal && located ? this.newRoute(located.lane, located.s) : null;
    const goal = req.goal ?? route!.goal(this.config.goal_min_lead_m, this.config.goal_lead_m, this.config.goal_max_deviation_m, this.config.goal_lateral_gain);
    const id = engine.addNpc({ x: req.x, y: req.y, yaw, speed: req.speed, goalX: goal.x, goalY: goal.y, length, width, maxSpeed: this.speedLimitAt(located?.lane) });
    this.plans.set(id, { auto: false, keepDriving: req.keepDriving ?? true, route, final: req.goal !== undefined || (route?.remaining ?? 0) <= this.config.goal_lead_m, lostSince: -1, slowSince: -1 });
    this.quality.startTrip(id, step);
    return id;
  }

  private newRoute(lane: number, s: number, via?: readonly number[]): Route {
    const len = this.config.trip_length_m * (0.75 + 0.5 * this.rng.next());
    return new Route(this.lanes, lane, s, len, this.rng, via, this.config.route_choice === 'queues' ? this.queues.choose : undefined);
  }

  /** The vehicles standing on each lane now (NPCs on routes), for the next forks chosen. */
  private countQueues(views: readonly NpcView[]): void {
    this.queues.clear();
    for (const n of views) {
      const r = this.plans.get(n.id)?.route;
      if (r) this.queues.add(r.lanes[r.laneAtProgress(this.here).index], n.speed);
    }
  }

  /**
   * The route of the next trip of an NPC at the end of one: on from where it is, along the lanes its plan ran
   * on along (see committedLanes); from the nearest lane when it has strayed from its route.
   */
  private nextRoute(old: Route | null, n: NpcView): Route | null {
    if (old && old.offRoute < REROUTE_OFF_ROUTE_M) {
      const here = old.laneAtProgress();
      return this.newRoute(old.lanes[here.index], here.s, committedLanes(this.lanes, old.lanes.slice(here.index), here.s));
    }
    const at = this.lanes.locate(n.x, n.y, n.yaw, 6);
    return at ? this.newRoute(at.lane, at.s) : null;
  }

  /** The governor limit for an NPC on `lane` (the lane graph's limit, else the configured one). */
  private speedLimitAt(lane: number | undefined): number {
    if (!this.config.speed_governor) return Infinity;
    const l = lane === undefined ? NaN : this.lanes.lanes[lane].speedLimit;
    return Number.isFinite(l) ? l : this.config.speed_limit_mps;
  }

  remove(id: number): boolean {
    this.plans.delete(id);
    this.quality.endTrip(id, false);
    this.quality.forget(id);
    return this.engine.removeNpc(id);
  }

  removeAll(): number {
    const ids = this.engine.npcs().map((n) => n.id);
    for (const id of ids) this.remove(id);
    this.plans.clear();
    return ids.length;
  }

  /**
   * Tops the auto NPCs up to npc_target on clear lanes (around the egos when there are any: within
   * spawn_radius_m, at least spawn_clearance_m away), and recycles auto NPCs beyond despawn_radius_m of every
   * ego. `obstacles` are the vehicles to keep clear of: every vehicle in the world now, the NPCs among them with
   * their ids, in the order engine.npcs() lists them; `egos` the live egos.
   */
  fill(step: number, obstacles: Array<Obstacle & { id?: number }>, egos: readonly Obstacle[]): number {
    const engine = this.engine;
    const c = this.config;
    if (egos.length > 0) {
      for (const n of obstacles) {
        if (n.id === undefined || !this.plans.get(n.id)?.auto) continue;
        let far = true;
        for (const e of egos) {
          if (!(Math.hypot(e.x - n.x, e.y - n.y) > c.despawn_radius_m)) {
            far = false;
            break;
          }
        }
        if (far) this.remove(n.id);
      }
    }
    let auto = this.autoCount;
    while (auto > c.npc_target) {
      const id = [...this.plans].find(([, p]) => p.auto)![0];
      this.remove(id);
      auto--;
    }
    let added = 0;
    // copied on the first attempt (most steps make none)
    let avoid: Obstacle[] | null = null;
    for (let attempt = 0; auto < c.npc_target && engine.npcCount < engine.maxNpcs && attempt < 3 * c.npc_target; attempt++) {
      avoid ??= obstacles.slice();
      const start = egos.length > 0
        ? this.lanes.randomPointNear(this.rng, egos, c.spawn_radius_m)
        : this.lanes.randomPoint(this.rng);
      if (!start) break;
      const p = this.lanes.pose(start.lane, start.s);
      if (egos.some((e) => Math.hypot(e.x - p.x, e.y - p.y) < c.spawn_clearance_m)) continue;
      // never inside a junction, not even its rear or front (it would start in the way of crossing traffic)
      if (this.junctions?.vehicleInJunction(start.lane, start.s, 4.5, 2)) continue;
      const gap = clearance(p.x, p.y, p.yaw, avoid);
      if (gap < c.spawn_min_gap_m) continue;
      const route = this.newRoute(start.lane, start.s);
      if (route.length < ROUTE_END_BELOW_M) continue;
      const limit = this.speedLimitAt(start.lane);
      const cruise = (Number.isFinite(limit) ? limit : c.speed_limit_mps) * (0.4 + 0.3 * this.rng.next());
      // no faster than it could stop in half the free road ahead, or before the next junction's line
      const toLine = this.junctions ? this.junctions.distanceToLine(route.lanes, start.s) : Infinity;
      // … and not with its front over that line (its centre before it, on the lane before: FMTC's J4, where one
      // started so, went in on J3's red and stood in J4 behind J3's queue for 40 s)
      if (toLine < SPAWN_LINE_CLEAR_M) continue;
      const speed = Math.min(cruise, Math.sqrt(Math.max(0, gap - c.spawn_min_gap_m) * 2), Math.sqrt(2 * SPAWN_LINE_DECEL_MPS2 * Math.max(0, toLine - 5)));
      const goal = route.goal(c.goal_min_lead_m, c.goal_lead_m, c.goal_max_deviation_m, c.goal_lateral_gain);
      const id = engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed, goalX: goal.x, goalY: goal.y, maxSpeed: limit });
      this.plans.set(id, { auto: true, keepDriving: true, route, final: goal.final, lostSince: -1, slowSince: -1 });
      this.quality.startTrip(id, step);
      avoid.push({ x: p.x, y: p.y, yaw: p.yaw, length: 4.5, width: 2 });
      auto++;
      added++;
    }
    return added;
  }

  /** Recycles one auto NPC per gridlock ring that has stood for gridlock_recycle_s (see gridlock.ts). */
  private recycleGridlocks(step: number, views: readonly NpcView[]): void {
    const minSteps = this.config.gridlock_recycle_s / POLICY_DT;
    // a ring needs an auto NPC that has stood long enough: with none, there is nothing to look for
    let candidate = false;
    for (const n of views) {
      const plan = this.plans.get(n.id);
      if (!plan) continue;
      if (n.speed >= GRIDLOCK_STOPPED_BELOW_MPS) plan.slowSince = -1;
      else if (plan.slowSince < 0) plan.slowSince = step;
      if (plan.auto && plan.slowSince >= 0 && step - plan.slowSince > minSteps) candidate = true;
    }
    if (!candidate) return;
    // the views by id: this step's, written over the last ones kept (no new table every step), less the NPCs
    // gone since (the NPCs in the world now are exactly the views)
    const byId = this.viewById;
    for (const n of views) byId.set(n.id, n);
    if (byId.size > views.length) for (const id of byId.keys()) if (!this.engine.hasNpc(id)) byId.delete(id);
    const ids = gridlockedNpcs({
      ids: views.map((n) => n.id),
      // what a stopped NPC waits for: the vehicle its shield holds it back for, else the one in front of it
      heldBy: (id) => {
        const n = byId.get(id);
        if (!n) return -1;
        return n.waitingFor !== -1 ? n.waitingFor : this.quality.blockerOf(id);
      },
      stoppedLongEnough: (id) => {
        const since = this.plans.get(id)?.slowSince ?? -1;
        return since >= 0 && step - since > minSteps;
      },
      recyclable: (id) => this.plans.get(id)?.auto ?? false,
    });
    for (const id of ids) {
      this.quality.noteGridlockRecycle();
      this.remove(id);
    }
  }

  private readonly viewById = new Map<number, NpcView>();

  /**
   * After a policy step: trips that ended, goals moved on along the routes, NPCs re-routed; auto NPCs that
   * have been stuck (`isStuck`) for stuck_recycle_s are recycled, as traffic simulators do.
   */
  update(step: number, views: readonly NpcView[], stuckSince: (id: number) => number): void {
    const engine = this.engine;
    const c = this.config;
    this.recycleGridlocks(step, views);
    if (c.route_choice === 'queues') this.countQueues(views);
    for (const n of views) {
      const plan = this.plans.get(n.id);
      if (!plan) continue;
      const since = stuckSince(n.id);
      if (plan.auto && since >= 0 && (step - since) * POLICY_DT > c.stuck_recycle_s) {
        this.remove(n.id);
        continue;
      }
      // a final goal passed by (the route's end behind the NPC, not within reach): the trip ends unreached, and
      // the NPC goes on like one that reached it rather than turning back for it
      const missed = plan.final && !n.reachedGoal && plan.route !== null && plan.route.remaining < 1 &&
        (n.goalX - n.x) * Math.cos(n.yaw) + (n.goalY - n.y) * Math.sin(n.yaw) < 0;
      if ((n.reachedGoal || missed) && plan.final) {
        this.quality.endTrip(n.id, !missed);
        const driveOn = plan.auto ? c.respawn : plan.keepDriving;
        const next = driveOn ? this.nextRoute(plan.route, n) : null;
        // the end of the road (a dead end of the lane graph, or off the lanes): the NPC leaves
        if (!next || next.length < ROUTE_END_BELOW_M) {
          this.remove(n.id);
          continue;
        }
        plan.route = next;
        plan.final = false;
        plan.lostSince = -1;
        this.quality.startTrip(n.id, step);
      }
      const route = plan.route;
      if (!route) continue;
      if (route.update(n.x, n.y, n.yaw, n.speed, c.goal_lateral_lookahead_s) > REROUTE_OFF_ROUTE_M) {
        // wandered off (or was moved): a new route from where it is, same trip; an auto NPC that has found
        // no lane for RECYCLE_OFF_LANES_S is recycled
        const at = this.lanes.locate(n.x, n.y, n.yaw, REROUTE_OFF_ROUTE_M * 2, this.at);
        if (at) {
          plan.route = new Route(this.lanes, at.lane, at.s, Math.max(40, route.remaining), this.rng);
          plan.lostSince = -1;
          // the goal follows the new route (a final goal on the old one would stay behind, far off)
          plan.final = false;
        } else if (plan.lostSince < 0) {
          plan.lostSince = step;
        } else if (plan.auto && (step - plan.lostSince) * POLICY_DT > RECYCLE_OFF_LANES_S) {
          this.remove(n.id);
          continue;
        }
      }
      const r = plan.route!;
      const here = r.laneAtProgress(this.here);
      // near the route's end, the plan runs on along the lanes the next trip will start with
      if (r.remaining < LANES_AHEAD_M) engine.setPlan(n.id, committedLanesInto(this.lanes, r.lanes, here.index, here.s, this.planLanes), 0, here.s);
      else engine.setPlan(n.id, r.lanes, here.index, here.s);
      const distToGoal = Math.hypot(n.goalX - n.x, n.goalY - n.y);
      const renew = c.goal_update === 'continuous' || distToGoal < Math.max(GOAL_RENEW_AHEAD_M + n.speed * POLICY_DT * 3, c.goal_renew_m) || n.reachedGoal;
      if (!renew || (plan.final && !n.reachedGoal)) continue;
      const g = r.goal(c.goal_min_lead_m, c.goal_lead_m, c.goal_max_deviation_m, c.goal_lateral_gain, undefined, this.goalOut);
      plan.final = g.final;
      engine.setGoal(n.id, g.x, g.y);
      const at = this.lanes.locate(n.x, n.y, n.yaw, 6, this.at);
      if (at) engine.setMaxSpeed(n.id, this.speedLimitAt(at.lane));
    }
  }
}
