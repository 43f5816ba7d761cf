/**
 * A scenario's world: its simulated egos and, on a road map with NPCs, the live scene (src/scene), on one
 * simulation clock kept by the time conductor (src/time/session.ts): the NPC world and each ego's plant are
 * assets of one TimeSession (assets.ts), built as a served session's are (one ConductedWorld,
 * conducted-world.ts), in the scenario's `time:` mode — afap (default for
 * `vils run` in api mode), lockstep, or realtime (rt_comms) — and external simulators may join it over the
 * asset protocol (`vils run` opens the port). The plants tick at their own steps up to each policy step time
 * s·0.1; each ego is reported to the scene at exactly that time; the policy step runs (NPCs see the egos where
 * they are); the autopilots get the vehicles around from the scene's snapshot; and so on. Without a scene the
 * plants still observe each other every 0.1 s. Everything is a function of the scenario and its seed: the
 * same scenario gives bit-identical results, in any mode (`advanceEgos`, the sequential rule the assets were
 * drawn from, is kept as the reference the tests hold them to).
 */
import type { EgoReport } from '../scene/egos.js';
import type { LiveScene, SceneSnapshot } from '../scene/scene.js';
import { setupScene, type SceneSetup } from '../scene/setup.js';
import type { PolicySession } from '../policy/session.js';
import type { Clock } from '../time/clock.js';
import type { SessionStatus, TimeSession, TimeSettings } from '../time/index.js';
import { STEP_US, observeEachOther, observeSnapshot, type SteppedScene } from './assets.js';
import { ConductedWorld } from './conducted-world.js';
import type { Scenario } from './config.js';
import { SimEgo, US, type SimEgoOptions } from './sim-ego.js';
import type { WorldObject } from './sensors.js';
import { directSink, StoryHost } from './story-host.js';

/**
 * Advances the egos and the scene (if any) to targetUs: see the header. `report` hands an ego report to the
 * scene at a simulation time (directly, or through the server's input log). `nowUs` is where the egos are.
 */
export function advanceEgos(scene: SteppedScene | null, egos: readonly SimEgo[], nowUs: number, targetUs: number, report: (r: EgoReport, tS: number) => void): number {
  let t = nowUs;
  for (;;) {
    const next = scene ? Math.round(scene.nextStepTime * US) : (Math.floor(t / STEP_US) + 1) * STEP_US;
    if (next > targetUs) break;
    for (const e of egos) e.advanceTo(next);
    const ts = next / US;
    if (scene) {
      for (const e of egos) report(e.report(), ts);
      scene.advanceTo(ts);
      observeSnapshot(egos, scene.snapshot(ts), scene.signalStops?.());
    } else observeEachOther(egos, ts);
    t = next;
  }
  for (const e of egos) e.advanceTo(targetUs);
  return targetUs;
}

/**
 * After a scene reset: the scene spawned its NPCs before it knew the egos, so those on an ego's start are
 * removed (auto-spawn refills them elsewhere, spawn_clearance_m away, at the first step), and each ego is
 * reported where it starts.
 */
export function placeEgos(scene: { config: { spawn_clearance_m: number }; snapshot(t?: number): SceneSnapshot }, egos: readonly SimEgo[], removeNpc: (id: number) => void, report: (r: EgoReport) => void): void {
  const clear = scene.config.spawn_clearance_m;
  for (const n of scene.snapshot(0).npcs) {
    if (egos.some((e) => Math.hypot(n.x - e.spec.start.x, n.y - e.spec.start.y) < clear)) removeNpc(n.id);
  }
  for (const e of egos) report(e.report());
}

export interface WorldOptions {
  /** share a loaded policy (each world forks it) */
  policy?: PolicySession;
  modelPath?: string;
  intraOpThreads?: number;
  /** record every tick (default true) */
  record?: boolean;
  /** external egos: seconds without a command before the fail-safe (rt_comms: 0.1; api: none) */
  cmdTimeoutS?: number;
  /** the time conductor's settings (default: the scenario's `time:` block) */
  time?: TimeSettings;
  /** the session's clock (external assets' timeouts, realtime budgets) */
  clock?: Clock;
}

export interface AdvanceOptions {
  /** afap / lockstep: wait at most this long for external assets [s] (default: until they report or time out) */
  maxWaitS?: number;
  /** realtime: wall time the plants may use in this advance [s] (default: unbounded) */
  budgetS?: number;
}

export class ScenarioWorld {
  readonly egos: SimEgo[];
  /** the live scene, when the scenario has NPCs */
  readonly scene: LiveScene | null;
  /** the world and each plant on the conductor (`vils run` attaches external assets to its session) */
  readonly timed: ConductedWorld;
  /** the conductor's settings in force */
  readonly timeSettings: TimeSettings;
  /** the scenario's scripted test case on this world (its `story:`), or null */
  readonly story: StoryHost | null;
  /** simulation time reached [µs] */
  timeUs = 0;

  private constructor(readonly scenario: Scenario, private readonly setup: SceneSetup | null, opts: WorldOptions) {
    this.scene = setup?.scene ?? null;
    const egoOpts: SimEgoOptions = { ground: scenario.map.ground, line: scenario.map.line, cmdTimeoutS: opts.cmdTimeoutS ?? 0, record: opts.record };
    this.egos = scenario.egos.map((s) => new SimEgo(s, egoOpts));
    const scene = this.scene;
    scene?.on((e) => {
      if (e.type === 'ego_ran_red') for (const ego of this.egos) if (ego.id === e.egoId) ego.redRuns++;
    });
    this.timeSettings = opts.time ?? scenario.time;
    this.story = scenario.story && scene ? new StoryHost(scenario.story, directSink(scene), this.egos) : null;
    this.timed = new ConductedWorld(this.timeSettings, { scene, egos: this.egos, report: (r, ts) => scene?.updateEgo(r, ts), story: this.story }, { clock: opts.clock });
    this.reset();
  }

  static async create(scenario: Scenario, opts: WorldOptions = {}): Promise<ScenarioWorld> {
    let setup: SceneSetup | null = null;
    // a story's actors are vehicles of the scene, as egos are: it has one even without NPCs
    if ((scenario.npcs > 0 || scenario.story) && scenario.map.roadMapPath) {
      setup = await setupScene({
        mapPath: scenario.map.roadMapPath, config: { ...scenario.scene, max_egos: Math.max(4, scenario.egos.length + (scenario.story?.actors.length ?? 0)) }, policy: opts.policy, modelPath: opts.modelPath,
        intraOpThreads: opts.intraOpThreads, mode: { kind: 'deterministic' }, signals: scenario.signals,
      });
    }
    return new ScenarioWorld(scenario, setup, opts);
  }

  /** simulation time reached [s] */
  get time(): number {
    return this.timeUs / US;
  }

  /** the conductor (`vils run` attaches external assets to it) */
  get session(): TimeSession {
    return this.timed.session;
  }

  /** Back to time 0: egos at their starts, the scene reset from its seed, the conductor at 0. */
  reset(): void {
    for (const e of this.egos) e.reset();
    this.scene?.reset();
    this.timeUs = 0;
    this.timed.reset();
    const scene = this.scene;
    if (scene) placeEgos(scene, this.egos, (id) => scene.removeNpc(id), (r) => scene.updateEgo(r, 0));
    if (scene && this.story) this.story.arm(0, scene.snapshot(0));
  }

  /**
   * Advances to tS through the conductor. Returns false when external assets held it short of tS (afap /
   * lockstep with maxWaitS); the world's time is then Tc.
   */
  async advanceTo(tS: number, opts: AdvanceOptions = {}): Promise<boolean> {
    const target = Math.round(tS * US);
    if (target <= this.timeUs) return true;
    const r = await this.timed.advanceTo(tS, opts);
    // Tc stops on the core grid; the world's time is the target asked for, as the plants' own stepping rule has it
    this.timeUs = r.held ? Math.max(this.timeUs, r.tcUs) : target;
    return !r.held;
  }

  /** The conductor's view: Tc, every asset's time, skew and held counts, checks and violations. */
  timeStatus(): SessionStatus {
    return this.timed.session.status();
  }

  ego(id?: string): SimEgo {
    if (id === undefined) return this.egos[0];
    const e = this.egos.find((x) => x.id === id);
    if (!e) throw new RangeError(`no simulated ego '${id}' (egos: ${this.egos.map((x) => x.id).join(', ')})`);
    return e;
  }

  /** Every vehicle now: NPCs (as of the latest step, moved to now) and the egos. */
  objects(): WorldObject[] {
    const out: WorldObject[] = [];
    if (this.scene) for (const n of this.scene.snapshot(this.time).npcs) out.push({ kind: 'npc', id: String(n.id), x: n.x, y: n.y, speed: n.speed });
    for (const e of this.egos) {
      const s = e.session.truth;
      out.push({ kind: 'ego', id: e.id, x: s.x, y: s.y, speed: Math.hypot(s.vx, s.vy) });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.setup?.release();
  }
}
