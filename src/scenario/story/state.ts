/**
 * The story's state at t, as its triggers and criteria read it (StoryContext): the vehicles it follows as seen
 * this step, how far each has travelled and how long it has stood, its places and routes. Apart from the runner,
 * which only decides what happens next: this is kept up to date from each step's world whatever the events do.
 */
import type { LaneNetwork, LanePosition } from '../../traffic/lanes.js';
import { STANDSTILL_MPS, type StoryContext } from './conditions.js';
import { ScriptedActor } from './motion.js';
import type { StoryReferences } from './references.js';
import type { PointSpec } from './spec.js';
import type { HappeningKind, StoryVehicle, StoryWorld } from './world.js';
import type { Pose } from '../../vehicle/index.js';

/** When an event last started and last completed (NaN: never). */
export interface EventTimes {
  readonly lastStart: number;
  readonly doneAt: number;
}

const NO_POINT: Pose = { x: NaN, y: NaN, yaw: NaN };

export class StoryState implements StoryContext {
  t = NaN;
  t0 = NaN;
  readonly all: StoryVehicle[] = [];
  /** policy-driven actors found in this step's world */
  readonly present: boolean[];
  /** per vehicle followed (StoryReferences.refs): this step's view of it, and where it was last found in the world */
  private readonly views: (StoryVehicle | null)[];
  private readonly hints: Int32Array;
  private readonly traveledM: Float64Array;
  private readonly lastX: Float64Array;
  private readonly lastY: Float64Array;
  private readonly lastYaw: Float64Array;
  /** where each was at the previous step (x NaN: not seen then), for the crossings of a start line */
  private readonly prevX: Float64Array;
  private readonly prevY: Float64Array;
  private readonly prevYaw: Float64Array;
  /** seen in the last observe */
  private readonly seen: Uint8Array;
  private readonly was = { x: 0, y: 0, yaw: 0 };
  private readonly standSince: Float64Array;
  private readonly found: LanePosition = { lane: 0, s: 0, offset: 0 };

  constructor(
    private readonly refs: StoryReferences,
    private readonly actors: readonly ScriptedActor[],
    private readonly actorIndex: ReadonlyMap<string, number>,
    private readonly events: ReadonlyMap<string, EventTimes>,
    private readonly net: LaneNetwork,
    /** where the conditions' notes go (the runner's happenings) */
    readonly note: (kind: HappeningKind, id: string, detail: string) => void = () => undefined,
    /**
     * the scripted actors as the world has them (a measured world at another time than the script's), not the
     * script's own state
     */
    private readonly actorsFromWorld = false,
  ) {
    const n = refs.refs.length;
    this.present = actors.map(() => false);
    this.views = refs.refs.map(() => null);
    this.hints = new Int32Array(n);
    this.traveledM = new Float64Array(n);
    this.lastX = new Float64Array(n).fill(NaN);
    this.lastY = new Float64Array(n).fill(NaN);
    this.lastYaw = new Float64Array(n).fill(NaN);
    this.prevX = new Float64Array(n).fill(NaN);
    this.prevY = new Float64Array(n).fill(NaN);
    this.prevYaw = new Float64Array(n).fill(NaN);
    this.seen = new Uint8Array(n);
    this.standSince = new Float64Array(n).fill(NaN);
  }

  /** Vehicle `id` (one the story follows) in the world, or null. */
  find(world: StoryWorld, id: string): StoryVehicle | null {
    return this.findInWorld(world, id, this.refs.refIndex.get(id)!);
  }

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

  /** Reads the world at t: the policy-driven actors, every vehicle followed, the distances travelled and the standstills. */
  observe(world: StoryWorld): void {
    const { refs, refIndex } = this.refs;
    for (let i = 0; i < this.actors.length; i++) {
      const a = this.actors[i];
      if (a.controller !== 'policy') continue;
      const v = this.findInWorld(world, a.id, refIndex.get(a.id)!);
      this.present[i] = v !== null;
      // (a measured world at another time must not move the script's own state)
      if (v && !this.actorsFromWorld) a.mirror(v);
    }
    for (let k = 0; k < refs.length; k++) {
      const id = refs[k];
      const ai = this.actorIndex.get(id);
      if (ai === undefined || this.actorsFromWorld) this.views[k] = this.findInWorld(world, id, k);
      else this.views[k] = this.actors[ai].controller === 'script' || this.present[ai] ? this.actors[ai] : null;
    }
    const all = this.all;
    all.length = 0;
    if (this.actorsFromWorld) for (const v of world.vehicles) all.push(v);
    else {
      for (let i = 0; i < this.actors.length; i++) if (this.actors[i].controller === 'script' || this.present[i]) all.push(this.actors[i]);
      for (const v of world.vehicles) if (!this.actorIndex.has(v.id)) all.push(v);
    }
    for (let k = 0; k < refs.length; k++) {
      const v = this.views[k];
      if (!v) {
        this.standSince[k] = NaN;
        this.prevX[k] = NaN;
        this.seen[k] = 0;
        continue;
      }
      if (this.lastX[k] === this.lastX[k]) this.traveledM[k] += Math.hypot(v.x - this.lastX[k], v.y - this.lastY[k]);
      // the previous step's place only if it was seen there (not from before a gap in its reports)
      this.prevX[k] = this.seen[k] ? this.lastX[k] : NaN;
      this.prevY[k] = this.lastY[k];
      this.prevYaw[k] = this.lastYaw[k];
      this.seen[k] = 1;
      this.lastX[k] = v.x;
      this.lastY[k] = v.y;
      this.lastYaw[k] = v.yaw;
      if (v.speed >= STANDSTILL_MPS) this.standSince[k] = NaN;
      else if (this.standSince[k] !== this.standSince[k]) this.standSince[k] = this.t;
    }
  }

  view(id: string): StoryVehicle | null {
    const k = this.refs.refIndex.get(id);
    return k === undefined ? null : this.views[k];
  }

  headingOf(v: StoryVehicle): number {
    if (v instanceof ScriptedActor) return v.lane >= 0 ? v.laneYaw : v.yaw;
    const p = this.net.locate(v.x, v.y, v.yaw, 4, this.found);
    return p ? this.net.headingAt(p.lane, p.s) : v.yaw;
  }

  traveled(id: string): number {
    const k = this.refs.refIndex.get(id);
    return k === undefined || !this.views[k] ? NaN : this.traveledM[k];
  }

  standingFor(id: string): number {
    const k = this.refs.refIndex.get(id);
    return k === undefined ? NaN : this.t - this.standSince[k];
  }

  pointOf(p: PointSpec): Readonly<Pose> {
    return this.refs.points.get(p) ?? NO_POINT;
  }

  previous(id: string): { readonly x: number; readonly y: number; readonly yaw: number } | null {
    const k = this.refs.refIndex.get(id);
    if (k === undefined || this.prevX[k] !== this.prevX[k]) return null;
    const w = this.was;
    w.x = this.prevX[k];
    w.y = this.prevY[k];
    w.yaw = this.prevYaw[k];
    return w;
  }

  routeS(id: string, route: readonly string[]): number {
    const v = this.view(id);
    const r = this.refs.routes.get(route);
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
    const e = this.events.get(id);
    if (!e) return NaN;
    return state === 'started' ? e.lastStart : e.doneAt;
  }
}
