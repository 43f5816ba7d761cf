/**
 * Everything a story names that the map or the scene must have — vehicles, lanes, junctions — gathered once from
 * the spec with the YAML key that names it, so that a missing one is refused before the run with that key
 * (validate.ts), and the vehicles the triggers and criteria follow are numbered for the per-step state
 * (state.ts). Places on a lane and routes are resolved here too: the steps only look them up.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { lanePoseInto } from './geometry.js';
import type { ActionSpec, Condition, PointSpec, StorySpec } from './spec.js';
import type { Pose } from '../../vehicle/index.js';

/** A reference from the story to something the map or the scene must have. */
export interface Use {
  kind: 'vehicle' | 'lane' | 'junction';
  id: string;
  key: string;
}

/** A place on a lane the story names: its lane must be at least s long. */
export interface LaneSpot {
  lane: string;
  s: number;
  key: string;
}

/** A lane sequence of a route_s condition: its lanes (−1 unknown) and the distance to each lane's start. */
export interface RouteLanes {
  lanes: Int32Array;
  base: Float64Array;
}

export class StoryReferences {
  /** the vehicles followed, in the order first named (the actors first) */
  readonly refs: string[] = [];
  readonly refIndex = new Map<string, number>();
  readonly uses: Use[] = [];
  /** places given as {lane, s_m}, for the check that s is on the lane */
  readonly spots: LaneSpot[] = [];
  readonly points = new Map<PointSpec, Pose>();
  readonly routes = new Map<readonly string[], RouteLanes>();

  constructor(spec: StorySpec, private readonly net: LaneNetwork) {
    for (const a of spec.actors) {
      this.ref(a.id);
      if (a.start.kind === 'relative') this.use('vehicle', a.start.of, `${a.key}.start.ahead_of`);
      if (a.start.kind === 'lane') this.use('lane', a.start.lane, `${a.key}.start.lane`);
      if (a.start.kind === 'relative' && typeof a.start.lane === 'object') this.use('lane', a.start.lane.id, `${a.key}.start.lane`);
    }
    for (const e of spec.events) {
      if (e.trigger) this.gather(e.trigger);
      e.actions.forEach((a) => this.gatherAction(a));
    }
    if (spec.end) this.gather(spec.end);
    for (const c of spec.criteria) {
      this.use('vehicle', c.ego, `${c.key}.${c.kind}.ego`);
      if (c.kind === 'no_collision' && c.with) this.use('vehicle', c.with, `${c.key}.no_collision.with`);
      if ((c.kind === 'min_ttc' || c.kind === 'min_distance') && c.to) this.use('vehicle', c.to, `${c.key}.${c.kind}.to`);
      if (c.kind === 'stopped_before' || c.kind === 'reach') {
        if (c.point.kind === 'vehicle') this.use('vehicle', c.point.id, `${c.key}.${c.kind}.point.actor`);
        else this.point(c.point, `${c.key}.${c.kind}.point`);
      }
    }
  }

  private ref(id: string): void {
    if (this.refIndex.has(id)) return;
    this.refIndex.set(id, this.refs.length);
    this.refs.push(id);
  }

  private use(kind: Use['kind'], id: string, key: string): void {
    this.uses.push({ kind, id, key });
    if (kind === 'vehicle') this.ref(id);
  }

  private point(p: PointSpec, key: string): void {
    if (p.kind === 'xy') {
      this.points.set(p, { x: p.x, y: p.y, yaw: NaN });
      return;
    }
    this.use('lane', p.lane, `${key}.lane`);
    this.spots.push({ lane: p.lane, s: p.s, key: `${key}.s_m` });
    const li = this.net.laneById(p.lane);
    if (li < 0) return;
    const pose = { x: 0, y: 0, yaw: 0 };
    lanePoseInto(this.net, li, p.s, pose);
    this.points.set(p, pose);
  }

  private gather(c: Condition): void {
    const k = c.key;
    switch (c.kind) {
      case 'reach': case 'start_line': this.use('vehicle', c.of, `${k}.${c.kind}.of`); this.point(c.point, `${k}.${c.kind}.point`); break;
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
}
