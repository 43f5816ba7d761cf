/**
 * A scenario's story (src/scenario/story) on its world: the scripted actors live in the scene as injected
 * vehicles, as egos do — the NPCs, the traffic rules and the egos' drivers see them — and the story reads the
 * world at every policy boundary. At boundary b the actors are reported at their poses for b, the scene takes
 * its step, and the story steps from the world at b (each ego's plant, the NPCs, the actors) to b + 0.1 s.
 * An actor handed to the policy becomes an NPC of the scene (spawned where it is, at its speed) until the story
 * takes it back. Deterministic: the same scenario and ego inputs give the same actor motion and verdict.
 */
import type { LiveScene, SceneSnapshot } from '../scene/scene.js';
import { POLICY_DT } from '../traffic/engine.js';
import type { SimEgo } from './sim-ego.js';
import { StoryRefused, StoryRunner, type ActorPose, type AttemptResult, type Happening, type StorySpec, type StoryVehicle } from './story/index.js';
import { AttemptTrace, followedIds } from './story/report/index.js';

/** an actor handed to the policy keeps this NPC id in the story's world as its own */
const NPC_PREFIX = 'npc';

export class StoryHost {
  readonly runner: StoryRunner;
  /** speeds, gaps and TTCs over the attempt, for its report */
  trace: AttemptTrace;
  private readonly poses: ActorPose[];
  private readonly vehicles: StoryVehicle[] = [];
  /** actors the policy drives: actor id → NPC id */
  private readonly asNpc = new Map<string, number>();
  /** every happening of the attempt, in order (copied: the runner reuses its arrays) */
  readonly happenings: Happening[] = [];
  ended = false;
  private lastT = -Infinity;

  constructor(readonly spec: StorySpec, private readonly scene: LiveScene, private readonly egos: readonly SimEgo[]) {
    this.runner = new StoryRunner(spec, scene.lanes);
    this.poses = this.runner.newPoses();
    this.trace = this.newTrace();
  }

  private newTrace(): AttemptTrace {
    return new AttemptTrace({ ...followedIds(this.spec), headingOf: (v) => this.runner.headingOf(v) });
  }

  /** The actors' ids (they take ego slots in the scene). */
  get actorIds(): string[] {
    return this.spec.actors.map((a) => a.id);
  }

  /**
   * Places the actors at time 0 (after the scene's reset and the egos' placement): refused with every problem
   * (StoryRefused) when the set-up is impossible — an unknown vehicle or lane, a cut-in with no lane to come from.
   */
  start(snap: SceneSnapshot): void {
    for (const [, id] of this.asNpc) this.scene.removeNpc(id);
    this.asNpc.clear();
    this.happenings.length = 0;
    this.ended = false;
    this.lastT = -Infinity;
    this.trace = this.newTrace();
    // placed among the egos only: NPCs where an actor goes are taken away (auto-spawn puts them elsewhere)
    const world = this.world(0, { ...snap, npcs: [] }, false);
    const problems = this.runner.validate(world);
    if (problems.length) throw new StoryRefused(this.spec.where, problems);
    this.runner.place(world, this.poses);
    const clear = this.scene.config.spawn_clearance_m;
    for (const n of snap.npcs) if (this.poses.some((p) => Math.hypot(n.x - p.x, n.y - p.y) < clear)) this.scene.removeNpc(n.id);
    for (const p of this.poses) if (p.controller === 'policy') this.handToPolicy(p.id, 0);
  }

  /** Before the scene's step at tS: the scripted actors where the story put them for tS. */
  beforeBoundary(tS: number): void {
    for (const p of this.poses) {
      if (this.asNpc.has(p.id)) continue;
      this.scene.updateEgo({ egoId: p.id, x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, length: p.length, width: p.width, simulated: true }, tS);
    }
  }

  /** After the scene's step at tS (snap: the scene at tS): the story steps to tS + 0.1 and its commands are applied. */
  afterBoundary(tS: number, snap: SceneSnapshot): void {
    if (this.ended || tS <= this.lastT) return;
    this.lastT = tS;
    const world = this.world(tS, snap, true);
    this.trace.sample(world);
    const rep = this.runner.step(world, POLICY_DT, this.poses);
    this.trace.note(rep.happenings);
    for (const h of rep.happenings) this.happenings.push({ ...h });
    for (const c of rep.commands) {
      if (c.kind === 'hand_to_policy') this.handToPolicy(c.actor, tS);
      else if (c.kind === 'take_from_policy') this.takeFromPolicy(c.actor);
      else if (c.kind === 'set_signal') {
        const input = c.phase !== null ? { junction: c.junction, phase: c.phase } : { junction: c.junction, states: c.states ?? {} };
        this.scene.control.controller.setLive({ ...input, timeout_s: c.holdS ?? 3600 });
      }
    }
    if (rep.ended) this.ended = true;
  }

  /** Ends a running attempt at the scenario's duration (its criteria judged as they stand). */
  finish(tS: number): void {
    if (!this.ended) this.runner.finish(tS);
    this.ended = true;
  }

  result(): AttemptResult {
    return this.runner.result();
  }

  private handToPolicy(actor: string, tS: number): void {
    if (this.asNpc.has(actor)) return;
    const p = this.poses.find((q) => q.id === actor)!;
    this.scene.removeEgo(actor);
    const id = this.scene.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, length: p.length, width: p.width, keepDriving: true });
    this.asNpc.set(actor, id);
    void tS;
  }

  private takeFromPolicy(actor: string): void {
    const id = this.asNpc.get(actor);
    if (id === undefined) return;
    this.scene.removeNpc(id);
    this.asNpc.delete(actor);
  }

  /** The story's view of the world at tS: egos (their plants), NPCs (the snapshot), actors (where they are). */
  private world(tS: number, snap: SceneSnapshot, withActors: boolean) {
    const out = this.vehicles;
    out.length = 0;
    for (const e of this.egos) {
      const t = e.vehicle.session.truth;
      out.push({ id: e.id, x: t.x, y: t.y, yaw: t.yaw, speed: t.vx, accel: e.vehicle.session.diagnostics.ax, length: e.spec.length, width: e.spec.width });
    }
    const npcActor = new Map<number, string>();
    for (const [a, id] of this.asNpc) npcActor.set(id, a);
    for (const n of snap.npcs) {
      const actor = npcActor.get(n.id);
      if (actor !== undefined && !withActors) continue;
      out.push({ id: actor ?? `${NPC_PREFIX}${n.id}`, x: n.x, y: n.y, yaw: n.yaw, speed: n.speed, accel: 0, length: n.length, width: n.width });
    }
    if (withActors) for (const p of this.poses) if (!this.asNpc.has(p.id)) out.push({ id: p.id, x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, accel: p.accel, length: p.length, width: p.width });
    return { t: tS, vehicles: out, junctions: this.scene.control.layout.junctions.filter((c) => c.control === 'signal').map((c) => c.junction.id) };
  }
}
