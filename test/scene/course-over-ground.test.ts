/**
 * A car without a heading (issue 27, item 4): the ego registry derives the yaw of reports that leave it out from
 * the course over ground between the ego's fixes, holds it at standstill and under GNSS jitter, and lets a
 * reported heading win. Pure: the registry alone, on simulation time, with a stub of the lanes.
 */
import { describe, expect, it } from 'vitest';
import {
  COURSE_MIN_DISPLACEMENT_M, COURSE_MIN_SPEED_MPS, DEFAULT_SCENE_CONFIG, EgoRegistry, type EgoReport, type EgoState,
} from '../../src/scene/index.js';

const registry = (lanes?: ConstructorParameters<typeof EgoRegistry>[2]) => new EgoRegistry({ ...DEFAULT_SCENE_CONFIG }, () => {}, lanes);
/** a report without a heading */
const fix = (x: number, y: number, speed: number, extra: Partial<EgoReport> = {}): EgoReport => ({ egoId: 'car', x, y, speed, ...extra });
const ego = (r: EgoRegistry, t: number): EgoState => r.list(t)[0];
/** fixes at 10 Hz from t0 (so no gap exceeds ego_timeout_s); the time of the last */
const feed = (r: EgoRegistry, fixes: readonly EgoReport[], t0 = 0): number => {
  let t = t0;
  fixes.forEach((f, k) => r.update(f, (t = t0 + k * 0.1)));
  return t;
};

describe('course over ground for an ego without a heading', () => {
  it('the thresholds are walking pace and a baseline longer than receiver noise', () => {
    expect(COURSE_MIN_SPEED_MPS).toBe(1);
    expect(COURSE_MIN_DISPLACEMENT_M).toBe(2);
  });

  it('a straight drive without heading gives the course (north-east, then west)', () => {
    const r = registry();
    // 28 m/s to the north-east: 2 m per fix on each axis (2.8 m per fix, above the baseline)
    let t = feed(r, Array.from({ length: 6 }, (_, k) => fix(2 * k, 2 * k, 28)));
    expect(ego(r, t).headingSource).toBe('course');
    expect(ego(r, t).yaw).toBeCloseTo(Math.PI / 4, 12);
    // it turns west: after the baseline the course is west
    t = feed(r, Array.from({ length: 4 }, (_, k) => fix(10 - 2.5 * (k + 1), 10, 25)), t + 0.1);
    expect(ego(r, t).headingSource).toBe('course');
    expect(Math.abs(ego(r, t).yaw)).toBeCloseTo(Math.PI, 12);
    // and the ego is moved along that course between reports (turning a little: the fixes' yaw rate, bounded)
    expect(Math.abs(ego(r, t + 0.1).x - (0 - 2.5))).toBeLessThan(0.1);
    expect(Math.abs(ego(r, t + 0.1).y - 10)).toBeLessThan(0.1);
  });

  it('needs the minimum displacement: a slow 10 Hz drive takes the course from the fix 2 m back', () => {
    const r = registry();
    // 1.2 m/s east: 0.12 m per fix; the course needs 17 fixes (2.04 m)
    const sources: string[] = [];
    for (let k = 0; k <= 20; k++) {
      r.update(fix(0.12 * k, 0.0, 1.2), k * 0.1);
      sources.push(ego(r, k * 0.1).headingSource!);
    }
    expect(sources.slice(0, 17).every((s) => s === 'none')).toBe(true);
    expect(sources[17]).toBe('course');
    expect(sources.slice(18)).toEqual(['held', 'held', 'held']);
    expect(ego(r, 2).yaw).toBeCloseTo(0, 12);
  });

  it('standstill holds the last course, and the ego stays where it was reported', () => {
    const r = registry();
    let t = feed(r, Array.from({ length: 5 }, (_, k) => fix(0, 2 * k, 20)));
    expect(ego(r, t)).toMatchObject({ headingSource: 'course' });
    const yaw = ego(r, t).yaw;
    expect(yaw).toBeCloseTo(Math.PI / 2, 12);
    t = feed(r, Array.from({ length: 30 }, () => fix(0, 8, 0)), t + 0.1);
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw, x: 0, y: 8 });
  });

  it('jitter below the thresholds does not move it: noise at standstill, and small steps while moving', () => {
    const r = registry();
    let t = feed(r, Array.from({ length: 4 }, (_, k) => fix(3 * k, 0, 30)));
    expect(ego(r, t).yaw).toBeCloseTo(0, 12);
    // standing (speed 0), the fix wanders by up to 3 m: larger than the baseline, but the car reports no speed
    const wander = [[9, 3], [6, -3], [12, 2], [9, 0], [7, 3]];
    t = feed(r, wander.map(([x, y]) => fix(x, y, 0)), t + 0.1);
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw: 0 });
    // creeping at 0.5 m/s (below the speed threshold) to the north for 4 m: held
    t = feed(r, Array.from({ length: 8 }, (_, k) => fix(7, 3 + 0.5 * (k + 1), 0.5)), t + 0.1);
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw: 0 });
    // moving (2 m/s reported) with the fix jittering within ±0.8 m of a point: never 2 m from the anchor
    const jitter = [[7.8, 7], [6.2, 7.5], [7, 6.3], [7.5, 7.8], [6.5, 6.6], [7.2, 7.1]];
    t = feed(r, jitter.map(([x, y]) => fix(x, y, 2)), t + 0.1);
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw: 0 });
  });

  it('a reported heading wins, and is held when the next fixes leave it out', () => {
    const r = registry();
    let t = feed(r, Array.from({ length: 4 }, (_, k) => fix(3 * k, 0, 30)));
    expect(ego(r, t).headingSource).toBe('course');
    // the fixes go east but the car says south-east: the car's heading is used as it is
    r.update(fix(12, 0, 30, { yaw: -Math.PI / 4 }), (t += 0.1));
    expect(ego(r, t)).toMatchObject({ headingSource: 'reported', yaw: -Math.PI / 4 });
    r.update(fix(14.5, 0, 30, { yaw: 0.3 }), (t += 0.1));
    expect(ego(r, t)).toMatchObject({ headingSource: 'reported', yaw: 0.3 });
    // its heading drops out: held, then the course from the last reported fix once 2 m away
    r.update(fix(15.5, 0, 30), (t += 0.1));
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw: 0.3 });
    r.update(fix(14.5, 3, 30), (t += 0.1));
    expect(ego(r, t).headingSource).toBe('course');
    expect(ego(r, t).yaw).toBeCloseTo(Math.PI / 2, 12);
  });

  it('after a silence longer than ego_timeout_s the course starts again from the next fix', () => {
    const r = registry();
    let t = feed(r, Array.from({ length: 3 }, (_, k) => fix(3 * k, 0, 30)));
    expect(ego(r, t).yaw).toBeCloseTo(0, 12);
    // 5 s later it reappears 100 m north: the chord is not its course
    r.update(fix(6, 100, 30), (t += 5));
    expect(ego(r, t)).toMatchObject({ headingSource: 'held', yaw: 0 });
    r.update(fix(6, 97, 30), (t += 0.1));
    expect(ego(r, t).headingSource).toBe('course');
    expect(ego(r, t).yaw).toBeCloseTo(-Math.PI / 2, 12);
  });

  it('before any heading: the nearest lane\'s direction, else grid north (not extrapolated)', () => {
    const lanes = {
      locate: (x: number) => (x < 100 ? { lane: 0, s: x, offset: 0 } : null),
      headingAt: () => 2.5,
    };
    const r = registry(lanes);
    r.update(fix(10, 0, 5), 0);
    expect(ego(r, 0)).toMatchObject({ headingSource: 'lane', yaw: 2.5 });
    // a lane direction is a guess, not a heading: on the next fix it is looked up again, never "held"
    r.update(fix(500, 0, 0), 0.1);
    expect(ego(r, 0.1)).toMatchObject({ headingSource: 'none', yaw: Math.PI / 2 });
    expect(ego(r, 0.5)).toMatchObject({ x: 500, y: 0 });
    const none = registry();
    none.update(fix(10, 0, 5), 0);
    expect(ego(none, 0.3)).toMatchObject({ headingSource: 'none', x: 10, y: 0 });
  });

  it('the same reports give the same yaw bit for bit (what a replay of the input log relies on)', () => {
    const reports = Array.from({ length: 50 }, (_, k) => fix(Math.sin(k / 7) * 20 + 0.37 * k, k * 1.3 + Math.cos(k) * 0.4, k % 9 < 3 ? 0.4 : 8));
    const run = () => {
      const r = registry();
      return reports.map((f, k) => {
        r.update(f, k * 0.1);
        const e = ego(r, k * 0.1);
        return [e.yaw, e.headingSource, e.x, e.y];
      });
    };
    const a = run();
    expect(Object.is(a[49][0], run()[49][0])).toBe(true);
    expect(run()).toEqual(a);
    expect(new Set(a.map((s) => s[1]))).toEqual(new Set(['none', 'course', 'held']));
  });
});
