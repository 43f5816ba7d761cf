/**
 * Vehicle-actuated signals (src/scene/signals/controller.ts, plan.ts actuatePlan): greens that end early when
 * nobody arrives, run to their longest while traffic keeps coming, rest when nobody else waits, skip phases
 * nobody calls, and a plan that runs as fixed time where nothing detects vehicles. Decided on detections the test
 * sets, step by step; the property that the clearances always hold is in signal-plans.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import { SignalController, SignalDetection } from '../../src/scene/signals/controller.js';
import { buildTrafficLayout } from '../../src/scene/junction-kit/layout.js';
import { actuatePlan, ACTUATED_GAP_S, ACTUATED_MIN_GREEN_S, defaultPlan, PLAN_LIMITS, validatePlan, type SignalPlan } from '../../src/scene/signals/plan.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { crossingMap } from '../helpers/junction-maps.js';

function crossing() {
  const map = crossingMap({ signals: true });
  const net = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
  const layout = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
  const cj = layout.junctions.find((c) => c.control === 'signal')!;
  const fixed = defaultPlan(cj, layout, net.lanes);
  const plan = actuatePlan(fixed);
  return { layout, cj, fixed, plan };
}

/** the groups green in a phase of the plan (global indices) */
const greensOf = (plan: SignalPlan, cj: { groups: readonly number[] }, i: number) => cj.groups.filter((_, k) => /[Gg]/.test(plan.phases[i].states[k]));

describe('vehicle-actuated signals', () => {
  it('the default plan made actuated: greens from 5 s to their durations stretched to a 120 s cycle, fixed clearances, valid', () => {
    const { layout, cj, fixed, plan } = crossing();
    expect(validatePlan(plan, cj, layout.groups)).toEqual([]);
    const a = plan.actuated!;
    expect(a.gap_s).toBe(ACTUATED_GAP_S);
    let longest = 0;
    plan.phases.forEach((p, i) => {
      const green = /[Gg]/.test(p.states);
      expect(a.phases[i] === null).toBe(!green);
      if (a.phases[i]) {
        expect(a.phases[i]!.min_s).toBe(ACTUATED_MIN_GREEN_S);
        expect(a.phases[i]!.max_s).toBeGreaterThanOrEqual(fixed.phases[i].duration_s);
      }
      longest += a.phases[i]?.max_s ?? p.duration_s;
    });
    expect(longest).toBeGreaterThan(PLAN_LIMITS.maxCycleS2 - 1);
    expect(longest).toBeLessThanOrEqual(PLAN_LIMITS.maxCycleS2 + 1);
    // refused: a min above its max, an actuated yellow, a gap of 0, a wrong number of entries
    const bad = (f: (p: SignalPlan) => void) => { const p = structuredClone(plan); f(p); return validatePlan(p, cj, layout.groups).join('; '); };
    expect(bad((p) => { p.actuated!.phases[0] = { min_s: 20, max_s: 10 }; })).toMatch(/phase 1: actuated green 20–10 s/);
    expect(bad((p) => { p.actuated!.phases[1] = { min_s: 3, max_s: 4 }; })).toMatch(/phase 2: only a phase with a green can be actuated/);
    expect(bad((p) => { p.actuated!.gap_s = 0; })).toMatch(/gap_s 0/);
    expect(bad((p) => { p.actuated!.phases.pop(); })).toMatch(/one entry per phase/);
  });

  it('a green rests while nobody else calls, gaps out after its minimum once another group calls and nobody arrives, and is held to its longest while traffic keeps coming', () => {
    const { layout, cj, plan } = crossing();
    const ctl = new SignalController(layout, new Map([[cj.junction.id, plan]]));
    const det = new SignalDetection(layout.groups.length);
    const first = greensOf(plan, cj, 0), second = greensOf(plan, cj, 3);
    const green = (gs: number[]) => gs.every((g) => /[Gg]/.test(ctl.code(g)));
    let t = 0;
    const run = (until: number, set: () => void, seen?: () => void) => { for (; t <= until + 1e-9; t = Math.round((t + 0.1) * 10) / 10) { det.clear(); set(); ctl.update(t, det); seen?.(); } };
    // nobody anywhere: the first green rests far beyond its longest
    run(300, () => {});
    expect(green(first)).toBe(true);
    // the second phase calls, nobody arrives on the first: it ends at once (its minimum is long over), yellow, all-red, then the second
    run(300.1, () => second.forEach((g) => (det.call[g] = 1)));
    expect(first.some((g) => ctl.code(g) === 'y')).toBe(true);
    const yellowAt = Math.round((t - 0.1) * 10) / 10; // the step it turned yellow
    let secondAt = NaN;
    run(320, () => second.forEach((g) => (det.call[g] = 1)), () => { if (Number.isNaN(secondAt) && green(second)) secondAt = t; });
    expect(secondAt - yellowAt).toBeCloseTo(plan.phases[1].duration_s + plan.phases[2].duration_s, 5);
    // now traffic keeps arriving on the second while the first calls: the second runs to its longest, not beyond
    const max = plan.actuated!.phases[3]!.max_s;
    let endAt = NaN;
    run(secondAt + max + 10, () => {
      first.forEach((g) => (det.call[g] = 1));
      second.forEach((g) => { det.call[g] = 1; det.arrive[g] = 1; });
    }, () => { if (Number.isNaN(endAt) && second.some((g) => ctl.code(g) === 'y')) endAt = t; });
    expect(endAt - secondAt).toBeCloseTo(max, 5);
    // the first again, resting (nobody else calls); then the second calls while arrivals on the first go on for 12 s
    // more: the first gaps out once they stop (its minimum long over)
    let firstAt = NaN;
    run(endAt + 20, () => first.forEach((g) => (det.call[g] = 1)), () => { if (Number.isNaN(firstAt) && green(first)) firstAt = t; });
    expect(green(first)).toBe(true);
    const t0 = t;
    let gapOut = NaN;
    run(t0 + 60, () => {
      second.forEach((g) => (det.call[g] = 1));
      if (t < t0 + 12) first.forEach((g) => { det.call[g] = 1; det.arrive[g] = 2; });
    }, () => { if (Number.isNaN(gapOut) && first.some((g) => ctl.code(g) === 'y')) gapOut = t; });
    expect(gapOut - t0).toBeGreaterThanOrEqual(12);
    expect(gapOut - t0).toBeLessThanOrEqual(12.2);
    // the time to change a resting green reports its earliest end: never negative
    for (const s of ctl.states()) if (s.time_to_change_s !== null) expect(s.time_to_change_s).toBeGreaterThanOrEqual(0);
  });

  it('a standing queue holds the green only for its first seconds: a queue that does not move (its exit blocked) lets the others go', () => {
    const { layout, cj, plan } = crossing();
    const ctl = new SignalController(layout, new Map([[cj.junction.id, plan]]));
    const det = new SignalDetection(layout.groups.length);
    const first = greensOf(plan, cj, 0), second = greensOf(plan, cj, 3);
    let endAt = NaN;
    for (let k = 0; k <= 600; k++) {
      const t = k / 10;
      det.clear();
      second.forEach((g) => (det.call[g] = 1));
      first.forEach((g) => { det.call[g] = 1; det.queued[g] = 1; });
      ctl.update(t, det);
      if (Number.isNaN(endAt) && first.some((g) => ctl.code(g) === 'y')) endAt = t;
    }
    expect(endAt).toBeGreaterThanOrEqual(ACTUATED_MIN_GREEN_S);
    expect(endAt).toBeLessThanOrEqual(8.2);
  });

  it('a green phase nobody calls is skipped, with its clearances; without detection the plan runs as fixed time', () => {
    const { layout, cj, fixed } = crossing();
    // three greens: the first, the second, the first again (a plan with a phase to skip)
    const p3: SignalPlan = { ...fixed, phases: [...fixed.phases, ...fixed.phases.slice(0, 3)], cycle_s: fixed.cycle_s + fixed.phases.slice(0, 3).reduce((a, p) => a + p.duration_s, 0) };
    const plan = actuatePlan(p3, p3.cycle_s);
    expect(validatePlan(plan, cj, layout.groups)).toEqual([]);
    const ctl = new SignalController(layout, new Map([[cj.junction.id, plan]]));
    const det = new SignalDetection(layout.groups.length);
    const first = greensOf(plan, cj, 0), second = greensOf(plan, cj, 3);
    const seenSecond: number[] = [];
    // only the first calls, and only until its green has gone: the cycle comes round to it without serving the second
    for (let k = 0; k <= 400; k++) {
      const t = k / 10;
      det.clear();
      if (t < 20) second.forEach((g) => (det.call[g] = 1)); // the second calls once, early: it is served once
      first.forEach((g) => (det.call[g] = 1));
      ctl.update(t, det);
      if (second.some((g) => /[Gg]/.test(ctl.code(g)))) seenSecond.push(t);
    }
    expect(seenSecond.length).toBeGreaterThan(0);
    expect(seenSecond[seenSecond.length - 1]).toBeLessThan(20 + plan.actuated!.phases[3]!.max_s);
    // no detection: exactly the fixed-time plan
    const a = new SignalController(layout, new Map([[cj.junction.id, actuatePlan(fixed)]]));
    const b = new SignalController(layout, new Map([[cj.junction.id, fixed]]));
    for (let k = 0; k <= 2400; k++) {
      a.update(k / 10);
      b.update(k / 10);
      expect(a.junctionStates(cj)).toBe(b.junctionStates(cj));
    }
  });
});
