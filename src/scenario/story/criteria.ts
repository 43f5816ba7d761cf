/**
 * Pass/fail criteria, judged every step from the story's start and settled when the attempt ends. Safety
 * criteria (no_collision, min_ttc, min_distance, peak_decel) fail the moment they are violated and pass at the
 * end if they never were; goal criteria (stopped_before, reach) pass the moment they are met and fail when
 * they can no longer be (the ego passed the point, the time ran out) or at the end. min_ttc is the TTC of
 * geometry.ts to vehicles in the ego's path (the boxes overlapping across its lane direction): a car passing in
 * the next lane is not a near miss.
 *
 * What a result says (one rule for every kind): a safety criterion's value is the worst over the judged window
 * (from the story's start to its end, so it keeps tracking after a failure) and `at` when it was worst; when it
 * failed, the first value past the limit is kept apart (`first`), for the detail and the attempt's reason. A
 * goal criterion's value is the measurement that decided it (the distance it stopped at, the closest it came)
 * and `at` when it was measured. The detail is written from these fields when asked (criterion-text.ts), so it
 * never disagrees with them.
 */
import { EPS_T, STANDSTILL_MPS, type StoryContext } from './conditions.js';
import { describeCriterion, firstBreach, type GoalHow } from './criterion-text.js';
import { along, boxGap, overlaps, ttcOf, type Along } from './geometry.js';
import type { CriterionSpec } from './spec.js';
import type { AttemptResult, StoryVehicle, Verdict } from './world.js';

export type CriterionResult = AttemptResult['criteria'][number];

/** stopped_before counts a stop only once the ego has moved faster than this [m/s] (it may stand at the start) */
const ARMED_MPS = 1;

const UNITS: Record<CriterionSpec['kind'], string> = {
  no_collision: '', min_ttc: 's', min_distance: 'm', stopped_before: 'm', peak_decel: 'm/s²', reach: 'm',
};

/** How a goal criterion was decided (or stands while pending). */
export type { GoalHow };

const m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };

export class CriterionRun {
  verdict: Verdict = 'pending';
  /** the measured value (see the header; NaN: none yet) */
  value = NaN;
  /** the vehicle it was measured against (min_ttc, min_distance), or the one hit (no_collision) */
  hit = '';
  /** when the value was measured [s] (NaN: not yet) */
  at = NaN;
  /** a failed safety criterion: the first value past the limit, when, and against whom */
  firstValue = NaN;
  firstAt = NaN;
  firstHit = '';
  /** when the verdict was decided [s] (NaN: pending) */
  decidedAt = NaN;
  /** when the story started [s] (reach counts its time from there) */
  t0 = NaN;
  how: GoalHow = '';
  private armed = false;

  constructor(readonly spec: CriterionSpec) {}

  get unit(): string {
    return UNITS[this.spec.kind];
  }

  get limit(): number | null {
    const s = this.spec;
    return s.kind === 'min_ttc' || s.kind === 'min_distance' || s.kind === 'peak_decel' ? s.limit : s.kind === 'stopped_before' ? s.margin : s.kind === 'reach' ? s.radius : null;
  }

  /** what the result says, written now from the fields */
  get detail(): string {
    return describeCriterion(this);
  }

  /** for a failed criterion, the reason of the attempt: the first breach with its figure and time */
  get breach(): string {
    return firstBreach(this);
  }

  /** The result's entry (JSON-serialisable: infinities are null). */
  toResult(): CriterionResult {
    const num = (x: number) => (Number.isFinite(x) ? x : null);
    return {
      name: this.spec.name, kind: this.spec.kind, verdict: this.verdict,
      value: this.spec.kind === 'no_collision' ? (this.hit || null) : num(this.value),
      limit: this.limit, unit: this.unit, at_s: num(this.at), detail: this.detail,
    };
  }

  /** Judges the state at ctx.t; returns the verdict when it changed this step, else null. */
  evaluate(ctx: StoryContext): Verdict | null {
    const s = this.spec;
    this.t0 = ctx.t0;
    const ego = ctx.view(s.ego);
    if (!ego) return null;
    const before = this.verdict;
    switch (s.kind) {
      case 'no_collision': {
        if (this.verdict !== 'pending') break;
        for (const o of this.others(ctx, ego, s.with)) {
          if (o && overlaps(ego, o)) {
            this.hit = this.firstHit = o.id;
            this.at = this.firstAt = ctx.t;
            this.decide('fail', ctx.t);
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
          if (!(x >= this.value)) this.measure(x, ctx.t, o.id);
        }
        if (this.verdict === 'pending' && this.value < s.limit) this.breaks(ctx.t);
        break;
      }
      case 'peak_decel': {
        const d = 0 - ego.accel; // not -accel: -0 does not survive JSON
        if (!(d <= this.value)) this.measure(d, ctx.t, '');
        if (this.verdict === 'pending' && this.value > s.limit) this.breaks(ctx.t);
        break;
      }
      case 'stopped_before': {
        if (this.verdict !== 'pending') break;
        if (ego.speed > ARMED_MPS) this.armed = true;
        const d = this.distanceAhead(ctx, ego);
        if (Number.isNaN(d)) break;
        this.measure(d, ctx.t, '');
        if (d < s.margin) this.decide('fail', ctx.t, d === -Infinity ? 'past' : 'within');
        else if (this.armed && ego.speed < STANDSTILL_MPS) this.decide('pass', ctx.t, 'stopped');
        break;
      }
      case 'reach': {
        if (this.verdict !== 'pending') break;
        const p = ctx.pointOf(s.point);
        const d = Math.hypot(ego.x - p.x, ego.y - p.y);
        if (!(d >= this.value)) this.measure(d, ctx.t, '');
        if (ctx.t - ctx.t0 > s.within + EPS_T) this.decide('fail', ctx.t, 'timeout');
        else if (d <= s.radius) this.decide('pass', ctx.t, 'reached');
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
      if (ego && this.armed && ego.speed < STANDSTILL_MPS && this.value >= s.margin) this.decide('pass', ctx.t, 'standing');
      else this.decide('fail', ctx.t, this.armed ? 'not_stopped' : 'never_moved');
    } else if (s.kind === 'reach') this.decide('fail', ctx.t, 'not_reached');
    else this.decide('pass', ctx.t);
    return this.verdict;
  }

  private measure(x: number, t: number, hit: string): void {
    this.value = x;
    this.at = t;
    this.hit = hit;
  }

  /** a safety criterion broke its limit at t: it fails, and the breach is kept apart from the worst to come */
  private breaks(t: number): void {
    this.firstValue = this.value;
    this.firstAt = this.at;
    this.firstHit = this.hit;
    this.decide('fail', t);
  }

  private decide(v: Verdict, t: number, how: GoalHow = ''): void {
    this.verdict = v;
    this.decidedAt = t;
    this.how = how;
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
