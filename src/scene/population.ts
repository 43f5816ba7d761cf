/**
 * The NPC population of a scene: spawning (by request, or automatically up to `npc_target`), goals chosen
 * ahead along the lanes, and what happens at a goal (auto NPCs drive on to a new goal when `respawn` is
 * on; the others leave). Every position is in the map frame.
 */
import type { TrafficEngine } from '../traffic/engine.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import { SeededRandom } from '../util/random.js';
import type { SceneConfig } from './config.js';
import { InputError } from './errors.js';
import type { QualityMetrics } from './quality.js';

export interface SpawnRequest {
  x: number;
  y: number;
  /** rad; default: along the nearest lane */
  yaw?: number;
  speed: number;
  length?: number;
  width?: number;
  /** default: chosen ahead along the lanes */
  goal?: { x: number; y: number };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

export class NpcPopulation {
  /** NPC ids the scene spawned itself (kept at npc_target, re-goaled when done) */
  private readonly auto = new Set<number>();
  private rng: SeededRandom;

  constructor(
    private readonly engine: TrafficEngine,
    private readonly lanes: LaneNetwork,
    private readonly config: SceneConfig,
    private readonly quality: QualityMetrics,
    private readonly checkInMap: (x: number, y: number, what: string) => void,
  ) {
    this.rng = new SeededRandom(config.seed);
  }

  isAuto(id: number): boolean {
    return this.auto.has(id);
  }

  get autoCount(): number {
    return this.auto.size;
  }

  reseed(seed: number): void {
    this.rng = new SeededRandom(seed);
  }

  /** Spawns an NPC; without a goal one is chosen ahead along the lanes. Returns its id. */
  spawn(req: SpawnRequest, step: number): number {
    const engine = this.engine;
    if (engine.npcCount >= engine.maxNpcs) throw new InputError(`the world holds at most ${engine.maxNpcs} NPCs`);
    this.checkInMap(req.x, req.y, `spawn point (${r3(req.x)}, ${r3(req.y)})`);
    if (req.goal) this.checkInMap(req.goal.x, req.goal.y, `goal (${r3(req.goal.x)}, ${r3(req.goal.y)})`);
    const located = this.lanes.locate(req.x, req.y, req.yaw, 15);
    const yaw = req.yaw ?? (located ? this.lanes.pose(located.lane, located.s).yaw : 0);
    let goal = req.goal;
    if (!goal) {
      const ahead = located ? this.goalAhead(located.lane, located.s) : null;
      if (!ahead) throw new InputError('no goal given and no lane near the spawn point to choose one along');
      goal = { x: ahead.x, y: ahead.y };
    }
    const id = engine.addNpc({ x: req.x, y: req.y, yaw, speed: req.speed, goalX: goal.x, goalY: goal.y, length: req.length, width: req.width, maxSpeed: this.speedLimitAt(located?.lane) });
    this.quality.startTrip(id, step);
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

  remove(id: number): boolean {
    this.auto.delete(id);
    this.quality.endTrip(id, false);
    return this.engine.removeNpc(id);
  }

  removeAll(): number {
    const ids = this.engine.npcs().map((n) => n.id);
    for (const id of ids) this.remove(id);
    this.auto.clear();
    return ids.length;
  }

  /** Tops the auto NPCs up to npc_target, away from `egos` (live ones) and other NPCs; trims extras. */
  fill(step: number, egos: ReadonlyArray<{ x: number; y: number }>): number {
    const engine = this.engine;
    let added = 0;
    const wanted = Math.min(this.config.npc_target - this.auto.size, engine.maxNpcs - engine.npcCount);
    if (wanted > 0) {
      const avoid = [
        ...engine.npcs().map((n) => ({ x: n.x, y: n.y, r: 0 })),
        ...egos.map((e) => ({ x: e.x, y: e.y, r: this.config.spawn_clearance_m })),
      ];
      while (this.auto.size < this.config.npc_target && engine.npcCount < engine.maxNpcs) {
        const p = this.lanes.randomStart(this.rng, this.config.goal_distance_m, avoid, 10, this.config.goal_max_deviation_m);
        if (!p) break;
        const speed = 3 + 5 * this.rng.next();
        const located = this.lanes.locate(p.start.x, p.start.y, p.start.yaw, 1);
        const id = engine.addNpc({ x: p.start.x, y: p.start.y, yaw: p.start.yaw, speed, goalX: p.goal.x, goalY: p.goal.y, maxSpeed: this.speedLimitAt(located?.lane) });
        this.auto.add(id);
        this.quality.startTrip(id, step);
        avoid.push({ x: p.start.x, y: p.start.y, r: 0 });
        added++;
      }
    }
    while (this.auto.size > this.config.npc_target) {
      const id = this.auto.values().next().value as number;
      this.remove(id);
    }
    return added;
  }

  /** NPCs that reached their goal: auto ones drive on to a new goal ahead (if respawn), the rest leave. */
  handleFinished(step: number): void {
    const engine = this.engine;
    const finished = engine.finishedNpcs();
    if (finished.length === 0) return;
    const views = new Map(engine.npcs().map((n) => [n.id, n]));
    for (const id of finished) {
      this.quality.endTrip(id, true);
      const n = views.get(id);
      if (n && this.auto.has(id) && this.config.respawn) {
        const at = this.lanes.locate(n.x, n.y, n.yaw, 15);
        if (at) {
          const g = this.goalAhead(at.lane, at.s);
          engine.setMaxSpeed(id, this.speedLimitAt(at.lane));
          if (Math.hypot(g.x - n.x, g.y - n.y) > 5) {
            engine.setGoal(id, g.x, g.y);
            this.quality.startTrip(id, step);
            continue;
          }
        }
      }
      this.remove(id);
    }
  }
}
