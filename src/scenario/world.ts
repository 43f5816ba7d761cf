/**
 * A scenario's world: its simulated egos and, on a road map with NPCs, the live scene (src/scene), on one
 * simulation clock. `advanceEgos` is the one stepping rule, used headless (ScenarioWorld, the Simulation API,
 * `vils run`, the batch) and by the real-time server (src/server/sim-egos.ts): the plants tick at their own
 * steps up to each policy step time s·0.1; each ego is reported to the scene at exactly that time; the policy
 * step runs (NPCs see the egos where they are); the autopilots get the vehicles around from the scene's
 * snapshot; and so on up to the target time. Without a scene the plants still observe each other every 0.1 s.
 * Everything is a function of the scenario and its seed: the same scenario gives bit-identical results.
 */
import { POLICY_DT } from '../traffic/engine.js';
import type { EgoReport } from '../scene/egos.js';
import type { LiveScene, SceneSnapshot } from '../scene/scene.js';
import { setupScene, type SceneSetup } from '../scene/setup.js';
import type { PolicySession } from '../policy/session.js';
import type { Scenario } from './config.js';
import type { TrafficObject } from './drivers.js';
import { SimEgo, US, type SimEgoOptions } from './sim-ego.js';
import type { WorldObject } from './sensors.js';

export const STEP_US = Math.round(POLICY_DT * US);

/** What the stepping rule needs of a scene (a LiveScene, or the server's logged view of one). */
export interface SteppedScene {
  readonly nextStepTime: number;
  advanceTo(t: number): Promise<number>;
  snapshot(t?: number): SceneSnapshot;
}

/** The traffic each ego sees in a snapshot: every NPC and every other ego. */
export function observeSnapshot(egos: readonly SimEgo[], snap: SceneSnapshot): void {
  const npcs: TrafficObject[] = snap.npcs.map((n) => ({ x: n.x, y: n.y, vx: n.vx, vy: n.vy, length: n.length, width: n.width, yaw: n.yaw }));
  for (const e of egos) {
    const others = snap.egos.filter((o) => o.egoId !== e.id && !o.stale).map((o) => ({ x: o.x, y: o.y, vx: o.speed * Math.cos(o.yaw), vy: o.speed * Math.sin(o.yaw), length: o.length, width: o.width, yaw: o.yaw }));
    e.observe({ t: snap.time, objects: others.length ? [...npcs, ...others] : npcs });
    const me = snap.egos.find((o) => o.egoId === e.id);
    if (me && !me.stale) {
      e.sceneSteps++;
      if (me.collided) e.npcContacts++;
    }
  }
}

function observeEachOther(egos: readonly SimEgo[], tS: number): void {
  for (const e of egos) {
    e.observe({
      t: tS,
      objects: egos.filter((o) => o !== e).map((o) => {
        const s = o.session.truth;
        return { x: s.x, y: s.y, vx: s.velocityEast(), vy: s.velocityNorth(), length: o.spec.length, width: o.spec.width, yaw: s.yaw };
      }),
    });
  }
}

/**
 * Advances the egos and the scene (if any) to targetUs: see the header. `report` hands an ego report to the
 * scene at a simulation time (directly, or through the server's input log). `nowUs` is where the egos are.
 */
export async function advanceEgos(scene: SteppedScene | null, egos: readonly SimEgo[], nowUs: number, targetUs: number, report: (r: EgoReport, tS: number) => void): Promise<number> {
  let t = nowUs;
  for (;;) {
    const next = scene ? Math.round(scene.nextStepTime * US) : (Math.floor(t / STEP_US) + 1) * STEP_US;
    if (next > targetUs) break;
    for (const e of egos) e.advanceTo(next);
    const ts = next / US;
    if (scene) {
      for (const e of egos) report(e.report(), ts);
      await scene.advanceTo(ts);
      observeSnapshot(egos, scene.snapshot(ts));
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
}

export class ScenarioWorld {
  readonly egos: SimEgo[];
  /** the live scene, when the scenario has NPCs */
  readonly scene: LiveScene | null;
  timeUs = 0;

  private constructor(readonly scenario: Scenario, private readonly setup: SceneSetup | null, opts: WorldOptions) {
    this.scene = setup?.scene ?? null;
    const egoOpts: SimEgoOptions = { ground: scenario.map.ground, line: scenario.map.line, cmdTimeoutS: opts.cmdTimeoutS ?? 0, record: opts.record };
    this.egos = scenario.egos.map((s) => new SimEgo(s, egoOpts));
    this.reset();
  }

  static async create(scenario: Scenario, opts: WorldOptions = {}): Promise<ScenarioWorld> {
    let setup: SceneSetup | null = null;
    if (scenario.npcs > 0 && scenario.map.roadMapPath) {
      setup = await setupScene({
        mapPath: scenario.map.roadMapPath, config: { ...scenario.scene, max_egos: Math.max(4, scenario.egos.length) }, policy: opts.policy, modelPath: opts.modelPath,
        intraOpThreads: opts.intraOpThreads, mode: { kind: 'deterministic' },
      });
    }
    return new ScenarioWorld(scenario, setup, opts);
  }

  get time(): number {
    return this.timeUs / US;
  }

  /** Back to time 0: egos at their starts, the scene reset from its seed. */
  reset(): void {
    for (const e of this.egos) e.reset();
    this.scene?.reset();
    this.timeUs = 0;
    const scene = this.scene;
    if (scene) placeEgos(scene, this.egos, (id) => scene.removeNpc(id), (r) => scene.updateEgo(r, 0));
  }

  async advanceTo(tS: number): Promise<void> {
    const target = Math.round(tS * US);
    if (target <= this.timeUs) return;
    this.timeUs = await advanceEgos(this.scene, this.egos, this.timeUs, target, (r, ts) => this.scene!.updateEgo(r, ts));
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
