/**
 * Trigger conditions, evaluated on the state at the start of a step (StoryContext, kept by the runner). A
 * condition on a vehicle that is absent (not in the snapshot) is false. Comparisons: `below` is strict (<),
 * `above` and `speed.above` mean reached (≥). `all` is one OpenSCENARIO ConditionGroup, `any` a Trigger's list
 * of ConditionGroups; they nest freely here (an exporter writes them in disjunctive normal form).
 */
import { figureAgainst, kmhGiven } from './figures.js';
import { along, boxGap, headwayOf, overlaps, ttcOf, type Along } from './geometry.js';

import type { Condition, PointSpec } from './spec.js';
import type { HappeningKind, StoryVehicle } from './world.js';
import type { Pose } from '../../vehicle/index.js';

/** below this a vehicle is standing [m/s] */
export const STANDSTILL_MPS = 0.05;
/** slack on times compared with a condition's seconds, for sums of steps [s] */
export const EPS_T = 1e-9;
/**
 * how far either side of its lane's centre line a start line reaches [m]: a lane's width (3.5 m) — a car in the
 * next lane crossing at the same s does not open the gate
 */
export const START_LINE_HALF_WIDTH_M = 1.75;

/** What conditions and criteria read (state.ts keeps it for the runner). */
export interface StoryContext {
  /** simulation time of the state [s] */
  readonly t: number;
  /** when the story was placed [s] */
  readonly t0: number;
  view(id: string): StoryVehicle | null;
  /** every vehicle present: the story's actors and the world's others (each once) */
  readonly all: readonly StoryVehicle[];
  /** the direction of the lane the vehicle is on (its yaw when it is on none) */
  headingOf(v: StoryVehicle): number;
  /** metres travelled since the story started */
  traveled(id: string): number;
  /** seconds it has been standing (NaN when moving or absent) */
  standingFor(id: string): number;
  /** a place's map point and its lane's direction there (NaN when its lane is unknown) */
  pointOf(p: PointSpec): Readonly<Pose>;
  /** the vehicle where it was at the previous step (null when it was not seen then, or this is the first step) */
  previous(id: string): { readonly x: number; readonly y: number; readonly yaw: number } | null;
  /** something a condition saw that the attempt's record should say (a start line crossed outside its band) */
  note(kind: HappeningKind, id: string, detail: string): void;
  /** metres along the lane sequence (NaN when not on it) */
  routeS(id: string, route: readonly string[]): number;
  /** when an event last started / completed (NaN: never) */
  eventTime(id: string, state: 'started' | 'done'): number;
}

const m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };

function compare(rule: 'below' | 'above', x: number, value: number): boolean {
  return rule === 'below' ? x < value : x >= value;
}

export function holds(c: Condition, ctx: StoryContext): boolean {
  switch (c.kind) {
    case 'at': return ctx.t >= c.t - EPS_T;
    case 'after': return ctx.t - ctx.t0 >= c.t - EPS_T;
    case 'reach': {
      const v = ctx.view(c.of);
      const p = ctx.pointOf(c.point);
      return v !== null && Math.hypot(v.x - p.x, v.y - p.y) <= c.radius;
    }
    case 'start_line': return crossesStartLine(c, ctx);
    case 'traveled': return ctx.traveled(c.of) >= c.m;
    case 'route_s': return ctx.routeS(c.of, c.route) >= c.m;
    case 'distance': {
      const a = ctx.view(c.from), b = ctx.view(c.to);
      if (!a || !b) return false;
      let d: number;
      if (c.measure === 'gap') d = boxGap(a, b);
      else if (c.measure === 'centres') d = Math.hypot(b.x - a.x, b.y - a.y);
      else {
        along(a, b, ctx.headingOf(a), m);
        if (m.lon <= 0) return false;
        d = m.gap;
      }
      return compare(c.rule, d, c.value);
    }
    case 'headway': {
      const a = ctx.view(c.from), b = ctx.view(c.to);
      if (!a || !b) return false;
      return compare(c.rule, headwayOf(along(a, b, ctx.headingOf(a), m)), c.value);
    }
    case 'ttc': {
      const a = ctx.view(c.from), b = ctx.view(c.to);
      if (!a || !b) return false;
      return ttcOf(along(a, b, ctx.headingOf(a), m)) < c.value;
    }
    case 'speed': {
      const v = ctx.view(c.of);
      return v !== null && compare(c.rule, v.speed, c.value);
    }
    case 'stopped': return ctx.standingFor(c.of) >= c.forS - EPS_T;
    case 'collision': {
      const v = ctx.view(c.of);
      if (!v) return false;
      if (c.with !== null) {
        const w = ctx.view(c.with);
        return w !== null && overlaps(v, w);
      }
      for (const o of ctx.all) if (o !== v && o.id !== v.id && overlaps(v, o)) return true;
      return false;
    }
    case 'event': {
      const at = ctx.eventTime(c.event, c.state);
      return at === at && ctx.t >= at + c.plus - EPS_T;
    }
    case 'all':
      for (const x of c.of) if (!holds(x, ctx)) return false;
      return true;
    case 'any':
      for (const x of c.of) if (holds(x, ctx)) return true;
      return false;
  }
}

/**
 * The start line: the vehicle's front bumper (its centre line's front point) went from before the line to on or
 * past it between the previous step and this one, within the lane's width where it crossed; the gate opens only
 * when the speed then is inside the band, and a crossing outside it is noted (the attempt's record says why the
 * gate stayed closed).
 */
function crossesStartLine(c: Condition & { kind: 'start_line' }, ctx: StoryContext): boolean {
  const v = ctx.view(c.of), was = ctx.previous(c.of);
  const line = ctx.pointOf(c.point);
  if (!v || !was || !Number.isFinite(line.yaw)) return false;
  const ux = Math.cos(line.yaw), uy = Math.sin(line.yaw);
  const half = v.length / 2;
  const bx0 = was.x + half * Math.cos(was.yaw) - line.x, by0 = was.y + half * Math.sin(was.yaw) - line.y;
  const bx1 = v.x + half * Math.cos(v.yaw) - line.x, by1 = v.y + half * Math.sin(v.yaw) - line.y;
  const d0 = bx0 * ux + by0 * uy, d1 = bx1 * ux + by1 * uy;
  if (!(d0 < 0 && d1 >= 0)) return false;
  // where the bumper's path meets the line, across the lane
  const u = -d0 / (d1 - d0);
  const across = -(bx0 + u * (bx1 - bx0)) * uy + (by0 + u * (by1 - by0)) * ux;
  if (Math.abs(across) > START_LINE_HALF_WIDTH_M) return false;
  const lo = c.speed - c.tolerance, hi = c.speed + c.tolerance;
  const inside = v.speed >= lo - 1e-9 && v.speed <= hi + 1e-9;
  const shown = figureAgainst(v.speed * 3.6, [lo * 3.6, hi * 3.6], 1);
  ctx.note('start_line', c.of, `${c.of} crossed the start line at ${shown} km/h, ${inside ? 'within' : 'outside'} ${kmhGiven(c.speed)} ± ${kmhGiven(c.tolerance)} km/h${inside ? '' : ': the gate stays closed'}`);
  return inside;
}
