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
import { PolicyInput } from '../policy/input.js';
import type { PolicySession } from '../policy/session.js';
import { POLICY_DT, TrafficEngine, type NpcView, type StepTimings, type StepWork } from '../traffic/engine.js';
import { AgentKind } from '../traffic/world.js';
import { hypot } from '../util/hypot.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import { DEFAULT_SHIELD_OPTIONS } from '../traffic/shield.js';
import { stepPolicy } from '../traffic/policy-step.js';
import { DEFAULT_SCENE_CONFIG, RESTART_ONLY_SETTINGS, SCENE_SETTINGS, type SceneConfig } from './config.js';
import { checkSettings } from './settings.js';
import { ACTOR_ID_BASE, EgoRegistry, type EgoReport, type EgoState } from './egos.js';
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
  /** a test case's scripted actor (its story id; id = ACTOR_ID_BASE + its number), absent for the policy's NPCs */
  actor?: string;
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

const NO_VIEWS: readonly NpcView[] = [];

/** An NPC as the step's vehicles list it, rewritten every step (a class of its own: its fields hold doubles in place). */
class StepVehicle {
  id = 0;
  x = 0;
  y = 0;
  yaw = 0;
  length = 0;
  width = 0;
  speed = 0;
}

/** Steps due at t: a tolerance (1 µs) keeps 3·0.1 = 0.30000000000000004, or a time computed from the wall clock, from missing the step due at 0.3. */
const TIME_EPS = 1e-6;

/** Why an NPC is held back, as the inspector shows it: a rule, else a vehicle it waits behind while slow. */
function holdOf(n: NpcView): NpcHold {
  // behind a vehicle that is itself waiting at the line: in the queue
  if ((n.hold === 'red' || n.hold === 'yellow' || n.hold === 'stop_sign') && n.waitingFor !== -1) return 'queue';
  if (n.hold !== 'none') return n.hold;
  return n.speed < 1 && n.waitingFor !== -1 ? 'queue' : 'none';
}

/**
 * The NPCs as the latest change to them (a step, a spawn, a removal, a setting) left them, column by column in
 * reused typed arrays: what every snapshot interpolates. Each column holds what snapshot() computed per NPC
 * and frame from the engine's views before (the same expressions on the same numbers), so a frame reads
 * arrays, with no engine views, id lookups or velocities to make, and makes each NPC's state once.
 */
class NpcTable {
  count = 0;
  id = new Float64Array(0);
  prevX = new Float64Array(0);
  prevY = new Float64Array(0);
  prevYaw = new Float64Array(0);
  /** x − prevX, y − prevY, wrapPi(yaw − prevYaw): the committed motion */
  dx = new Float64Array(0);
  dy = new Float64Array(0);
  dYaw = new Float64Array(0);
  vx = new Float64Array(0);
  vy = new Float64Array(0);
  speed = new Float64Array(0);
  length = new Float64Array(0);
  width = new Float64Array(0);
  goalX = new Float64Array(0);
  goalY = new Float64Array(0);
  /** 1 collided, 2 off-road, 4 auto */
  flags = new Uint8Array(0);
  readonly hold: NpcHold[] = [];
  /** afterStep: the rows whose NPC is still in the world */
  private kept = new Uint8Array(0);

  private reserve(n: number): void {
    if (n <= this.id.length) return;
    const cap = Math.max(n, 2 * this.id.length, 64);
    const f64 = () => new Float64Array(cap);
    this.id = f64(); this.prevX = f64(); this.prevY = f64(); this.prevYaw = f64();
    this.dx = f64(); this.dy = f64(); this.dYaw = f64(); this.vx = f64(); this.vy = f64(); this.speed = f64();
    this.length = f64(); this.width = f64(); this.goalX = f64(); this.goalY = f64();
    this.flags = new Uint8Array(cap);
    this.kept = new Uint8Array(cap);
  }

  fill(views: readonly NpcView[], engine: TrafficEngine, population: NpcPopulation): void {
    this.reserve(views.length);
    for (let k = 0; k < views.length; k++) {
      const n = views[k];
      const fresh = engine.isFresh(n.id);
      const dx = n.x - n.prevX;
      const dy = n.y - n.prevY;
      const vx = fresh ? n.speed * Math.cos(n.yaw) : dx / POLICY_DT;
      const vy = fresh ? n.speed * Math.sin(n.yaw) : dy / POLICY_DT;
      this.id[k] = n.id;
      this.prevX[k] = n.prevX;
      this.prevY[k] = n.prevY;
      this.prevYaw[k] = n.prevYaw;
      this.dx[k] = dx;
      this.dy[k] = dy;
      this.dYaw[k] = wrapPi(n.yaw - n.prevYaw);
      this.vx[k] = vx;
      this.vy[k] = vy;
      this.speed[k] = hypot(vx, vy);
      this.length[k] = n.length;
      this.width[k] = n.width;
      this.goalX[k] = n.goalX;
      this.goalY[k] = n.goalY;
      this.flags[k] = (n.collided ? 1 : 0) | (n.offroad ? 2 : 0) | (population.isAuto(n.id) ? 4 : 0);
      if (k < this.hold.length) this.hold[k] = holdOf(n);
      else this.hold.push(holdOf(n));
    }
    this.count = views.length;
  }

  /**
   * The rows of the step's views (taken after the engine's step) as the rest of the step left them: the
   * population only sets goals and removes NPCs (update), or adds some (fill, spawn). The goals are read from
   * the engine's world where npcs() reads them, the rows of removed NPCs are dropped (the others keep their
   * order, as npcs() keeps it); false when the world holds an NPC the views do not (added since: the caller
   * reads every NPC again).
   */
  fillAfterStep(views: readonly NpcView[], engine: TrafficEngine, population: NpcPopulation): boolean {
    this.fill(views, engine, population);
    const w = engine.world;
    const n = this.count;
    this.kept.fill(0, 0, n);
    let present = 0;
    for (let s = 0; s < w.count; s++) {
      if (!w.present[s] || w.kind[s] !== AgentKind.Controlled) continue;
      const id = w.id[s];
      let k = 0;
      while (k < n && this.id[k] !== id) k++;
      if (k === n) return false;
      this.goalX[k] = w.goalX[s];
      this.goalY[k] = w.goalY[s];
      this.kept[k] = 1;
      present++;
    }
    if (present === n) return true;
    let to = 0;
    for (let k = 0; k < n; k++) {
      if (!this.kept[k]) continue;
      if (to !== k) this.move(k, to);
      to++;
    }
    this.count = to;
    return true;
  }

  private move(from: number, to: number): void {
    this.id[to] = this.id[from];
    this.prevX[to] = this.prevX[from];
    this.prevY[to] = this.prevY[from];
    this.prevYaw[to] = this.prevYaw[from];
    this.dx[to] = this.dx[from];
    this.dy[to] = this.dy[from];
    this.dYaw[to] = this.dYaw[from];
    this.vx[to] = this.vx[from];
    this.vy[to] = this.vy[from];
    this.speed[to] = this.speed[from];
    this.length[to] = this.length[from];
    this.width[to] = this.width[from];
    this.goalX[to] = this.goalX[from];
    this.goalY[to] = this.goalY[from];
    this.flags[to] = this.flags[from];
    this.hold[to] = this.hold[from];
  }
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
  /** the NPCs' observations, written by the engine and read by the policy's one call per step */
  private readonly policyInput: PolicyInput;
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
  /**
   * What snapshots interpolate, brought up to date by the first snapshot after a change: after a policy step
   * from the step's own views (the goals and removals of the rest of the step read from the engine's world),
   * after anything else from engine.npcs(). Every path that changes an NPC's state, the set of NPCs or what
   * the engine reports of them goes through this class (the engine and the population are its own) and says
   * so (`npcsChanged`): a policy step (at its start, for the rules' holds, and after the engine's step), a
   * spawn, a removal, a reset, a setting, an ego removed.
   */
  private readonly npcTable = new NpcTable();
  /** the table is current (0), is to be made from the step's views (1), or from engine.npcs() (2) */
  private npcTableState = 2;
  /** the engine's NPCs just after the latest step (the table's rows, with the population's changes read after) */
  private stepViews: readonly NpcView[] = NO_VIEWS;
  /** the step's vehicles (NPCs) for the quality figures and the spawns, reused from step to step */
  private readonly vehiclePool: StepVehicle[] = [];
  private readonly slowSince = (id: number) => this.quality.slowSince(id);

  /** what the scene's traffic control was built with (a recording keeps it for replay) */
  readonly controlOptions: { readonly signalPlans?: readonly SignalPlanOverride[]; readonly signalAll?: boolean; readonly signalsActuated?: boolean };

  constructor(
    readonly map: LoadedMap,
    readonly policy: PolicySession,
    config: Partial<SceneConfig> = {},
    opts: { signalPlans?: readonly SignalPlanOverride[]; signalAll?: boolean; signalsActuated?: boolean; reference?: boolean } = {},
  ) {
    checkSettings(config, SCENE_SETTINGS, 'scene setting');
    this.config = { ...DEFAULT_SCENE_CONFIG, ...config };
    this.engine = new TrafficEngine(map.scene, {
      sizeScale: policy.sizeScale,
      maxExternal: this.config.max_egos,
      laneGraph: map.mapMetadata?.lane_graph,
      shield: DEFAULT_SHIELD_OPTIONS,
      reference: opts.reference,
    });
    this.engine.shieldEnabled = this.config.shield;
    this.policyInput = new PolicyInput(policy, this.engine.maxNpcs);
    this.lanes = this.engine.lanes;
    this.quality = new QualityMetrics(this.lanes, this.config.speed_limit_mps);
    this.bounds = mapBounds(map);
    this.controlOptions = { signalPlans: opts.signalPlans, signalAll: opts.signalAll, ...(opts.signalsActuated ? { signalsActuated: true } : {}) };
    this.control = new TrafficControl(map, this.engine, { rules: this.config.traffic_rules, plans: opts.signalPlans, signalAll: opts.signalAll, actuated: opts.signalsActuated, expectedNpcs: this.config.npc_target });
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

  /** An event from outside the scene's own step (a test case's attempt), to the same listeners (log, recording). */
  announce(e: SceneEvent): void {
    this.emitEvent(e);
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
    this.npcsChanged();
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
    this.npcsChanged();
    return this.egos.remove(id, this.engine, this.time);
  }

  hasEgo(id: string): boolean {
    return this.egos.has(id);
  }

  // ---- NPCs ----

  spawnNpc(req: SpawnRequest): number {
    this.npcsChanged();
    return this.population.spawn(req, this.steps, this.obstacles(this.time));
  }

  /**
   * Every vehicle in the scene at time t (NPCs and live egos), for keeping spawns clear. With `pool`, the NPCs'
   * objects are the pool's, rewritten (the step's: nothing keeps them past it).
   */
  private obstacles(t: number, npcs: readonly NpcView[] = this.engine.npcs(), pool?: StepVehicle[]): SceneVehicle[] {
    const out: SceneVehicle[] = [];
    for (let k = 0; k < npcs.length; k++) {
      const n = npcs[k];
      if (!pool) {
        out.push({ id: n.id, x: n.x, y: n.y, yaw: n.yaw, length: n.length, width: n.width, speed: n.speed });
        continue;
      }
      if (k === pool.length) pool.push(new StepVehicle());
      const v = pool[k];
      v.id = n.id; v.x = n.x; v.y = n.y; v.yaw = n.yaw; v.length = n.length; v.width = n.width; v.speed = n.speed;
      out.push(v);
    }
    for (const e of this.egos.list(t)) if (!e.stale) out.push({ egoId: e.egoId, x: e.x, y: e.y, yaw: e.yaw, length: e.length, width: e.width, speed: e.speed });
    return out;
  }

  removeNpc(id: number): boolean {
    this.npcsChanged();
    return this.population.remove(id);
  }

  /** Removes every NPC; returns how many there were. Auto-spawn refills up to npc_target on the next step. */
  removeAllNpcs(): number {
    this.npcsChanged();
    return this.population.removeAll();
  }

  /** The NPCs' state or set may have changed: the next snapshot reads them from the engine again. */
  private npcsChanged(): void {
    this.npcTableState = 2;
  }

  // ---- time ----

  /** Back to time 0: NPCs cleared and respawned from the seed, egos forgotten, metrics cleared. */
  reset(): void {
    if (this.inStep) throw new Error('reset during a policy step (from a listener of the step)');
    this.npcsChanged();
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
    this.npcsChanged();
  }

  /** Runs every policy step due by simulation time t; returns how many ran. */
  advanceTo(t: number): number {
    if (this.inStep) throw new Error('advanceTo during a policy step (from a listener of the step)');
    this.inStep = true;
    let ran = 0;
    try {
      while (this.steps * POLICY_DT <= t + TIME_EPS) {
        this.policyStep();
        ran++;
      }
      if (t > this.time) this.time = t;
    } finally {
      this.inStep = false;
    }
    return ran;
  }

  /** One policy step at simulation time steps·0.1. */
  private policyStep(): void {
    const t0 = performance.now();
    this.npcsChanged();
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
    stepPolicy(this.engine, this.policy, this.policyInput);
    const t = this.engine.timings;
    this.npcsChanged();
    this.steps++;
    const after = this.steps * POLICY_DT;
    const npcs = this.engine.npcs();
    const contactsBefore = this.egos.collisionSteps;
    this.egos.afterStep(this.engine, after, (egoId) => this.npcsTouching(egoId, npcs));
    // the views are the engine's NPCs as they are now (afterStep changes nothing in the engine)
    const vehicles = this.obstacles(after, npcs, this.vehiclePool);
    this.quality.observeStep(npcs, this.steps, vehicles, this.egos.collisionSteps - contactsBefore);
    this.population.update(this.steps, npcs, this.slowSince);
    const live = this.egos.list(after).filter((e) => !e.stale);
    // every vehicle again: update only removes NPCs (moves, adds and reorders none), so these are the same
    // vehicles less the NPCs it removed, in the same order (kept in place: nothing else holds the list)
    let kept = 0;
    for (let k = 0; k < vehicles.length; k++) {
      const v = vehicles[k];
      if (v.id === undefined || this.engine.hasNpc(v.id)) vehicles[kept++] = v;
    }
    vehicles.length = kept;
    this.population.fill(this.steps, vehicles, live.map((e) => ({ x: e.x, y: e.y, yaw: e.yaw, length: e.length, width: e.width })));
    this.stepViews = npcs;
    this.npcTableState = 1;
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
    const n = this.npcRows();
    const npcs: NpcState[] = [];
    for (let k = 0; k < n.count; k++) {
      const f = n.flags[k];
      npcs.push({
        id: n.id[k],
        x: n.prevX[k] + alpha * n.dx[k],
        y: n.prevY[k] + alpha * n.dy[k],
        yaw: wrapPi(n.prevYaw[k] + alpha * n.dYaw[k]),
        vx: n.vx[k], vy: n.vy[k], speed: n.speed[k],
        length: n.length[k], width: n.width[k], goalX: n.goalX[k], goalY: n.goalY[k],
        collided: (f & 1) !== 0, offroad: (f & 2) !== 0, auto: (f & 4) !== 0,
        hold: n.hold[k],
      });
    }
    const egos = this.egos.list(t);
    // a test case's actors are traffic to whoever watches: among the NPCs, after them
    let cars = egos;
    if (egos.some((e) => e.actorNumber !== undefined)) {
      cars = [];
      for (const e of egos) {
        if (e.actorNumber === undefined) cars.push(e);
        else npcs.push({
          id: ACTOR_ID_BASE + e.actorNumber, x: e.x, y: e.y, yaw: e.yaw, vx: e.speed * Math.cos(e.yaw), vy: e.speed * Math.sin(e.yaw), speed: e.speed,
          length: e.length, width: e.width, goalX: e.x, goalY: e.y, collided: e.collided, offroad: false, auto: false, hold: 'none', actor: e.egoId,
        });
      }
    }
    return { time: t, step: this.steps, npcs, egos: cars, timings: this.timings, signals: this.control.signals(t) };
  }

  /** The NPC table, brought up to date if something changed the NPCs since it was. */
  private npcRows(): NpcTable {
    if (this.npcTableState === 1 && !this.npcTable.fillAfterStep(this.stepViews, this.engine, this.population)) this.npcTableState = 2;
    if (this.npcTableState === 2) this.npcTable.fill(this.engine.npcs(), this.engine, this.population);
    this.npcTableState = 0;
    this.stepViews = NO_VIEWS;
    return this.npcTable;
  }

  /** The movements closed by a red or yellow signal now (for simulated egos' drivers). */
  signalStops(): readonly SignalStopPoint[] {
    return this.control.signalStops();
  }
}
