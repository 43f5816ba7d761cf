/**
 * A scenario's story (src/scenario/story) on a scene: the scripted actors are injected vehicles of the scene, as
 * egos are — the NPCs, the traffic rules and the egos' drivers see them, and the frames list them among the NPCs
 * (EgoReport.actor) — and the story reads the world at every policy boundary. At boundary b the actors are
 * reported at their poses for b, the scene takes its step, and the story steps from the world at b (each
 * simulated ego's plant, the real cars as the scene has them, the NPCs, the actors) to b + 0.1 s. An actor
 * handed to the policy becomes an NPC of the scene (spawned where it is, at its speed) until the story takes it
 * back. Headless (`vils run`) the attempt starts at 0; served live, the operator arms numbered attempts (the
 * actors are placed around the car where it is then) and resets them. Deterministic: the same scenario and ego
 * inputs give the same actor motion and verdict.
 *
 * After the verdict the scene runs on (served live) and the actors with it, as the story's after_end says
 * (continue, stop, leave: story/after-end.ts): no actor vanishes in front of the car. Each leaves the scene once
 * it is more than remove_beyond_m from the vehicle under test, at a reset, or when the next attempt is armed;
 * the attempt's record (result, happenings, trace) stays as it was at the end.
 *
 * With a real car under test (served live) the attempt is also judged on whether its data held
 * (attempt-quality.ts): the car's fixes, its clock and connection, the server's time, the actors against their
 * script, at every boundary of the judged window. A gate that fails makes the verdict `invalid`; a car that
 * leaves the scene or whose connection closes ends the attempt there. A real car's acceleration is the one its
 * fixes show at their own times (src/scene/ego-motion.ts), never a difference over the step. Contact is decided
 * on the poses of the boundary, and the actor touched is flagged in that boundary's frame.
 */
import type { EgoReport, SpawnRequest } from '../scene/index.js';
import type { SceneSnapshot } from '../scene/scene.js';
import type { LiveSignalInput } from '../scene/signals/index.js';
import type { LaneNetwork } from '../traffic/lanes.js';
import { POLICY_DT } from '../traffic/engine.js';
import type { SimEgo } from './sim-ego.js';
import { AttemptQuality, type CarAtBoundary } from './attempt-quality.js';
import { checkGated, CriterionRun, DEFAULT_QUALITY_LIMITS, gateRunner, REMOVE_BEYOND_M, StoryRefused, StoryRunner, type ActorPose, type AttemptResult, type Happening, type StoryProblem, type StorySpec, type StoryVehicle, type StoryWorld } from './story/index.js';
import { AttemptTrace, followedIds } from './story/report/index.js';

/** an NPC in the story's world: `npc<id>` */
const NPC_PREFIX = 'npc';
/** boundaries of actor poses kept for the judged world (3 s: beyond any latency a fix is taken with) */
const PAST_BOUNDARIES = 30;

/** What the story changes in the scene: directly (headless) or through the server's logged inputs (live). */
export interface StorySceneSink {
  readonly lanes: LaneNetwork;
  readonly spawnClearanceM: number;
  /** the signalised junctions' ids */
  readonly junctions: readonly string[];
  updateEgo(r: EgoReport, tS: number): void;
  removeEgo(id: string): void;
  /** the new NPC's id (now, or once the input has been applied) */
  spawnNpc(req: SpawnRequest): number | Promise<number>;
  removeNpc(id: number): void;
  setSignal(input: LiveSignalInput): void;
}

/** Where an attempt is: none yet or reset (idle), actors placed and no event yet (armed), under way, over. */
export type AttemptState = 'idle' | 'armed' | 'running' | 'ended';

export interface StoryHostOptions {
  /** the story's ego ids played by other vehicles of the scene (live: the real car's ego_id for `sim1`) */
  egoAlias?: ReadonlyMap<string, string>;
  /** the story's id of the vehicle under test (default: the first criterion's ego, else the first ego) */
  underTest?: string;
  /**
   * a real car under test: judge each attempt's data (attempt-quality.ts) — `car` its ego id in the scene,
   * `givenUpS` the simulation time the server has given up so far (slipped after stalls, held by the conductor)
   */
  judgeData?: { car: string; givenUpS: () => number };
}

export class StoryHost {
  /** the attempt's runner (a new one per attempt) */
  runner: StoryRunner;
  /** speeds, gaps and TTCs over the attempt, for its report */
  trace: AttemptTrace;
  /** every happening of the attempt, in order (copied: the runner reuses its arrays) */
  readonly happenings: Happening[] = [];
  /** the attempt's number (1, 2, …; 0 before the first) */
  attempt = 0;
  state: AttemptState = 'idle';
  /** simulation time the attempt was armed at [s] */
  armedAt = NaN;
  private poses: ActorPose[];
  private readonly vehicles: StoryVehicle[] = [];
  /** actors the policy drives: actor id → NPC id (−1 while the spawn is on its way) */
  private readonly asNpc = new Map<string, number>();
  private readonly aliasOf = new Map<string, string>();
  private lastT = -Infinity;
  /** scratch of world(), kept from step to step */
  private readonly simIds = new Set<string>();
  private readonly npcActor = new Map<number, string>();
  /** an armed attempt waiting at its start gate (story.start): a story of that condition alone, ended when it holds */
  private gate: { runner: StoryRunner; poses: ActorPose[] } | null = null;
  /** the attempt ended at its gate: never started within start_timeout_s (or refused there) */
  private gateResult: AttemptResult | null = null;
  /** the actors in the scene now (placed, and not yet taken out) */
  private readonly inScene = new Set<string>();
  /** the story's id of the vehicle under test: the actors are taken out far from it after the end */
  private readonly underTest: string;
  /** the attempt's data-quality gates (a real car under test, from the moment its actors are placed) */
  private quality: AttemptQuality | null = null;
  private readonly judge: StoryHostOptions['judgeData'];
  /** each scripted actor as reported for the latest boundary (a contact re-reports it flagged) */
  private readonly reported = new Map<string, EgoReport>();
  /** the scripted actors' poses at the last boundaries (oldest first), for the world at a fix's time */
  private readonly past: Array<{ t: number; poses: StoryVehicle[] }> = [];

  constructor(readonly spec: StorySpec, private readonly sink: StorySceneSink, private egos: readonly SimEgo[], opts: StoryHostOptions = {}) {
    this.runner = new StoryRunner(spec, sink.lanes);
    this.poses = this.runner.newPoses();
    this.trace = this.newTrace();
    for (const [storyId, sceneId] of opts.egoAlias ?? []) this.aliasOf.set(sceneId, storyId);
    this.underTest = opts.underTest ?? spec.criteria[0]?.ego ?? egos[0]?.id ?? '';
    this.judge = opts.judgeData;
  }

  /** The simulated egos whose plants the story reads (served live, known once they are attached). */
  useSimEgos(egos: readonly SimEgo[]): void {
    this.egos = egos;
  }

  private newTrace(): AttemptTrace {
    return new AttemptTrace({ ...followedIds(this.spec), headingOf: (v) => this.runner.headingOf(v) });
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  /** The actors' ids (they take ego slots in the scene). */
  get actorIds(): string[] {
    return this.spec.actors.map((a) => a.id);
  }

  /**
   * What would refuse an attempt armed at tS (every problem with its key), changing nothing: the story placed
   * around the vehicles as they are, or — gated by a start line — as they will be at the line.
   */
  check(tS: number, snap: SceneSnapshot): StoryProblem[] {
    // placed among the egos only: NPCs where an actor goes make room (start)
    const placing = this.world(tS, { ...snap, npcs: [] }, false);
    if (!this.spec.start) return new StoryRunner(this.spec, this.sink.lanes).validate(placing);
    const egos: StoryWorld = { ...placing, vehicles: [...placing.vehicles] };
    return checkGated(this.spec, this.sink.lanes, this.world(tS, snap, false), egos);
  }

  /**
   * A new attempt at simulation time tS: the actors are placed around the vehicles as the scene has them (snap),
   * or when the start gate opens, and reported from the next boundary on. Refused with every problem
   * (StoryRefused) before anything changes when the set-up is impossible — an unknown vehicle or lane, a cut-in
   * with no lane to come from, the car off the map.
   */
  arm(tS: number, snap: SceneSnapshot): void {
    const problems = this.check(tS, snap);
    if (problems.length) throw new StoryRefused(this.spec.where, problems);
    this.clearActors();
    this.gate = null;
    this.gateResult = null;
    this.quality = null;
    this.past.length = 0;
    this.happenings.length = 0;
    this.lastT = -Infinity;
    if (this.spec.start) {
      // the actors wait for the start gate
      const runner = gateRunner(this.spec, this.sink.lanes);
      const poses = runner.newPoses();
      runner.place(this.world(tS, snap, false), poses);
      this.gate = { runner, poses };
    } else this.start(tS, snap);
    this.newAttempt(tS);
  }

  private newAttempt(tS: number): void {
    this.attempt++;
    this.armedAt = tS;
    this.state = 'armed';
  }

  /** The actors placed around the vehicles as they are at tS, the story's time begun. */
  private start(tS: number, snap: SceneSnapshot): void {
    const world = this.world(tS, { ...snap, npcs: [] }, false);
    // a fresh runner for every attempt (the first keeps the one made with the host)
    const runner = this.attempt > 0 || this.spec.start ? new StoryRunner(this.spec, this.sink.lanes) : this.runner;
    const problems = runner.validate(world);
    if (problems.length) throw new StoryRefused(this.spec.where, problems);
    if (runner !== this.runner) {
      this.runner = runner;
      this.poses = runner.newPoses();
    }
    this.trace = this.newTrace();
    // placed among the egos only: NPCs where an actor goes are taken away (auto-spawn puts them elsewhere)
    this.runner.place(world, this.poses);
    if (this.judge) {
      this.quality = new AttemptQuality(this.judge.car, this.spec.quality ?? DEFAULT_QUALITY_LIMITS);
      this.quality.start(tS, this.carAt(snap), this.judge.givenUpS());
    }
    for (const p of this.poses) this.inScene.add(p.id);
    const clear = this.sink.spawnClearanceM;
    for (const n of snap.npcs) if (n.actor === undefined && this.poses.some((p) => Math.hypot(n.x - p.x, n.y - p.y) < clear)) this.sink.removeNpc(n.id);
    for (const p of this.poses) if (p.controller === 'policy') this.handToPolicy(p.id);
  }

  /** Ends the attempt now (aborted unless it had ended) and takes the actors out of the scene. */
  resetAttempt(tS: number, reason = 'reset by the operator'): void {
    if (this.gate) this.gateResult = this.notStarted(tS, `aborted at the start gate: ${reason}`, 'aborted');
    else if (this.state === 'armed' || this.state === 'running') this.runner.abort(tS, reason);
    this.gate = null;
    this.clearActors();
    this.state = 'idle';
  }

  /** Takes every actor still in the scene out of it (an ended attempt's too: a scene reset, the next arm). */
  clearActors(): void {
    for (const id of [...this.inScene]) this.removeActor(id);
    this.asNpc.clear();
  }

  private removeActor(id: string): void {
    const npc = this.asNpc.get(id);
    if (npc !== undefined) {
      if (npc >= 0) this.sink.removeNpc(npc);
      this.asNpc.delete(id);
    } else this.sink.removeEgo(id);
    this.inScene.delete(id);
  }

  /** Before the scene's step at tS: the scripted actors in the scene where the story put them for tS. */
  beforeBoundary(tS: number): void {
    if (this.gate || this.inScene.size === 0) return;
    for (const p of this.poses) {
      if (this.asNpc.has(p.id) || !this.inScene.has(p.id)) continue;
      const r: EgoReport = { egoId: p.id, x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, length: p.length, width: p.width, simulated: true, actor: true };
      // a person is listed as one (NpcState.kind) at its target's size; a vehicle's report stays as it was
      if (p.kind !== 'vehicle') r.kind = p.kind;
      this.reported.set(p.id, r);
      this.sink.updateEgo(r, tS);
    }
  }

  /** The vehicle under test as the quality gates see it (null: not in the scene). */
  private carAt(snap: SceneSnapshot): CarAtBoundary | null {
    const e = this.judge ? snap.egos.find((x) => x.egoId === this.judge!.car) : undefined;
    return e ? { stale: e.stale, fixTime: e.fixTime, prevFixTime: e.prevFixTime, fixCount: e.fixCount, clockJumps: e.clockJumps ?? 0 } : null;
  }

  /** The gates at boundary tS (before the story steps); false when the car has left and the attempt ended here. */
  private observeData(tS: number, snap: SceneSnapshot): boolean {
    const q = this.quality;
    if (!q) return true;
    const car = this.carAt(snap);
    q.observeCar(tS, car);
    q.observeServer(tS, this.judge!.givenUpS());
    for (const p of this.poses) {
      const r = this.reported.get(p.id);
      if (!r || this.asNpc.has(p.id) || !this.inScene.has(p.id)) continue;
      // the scripted actor as the scene has it for tS (listed among the NPCs), against where the story put it for tS
      const e = snap.npcs.find((n) => n.actor === p.id);
      q.observeActor(tS, p.id, r.x, r.y, e ?? null);
    }
    if (car) return true;
    this.runner.finish(tS, `${this.judge!.car} left the scene`);
    this.state = 'ended';
    return false;
  }

  /** The car under test's connection closed at tS: the attempt ends there, invalid. */
  carDisconnected(tS: number): void {
    if (!this.quality || (this.state !== 'armed' && this.state !== 'running') || this.gate) return;
    this.quality.disconnected(tS);
    this.runner.finish(tS, `${this.judge!.car}'s connection closed`);
    this.state = 'ended';
  }

  /** A frame published for simulation time tS at wall-clock wallS [s]: the server-stall gate. */
  frameOut(tS: number, wallS: number): void {
    if (this.state === 'armed' || this.state === 'running') this.quality?.frame(tS, wallS);
  }

  /** After the scene's step at tS (snap: the scene at tS): the story steps to tS + 0.1 and its commands are applied. */
  afterBoundary(tS: number, snap: SceneSnapshot): void {
    if (tS <= this.lastT) return;
    if (this.state === 'ended' && this.inScene.size > 0) {
      this.lastT = tS;
      this.carryOn(tS, snap);
      return;
    }
    if (this.state !== 'armed' && this.state !== 'running') return;
    this.lastT = tS;
    if (this.gate && !this.passGate(tS, snap)) return;
    if (!this.observeData(tS, snap)) return;
    const world = this.world(tS, snap, true);
    this.trace.sample(world);
    const rep = this.runner.step(world, POLICY_DT, this.poses, this.judgedWorld(tS, snap, world));
    this.trace.note(rep.happenings);
    for (const h of rep.happenings) {
      this.happenings.push({ ...h });
      if (h.kind === 'event_started') this.state = 'running';
      if (h.kind === 'criterion_failed') this.flagContact(tS, h.id);
    }
    for (const c of rep.commands) {
      if (c.kind === 'hand_to_policy') this.handToPolicy(c.actor);
      else if (c.kind === 'take_from_policy') this.takeFromPolicy(c.actor);
      else if (c.kind === 'set_signal') {
        const input = c.phase !== null ? { junction: c.junction, phase: c.phase } : { junction: c.junction, states: c.states ?? {} };
        this.sink.setSignal({ ...input, timeout_s: c.holdS ?? 3600 });
      }
    }
    if (rep.ended) this.state = 'ended';
  }

  /**
   * After the end (served live, the scene running on): the actors move on as after_end says — the runner judges
   * nothing more — and each one farther than remove_beyond_m from the vehicle under test leaves the scene. While
   * that vehicle is not in the scene (a car not reporting) none is taken out: its distance is not known.
   */
  private carryOn(tS: number, snap: SceneSnapshot): void {
    const world = this.world(tS, snap, true);
    this.runner.step(world, POLICY_DT, this.poses);
    const me = world.vehicles.find((v) => v.id === this.underTest);
    if (!me) return;
    const beyond = this.spec.removeBeyond ?? REMOVE_BEYOND_M;
    for (const id of [...this.inScene]) {
      // where it is in the scene now: a scripted one where the story put it for tS, an NPC as the scene has it
      const at = world.vehicles.find((v) => v.id === id);
      if (at && Math.hypot(at.x - me.x, at.y - me.y) > beyond) this.removeActor(id);
    }
  }

  /**
   * At the start gate: true once the actors are placed (the gate held at tS); false while the attempt waits, or
   * when it ended there (start_timeout_s passed, or the set-up was refused where the car stood).
   */
  private passGate(tS: number, snap: SceneSnapshot): boolean {
    const gate = this.gate!;
    const rep = gate.runner.step(this.world(tS, snap, false), POLICY_DT, gate.poses);
    // what the gate saw (a start line crossed outside its speed band) is part of the attempt's record
    for (const h of rep.happenings) if (h.kind !== 'end') this.happenings.push({ ...h });
    if (!rep.ended) {
      const timeout = this.spec.startTimeout;
      if (timeout !== null && tS - this.armedAt >= timeout - 1e-9) {
        this.gate = null;
        this.gateResult = this.notStarted(tS, `start timeout: the start gate did not open within ${timeout} s`, 'not_started');
        this.state = 'ended';
      }
      return false;
    }
    this.gate = null;
    try {
      this.start(tS, snap);
    } catch (err) {
      this.gateResult = this.notStarted(tS, `refused at the start gate: ${(err as Error).message}`, 'aborted');
      this.state = 'ended';
      return false;
    }
    this.happenings.push({ t: tS, kind: 'event_started', id: 'start', detail: 'the start gate opened: actors placed' });
    return true;
  }

  /** The result of an attempt that ended before its actors were placed: nothing judged. */
  private notStarted(tS: number, reason: string, status: 'not_started' | 'aborted' | 'running'): AttemptResult {
    return {
      status, reason, ended_by: status === 'running' ? null : reason, start_s: this.armedAt, end_s: tS,
      events: this.spec.events.map((e) => ({ id: e.id, started_s: null, done_s: null, executions: 0 })),
      criteria: this.spec.criteria.map((c) => ({ ...new CriterionRun(c).toResult(), detail: 'not judged: the attempt never started' })),
    };
  }

  /** Ends a running attempt at the scenario's duration (its criteria judged as they stand). */
  finish(tS: number): void {
    if (this.gate) {
      this.gate = null;
      this.gateResult = this.notStarted(tS, 'the run ended before the start gate opened', 'not_started');
    } else if (this.state === 'armed' || this.state === 'running') this.runner.finish(tS);
    if (this.state !== 'idle') this.state = 'ended';
  }

  /**
   * The world the criteria judge with a real car under test: at the time of its latest fix (never later than tS),
   * the car as that fix has it (pose, speed, and the acceleration its fixes show), the scripted actors where the
   * story had them then (between the boundaries around it), every other vehicle moved back along its velocity.
   * So a speed, a deceleration, a TTC or a contact is judged on what was measured, never on the car carried on
   * from its fix by the motion model across the latency. undefined: no real car, or it is stale (judged as now).
   */
  private judgedWorld(tS: number, snap: SceneSnapshot, world: StoryWorld): StoryWorld | undefined {
    if (!this.judge) return undefined;
    // the actors as placed for tS, for the next boundaries' judged worlds
    const slot = this.past.length >= PAST_BOUNDARIES ? this.past.shift()! : { t: 0, poses: [] as StoryVehicle[] };
    slot.t = tS;
    slot.poses.length = 0;
    for (const p of this.poses) slot.poses.push({ id: p.id, x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, accel: p.accel, length: p.length, width: p.width });
    this.past.push(slot);
    const car = snap.egos.find((e) => e.egoId === this.judge!.car);
    if (!car || car.stale) return undefined;
    const tJ = Math.min(car.fixTime, tS);
    const back = tS - tJ;
    const carId = this.aliasOf.get(car.egoId) ?? car.egoId;
    const out: StoryVehicle[] = [];
    for (const v of world.vehicles) {
      if (v.id === carId) out.push({ ...v, x: car.fixX, y: car.fixY, yaw: car.fixYaw, speed: car.fixSpeed, accel: car.accel });
      else if (this.poses.some((p) => p.id === v.id && !this.asNpc.has(p.id))) out.push(this.actorAt(v, tJ));
      else out.push({ ...v, x: v.x - v.speed * Math.cos(v.yaw) * back, y: v.y - v.speed * Math.sin(v.yaw) * back });
    }
    return { t: tJ, vehicles: out, junctions: world.junctions };
  }

  /** A scripted actor at time t: between the poses of the boundaries around it (the nearest one outside them). */
  private actorAt(now: StoryVehicle, t: number): StoryVehicle {
    const past = this.past;
    for (let k = past.length - 1; k > 0; k--) {
      const b = past[k], a = past[k - 1];
      if (a.t > t || b.t < t) continue;
      const pa = a.poses.find((p) => p.id === now.id), pb = b.poses.find((p) => p.id === now.id);
      if (!pa || !pb) break;
      const w = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1;
      const dyaw = Math.atan2(Math.sin(pb.yaw - pa.yaw), Math.cos(pb.yaw - pa.yaw));
      return { ...pb, x: pa.x + (pb.x - pa.x) * w, y: pa.y + (pb.y - pa.y) * w, yaw: pa.yaw + dyaw * w, speed: pa.speed + (pb.speed - pa.speed) * w, accel: pb.accel };
    }
    const oldest = past.find((b) => b.t <= t)?.poses.find((p) => p.id === now.id);
    return oldest ? { ...oldest } : { ...now };
  }

  /**
   * A no_collision criterion failed at tS: the actor it hit, if scripted, is re-reported at its pose for tS with
   * the contact flag, so the frame of tS — whose poses decided the contact — shows it touching.
   */
  private flagContact(tS: number, criterion: string): void {
    const c = this.runner.result().criteria.find((x) => x.name === criterion);
    if (!c || c.kind !== 'no_collision' || typeof c.value !== 'string') return;
    const r = this.reported.get(c.value);
    if (r && this.inScene.has(c.value) && !this.asNpc.has(c.value)) this.sink.updateEgo({ ...r, contact: true }, tS);
  }

  result(): AttemptResult {
    if (this.gateResult) return this.gateResult;
    if (this.gate) return { ...this.notStarted(this.lastT, 'waiting at the start gate', 'running'), end_s: null };
    const r = this.runner.result();
    const q = this.quality;
    if (!q) return r;
    r.quality = q.results();
    // judged on data that did not hold: neither passed nor failed (what the criteria said is kept for the record);
    // nor "not started" when its actors were placed and the car then failed a gate (no event had started yet)
    if (q.invalid && (r.status === 'passed' || r.status === 'failed' || r.status === 'not_started')) {
      if (r.status !== 'not_started') r.criteria_said = r.status;
      r.status = 'invalid';
      r.reason = q.reason();
    }
    return r;
  }

  private handToPolicy(actor: string): void {
    if (this.asNpc.has(actor)) return;
    const p = this.poses.find((q) => q.id === actor)!;
    this.sink.removeEgo(actor);
    this.asNpc.set(actor, -1);
    const id = this.sink.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, length: p.length, width: p.width, keepDriving: true });
    if (typeof id === 'number') this.asNpc.set(actor, id);
    else void id.then((n) => { if (this.asNpc.get(actor) === -1) this.asNpc.set(actor, n); }, () => this.asNpc.delete(actor));
  }

  private takeFromPolicy(actor: string): void {
    const id = this.asNpc.get(actor);
    if (id === undefined) return;
    if (id >= 0) this.sink.removeNpc(id);
    this.asNpc.delete(actor);
  }

  /**
   * The story's view of the world at tS: the simulated egos (their plants), the real cars (as the scene has them,
   * by their ego_id or the story id they play), the NPCs (the snapshot; an actor handed to the policy by its
   * story id) and the scripted actors (where the story put them).
   */
  private world(tS: number, snap: SceneSnapshot, withActors: boolean): StoryWorld {
    const out = this.vehicles;
    out.length = 0;
    const sim = this.simIds;
    sim.clear();
    for (const e of this.egos) {
      const t = e.vehicle.session.truth;
      sim.add(e.id);
      out.push({ id: e.id, x: t.x, y: t.y, yaw: t.yaw, speed: t.vx, accel: e.vehicle.session.diagnostics.ax, length: e.spec.length, width: e.spec.width });
    }
    for (const e of snap.egos) {
      if (sim.has(e.egoId) || e.stale) continue;
      // the acceleration its fixes show at their own times (ego-motion.ts): a late or lost fix changes nothing
      out.push({ id: this.aliasOf.get(e.egoId) ?? e.egoId, x: e.x, y: e.y, yaw: e.yaw, speed: e.speed, accel: e.accel, length: e.length, width: e.width });
    }
    const npcActor = this.npcActor;
    npcActor.clear();
    for (const [a, id] of this.asNpc) npcActor.set(id, a);
    for (const n of snap.npcs) {
      if (n.actor !== undefined) continue;
      const actor = npcActor.get(n.id);
      if (actor !== undefined && !withActors) continue;
      out.push({ id: actor ?? `${NPC_PREFIX}${n.id}`, x: n.x, y: n.y, yaw: n.yaw, speed: n.speed, accel: 0, length: n.length, width: n.width });
    }
    if (withActors) for (const p of this.poses) if (!this.asNpc.has(p.id)) out.push({ id: p.id, x: p.x, y: p.y, yaw: p.yaw, speed: p.speed, accel: p.accel, length: p.length, width: p.width });
    return { t: tS, vehicles: out, junctions: this.sink.junctions };
  }
}

/** A sink that changes a LiveScene directly (headless runs: nothing to log). */
export function directSink(scene: {
  readonly lanes: LaneNetwork;
  readonly config: { spawn_clearance_m: number };
  readonly control: { readonly layout: { readonly junctions: ReadonlyArray<{ control: string; junction: { id: string } }> }; readonly controller: { setLive(i: LiveSignalInput): unknown } };
  updateEgo(r: EgoReport, t?: number): void;
  removeEgo(id: string): boolean;
  spawnNpc(req: SpawnRequest): number;
  removeNpc(id: number): boolean;
}): StorySceneSink {
  return {
    lanes: scene.lanes,
    spawnClearanceM: scene.config.spawn_clearance_m,
    junctions: scene.control.layout.junctions.filter((c) => c.control === 'signal').map((c) => c.junction.id),
    updateEgo: (r, t) => scene.updateEgo(r, t),
    removeEgo: (id) => void scene.removeEgo(id),
    spawnNpc: (req) => scene.spawnNpc(req),
    removeNpc: (id) => void scene.removeNpc(id),
    setSignal: (i) => void scene.control.controller.setLive(i),
  };
}
