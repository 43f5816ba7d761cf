/**
 * The story's state machine (OpenSCENARIO storyboard semantics, see spec.ts). Pure and deterministic: it reads
 * a StoryWorld snapshot per step and the lane network, and writes the actors' poses and what happened; the same
 * snapshots give the same actor motion, events and verdict.
 *
 * The host, per attempt:
 *   const runner = new StoryRunner(spec, lanes);
 *   const problems = runner.validate(world);      // refuse the set-up before the run when not empty
 *   const poses = runner.newPoses();
 *   runner.place(world, poses);                   // the actors' start poses: spawn them there
 *   each step (world at t, all vehicles where they are at t):
 *     const r = runner.step(world, dt, poses);    // poses now at t + dt; apply r.commands; r.happenings
 *     move the scripted actors to poses (controller 'script'), advance egos and NPCs to t + dt
 *   runner.finish(t) when the host stops (its duration) before the story's end; runner.result()
 *
 * A step, on the state at t: the trackers (distance travelled, standstill) and the criteria are updated; every
 * waiting event's start trigger is evaluated, then those that fired start in file order (priority: override
 * stops the running events, skip waits while another runs; a new action on an actor ends its running action of
 * the same domain — longitudinal: speed, stop, keep_time_gap; lateral: lane_change); the start timeout and the
 * end condition are checked; the scripted actors move to t + dt, and the actions that finish there finish
 * (an event is done when all its actions are). So an event_done seen by a trigger is at most one step old,
 * whatever the order of the events in the file. After the end, step() still moves the scripted actors as the
 * story's after_end says (after-end.ts) and judges nothing: the record is closed.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { EPS_T, holds, type StoryContext } from './conditions.js';
import { CriterionRun } from './criteria.js';
import { predecessors } from './geometry.js';
import { AfterEndMotion } from './after-end.js';
import { END_OF_ROAD, LAT_DONE, LON_DONE, ScriptedActor } from './motion.js';
import { laneName } from './placement.js';
import { StoryReferences } from './references.js';
import type { ActionSpec, EventSpec, PointSpec, StorySpec } from './spec.js';
import { StoryState } from './state.js';
import { StoryRefused, validateStory, type StoryProblem } from './validate.js';
import type { ActorPose, AttemptResult, AttemptStatus, Happening, HappeningKind, StepReport, StoryVehicle, StoryWorld } from './world.js';
import type { Pose } from '../../vehicle/index.js';

export { StoryRefused, type StoryProblem };

interface ActionRun {
  spec: ActionSpec;
  event: EventRun;
  index: number;
  running: boolean;
}

interface EventRun {
  spec: EventSpec;
  state: 'standby' | 'running' | 'complete';
  executions: number;
  firstStart: number;
  lastStart: number;
  doneAt: number;
  skipNoted: boolean;
  runs: ActionRun[];
}

export class StoryRunner implements StoryContext {
  private readonly actors: ScriptedActor[];
  private readonly actorIndex = new Map<string, number>();
  private readonly lonRun: (ActionRun | null)[];
  private readonly latRun: (ActionRun | null)[];
  private readonly events: EventRun[];
  private readonly eventIndex = new Map<string, EventRun>();
  private readonly fire: boolean[];
  private readonly criteria: CriterionRun[];
  private readonly references: StoryReferences;
  /** the state at t that the triggers and criteria read */
  /** the state the criteria judge when the host gives a measured world (StoryRunner.step's `judged`) */
  private readonly judgedState: StoryState;
  private judging = false;
  private readonly state: StoryState;
  private readonly prev: number[][];
  private placed = false;
  /** an event has started (the attempt is not "not started") */
  private started = false;
  private ended = false;
  private endT = NaN;
  private reason = '';
  private abortReason: string | null = null;
  private readonly report: StepReport = { happenings: [], commands: [], ended: false };
  /** the actors' motion once the attempt is over (story.after_end) */
  private readonly afterEnd: AfterEndMotion;

  constructor(readonly spec: StorySpec, private readonly net: LaneNetwork) {
    this.prev = predecessors(net);
    this.actors = spec.actors.map((a) => new ScriptedActor(a.id, a.length, a.width, a.controller, net, a.kind));
    spec.actors.forEach((a, i) => this.actorIndex.set(a.id, i));
    this.references = new StoryReferences(spec, net);
    this.lonRun = this.actors.map(() => null);
    this.latRun = this.actors.map(() => null);
    this.events = spec.events.map((e) => {
      const ev: EventRun = { spec: e, state: 'standby', executions: 0, firstStart: NaN, lastStart: NaN, doneAt: NaN, skipNoted: false, runs: [] };
      ev.runs = e.actions.map((a, i) => ({ spec: a, event: ev, index: i, running: false }));
      this.eventIndex.set(e.id, ev);
      return ev;
    });
    this.fire = this.events.map(() => false);
    this.criteria = spec.criteria.map((c) => new CriterionRun(c));
    this.afterEnd = new AfterEndMotion(spec.afterEnd ?? 'continue', this.actors, net);
    this.state = new StoryState(this.references, this.actors, this.actorIndex, this.eventIndex, net, (kind, id, detail) => this.happen(kind, id, detail));
    this.judgedState = new StoryState(this.references, this.actors, this.actorIndex, this.eventIndex, net, undefined, true);
  }

  // ---- the state at t (StoryContext: state.ts keeps it) ------------------------------------------------------

  get t(): number { return this.state.t; }
  get t0(): number { return this.state.t0; }
  get all(): readonly StoryVehicle[] { return this.state.all; }
  view(id: string): StoryVehicle | null { return this.state.view(id); }
  headingOf(v: StoryVehicle): number { return this.state.headingOf(v); }
  traveled(id: string): number { return this.state.traveled(id); }
  standingFor(id: string): number { return this.state.standingFor(id); }
  pointOf(p: PointSpec): Readonly<Pose> { return this.state.pointOf(p); }
  previous(id: string): { readonly x: number; readonly y: number; readonly yaw: number } | null { return this.state.previous(id); }
  note(kind: HappeningKind, id: string, detail: string): void { this.happen(kind, id, detail); }
  routeS(id: string, route: readonly string[]): number { return this.state.routeS(id, route); }
  eventTime(id: string, state: 'started' | 'done'): number { return this.state.eventTime(id, state); }

  // ---- before the run ----------------------------------------------------------------------------------------

  /** What makes this story impossible here (unknown vehicles, lanes or junctions; actors off the map; lane changes no lane allows). Empty: it can run. */
  validate(world: StoryWorld): StoryProblem[] {
    return validateStory(this.spec, this.net, this.references, { actors: this.actors, actorIndex: this.actorIndex, prev: this.prev }, world);
  }

  /** An output array for place and step: one pose per actor, in the story's order. */
  newPoses(): ActorPose[] {
    return this.actors.map((a) => ({ id: a.id, x: 0, y: 0, yaw: 0, speed: 0, accel: 0, length: a.length, width: a.width, lane: '', s: 0, offset: 0, controller: a.controller, kind: a.kind }));
  }

  /** Starts the story at world.t with the actors at their start poses (written into `out`). Throws StoryRefused when validate finds problems. */
  place(world: StoryWorld, out: ActorPose[]): void {
    const problems = this.validate(world);
    if (problems.length) throw new StoryRefused(this.spec.where, problems);
    this.state.t0 = world.t;
    this.state.t = world.t;
    this.placed = true;
    this.actors.forEach((a, i) => {
      if (a.controller === 'policy') this.state.present[i] = true;
      a.writeTo(out[i]);
    });
  }

  // ---- the run -----------------------------------------------------------------------------------------------

  /**
   * Advances the story from world.t to world.t + dt (see the header); the actors' poses at t + dt go into `out`.
   * `judged`: the world the criteria judge, when it is not `world` — a real car's, at the time of its latest fix
   * with every other vehicle at that time (the host's), so speed, deceleration, TTC and contact come from what
   * was measured, not from where the car was carried to since; the triggers still read `world` (now).
   */
  step(world: StoryWorld, dt: number, out: ActorPose[], judged?: StoryWorld): StepReport {
    if (!this.placed) throw new Error('StoryRunner.step before place');
    const r = this.report;
    r.happenings.length = 0;
    r.commands.length = 0;
    this.state.t = world.t;
    this.state.observe(world);
    let js: StoryState = this.state;
    if (judged) {
      js = this.judgedState;
      js.t0 = this.state.t0;
      js.t = judged.t;
      js.observe(judged);
      this.judging = true;
    }
    if (!this.ended) {
      for (const c of this.criteria) {
        const v = c.evaluate(js);
        if (v) this.happen(v === 'fail' ? 'criterion_failed' : 'criterion_passed', c.spec.name, c.detail);
      }
      for (let i = 0; i < this.events.length; i++) {
        const ev = this.events[i];
        this.fire[i] = ev.state === 'standby' && (ev.spec.trigger === null || holds(ev.spec.trigger, this.state));
      }
      for (let i = 0; i < this.events.length && !this.ended; i++) if (this.fire[i]) this.startEvent(this.events[i], world);
      if (!this.ended) {
        if (this.events.length > 0 && !this.started && this.spec.startTimeout !== null && this.t - this.t0 >= this.spec.startTimeout - EPS_T) this.conclude('start timeout: no event started within ' + this.spec.startTimeout + ' s');
        // the end is read where the criteria read: an attempt ends on a collision once the car's fixes show it,
        // so the criteria have judged the moment it ends at
        else if (this.spec.end && holds(this.spec.end, js)) this.conclude('end condition');
      }
    }
    const t1 = this.t + dt;
    if (this.ended) this.afterEnd.step(this.t);
    for (let i = 0; i < this.actors.length; i++) {
      const a = this.actors[i];
      if (a.controller === 'script') {
        const bits = a.advance(this.t, dt, a.lon === 'gap' ? this.state.view(a.gapTo) : null);
        // after the end the actors still move (the host may run on: story.after_end), but the record is closed
        const lon = this.lonRun[i], lat = this.latRun[i];
        if (bits & LON_DONE && lon) {
          this.lonRun[i] = null;
          if (!this.ended) this.finishAction(lon, t1);
        }
        if (bits & LAT_DONE && lat) {
          this.latRun[i] = null;
          if (!this.ended) this.finishAction(lat, t1);
        }
        if (bits & END_OF_ROAD && !this.ended) this.happen('actor_end_of_road', a.id, a.across !== 0 ? `${a.id} reached the end of its path across lane ${laneName(this.net, a.lane)} and stands` : `${a.id} reached the end of lane ${laneName(this.net, a.lane)} and stopped`, t1);
      }
      a.writeTo(out[i]);
    }
    r.ended = this.ended;
    return r;
  }

  /** Ends the attempt now (the host's duration): pending criteria are settled. */
  finish(t: number, reason = 'finished by the host'): void {
    if (this.ended) return;
    this.state.t = t;
    this.conclude(reason);
  }

  /** Ends the attempt as aborted (the host could not go on: a lost connection, an operator's stop). */
  abort(t: number, reason: string): void {
    if (this.ended) return;
    this.state.t = t;
    this.abortReason = reason;
    this.conclude(reason);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The attempt's outcome so far (status running until it ended). JSON-serialisable. */
  result(): AttemptResult {
    const num = (x: number) => (Number.isFinite(x) ? x : null);
    const status = this.status();
    return {
      status,
      reason: this.reasonFor(status),
      ended_by: this.ended ? this.reason : null,
      start_s: this.t0,
      end_s: this.ended ? this.endT : null,
      events: this.events.map((e) => ({ id: e.spec.id, started_s: num(e.firstStart), done_s: num(e.doneAt), executions: e.executions })),
      criteria: this.criteria.map((c) => c.toResult()),
    };
  }

  /**
   * A failure names the criterion that failed first with its figure and time (and the others that failed); a
   * running attempt with a failed criterion says so already; otherwise why it ended.
   */
  private reasonFor(status: AttemptStatus): string {
    if (status !== 'failed' && status !== 'running') return this.reason;
    const failed = this.criteria.filter((c) => c.verdict === 'fail').sort((a, b) => a.decidedAt - b.decidedAt);
    if (!failed.length) return this.reason;
    const also = failed.length > 1 ? `; also failed: ${failed.slice(1).map((c) => c.spec.name).join(', ')}` : '';
    return `${failed[0].spec.name} failed: ${failed[0].breach}${also}`;
  }

  private status(): AttemptStatus {
    if (!this.ended) return 'running';
    if (this.abortReason !== null) return 'aborted';
    if (this.events.length > 0 && !this.started) return 'not_started';
    return this.criteria.some((c) => c.verdict === 'fail') ? 'failed' : 'passed';
  }

  private conclude(reason: string): void {
    this.ended = true;
    this.endT = this.t;
    this.reason = reason;
    // settled on what the criteria have been judging (the measured world, when there is one)
    const js = this.judging ? this.judgedState : this.state;
    for (const c of this.criteria) {
      const v = c.settle(js);
      if (v) this.happen(v === 'fail' ? 'criterion_failed' : 'criterion_passed', c.spec.name, c.detail, this.t);
    }
    const status = this.status();
    const why = this.reasonFor(status);
    this.happen('end', status, why === reason ? reason : `${why} (ended by ${reason})`, this.t);
    this.afterEnd.begin(this.t);
  }

  private happen(kind: HappeningKind, id: string, detail: string, t = this.t): void {
    const h: Happening = { t, kind, id, detail };
    this.report.happenings.push(h);
  }

  // ---- events and actions ------------------------------------------------------------------------------------

  private startEvent(ev: EventRun, world: StoryWorld): void {
    const others = this.events.filter((e) => e !== ev && e.state === 'running');
    if (ev.spec.priority === 'skip' && others.length > 0) {
      if (!ev.skipNoted) this.happen('event_skipped', ev.spec.id, `waits: ${others.map((e) => e.spec.id).join(', ')} running (priority skip)`);
      ev.skipNoted = true;
      return;
    }
    if (ev.spec.priority === 'override') {
      for (const o of others) {
        for (const run of o.runs) if (run.running) this.endAction(run, 'action_overridden', `stopped: event ${ev.spec.id} overrides ${o.spec.id}`);
        o.state = 'complete';
        o.doneAt = this.t;
        this.happen('event_stopped', o.spec.id, `overridden by ${ev.spec.id}`);
      }
    }
    ev.state = 'running';
    this.started = true;
    ev.skipNoted = false;
    ev.executions++;
    if (ev.firstStart !== ev.firstStart) ev.firstStart = this.t;
    ev.lastStart = this.t;
    this.happen('event_started', ev.spec.id, ev.spec.repeat > 1 ? `execution ${ev.executions} of ${ev.spec.repeat}` : '');
    for (const run of ev.runs) {
      run.running = true;
      if (this.startAction(run, world)) this.finishAction(run, this.t);
      if (this.ended) return;
    }
  }

  /** Starts an action at t; true when it is done at once. */
  private startAction(run: ActionRun, world: StoryWorld): boolean {
    const a = run.spec;
    const t = this.t;
    if (a.kind === 'set_signal') {
      this.report.commands.push({ kind: 'set_signal', junction: a.junction, phase: a.phase, states: a.states, holdS: a.holdS, t });
      return true;
    }
    const i = this.actorIndex.get(a.actor)!;
    const actor = this.actors[i];
    switch (a.kind) {
      case 'follow_route':
        actor.route = Int32Array.from(a.lanes.map((l) => this.net.laneById(l)));
        return true;
      case 'hand_to_policy':
        if (this.lonRun[i]) this.endAction(this.lonRun[i]!, 'action_overridden', 'the policy drives it now');
        if (this.latRun[i]) this.endAction(this.latRun[i]!, 'action_overridden', 'the policy drives it now');
        actor.endLon();
        actor.endLat();
        actor.controller = 'policy';
        this.state.present[i] = true;
        this.report.commands.push({ kind: 'hand_to_policy', actor: actor.id, t });
        return true;
      case 'take_from_policy':
        return this.takeBack(i, run, world);
      default:
        break;
    }
    // a motion action on a policy-driven actor takes it back first
    if (actor.controller === 'policy' && !this.takeBack(i, run, world)) return false;
    if (a.kind === 'lane_change') {
      let target: number;
      if (typeof a.to === 'object') target = this.net.laneById(a.to.id);
      else target = a.to === 'left' ? this.net.lanes[actor.lane].left : this.net.lanes[actor.lane].right;
      if (target < 0) {
        this.failAction(run, `${actor.id} is on lane ${laneName(this.net, actor.lane)}, which has no lane to its ${a.to as string}`);
        return false;
      }
      if (this.latRun[i]) this.endAction(this.latRun[i]!, 'action_overridden', `a new lane change (${run.event.spec.id})`);
      if (!actor.startLaneChange(t, target, a.duration, a.shape, a.offset)) {
        this.failAction(run, `${actor.id} is not beside lane ${laneName(this.net, target)}`);
        return false;
      }
      this.latRun[i] = run;
      return false;
    }
    if (this.lonRun[i]) this.endAction(this.lonRun[i]!, 'action_overridden', `a new ${a.kind} action (${run.event.spec.id})`);
    let done = false;
    if (a.kind === 'speed') done = actor.startProfile(t, a.target, a.rate, a.duration, a.shape);
    else if (a.kind === 'stop') done = actor.startProfile(t, 0, a.decel, null, 'linear');
    else if (a.kind === 'keep_time_gap') actor.startGap(a.to, a.gap, a.position === 'ahead', a.maxAccel, a.maxDecel);
    if (!done) this.lonRun[i] = run;
    return done;
  }

  private takeBack(i: number, run: ActionRun, world: StoryWorld): boolean {
    const actor = this.actors[i];
    if (actor.controller === 'script') return true;
    const v = this.state.find(world, actor.id);
    if (!v || !actor.seedFrom(v)) {
      this.failAction(run, `${actor.id} cannot be taken back from the policy: ${v ? 'it is off every lane' : 'it is not in the scene'}`);
      return false;
    }
    actor.controller = 'script';
    this.report.commands.push({ kind: 'take_from_policy', actor: actor.id, t: this.t });
    return true;
  }

  private failAction(run: ActionRun, why: string): void {
    run.running = false;
    this.happen('action_failed', `${run.event.spec.id}.${run.index}`, why);
    this.abortReason = `${run.spec.key}: ${why}`;
    this.conclude(this.abortReason);
  }

  /** Ends a running action before it finished (overridden); its event may complete. */
  private endAction(run: ActionRun, kind: HappeningKind, why: string): void {
    if (!run.running) return;
    const a = run.spec;
    if (a.kind !== 'set_signal') {
      const i = this.actorIndex.get(a.actor)!;
      if (this.lonRun[i] === run) {
        this.lonRun[i] = null;
        this.actors[i].endLon();
      }
      if (this.latRun[i] === run) {
        this.latRun[i] = null;
        this.actors[i].endLat();
      }
    }
    this.happen(kind, `${run.event.spec.id}.${run.index}`, why);
    this.finishAction(run, this.t, false);
  }

  private finishAction(run: ActionRun, t: number, report = true): void {
    run.running = false;
    if (report) this.happen('action_done', `${run.event.spec.id}.${run.index}`, run.spec.kind, t);
    const ev = run.event;
    if (ev.state !== 'running' || ev.runs.some((x) => x.running)) return;
    ev.doneAt = t;
    ev.state = ev.executions < ev.spec.repeat ? 'standby' : 'complete';
    this.happen('event_done', ev.spec.id, '', t);
  }
}
