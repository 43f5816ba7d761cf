/**
 * Pass/fail criteria, judged every step from the story's start and settled when the attempt ends. Safety
 * criteria (no_collision, min_ttc, min_distance, peak_decel) fail the moment they are violated and pass at the
 * end if they never were; goal criteria (stopped_before, reach) pass the moment they are met and fail when
 * they can no longer be (the ego passed the point, the time ran out) or at the end. The measured value is
 * kept (the minimum TTC so far and when, …). min_ttc is the TTC of geometry.ts to vehicles in the ego's path
 * (the boxes overlapping across its lane direction): a car passing in the next lane is not a near miss.
 */
import { EPS_T, STANDSTILL_MPS, type StoryContext } from './conditions.js';
import { along, boxGap, overlaps, ttcOf, type Along } from './geometry.js';
import type { CriterionSpec } from './spec.js';
import type { StoryVehicle, Verdict } from './world.js';

/** stopped_before counts a stop only once the ego has moved faster than this [m/s] (it may stand at the start) */
const ARMED_MPS = 1;

const UNITS: Record<CriterionSpec['kind'], string> = {
  no_collision: '', min_ttc: 's', min_distance: 'm', stopped_before: 'm', peak_decel: 'm/s²', reach: 'm',
};

const m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };

export class CriterionRun {
  verdict: Verdict = 'pending';
  /** the measured value (NaN: none yet), or the id of the vehicle hit */
  value = NaN;
  hit = '';
  /** when the value was measured / the verdict decided (NaN: not yet) */
  at = NaN;
  detail = '';
  private armed = false;

  constructor(readonly spec: CriterionSpec) {}

  get unit(): string {
    return UNITS[this.spec.kind];
  }

  get limit(): number | null {
    const s = this.spec;
    return s.kind === 'min_ttc' || s.kind === 'min_distance' || s.kind === 'peak_decel' ? s.limit : s.kind === 'stopped_before' ? s.margin : s.kind === 'reach' ? s.radius : null;
  }

  /** Judges the state at ctx.t; returns the verdict when it changed this step, else null. */
  evaluate(ctx: StoryContext): Verdict | null {
    const s = this.spec;
    const ego = ctx.view(s.ego);
    if (!ego) return null;
    const before = this.verdict;
    switch (s.kind) {
      case 'no_collision': {
        if (this.verdict !== 'pending') break;
        const other = this.others(ctx, ego, s.with);
        for (const o of other) {
          if (o && overlaps(ego, o)) {
            this.fail(ctx.t, NaN, `${s.ego} hit ${o.id}`);
            this.hit = o.id;
            break;
          }
        }
        break;
      }
      case 'min_ttc':
      case 'min_distance': {
        const th = ctx.headingOf(ego);
        for (const o of this.others(ctx, ego, s.to)) {
          if (!o) continue;
          let x: number;
          if (s.kind === 'min_ttc') {
            along(ego, o, th, m);
            x = m.inPath ? ttcOf(m) : Infinity;
          } else x = boxGap(ego, o);
          if (!(x >= this.value)) {
            this.value = x;
            this.at = ctx.t;
            this.hit = o.id;
          }
        }
        if (this.verdict === 'pending' && this.value < s.limit) this.fail(this.at, this.value, `${s.kind === 'min_ttc' ? 'TTC' : 'distance'} to ${this.hit} ${this.value.toFixed(2)} ${this.unit} < ${s.limit} ${this.unit}`);
        break;
      }
      case 'peak_decel': {
        const d = 0 - ego.accel; // not -accel: -0 does not survive JSON
        if (!(d <= this.value)) {
          this.value = d;
          this.at = ctx.t;
        }
        if (this.verdict === 'pending' && this.value > s.limit) this.fail(this.at, this.value, `deceleration ${this.value.toFixed(2)} m/s² > ${s.limit} m/s²`);
        break;
      }
      case 'stopped_before': {
        if (this.verdict !== 'pending') break;
        if (ego.speed > ARMED_MPS) this.armed = true;
        const d = this.distanceAhead(ctx, ego);
        if (Number.isNaN(d)) break;
        this.value = d;
        this.at = ctx.t;
        if (d < s.margin) this.fail(ctx.t, d, `${s.ego} ${d < 0 ? 'passed' : 'came within'} ${d < 0 ? 'the point' : `${d.toFixed(2)} m of the point`} (margin ${s.margin} m) before it stopped`);
        else if (this.armed && ego.speed < STANDSTILL_MPS) this.pass(ctx.t, d, `stopped ${d.toFixed(2)} m before the point`);
        break;
      }
      case 'reach': {
        if (this.verdict !== 'pending') break;
        const p = ctx.pointOf(s.point);
        const d = Math.hypot(ego.x - p.x, ego.y - p.y);
        if (!(d >= this.value)) this.value = d;
        if (ctx.t - ctx.t0 > s.within + EPS_T) this.fail(ctx.t, this.value, `not within ${s.radius} m after ${s.within} s (closest ${this.value.toFixed(2)} m)`);
        else if (d <= s.radius) this.pass(ctx.t, d, `reached at ${(ctx.t - ctx.t0).toFixed(2)} s of story time`);
        break;
      }
    }
    return this.verdict !== before ? this.verdict : null;
  }

  /** Settles a pending criterion at the end; returns the verdict when it changed. */
  settle(ctx: StoryContext): Verdict | null {
    if (this.verdict !== 'pending') return null;
    const s = this.spec;
    if (s.kind === 'stopped_before') {
      const ego = ctx.view(s.ego);
      if (ego && this.armed && ego.speed < STANDSTILL_MPS && this.value >= s.margin) this.pass(ctx.t, this.value, `standing ${this.value.toFixed(2)} m before the point at the end`);
      else this.fail(ctx.t, this.value, `${s.ego} had not stopped before the point when the attempt ended`);
    } else if (s.kind === 'reach') this.fail(ctx.t, this.value, `not reached when the attempt ended (closest ${this.value.toFixed(2)} m)`);
    else this.pass(this.at, this.value, s.kind === 'no_collision' ? 'no contact' : '');
    return this.verdict;
  }

  private fail(t: number, value: number, detail: string): void {
    this.verdict = 'fail';
    this.at = t;
    this.value = value;
    this.detail = detail;
  }

  private pass(t: number, value: number, detail: string): void {
    this.verdict = 'pass';
    this.at = t;
    this.value = value;
    this.detail = detail;
  }

  /** The vehicles to judge against: one named, or all present. */
  private others(ctx: StoryContext, ego: StoryVehicle, id: string | null): readonly (StoryVehicle | null)[] {
    if (id !== null) {
      one[0] = ctx.view(id);
      return one;
    }
    all.length = 0;
    for (const o of ctx.all) if (o !== ego && o.id !== ego.id) all.push(o);
    return all;
  }

  /** How far the ego's front bumper is before the point along its heading (before the other's near end for a vehicle). */
  private distanceAhead(ctx: StoryContext, ego: StoryVehicle): number {
    const s = this.spec as CriterionSpec & { kind: 'stopped_before' };
    if (s.point.kind === 'vehicle') {
      const o = ctx.view(s.point.id);
      if (!o) return NaN;
      along(ego, o, ego.yaw, m);
      return m.lon > 0 ? m.gap : -Infinity;
    }
    const p = ctx.pointOf(s.point);
    return (p.x - ego.x) * Math.cos(ego.yaw) + (p.y - ego.y) * Math.sin(ego.yaw) - ego.length / 2;
  }
}

const one: (StoryVehicle | null)[] = [null];
const all: StoryVehicle[] = [];
