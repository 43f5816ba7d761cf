/**
 * A VILS session: the NPC engine on a map, the real egos fed by GNSS, and the NPC bookkeeping (goals,
 * respawn, the target count). No timers and no sockets: `step(nowMs)` is called by the loop, ego states
 * and REST commands come in as method calls, and each step yields one npc_states frame.
 */
import { GeoFrame } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import { SeededRandom } from '../policy/sampling.js';
import type { PolicySession } from '../policy/session.js';
import { TrafficEngine, type ExternalState } from '../traffic/engine.js';
import { LaneNetwork } from '../traffic/lanes.js';
import { DEFAULT_CONFIG, type SessionConfig } from './config.js';

export type RunState = 'running' | 'paused' | 'stopped';

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

export interface EgoInput {
  egoId: string;
  lat: number;
  lon: number;
  headingDeg: number;
  speed: number;
  length?: number;
  width?: number;
  clientTimestamp?: number;
}

/** An ego as last reported: pose in the local map frame at receipt, plus bookkeeping. */
interface EgoTrack extends ExternalState {
  id: string;
  receivedMs: number;
  clientTimestamp: number | null;
  stale: boolean;
  collided: boolean;
  /** pose used in the last step */
  stepX: number;
  stepY: number;
}

export interface NpcFrameEntry {
  id: number;
  x: number;
  y: number;
  lat: number;
  lon: number;
  yaw: number;
  heading: number;
  speed: number;
  length: number;
  width: number;
  collided: boolean;
  offroad: boolean;
}

export interface NpcStatesFrame {
  type: 'npc_states';
  timestamp: number;
  step: number;
  npcs: NpcFrameEntry[];
  metrics: { sim_time_ms: number; policy_time_ms: number; total_time_ms: number; num_active_npcs: number };
  egos: Array<{ ego_id: string; x: number; y: number; yaw: number; speed: number; stale: boolean; collided: boolean; timestamp: number | null }>;
}

export interface SpawnRequest {
  x: number;
  y: number;
  yaw?: number;
  speed: number;
  length?: number;
  width?: number;
  goal?: { x: number; y: number };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const r7 = (v: number) => Math.round(v * 1e7) / 1e7;

/** Outcomes of NPC trips (spawn or new goal → goal): what `vils drive` and the status report. */
export interface TripStats {
  started: number;
  reachedGoal: number;
  /** removed before reaching the goal */
  abandoned: number;
  withCollision: number;
  withOffroad: number;
}

interface Trip {
  startStep: number;
  collided: boolean;
  offroad: boolean;
}

export class VilsSession {
  readonly config: SessionConfig;
  readonly engine: TrafficEngine;
  readonly lanes: LaneNetwork;
  readonly geo: GeoFrame;
  state: RunState = 'stopped';
  step = 0;
  collisionsWithEgo = 0;
  private readonly egos = new Map<string, EgoTrack>();
  /** NPC ids the server spawned itself (kept at npc_target, re-goaled when done) */
  private readonly autoNpcs = new Set<number>();
  private rng: SeededRandom;
  private readonly bounds: { minX: number; minY: number; maxX: number; maxY: number };
  lastFrame: NpcStatesFrame | null = null;
  readonly trips: TripStats = { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 };
  private readonly openTrips = new Map<number, Trip>();

  constructor(readonly map: LoadedMap, policy: PolicySession, geo: GeoFrame, config: Partial<SessionConfig> = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    this.geo = geo;
    this.engine = new TrafficEngine(map.scene, policy, { maxExternal: this.config.max_egos });
    this.lanes = new LaneNetwork(this.engine.roads.entities, map.mapMetadata?.lane_graph);
    this.rng = new SeededRandom(this.config.seed);
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const r of map.scene.roads) for (const p of r.geometry) {
      minX = Math.min(minX, p.x); minY = Math.min(minY, p.y); maxX = Math.max(maxX, p.x); maxY = Math.max(maxY, p.y);
    }
    this.bounds = Number.isFinite(minX) ? { minX, minY, maxX, maxY } : { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  }

  /** Lane network positions are in the engine's world-mean frame; the API speaks map coordinates. */
  private toWorld(x: number, y: number) {
    return { x: x - this.engine.mean.x, y: y - this.engine.mean.y };
  }
  private toMap(x: number, y: number) {
    return { x: x + this.engine.mean.x, y: y + this.engine.mean.y };
  }

  // ---- egos ----

  /** Throws InputError when a local point lies further than map_margin_m outside the map's extent. */
  checkInMap(x: number, y: number, what: string): void {
    const b = this.bounds;
    const m = this.config.map_margin_m;
    const outside = Math.max(b.minX - x, x - b.maxX, b.minY - y, y - b.maxY);
    if (outside > m) throw new InputError(`${what} is ${Math.round(outside)} m outside the map area (allowed margin ${m} m)`);
  }

  updateEgo(input: EgoInput, nowMs: number): void {
    const { lat, lon } = input;
    const p = this.geo.toLocal(lat, lon);
    this.checkInMap(p.x, p.y, `position lat ${lat}, lon ${lon}`);
    const yaw = this.geo.headingToYaw(input.headingDeg, lat, lon);
    const prev = this.egos.get(input.egoId);
    if (!prev && this.egos.size >= this.config.max_egos) {
      throw new InputError(`this session already tracks ${this.config.max_egos} egos (max_egos); reuse an ego_id`);
    }
    this.egos.set(input.egoId, {
      id: input.egoId,
      x: p.x,
      y: p.y,
      yaw,
      speed: input.speed,
      length: input.length ?? prev?.length ?? this.config.ego_length,
      width: input.width ?? prev?.width ?? this.config.ego_width,
      receivedMs: nowMs,
      clientTimestamp: input.clientTimestamp ?? null,
      stale: false,
      collided: prev?.collided ?? false,
      stepX: prev?.stepX ?? p.x,
      stepY: prev?.stepY ?? p.y,
    });
  }

  removeEgo(id: string): boolean {
    this.engine.removeExternal(id);
    return this.egos.delete(id);
  }

  egoIds(): string[] {
    return [...this.egos.keys()];
  }

  /** Puts every ego into the engine at the step time: extrapolated along its heading, or out when stale. */
  private placeEgos(nowMs: number): void {
    const timeoutMs = this.config.ego_timeout_s * 1000;
    for (const e of this.egos.values()) {
      const age = nowMs - e.receivedMs;
      if (age > timeoutMs) {
        if (!e.stale) this.engine.removeExternal(e.id);
        e.stale = true;
        continue;
      }
      e.stale = false;
      const dt = Math.max(0, age) / 1000;
      e.stepX = e.x + e.speed * Math.cos(e.yaw) * dt;
      e.stepY = e.y + e.speed * Math.sin(e.yaw) * dt;
      this.engine.setExternal(e.id, { x: e.stepX, y: e.stepY, yaw: e.yaw, speed: e.speed, length: e.length, width: e.width, collisionScale: 1 });
    }
  }

  // ---- NPCs ----

  /** Spawns an NPC; without a goal one is chosen ahead along the lanes. Returns its id. */
  spawnNpc(req: SpawnRequest, auto = false): number {
    if (this.engine.npcCount >= this.engine.maxNpcs) throw new InputError(`the world holds at most ${this.engine.maxNpcs} NPCs`);
    this.checkInMap(req.x, req.y, `spawn point (${r3(req.x)}, ${r3(req.y)})`);
    if (req.goal) this.checkInMap(req.goal.x, req.goal.y, `goal (${r3(req.goal.x)}, ${r3(req.goal.y)})`);
    const w = this.toWorld(req.x, req.y);
    const located = this.lanes.locate(w.x, w.y, req.yaw, 15);
    const yaw = req.yaw ?? (located ? this.lanes.pose(located.lane, located.s).yaw : 0);
    let goal = req.goal;
    if (!goal) {
      const ahead = located ? this.goalAhead(located.lane, located.s) : null;
      if (!ahead) throw new InputError('no goal given and no lane near the spawn point to choose one along');
      goal = this.toMap(ahead.x, ahead.y);
    }
    const id = this.engine.addNpc({ x: req.x, y: req.y, yaw, speed: req.speed, goalX: goal.x, goalY: goal.y, length: req.length, width: req.width, maxSpeed: this.speedLimitAt(located?.lane) });
    if (auto) this.autoNpcs.add(id);
    this.startTrip(id);
    return id;
  }

  /** A goal ahead along the lanes, no further than the road stays close to the straight line to it. */
  private goalAhead(lane: number, s: number) {
    return this.lanes.aheadInSight(lane, s, this.config.goal_distance_m, this.config.goal_max_deviation_m, this.rng);
  }

  /** The governor limit for an NPC on `lane` (the lane graph's limit, else the configured one). */
  private speedLimitAt(lane: number | undefined): number {
    if (!this.config.speed_governor) return Infinity;
    const l = lane === undefined ? NaN : this.lanes.lanes[lane].speedLimit;
    return Number.isFinite(l) ? l : this.config.speed_limit_mps;
  }

  removeNpc(id: number): boolean {
    this.autoNpcs.delete(id);
    this.endTrip(id, false);
    return this.engine.removeNpc(id);
  }

  removeAllNpcs(): void {
    for (const id of [...this.openTrips.keys()]) this.endTrip(id, false);
    this.engine.removeAllNpcs();
    this.autoNpcs.clear();
  }

  private startTrip(id: number): void {
    this.trips.started++;
    this.openTrips.set(id, { startStep: this.step, collided: false, offroad: false });
  }

  private endTrip(id: number, reached: boolean): void {
    const t = this.openTrips.get(id);
    if (!t) return;
    this.openTrips.delete(id);
    if (reached) this.trips.reachedGoal++;
    else this.trips.abandoned++;
    if (t.collided) this.trips.withCollision++;
    if (t.offroad) this.trips.withOffroad++;
  }

  /** Trips still under way, and how many of them started more than `olderThanSteps` steps ago. */
  openTripCount(olderThanSteps = Infinity): number {
    let n = 0;
    for (const t of this.openTrips.values()) if (this.step - t.startStep > olderThanSteps) n++;
    return olderThanSteps === Infinity ? this.openTrips.size : n;
  }

  /** Tops the auto-spawned NPCs up to npc_target, away from egos and other NPCs. */
  fillNpcs(): number {
    let added = 0;
    // runs every step: only build the avoid list when there is something to spawn
    const wanted = Math.min(this.config.npc_target - this.autoNpcs.size, this.engine.maxNpcs - this.engine.npcCount);
    const avoid = wanted <= 0 ? [] : [
      ...this.engine.npcs().map((n) => ({ ...this.toWorld(n.x, n.y), r: 0 })),
      ...[...this.egos.values()].filter((e) => !e.stale).map((e) => ({ ...this.toWorld(e.x, e.y), r: this.config.spawn_clearance_m })),
    ];
    while (this.autoNpcs.size < this.config.npc_target && this.engine.npcCount < this.engine.maxNpcs) {
      const p = this.lanes.randomStart(this.rng, this.config.goal_distance_m, avoid, 10, this.config.goal_max_deviation_m);
      if (!p) break;
      const s = this.toMap(p.start.x, p.start.y);
      const g = this.toMap(p.goal.x, p.goal.y);
      const speed = 3 + 5 * this.rng.next();
      const located = this.lanes.locate(p.start.x, p.start.y, p.start.yaw, 1);
      const id = this.engine.addNpc({ x: s.x, y: s.y, yaw: p.start.yaw, speed, goalX: g.x, goalY: g.y, maxSpeed: this.speedLimitAt(located?.lane) });
      this.autoNpcs.add(id);
      this.startTrip(id);
      avoid.push({ x: p.start.x, y: p.start.y, r: 0 });
      added++;
    }
    while (this.autoNpcs.size > this.config.npc_target) {
      const id = this.autoNpcs.values().next().value as number;
      this.removeNpc(id);
    }
    return added;
  }

  /** NPCs that reached their goal: auto ones drive on to a new goal ahead (if respawn), the rest leave. */
  private handleFinished(): void {
    for (const id of this.engine.finishedNpcs()) {
      this.endTrip(id, true);
      const n = this.engine.npcs().find((v) => v.id === id);
      if (n && this.autoNpcs.has(id) && this.config.respawn) {
        const w = this.toWorld(n.x, n.y);
        const at = this.lanes.locate(w.x, w.y, n.yaw, 15);
        if (at) {
          const g = this.goalAhead(at.lane, at.s);
          this.engine.setMaxSpeed(id, this.speedLimitAt(at.lane));
          if (Math.hypot(g.x - w.x, g.y - w.y) > 5) {
            const gm = this.toMap(g.x, g.y);
            this.engine.setGoal(id, gm.x, gm.y);
            this.startTrip(id);
            continue;
          }
        }
      }
      this.removeNpc(id);
    }
  }

  /** Clears NPCs and the step counter, re-seeds, and spawns the initial NPCs. Egos stay. */
  reset(): void {
    this.removeAllNpcs();
    Object.assign(this.trips, { started: 0, reachedGoal: 0, abandoned: 0, withCollision: 0, withOffroad: 0 });
    this.rng = new SeededRandom(this.config.seed);
    this.step = 0;
    this.collisionsWithEgo = 0;
    this.lastFrame = null;
    this.fillNpcs();
  }

  // ---- the step ----

  async stepOnce(nowMs: number, wallClockS: number): Promise<NpcStatesFrame> {
    const t0 = performance.now();
    this.placeEgos(nowMs);
    const t = await this.engine.step();
    for (const e of this.egos.values()) {
      e.collided = !e.stale && this.engine.externalCollided(e.id);
      if (e.collided) this.collisionsWithEgo++;
    }
    this.step++;
    const frame = this.buildFrame(wallClockS);
    for (const n of frame.npcs) {
      const trip = this.openTrips.get(n.id);
      if (!trip) continue;
      if (n.collided) trip.collided = true;
      if (n.offroad) trip.offroad = true;
    }
    this.handleFinished();
    this.fillNpcs();
    const total = performance.now() - t0;
    frame.metrics = {
      sim_time_ms: r3(total - t.inference_ms),
      policy_time_ms: r3(t.inference_ms),
      total_time_ms: r3(total),
      num_active_npcs: t.npcs,
    };
    this.lastFrame = frame;
    return frame;
  }

  private buildFrame(wallClockS: number): NpcStatesFrame {
    const npcs: NpcFrameEntry[] = this.engine.npcs().map((n) => {
      const ll = this.geo.toLatLon(n.x, n.y);
      return {
        id: n.id, x: r3(n.x), y: r3(n.y), lat: r7(ll.lat), lon: r7(ll.lon), yaw: r3(n.yaw),
        heading: r3(this.geo.yawToHeading(n.yaw, n.x, n.y)), speed: r3(n.speed), length: r3(n.length), width: r3(n.width),
        collided: n.collided, offroad: n.offroad,
      };
    });
    const egos = [...this.egos.values()].map((e) => ({
      ego_id: e.id, x: r3(e.stepX), y: r3(e.stepY), yaw: r3(e.yaw), speed: r3(e.speed), stale: e.stale, collided: e.collided, timestamp: e.clientTimestamp,
    }));
    return { type: 'npc_states', timestamp: wallClockS, step: this.step, npcs, metrics: { sim_time_ms: 0, policy_time_ms: 0, total_time_ms: 0, num_active_npcs: 0 }, egos };
  }

  npcList() {
    return this.engine.npcs().map((n) => {
      const ll = this.geo.toLatLon(n.x, n.y);
      return {
        id: n.id, x: r3(n.x), y: r3(n.y), lat: r7(ll.lat), lon: r7(ll.lon), yaw: r3(n.yaw), heading: r3(this.geo.yawToHeading(n.yaw, n.x, n.y)),
        speed: r3(n.speed), length: n.length, width: n.width, goal_x: r3(n.goalX), goal_y: r3(n.goalY), collided: n.collided, offroad: n.offroad,
        auto: this.autoNpcs.has(n.id),
      };
    });
  }

  egoList() {
    return [...this.egos.values()].map((e) => ({ ego_id: e.id, x: r3(e.stepX), y: r3(e.stepY), yaw: r3(e.yaw), speed: e.speed, stale: e.stale, collided: e.collided }));
  }
}
