/**
 * A live scene: the NPC engine on a map with its population, its egos and its quality figures, on
 * simulation time. No clock and no sockets: a runner (real time, as fast as possible, a test) calls
 * `advanceTo(t)`, which runs every 0.1 s policy step due by t; between steps, `snapshot(t)` shows the NPCs
 * along the motion the last step committed them to, so a frame at any rate is honest about where they are.
 *
 * Step timing: the step that runs at simulation time s·0.1 observes the world (egos moved to that time)
 * and commits every NPC's motion to (s+1)·0.1. After k steps the world holds the state at k·0.1 and the
 * state at (k−1)·0.1 is kept, so any t in [(k−1)·0.1, k·0.1] is shown by interpolating the two.
 */
import { wrapPi } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import type { PolicySession } from '../policy/session.js';
import { POLICY_DT, TrafficEngine, type NpcView, type StepTimings, type StepWork } from '../traffic/engine.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import { DEFAULT_SHIELD_OPTIONS } from '../traffic/shield.js';
import { DEFAULT_SCENE_CONFIG, RESTART_ONLY_SETTINGS, SCENE_SETTINGS, type SceneConfig } from './config.js';
import { checkSettings } from './settings.js';
import { EgoRegistry, type EgoReport, type EgoState } from './egos.js';
import { InputError } from './errors.js';
import type { SceneEvent, SceneEventListener } from './events.js';
import { NpcPopulation, type Obstacle, type SpawnRequest } from './population.js';
import { QualityMetrics } from './quality.js';
import { TrafficControl, type SignalGroupState, type SignalPlanOverride, type SignalStopPoint } from './control/index.js';

export interface NpcState {
  id: number;
  x: number;
  y: number;
  yaw: number;
  /** velocity of the motion shown (m/s, map frame): displacement over the current policy step */
  vx: number;
  vy: number;
  speed: number;
  length: number;
  width: number;
  goalX: number;
  goalY: number;
  collided: boolean;
  offroad: boolean;
  /** spawned by the scene itself (kept at npc_target) rather than on request */
  auto: boolean;
  /** why it is held back: a traffic rule (red, yellow, stop_sign, give_way, box), a vehicle ahead (queue), or none */
  hold: NpcHold;
}

export type NpcHold = 'none' | 'red' | 'yellow' | 'stop_sign' | 'give_way' | 'box' | 'queue';

export interface SceneTimings extends StepTimings {
  /** the traffic rules before the step: signals, every NPC's stop line, the junction figures */
  rules_ms: number;
  /** the whole scene step: egos, rules, engine, population, metrics */
  scene_ms: number;
}

export interface SceneSnapshot {
  /** simulation time shown [s] */
  time: number;
  /** policy steps taken */
  step: number;
  npcs: NpcState[];
  egos: EgoState[];
  /** timings of the latest policy step (null before the first) */
  timings: SceneTimings | null;
  /** every signal group's state */
  signals: SignalGroupState[];
}

export interface MapBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** A vehicle of the scene: an NPC (its id) or a live ego (its egoId). */
type SceneVehicle = Obstacle & { id?: number; egoId?: string };

/** Steps due at t: a tolerance (1 µs) keeps 3·0.1 = 0.30000000000000004, or a time computed from the wall clock, from missing the step due at 0.3. */
const TIME_EPS = 1e-6;

/** Why an NPC is held back, as the inspector shows it: a rule, else a vehicle it waits behind while slow. */
function holdOf(n: NpcView): NpcHold {
  // behind a vehicle that is itself waiting at the line: in the queue
  if ((n.hold === 'red' || n.hold === 'yellow' || n.hold === 'stop_sign') && n.waitingFor !== -1) return 'queue';
  if (n.hold !== 'none') return n.hold;
  return n.speed < 1 && n.waitingFor !== -1 ? 'queue' : 'none';
}

export function mapBounds(map: LoadedMap): MapBounds {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of map.scene.roads) {
    for (const p of r.geometry) {
      if (p.x < minX) minX = p.x;
      if (p.y < minY) minY = p.y;
      if (p.x > maxX) maxX = p.x;
      if (p.y > maxY) maxY = p.y;
    }
  }
  return Number.isFinite(minX) ? { minX, minY, maxX, maxY } : { minX: 0, minY: 0, maxX: 0, maxY: 0 };
}

export class LiveScene {
  readonly config: SceneConfig;
  readonly bounds: MapBounds;
  readonly lanes: LaneNetwork;
  readonly quality: QualityMetrics;
  /** junctions, signals and the rules NPCs obey there */
  readonly control: TrafficControl;
  private readonly engine: TrafficEngine;
  private readonly egos: EgoRegistry;
  private readonly population: NpcPopulation;
  private readonly listeners: SceneEventListener[] = [];
  /** simulation time of the latest advanceTo / snapshot [s] */
  time = 0;
  /** policy steps taken since reset */
  steps = 0;
  timings: SceneTimings | null = null;
  private inStep = false;
  private readonly emitEvent: SceneEventListener;

  /** what the scene's traffic control was built with (a recording keeps it for replay) */
  readonly controlOptions: { readonly signalPlans?: readonly SignalPlanOverride[]; readonly signalAll?: boolean };

  constructor(
    readonly map: LoadedMap,
    readonly policy: PolicySession,
    config: Partial<SceneConfig> = {},
    opts: { signalPlans?: readonly SignalPlanOverride[]; signalAll?: boolean; reference?: boolean } = {},
  ) {
    checkSettings(config, SCENE_SETTINGS, 'scene setting');
    this.config = { ...DEFAULT_SCENE_CONFIG, ...config };
    this.engine = new TrafficEngine(map.scene, policy, {
      maxExternal: this.config.max_egos,
      laneGraph: map.mapMetadata?.lane_graph,
      shield: DEFAULT_SHIELD_OPTIONS,
      reference: opts.reference,
    });
    this.engine.shieldEnabled = this.config.shield;
    this.lanes = this.engine.lanes;
    this.quality = new QualityMetrics(this.lanes, this.config.speed_limit_mps);
    this.bounds = mapBounds(map);
    this.controlOptions = { signalPlans: opts.signalPlans, signalAll: opts.signalAll };
    this.control = new TrafficControl(map, this.engine, { rules: this.config.traffic_rules, plans: opts.signalPlans, signalAll: opts.signalAll, expectedNpcs: this.config.npc_target });
    const emit = (e: SceneEvent) => {
      for (const l of this.listeners) l(e);
    };
    this.emitEvent = emit;
    this.egos = new EgoRegistry(this.config, emit, this.lanes);
    this.population = new NpcPopulation(this.engine, this.lanes, this.config, this.quality, (x, y, what) => this.checkInMap(x, y, what), this.control.rules);
  }

  /** Scene events (ego connected / stale / forgotten / collided). */
  on(listener: SceneEventListener): void {
    this.listeners.push(listener);
  }

  /** Simulation time of the next policy step [s]. */
  get nextStepTime(): number {
    return this.steps * POLICY_DT;
  }

  /** the NPC step's work counters (tests and benchmarks; see EngineOptions.reference) */
  stepWork(): StepWork {
    return this.engine.workDone();
  }

  get npcCount(): number {
    return this.engine.npcCount;
  }

  get maxNpcs(): number {
    return this.engine.maxNpcs;
  }

  get egoCount(): number {
    return this.egos.size;
  }

  /** Egos the NPCs currently see (live ones, in the world); stale and forgotten ones are not. */
  get visibleEgoCount(): number {
    return this.engine.externalCount;
  }

  /** Contacts between egos and NPCs, counted per ego-step. */
  get egoCollisionSteps(): number {
    return this.egos.collisionSteps;
  }

  /** Throws InputError when a map point lies further than map_margin_m outside the map's extent. */
  checkInMap(x: number, y: number, what: string): void {
    const b = this.bounds;
    const m = this.config.map_margin_m;
    const outside = Math.max(b.minX - x, x - b.maxX, b.minY - y, y - b.maxY);
    if (!(outside <= m)) throw new InputError(`${what} is ${Number.isFinite(outside) ? Math.round(outside) : outside} m outside the map area (allowed margin ${m} m)`);
  }

  /**
   * Changes settings; refuses (InputError, nothing changed) an unknown key, a value outside its range in the
   * settings table (src/scene/config.ts) and those that only take effect on restart.
   * `seed` applies from the next reset.
   */
  configure(patch: Partial<SceneConfig>): void {
    checkSettings(patch, SCENE_SETTINGS, 'scene setting');
    for (const [k, v] of Object.entries(patch)) {
      if (RESTART_ONLY_SETTINGS.has(k) && v !== (this.config as unknown as Record<string, unknown>)[k]) {
        throw new InputError(`${k} sizes the world and only takes effect when the server restarts (set it in the config file or on the command line)`);
      }
    }
    Object.assign(this.config, patch);
    this.engine.shieldEnabled = this.config.shield;
    this.control.enabled = this.config.traffic_rules;
  }

  // ---- egos ----

  /** An ego report (map frame) received at simulation time t (default: the scene's time). */
  updateEgo(report: EgoReport, t = this.time): void {
    this.checkInMap(report.x, report.y, `ego ${report.egoId} position (${Math.round(report.x)}, ${Math.round(report.y)})`);
    this.egos.update(report, t);
  }

  removeEgo(id: string): boolean {
    return this.egos.remove(id, this.engine, this.time);
  }

  hasEgo(id: string): boolean {
    return this.egos.has(id);
  }

  // ---- NPCs ----

  spawnNpc(req: SpawnRequest): number {
    return this.population.spawn(req, this.steps, this.obstacles(this.time));
  }

  /** Every vehicle in the scene at time t (NPCs and live egos), for keeping spawns clear. */
  private obstacles(t: number, npcs: readonly NpcView[] = this.engine.npcs()): SceneVehicle[] {
    const out: SceneVehicle[] = [];
    for (const n of npcs) out.push({ id: n.id, x: n.x, y: n.y, yaw: n.yaw, length: n.length, width: n.width, speed: n.speed });
    for (const e of this.egos.list(t)) if (!e.stale) out.push({ egoId: e.egoId, x: e.x, y: e.y, yaw: e.yaw, length: e.length, width: e.width, speed: e.speed });
    return out;
  }

  removeNpc(id: number): boolean {
    return this.population.remove(id);
  }

  /** Removes every NPC; returns how many there were. Auto-spawn refills up to npc_target on the next step. */
  removeAllNpcs(): number {
    return this.population.removeAll();
  }

  // ---- time ----

  /** Back to time 0: NPCs cleared and respawned from the seed, egos forgotten, metrics cleared. */
  reset(): void {
    if (this.inStep) throw new Error('reset during a policy step: wait for advanceTo to finish');
    this.egos.clear(this.engine, this.time);
    this.population.removeAll();
    this.population.reseed(this.config.seed);
    this.quality.reset();
    this.control.reset();
    this.engine.resetIds();
    this.time = 0;
    this.steps = 0;
    this.timings = null;
    this.population.fill(0, [], []);
  }

  /** Runs every policy step due by simulation time t; returns how many ran. */
  async advanceTo(t: number): Promise<number> {
    if (this.inStep) throw new Error('advanceTo is already running (a runner must await it)');
    this.inStep = true;
    let ran = 0;
    try {
      while (this.steps * POLICY_DT <= t + TIME_EPS) {
        await this.policyStep();
        ran++;
      }
      if (t > this.time) this.time = t;
    } finally {
      this.inStep = false;
    }
    return ran;
  }

  /** One policy step at simulation time steps·0.1. */
  private async policyStep(): Promise<void> {
    const t0 = performance.now();
    const at = this.steps * POLICY_DT;
    this.time = Math.max(this.time, at);
    this.egos.place(this.engine, at);
    const tr0 = performance.now();
    this.control.beforeStep(at);
    const rulesMs = performance.now() - tr0;
    for (const run of this.control.metrics.takeEgoRuns()) {
      const egoId = this.engine.externalKeyOf(run.slot);
      if (egoId !== undefined) this.emitEvent({ type: 'ego_ran_red', egoId, t: run.time, junction: run.junction, group: run.group });
    }
    const t = await this.engine.step();
    this.steps++;
    const after = this.steps * POLICY_DT;
    const npcs = this.engine.npcs();
    const contactsBefore = this.egos.collisionSteps;
    this.egos.afterStep(this.engine, after, (egoId) => this.npcsTouching(egoId, npcs));
    // the views are the engine's NPCs as they are now (afterStep changes nothing in the engine)
    const vehicles = this.obstacles(after, npcs);
    this.quality.observeStep(npcs, this.steps, vehicles, this.egos.collisionSteps - contactsBefore);
    this.population.update(this.steps, npcs, (id) => this.quality.slowSince(id));
    const live = this.egos.list(after).filter((e) => !e.stale);
    // every vehicle again: update only removes NPCs (moves, adds and reorders none), so these are the same
    // vehicles less the NPCs it removed, in the same order
    const remaining = vehicles.filter((v) => v.id === undefined || this.engine.hasNpc(v.id));
    this.population.fill(this.steps, remaining, live.map((e) => ({ x: e.x, y: e.y, yaw: e.yaw, length: e.length, width: e.width })));
    this.timings = { ...t, rules_ms: rulesMs, scene_ms: performance.now() - t0 };
  }

  private npcsTouching(egoId: string, npcs: readonly NpcView[]): number[] {
    const e = this.egos.list(this.time).find((x) => x.egoId === egoId);
    if (!e) return [];
    return npcs.filter((n) => n.collided && Math.hypot(n.x - e.x, n.y - e.y) < (n.length + e.length) / 2 + 1).map((n) => n.id);
  }

  /** The scene as of simulation time t (default: its time): NPCs along their committed motion, egos moved to t. */
  snapshot(t = this.time): SceneSnapshot {
    const base = (this.steps - 1) * POLICY_DT;
    const alpha = this.steps === 0 ? 0 : Math.min(1, Math.max(0, (t - base) / POLICY_DT));
    const npcs: NpcState[] = this.engine.npcs().map((n) => {
      const fresh = this.engine.isFresh(n.id);
      const dx = n.x - n.prevX;
      const dy = n.y - n.prevY;
      const vx = fresh ? n.speed * Math.cos(n.yaw) : dx / POLICY_DT;
      const vy = fresh ? n.speed * Math.sin(n.yaw) : dy / POLICY_DT;
      return {
        id: n.id,
        x: n.prevX + alpha * dx,
        y: n.prevY + alpha * dy,
        yaw: wrapPi(n.prevYaw + alpha * wrapPi(n.yaw - n.prevYaw)),
        vx, vy, speed: Math.hypot(vx, vy),
        length: n.length, width: n.width, goalX: n.goalX, goalY: n.goalY,
        collided: n.collided, offroad: n.offroad, auto: this.population.isAuto(n.id),
        hold: holdOf(n),
      };
    });
    return { time: t, step: this.steps, npcs, egos: this.egos.list(t), timings: this.timings, signals: this.control.signals(t) };
  }

  /** The movements closed by a red or yellow signal now (for simulated egos' drivers). */
  signalStops(): readonly SignalStopPoint[] {
    return this.control.signalStops();
  }
}
