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
import type { LoadedMap } from '../map/scene-json.js';
import { PolicyInput } from '../policy/input.js';
import type { PolicySession } from '../policy/session.js';
import { POLICY_DT, TrafficEngine, type NpcView, type StepTimings, type StepWork } from '../traffic/engine.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import { DEFAULT_SHIELD_OPTIONS } from '../traffic/shield.js';
import { stepPolicy, type PolicyStepper } from '../traffic/policy-step.js';
import { StopConstraints } from '../traffic/stops.js';
import { DEFAULT_SCENE_CONFIG, RESTART_ONLY_SETTINGS, SCENE_SETTINGS, type SceneConfig } from './config.js';
import { checkSettings } from './settings.js';
import { ACTOR_ID_BASE, EgoRegistry, type EgoReport, type EgoState } from './egos.js';
import { InputError } from './errors.js';
import type { SceneEvent, SceneEventListener } from './events.js';
import { checkInBounds, mapBounds, type MapBounds } from './map-bounds.js';
import { NpcTable, type NpcState } from './npc-table.js';
import { NpcPopulation, type SpawnRequest } from './population.js';
import { QualityMetrics } from './quality.js';
import { npcsTouching, sceneVehicles, type StepVehicle } from './scene-vehicles.js';
import type { StopLine } from '../vehicle/index.js';
import { CROSSWALK_STATE_NAMES, type SignalGroupState } from './signals/index.js';
import { TrafficControl, type SignalPlanOverride } from './traffic-control.js';
import { ScenePeople } from './people/index.js';

export { mapBounds, type MapBounds } from './map-bounds.js';
export type { NpcHold, NpcState } from './npc-table.js';

export interface SceneTimings extends StepTimings {
  /** the traffic rules before the step: signals, every NPC's stop line, the junction figures */
  rules_ms: number;
  /** the people at crosswalks: their step, the NPCs' giving way to them, their figures (0 without crosswalks) */
  people_ms: number;
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

const NO_VIEWS: readonly NpcView[] = [];

/** Steps due at t: a tolerance (1 µs) keeps 3·0.1 = 0.30000000000000004, or a time computed from the wall clock, from missing the step due at 0.3. */
const TIME_EPS = 1e-6;

export class LiveScene {
  readonly config: SceneConfig;
  readonly bounds: MapBounds;
  readonly lanes: LaneNetwork;
  readonly quality: QualityMetrics;
  /** junctions, signals and the rules NPCs obey there */
  readonly control: TrafficControl;
  /** ambient people at the map's crosswalks, the NPCs' giving way to them and the people figures */
  readonly people: ScenePeople;
  private readonly engine: TrafficEngine;
  /**
   * where each NPC must stop in the step: the scene's, written by the junction rules and the crosswalk give-way
   * before the step, handed to the engine's step (and read by the figures), never kept by the engine
   */
  private readonly stops: StopConstraints;
  /** the engine's policy step with the scene's stops (observe, prepare, apply) */
  private readonly stepper: PolicyStepper;
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
    this.stops = new StopConstraints(this.engine.world.capacity);
    const engine = this.engine, stops = this.stops;
    this.stepper = {
      observe: (input) => engine.observe(input),
      prepare: () => engine.prepare(stops),
      apply: (result, inferenceMs) => engine.apply(result, inferenceMs, stops),
    };
    this.control = new TrafficControl(map, this.engine, { rules: this.config.traffic_rules, plans: opts.signalPlans, signalAll: opts.signalAll, actuated: opts.signalsActuated, expectedNpcs: this.config.npc_target }, this.stops);
    this.control.rules.rightOnRed = this.config.right_turn_on_red;
    this.people = new ScenePeople(map.trafficControl.crosswalks ?? [], this.engine, this.config.pedestrians, this.stops);
    // the box rule sees who the crosswalk give-way holds (as it sees its own holds)
    this.people.giveWay.heldMark = this.control.rules.memory.heldForPeople;
    // the people read each crosswalk's walk signal as the traffic control left it for the step (none: unsignalised)
    this.people.walk = { walkState: (c) => CROSSWALK_STATE_NAMES[this.control.crosswalkStates()[c]] ?? 'none' };
    this.people.reset(this.config.seed);
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
    checkInBounds(this.bounds, this.config.map_margin_m, x, y, what);
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
    this.control.rules.rightOnRed = this.config.right_turn_on_red;
    this.people.target = this.config.pedestrians;
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
    return this.population.spawn(req, this.steps, sceneVehicles(this.engine.npcs(this.stops), this.egos.list(this.time)));
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
    this.people.reset(this.config.seed);
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
    this.control.beforeStep(at, false);
    const rulesMs = performance.now() - tr0;
    for (const run of this.control.watch.takeRuns()) {
      if (run.npc) {
        this.emitEvent({ type: 'npc_ran_line', npcId: run.id, t: run.t, kind: run.kind, junction: run.junction, group: run.group, inherited: run.inherited, turn: run.turn, speed: run.speed });
        continue;
      }
      const egoId = this.engine.externalKeyOf(run.slot);
      if (egoId !== undefined && run.kind === 'red') this.emitEvent({ type: 'ego_ran_red', egoId, t: run.t, junction: run.junction, group: run.group });
    }
    const tp0 = performance.now();
    this.people.beforeStep(at, POLICY_DT, this.control.enabled);
    let peopleMs = performance.now() - tp0;
    // the junction figures see the crosswalk stops too (a stand held for people says so)
    this.control.observeMetrics(at);
    stepPolicy(this.stepper, this.policy, this.policyInput);
    const t = this.engine.timings;
    this.npcsChanged();
    this.steps++;
    const after = this.steps * POLICY_DT;
    const tp1 = performance.now();
    this.people.afterStep();
    peopleMs += performance.now() - tp1;
    const npcs = this.engine.npcs(this.stops);
    const contactsBefore = this.egos.collisionSteps;
    this.egos.afterStep(this.engine, after, (egoId) => npcsTouching(this.egos.list(this.time), egoId, npcs));
    // the views are the engine's NPCs as they are now (afterStep changes nothing in the engine)
    const vehicles = sceneVehicles(npcs, this.egos.list(after), this.vehiclePool);
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
    this.timings = { ...t, rules_ms: rulesMs, people_ms: peopleMs, scene_ms: performance.now() - t0 };
  }

  /** The scene as of simulation time t (default: its time): NPCs along their committed motion, egos moved to t. */
  snapshot(t = this.time): SceneSnapshot {
    const base = (this.steps - 1) * POLICY_DT;
    const alpha = this.steps === 0 ? 0 : Math.min(1, Math.max(0, (t - base) / POLICY_DT));
    const npcs = this.npcRows().states(alpha);
    this.people.appendStates(alpha, npcs);
    const egos = this.egos.list(t);
    // a test case's actors are traffic to whoever watches: among the NPCs, after them
    let cars = egos;
    if (egos.some((e) => e.actorNumber !== undefined)) {
      cars = [];
      for (const e of egos) {
        if (e.actorNumber === undefined) cars.push(e);
        else {
          const row: NpcState = {
            id: ACTOR_ID_BASE + e.actorNumber, x: e.x, y: e.y, yaw: e.yaw, vx: e.speed * Math.cos(e.yaw), vy: e.speed * Math.sin(e.yaw), speed: e.speed,
            length: e.length, width: e.width, goalX: e.x, goalY: e.y, collided: e.collided || e.contact === true, offroad: false, auto: false, hold: 'none', actor: e.egoId,
          };
          // a person (a test case's pedestrian or cyclist) is listed as one; absent: a vehicle
          if (e.kind !== undefined) row.kind = e.kind;
          npcs.push(row);
        }
      }
    }
    return { time: t, step: this.steps, npcs, egos: cars, timings: this.timings, signals: this.control.signals(t) };
  }

  /** The NPC table, brought up to date if something changed the NPCs since it was. */
  private npcRows(): NpcTable {
    if (this.npcTableState === 1 && !this.npcTable.fillAfterStep(this.stepViews, this.engine, this.population)) this.npcTableState = 2;
    if (this.npcTableState === 2) this.npcTable.fill(this.engine.npcs(this.stops), this.engine, this.population);
    this.npcTableState = 0;
    this.stepViews = NO_VIEWS;
    return this.npcTable;
  }

  /** The movements closed by a red or yellow signal now (for simulated egos' drivers). */
  signalStops(): readonly StopLine[] {
    return this.control.signalStops();
  }
}
