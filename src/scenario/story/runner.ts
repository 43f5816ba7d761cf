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
 * whatever the order of the events in the file.
 */
import type { LaneNetwork, LanePosition } from '../../traffic/lanes.js';
import { EPS_T, STANDSTILL_MPS, holds, type StoryContext } from './conditions.js';
import { CriterionRun } from './criteria.js';
import { lanePoseInto, overlaps, predecessors } from './geometry.js';
import { END_OF_ROAD, LAT_DONE, LON_DONE, ScriptedActor } from './motion.js';
import { laneIndex, laneName, placeActor, reachableLanes, type Placement } from './placement.js';
import type { ActionSpec, Condition, EventSpec, PointSpec, StorySpec } from './spec.js';
import type { ActorPose, AttemptResult, AttemptStatus, Happening, HappeningKind, StepReport, StoryVehicle, StoryWorld } from './world.js';

export interface StoryProblem {
  /** the YAML key path */
  key: string;
  message: string;
}

/** A set-up the story cannot run on (StoryRunner.place): every problem, each with its key. */
export class StoryRefused extends Error {
  constructor(readonly where: string, readonly problems: readonly StoryProblem[]) {
    super(`${where}: the story cannot run here:\n${problems.map((p) => `  ${p.key}: ${p.message}`).join('\n')}`);
    this.name = 'StoryRefused';
  }
}

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

/** A reference from the story to something the map or the scene must have. */
interface Use {
  kind: 'vehicle' | 'lane' | 'junction';
  id: string;
  key: string;
}

const NO_POINT = { x: NaN, y: NaN };

export class StoryRunner implements StoryContext {
  t = NaN;
  t0 = NaN;
  readonly all: StoryVehicle[] = [];
  private readonly actors: ScriptedActor[];
  private readonly actorIndex = new Map<string, number>();
  /** policy-driven actors found in this step's world */
  private readonly present: boolean[];
  private readonly lonRun: (ActionRun | null)[];
  private readonly latRun: (ActionRun | null)[];
  private readonly refs: string[] = [];
  private readonly refIndex = new Map<string, number>();
  private readonly views: (StoryVehicle | null)[] = [];
  private hints: Int32Array = new Int32Array(0);
  private traveledM = new Float64Array(0);
  private lastX = new Float64Array(0);
  private lastY = new Float64Array(0);
  private standSince = new Float64Array(0);
  private readonly events: EventRun[];
  private readonly eventIndex = new Map<string, EventRun>();
  private readonly fire: boolean[];
  private readonly criteria: CriterionRun[];
  private readonly uses: Use[] = [];
  private readonly points = new Map<PointSpec, { x: number; y: number }>();
  private readonly routes = new Map<readonly string[], { lanes: Int32Array; base: Float64Array }>();
  private readonly prev: number[][];
  private readonly found: LanePosition = { lane: 0, s: 0, offset: 0 };
  private placed = false;
  /** an event has started (the attempt is not "not started") */
  private started = false;
  private ended = false;
  private endT = NaN;
  private reason = '';
  private abortReason: string | null = null;
  private readonly report: StepReport = { happenings: [], commands: [], ended: false };

  constructor(readonly spec: StorySpec, private readonly net: LaneNetwork) {
    this.prev = predecessors(net);
    this.actors = spec.actors.map((a) => new ScriptedActor(a.id, a.length, a.width, a.controller, net));
    spec.actors.forEach((a, i) => {
      this.actorIndex.set(a.id, i);
      this.ref(a.id);
      if (a.start.kind === 'relative') this.use('vehicle', a.start.of, `${a.key}.start.ahead_of`);
      if (a.start.kind === 'lane') this.use('lane', a.start.lane, `${a.key}.start.lane`);
      if (a.start.kind === 'relative' && typeof a.start.lane === 'object') this.use('lane', a.start.lane.id, `${a.key}.start.lane`);
    });
    this.present = this.actors.map(() => false);
    this.lonRun = this.actors.map(() => null);
    this.latRun = this.actors.map(() => null);
    this.events = spec.events.map((e) => {
      const ev: EventRun = { spec: e, state: 'standby', executions: 0, firstStart: NaN, lastStart: NaN, doneAt: NaN, skipNoted: false, runs: [] };
      ev.runs = e.actions.map((a, i) => ({ spec: a, event: ev, index: i, running: false }));
      this.eventIndex.set(e.id, ev);
      if (e.trigger) this.gather(e.trigger);
      e.actions.forEach((a) => this.gatherAction(a));
      return ev;
    });
    this.fire = this.events.map(() => false);
    if (spec.end) this.gather(spec.end);
    this.criteria = spec.criteria.map((c) => {
      this.use('vehicle', c.ego, `${c.key}.${c.kind}.ego`);
      if (c.kind === 'no_collision' && c.with) this.use('vehicle', c.with, `${c.key}.no_collision.with`);
      if ((c.kind === 'min_ttc' || c.kind === 'min_distance') && c.to) this.use('vehicle', c.to, `${c.key}.${c.kind}.to`);
      if (c.kind === 'stopped_before' || c.kind === 'reach') {
        if (c.point.kind === 'vehicle') this.use('vehicle', c.point.id, `${c.key}.${c.kind}.point.actor`);
        else this.point(c.point, `${c.key}.${c.kind}.point`);
      }
      return new CriterionRun(c);
    });
    const n = this.refs.length;
    this.hints = new Int32Array(n);
    this.traveledM = new Float64Array(n);
    this.lastX = new Float64Array(n).fill(NaN);
    this.lastY = new Float64Array(n).fill(NaN);
    this.standSince = new Float64Array(n).fill(NaN);
  }

  // ---- what the story refers to ------------------------------------------------------------------------------

  private ref(id: string): void {
    if (this.refIndex.has(id)) return;
    this.refIndex.set(id, this.refs.length);
    this.refs.push(id);
    this.views.push(null);
  }

  private use(kind: Use['kind'], id: string, key: string): void {
    this.uses.push({ kind, id, key });
    if (kind === 'vehicle') this.ref(id);
  }

  private point(p: PointSpec, key: string): void {
    if (p.kind === 'xy') {
      this.points.set(p, { x: p.x, y: p.y });
      return;
    }
    this.use('lane', p.lane, `${key}.lane`);
    const li = this.net.laneById(p.lane);
    if (li < 0) return;
    const pose = { x: 0, y: 0, yaw: 0 };
    lanePoseInto(this.net, li, p.s, pose);
    this.points.set(p, { x: pose.x, y: pose.y });
  }

  private gather(c: Condition): void {
    const k = c.key;
    switch (c.kind) {
      case 'reach': this.use('vehicle', c.of, `${k}.reach.of`); this.point(c.point, `${k}.reach.point`); break;
      case 'traveled': case 'speed': case 'stopped': this.use('vehicle', c.of, `${k}.${c.kind}.of`); break;
      case 'route_s': {
        this.use('vehicle', c.of, `${k}.route_s.of`);
        c.route.forEach((l, i) => this.use('lane', l, `${k}.route_s.route[${i}]`));
        const lanes = Int32Array.from(c.route.map((l) => this.net.laneById(l)));
        const base = new Float64Array(lanes.length);
        for (let i = 1; i < lanes.length; i++) base[i] = base[i - 1] + (lanes[i - 1] >= 0 ? this.net.lanes[lanes[i - 1]].length : 0);
        this.routes.set(c.route, { lanes, base });
        break;
      }
      case 'distance': case 'headway': case 'ttc':
        this.use('vehicle', c.from, `${k}.${c.kind}.from`);
        this.use('vehicle', c.to, `${k}.${c.kind}.to`);
        break;
      case 'collision':
        this.use('vehicle', c.of, `${k}.collision`);
        if (c.with) this.use('vehicle', c.with, `${k}.collision.with`);
        break;
      case 'all': case 'any': c.of.forEach((x) => this.gather(x)); break;
      default: break;
    }
  }

  private gatherAction(a: ActionSpec): void {
    const k = a.key;
    if (a.kind === 'lane_change' && typeof a.to === 'object') this.use('lane', a.to.id, `${k}.lane_change.to`);
    if (a.kind === 'follow_route') a.lanes.forEach((l, i) => this.use('lane', l, `${k}.follow_route[${i}]`));
    if (a.kind === 'keep_time_gap') this.use('vehicle', a.to, `${k}.keep_time_gap.to`);
    if (a.kind === 'set_signal') this.uses.push({ kind: 'junction', id: a.junction, key: `${k}.set_signal.junction` });
  }

  // ---- before the run ----------------------------------------------------------------------------------------

  /** What makes this story impossible here (unknown vehicles, lanes or junctions; actors off the map; lane changes no lane allows). Empty: it can run. */
  validate(world: StoryWorld): StoryProblem[] {
    const problems: StoryProblem[] = [];
    const known = new Set<string>([...this.actorIndex.keys(), ...world.vehicles.map((v) => v.id)]);
    for (const u of this.uses) {
      if (u.kind === 'vehicle' && !known.has(u.id)) problems.push({ key: u.key, message: `unknown vehicle '${u.id}' (vehicles: ${[...known].slice(0, 12).join(', ')}${known.size > 12 ? ', …' : ''})` });
      if (u.kind === 'lane') {
        const l = laneIndex(this.net, u.id);
        if (typeof l === 'string') problems.push({ key: u.key, message: l });
      }
      if (u.kind === 'junction' && world.junctions && !world.junctions.includes(u.id)) problems.push({ key: u.key, message: `unknown junction '${u.id}' (signalised junctions: ${world.junctions.join(', ') || 'none'})` });
    }
    for (const e of this.spec.events) {
      for (const a of e.actions) {
        if (a.kind === 'follow_route') this.checkChain(a.lanes, `${a.key}.follow_route`, problems);
        if (a.kind === 'keep_time_gap' && a.to === a.actor) problems.push({ key: `${a.key}.keep_time_gap.to`, message: `${a.actor} cannot keep a time gap to itself` });
      }
    }
    for (const c of this.routes.keys()) this.checkChain(c, 'route_s', problems);
    // relative to a vehicle of the world, or to an actor listed (and placed) before
    const placements: (Placement | null)[] = [];
    const view = (id: string): StoryVehicle | null => {
      const j = this.actorIndex.get(id);
      if (j !== undefined) return j < placements.length && placements[j] ? this.actors[j] : null;
      return world.vehicles.find((v) => v.id === id) ?? null;
    };
    this.spec.actors.forEach((a, i) => {
      const p = placeActor(a, this.net, this.prev, view);
      if (typeof p === 'string') {
        // an unknown lane or vehicle of its start is said once, with its own key
        if (!problems.some((x) => x.key.startsWith(`${a.key}.start.`))) problems.push({ key: `${a.key}.start`, message: p });
        placements.push(null);
        return;
      }
      this.actors[i].placeAt(p.lane, p.s, p.offset, p.speed);
      placements.push(p);
    });
    // lane changes to a side no lane along the actor's way has
    this.spec.actors.forEach((a, i) => {
      const p = placements[i];
      if (!p) return;
      let lanes: Set<number> | null = null;
      for (const e of this.spec.events) {
        for (const act of e.actions) {
          if (act.kind !== 'lane_change' || act.actor !== a.id || typeof act.to === 'object') continue;
          lanes ??= reachableLanes(this.net, p.lane);
          const side = act.to;
          if (![...lanes].some((l) => (side === 'left' ? this.net.lanes[l].left : this.net.lanes[l].right) >= 0)) {
            problems.push({ key: `${act.key}.lane_change.to`, message: `${a.id} starts on lane ${laneName(this.net, p.lane)} and no lane along its way has a lane to its ${side}: a lane change ${side} is impossible` });
          }
        }
      }
    });
    // actors placed on top of something
    this.spec.actors.forEach((a, i) => {
      if (!placements[i]) return;
      const me = this.actors[i];
      for (const v of world.vehicles) if (v.id !== a.id && overlaps(me, v)) problems.push({ key: `${a.key}.start`, message: `${a.id} would start overlapping ${v.id}` });
      for (let j = 0; j < i; j++) if (placements[j] && overlaps(me, this.actors[j])) problems.push({ key: `${a.key}.start`, message: `${a.id} would start overlapping ${this.actors[j].id}` });
    });
    return problems;
  }

  private checkChain(lanes: readonly string[], key: string, problems: StoryProblem[]): void {
    for (let i = 1; i < lanes.length; i++) {
      const a = this.net.laneById(lanes[i - 1]), b = this.net.laneById(lanes[i]);
      if (a >= 0 && b >= 0 && !this.net.lanes[a].next.includes(b)) problems.push({ key: `${key}[${i}]`, message: `lane ${lanes[i - 1]} does not lead to lane ${lanes[i]} (it leads to ${this.net.lanes[a].next.map((n) => laneName(this.net, n)).join(', ') || 'nothing'})` });
    }
  }

  /** An output array for place and step: one pose per actor, in the story's order. */
  newPoses(): ActorPose[] {
    return this.actors.map((a) => ({ id: a.id, x: 0, y: 0, yaw: 0, speed: 0, accel: 0, length: a.length, width: a.width, lane: '', s: 0, offset: 0, controller: a.controller }));
  }

  /** Starts the story at world.t with the actors at their start poses (written into `out`). Throws StoryRefused when validate finds problems. */
  place(world: StoryWorld, out: ActorPose[]): void {
    const problems = this.validate(world);
    if (problems.length) throw new StoryRefused(this.spec.where, problems);
    this.t0 = world.t;
    this.t = world.t;
    this.placed = true;
    this.actors.forEach((a, i) => {
      if (a.controller === 'policy') this.present[i] = true;
      a.writeTo(out[i]);
    });
  }

  // ---- the run -----------------------------------------------------------------------------------------------

  /** Advances the story from world.t to world.t + dt (see the header); the actors' poses at t + dt go into `out`. */
  step(world: StoryWorld, dt: number, out: ActorPose[]): StepReport {
    if (!this.placed) throw new Error('StoryRunner.step before place');
    const r = this.report;
    r.happenings.length = 0;
    r.commands.length = 0;
    this.t = world.t;
    this.observe(world);
    if (!this.ended) {
      for (const c of this.criteria) {
        const v = c.evaluate(this);
        if (v) this.happen(v === 'fail' ? 'criterion_failed' : 'criterion_passed', c.spec.name, c.detail);
      }
      for (let i = 0; i < this.events.length; i++) {
        const ev = this.events[i];
        this.fire[i] = ev.state === 'standby' && (ev.spec.trigger === null || holds(ev.spec.trigger, this));
      }
      for (let i = 0; i < this.events.length && !this.ended; i++) if (this.fire[i]) this.startEvent(this.events[i], world);
      if (!this.ended) {
        if (this.events.length > 0 && !this.started && this.spec.startTimeout !== null && this.t - this.t0 >= this.spec.startTimeout - EPS_T) this.conclude('start timeout: no event started within ' + this.spec.startTimeout + ' s');
        else if (this.spec.end && holds(this.spec.end, this)) this.conclude('end condition');
      }
    }
    const t1 = this.t + dt;
    for (let i = 0; i < this.actors.length; i++) {
      const a = this.actors[i];
      if (a.controller === 'script') {
        const bits = a.advance(this.t, dt, a.lon === 'gap' ? this.view(a.gapTo) : null);
        // after the end the actors still move (the host may run on), but the record is closed
        const lon = this.lonRun[i], lat = this.latRun[i];
        if (bits & LON_DONE && lon) {
          this.lonRun[i] = null;
          if (!this.ended) this.finishAction(lon, t1);
        }
        if (bits & LAT_DONE && lat) {
          this.latRun[i] = null;
          if (!this.ended) this.finishAction(lat, t1);
        }
        if (bits & END_OF_ROAD && !this.ended) this.happen('actor_end_of_road', a.id, `${a.id} reached the end of lane ${laneName(this.net, a.lane)} and stopped`, t1);
      }
      a.writeTo(out[i]);
    }
    r.ended = this.ended;
    return r;
  }

  /** Ends the attempt now (the host's duration): pending criteria are settled. */
  finish(t: number, reason = 'finished by the host'): void {
    if (this.ended) return;
    this.t = t;
    this.conclude(reason);
  }

  /** Ends the attempt as aborted (the host could not go on: a lost connection, an operator's stop). */
  abort(t: number, reason: string): void {
    if (this.ended) return;
    this.t = t;
    this.abortReason = reason;
    this.conclude(reason);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The attempt's outcome so far (status running until it ended). JSON-serialisable. */
  result(): AttemptResult {
    const num = (x: number) => (Number.isFinite(x) ? x : null);
    return {
      status: this.status(),
      reason: this.reason,
      start_s: this.t0,
      end_s: this.ended ? this.endT : null,
      events: this.events.map((e) => ({ id: e.spec.id, started_s: num(e.firstStart), done_s: num(e.doneAt), executions: e.executions })),
      criteria: this.criteria.map((c) => ({
        name: c.spec.name,
        kind: c.spec.kind,
        verdict: c.verdict,
        value: c.spec.kind === 'no_collision' ? (c.hit || null) : num(c.value),
        limit: c.limit,
        unit: c.unit,
        at_s: num(c.at),
        detail: c.detail,
      })),
    };
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
    for (const c of this.criteria) {
      const v = c.settle(this);
      if (v) this.happen(v === 'fail' ? 'criterion_failed' : 'criterion_passed', c.spec.name, c.detail, this.t);
    }
    this.happen('end', this.status(), reason, this.t);
  }

  private happen(kind: HappeningKind, id: string, detail: string, t = this.t): void {
    const h: Happening = { t, kind, id, detail };
    this.report.happenings.push(h);
  }

  // ---- the state at t ----------------------------------------------------------------------------------------

  private findInWorld(world: StoryWorld, id: string, k: number): StoryVehicle | null {
    const vs = world.vehicles;
    const h = k >= 0 ? this.hints[k] : 0;
    if (h < vs.length && vs[h].id === id) return vs[h];
    for (let i = 0; i < vs.length; i++) {
      if (vs[i].id === id) {
        if (k >= 0) this.hints[k] = i;
        return vs[i];
      }
    }
    return null;
  }

  private observe(world: StoryWorld): void {
    for (let i = 0; i < this.actors.length; i++) {
      const a = this.actors[i];
      if (a.controller !== 'policy') continue;
      const v = this.findInWorld(world, a.id, this.refIndex.get(a.id)!);
      this.present[i] = v !== null;
      if (v) a.mirror(v);
    }
    for (let k = 0; k < this.refs.length; k++) {
      const id = this.refs[k];
      const ai = this.actorIndex.get(id);
      this.views[k] = ai !== undefined ? (this.actors[ai].controller === 'script' || this.present[ai] ? this.actors[ai] : null) : this.findInWorld(world, id, k);
    }
    const all = this.all;
    all.length = 0;
    for (let i = 0; i < this.actors.length; i++) if (this.actors[i].controller === 'script' || this.present[i]) all.push(this.actors[i]);
    for (const v of world.vehicles) if (!this.actorIndex.has(v.id)) all.push(v);
    for (let k = 0; k < this.refs.length; k++) {
      const v = this.views[k];
      if (!v) {
        this.standSince[k] = NaN;
        continue;
      }
      if (this.lastX[k] === this.lastX[k]) this.traveledM[k] += Math.hypot(v.x - this.lastX[k], v.y - this.lastY[k]);
      this.lastX[k] = v.x;
      this.lastY[k] = v.y;
      if (v.speed >= STANDSTILL_MPS) this.standSince[k] = NaN;
      else if (this.standSince[k] !== this.standSince[k]) this.standSince[k] = this.t;
    }
  }

  view(id: string): StoryVehicle | null {
    const k = this.refIndex.get(id);
    return k === undefined ? null : this.views[k];
  }

  headingOf(v: StoryVehicle): number {
    if (v instanceof ScriptedActor) return v.lane >= 0 ? v.laneYaw : v.yaw;
    const p = this.net.locate(v.x, v.y, v.yaw, 4, this.found);
    return p ? this.net.headingAt(p.lane, p.s) : v.yaw;
  }

  traveled(id: string): number {
    const k = this.refIndex.get(id);
    return k === undefined || !this.views[k] ? NaN : this.traveledM[k];
  }

  standingFor(id: string): number {
    const k = this.refIndex.get(id);
    return k === undefined ? NaN : this.t - this.standSince[k];
  }

  pointOf(p: PointSpec): { readonly x: number; readonly y: number } {
    return this.points.get(p) ?? NO_POINT;
  }

  routeS(id: string, route: readonly string[]): number {
    const v = this.view(id);
    const r = this.routes.get(route);
    if (!v || !r) return NaN;
    let lane: number, s: number;
    if (v instanceof ScriptedActor && v.lane >= 0) {
      lane = v.lane;
      s = v.s;
    } else {
      const p = this.net.locate(v.x, v.y, v.yaw, 4, this.found);
      if (!p) return NaN;
      lane = p.lane;
      s = p.s;
    }
    for (let i = 0; i < r.lanes.length; i++) if (r.lanes[i] === lane) return r.base[i] + s;
    return NaN;
  }

  eventTime(id: string, state: 'started' | 'done'): number {
    const e = this.eventIndex.get(id);
    if (!e) return NaN;
    return state === 'started' ? e.lastStart : e.doneAt;
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
        this.present[i] = true;
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
    const v = this.findInWorld(world, actor.id, this.refIndex.get(actor.id)!);
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
