/**
 * Results a reader can trust: for every criterion kind, passed and failed, the numbers in its detail are its
 * value, limit and time as the result gives them (parsed back out of the words), the relation printed holds for
 * the printed numbers and agrees with the verdict, a failed safety criterion's value is the worst over the
 * judged window (it keeps tracking after the failure) with the first breach said apart, the attempt's reason
 * names the criterion that failed first with its figure, and a figure is never rounded onto the other side of
 * its limit. On the straight test road, the ego moved by the test (CCRb-like: the lead 12 m ahead brakes).
 */
import { describe, expect, it } from 'vitest';
import { parseStory } from '../../../src/scenario/story/parse.js';
import { CriterionRun, type CriterionResult } from '../../../src/scenario/story/criteria.js';
import { attemptLines } from '../../../src/scenario/story/report/index.js';
import type { ActorPose } from '../../../src/scenario/story/world.js';
import { ego, runStory, straightRoad, ttcAhead } from './roads.js';

const road = straightRoad(2);

const story = {
  actors: [{ id: 'lead', start: { ahead_of: 'sim1', gap_m: 12, speed_kmh: 50 } }],
  events: [{ id: 'brake', trigger: { after_s: 1 }, actions: [{ actor: 'lead', speed: { target_kmh: 0, accel_mps2: 6 } }] }],
  criteria: [
    { no_collision: 'sim1' },
    { min_ttc: { ego: 'sim1', to: 'lead', s: 1.5 } },
    { min_distance: { ego: 'sim1', to: 'lead', m: 0.5 } },
    { peak_decel: { ego: 'sim1', max_mps2: 10 } },
    { stopped_before: { ego: 'sim1', point: { actor: 'lead' } } },
    { stopped_before: { ego: 'sim1', point: { lane: 'R', s_m: 400 }, margin_m: 2 }, name: 'before_400' },
    { reach: { ego: 'sim1', point: { lane: 'R', s_m: 120 }, radius_m: 2, within_s: 5 }, name: 'reach_near' },
  ],
  end: { any: [{ collision: 'sim1' }, { stopped: { of: 'sim1', for_s: 1 } }, { after_s: 20 }] },
};

/** a point too far to reach in time: fails whatever the ego does */
const far = { reach: { ego: 'sim1', point: { lane: 'R', s_m: 600 }, radius_m: 2, within_s: 3 }, name: 'reach_far' };

/** brakes at `decel` once its TTC to the lead is below 2 s; 0: never brakes */
function run(decel: number, criteria: unknown[] = story.criteria) {
  const e = ego(100, 50);
  return runStory({ ...story, criteria }, road, [e], (_t: number, poses: readonly ActorPose[]) => (decel > 0 && ttcAhead(e, poses[0]) < 2 ? -decel : 0)).result;
}

/** the relation a printed comparison states, on the printed numbers */
function holds(rel: string, a: number, b: number): boolean {
  return rel === '<' ? a < b : rel === '≥' ? a >= b : rel === '>' ? a > b : a <= b;
}

/** value <unit> <rel> <limit> <unit> … at <t> s: the first comparison of a detail and its time */
const FIGURES = /(-?\d+(?:\.\d+)?) (\S+) ([<>≥≤]) (-?\d+(?:\.\d+)?) (\S+) (?:.*? )??at (\d+\.\d\d) s/;

/** The detail's numbers are the result's: parsed back, they equal value, limit and at_s as printed. */
function checkDetail(c: CriterionResult): void {
  const where = `${c.name} (${c.verdict}): ${c.detail}`;
  if (c.kind === 'no_collision') {
    if (c.verdict === 'fail') expect(c.detail, where).toBe(`sim1 hit ${String(c.value)} at ${c.at_s!.toFixed(2)} s`);
    else expect([c.value, c.detail], where).toEqual([null, 'no contact']);
    return;
  }
  expect(c.at_s, where).not.toBeNull();
  if (c.value === null) {
    expect(c.detail, where).toContain(`at ${c.at_s!.toFixed(2)} s`);
    return;
  }
  const m = FIGURES.exec(c.detail);
  expect(m, where).not.toBeNull();
  const [, value, unit, rel, limit, unit2, at] = m!;
  const decimals = value.split('.')[1]?.length ?? 0;
  expect(Math.abs(Number(value) - (c.value as number)), where).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-12);
  expect([unit, unit2], where).toEqual([c.unit, c.unit]);
  expect(Number(limit), where).toBe(c.limit);
  expect(at, where).toBe(c.at_s!.toFixed(2));
  // what is printed holds of the printed numbers, and of the measured one
  expect(holds(rel, Number(value), Number(limit)), where).toBe(true);
  expect(holds(rel, c.value as number, c.limit!), where).toBe(true);
  // and it is the verdict's side of the limit (stopped_before may also fail by not having stopped: then ≥)
  const passes = c.kind === 'peak_decel' || c.kind === 'reach' ? rel === '≤' : rel === '≥';
  if (c.verdict === 'pass' || c.kind !== 'stopped_before') expect(passes, where).toBe(c.verdict === 'pass');
}

describe('story verdicts: the detail agrees with value, limit and at_s', () => {
  const braking = run(9);
  const hard = run(11);
  const blind = run(0);
  const late = run(9, [far]);

  it('covers every kind passed and failed', () => {
    const seen = new Set<string>();
    for (const r of [braking, hard, blind, late]) for (const c of r.criteria) seen.add(`${c.kind} ${c.verdict}`);
    for (const kind of ['no_collision', 'min_ttc', 'min_distance', 'peak_decel', 'stopped_before', 'reach']) {
      expect(seen.has(`${kind} pass`), kind).toBe(true);
      expect(seen.has(`${kind} fail`), kind).toBe(true);
    }
  });

  it('for every criterion of every run, passed or failed', () => {
    for (const r of [braking, hard, blind, late]) for (const c of r.criteria) checkDetail(c);
  });

  it('a failed safety criterion: its value is the worst over the attempt and at_s when it was worst; the detail says when it first broke the limit', () => {
    const ttc = blind.criteria.find((c) => c.kind === 'min_ttc')!;
    const hit = blind.criteria.find((c) => c.kind === 'no_collision')!;
    expect(ttc).toMatchObject({ verdict: 'fail', value: 0, at_s: hit.at_s });
    const first = /; first below 1\.5 s at (\d+\.\d\d) s: (\d+\.\d+) s to lead$/.exec(ttc.detail);
    expect(first, ttc.detail).not.toBeNull();
    expect(Number(first![1])).toBeLessThan(ttc.at_s!);
    expect(Number(first![2])).toBeLessThan(1.5);
    expect(Number(first![2])).toBeGreaterThan(0);
    const decel = hard.criteria.find((c) => c.kind === 'peak_decel')!;
    expect(decel.verdict).toBe('fail');
    expect(decel.value).toBeCloseTo(11, 6);
  });

  it('the reason of a failed attempt names the criterion that failed first and its figure; why it ended is ended_by', () => {
    expect(braking).toMatchObject({ status: 'passed', reason: 'end condition', ended_by: 'end condition' });
    expect(hard.status).toBe('failed');
    const decel = hard.criteria.find((c) => c.kind === 'peak_decel')!;
    // the first breach: when it first went past the limit, at or before the peak
    const breach = /^peak_decel failed: deceleration 11\.00 m\/s² > 10 m\/s² at (\d+\.\d\d) s$/.exec(hard.reason);
    expect(breach, hard.reason).not.toBeNull();
    expect(Number(breach![1])).toBeLessThanOrEqual(decel.at_s!);
    expect(blind.reason).toMatch(/^min_ttc failed: TTC to lead \d\.\d\d s < 1\.5 s at \d+\.\d\d s; also failed: /);
    expect(blind.ended_by).toBe('end condition');
    const reach = late.criteria[0];
    expect(late.reason).toBe(`reach_far failed: ${reach.detail}`);
    expect(reach.detail).toMatch(/^closest \d+\.\d\d m > 2 m of the point at 3\.10 s: not within the radius 3 s into the story$/);
  });

  it('a figure never reads on the other side of its limit: 0.9996 s against 1 s is not "1.00 s < 1 s"', () => {
    const c = new CriterionRun(parseStory({ criteria: [{ min_ttc: { ego: 'sim1', s: 1 } }] }, 'x').criteria[0]);
    Object.assign(c, { verdict: 'fail', value: 0.9996, at: 14.2, hit: 'cutter', firstValue: 0.9996, firstAt: 14.2, firstHit: 'cutter', decidedAt: 14.2 });
    expect(c.detail).toBe('TTC to cutter 0.9996 s < 1 s at 14.20 s, the minimum');
    expect(c.breach).toBe('TTC to cutter 0.9996 s < 1 s at 14.20 s');
    Object.assign(c, { verdict: 'pass', value: 1.00004, firstValue: NaN, firstAt: NaN });
    expect(c.detail).toBe('TTC to cutter 1.00004 s ≥ 1 s at 14.20 s, the minimum');
    checkDetail(c.toResult());
  });

  it('the terminal says a criterion with no value in words', () => {
    const text = attemptLines({
      status: 'not_started', reason: 'start timeout: the start gate did not open within 10 s', ended_by: 'start timeout: the start gate did not open within 10 s', start_s: 0, end_s: 10, events: [],
      criteria: [{ ...new CriterionRun(parseStory({ criteria: [{ min_ttc: { ego: 'sim1', s: 1 } }] }, 'x').criteria[0]).toResult(), detail: 'not judged: the attempt never started' }],
    });
    expect(text).toContain('pending  min_ttc: not measured (pass if ≥ 1 s) — not judged: the attempt never started');
    expect(text).not.toContain('— —');
  });
});
