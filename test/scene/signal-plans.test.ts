/**
 * Signal plans and the signal controller (src/scene/signals/plan.ts, controller.ts): the default plans, what a plan
 * or a live state must satisfy, clearances on every transition, and the property that no two conflicting
 * movements are ever green or yellow together — over every junction of K-City and FMTC (all of them signalised for
 * the test) under the plans and random live inputs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import { convertNgii } from '../../src/map/ngii/convert.js';
import { loadMapFile, parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import { SignalController, SignalDetection } from '../../src/scene/signals/controller.js';
import { buildTrafficLayout, type TrafficLayout } from '../../src/scene/junction-kit/layout.js';
import { actuatePlan, defaultPlan, groupsConflict, laneFlows, PLAN_LIMITS, queueStartUpS, stateConflicts, validatePlan, type SignalPlan } from '../../src/scene/signals/plan.js';
import { SATURATION_VPS } from '../../src/scene/signals/signal-params.js';
import { InputError } from '../../src/scene/errors.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { crossingMap } from '../helpers/junction-maps.js';
import { PROJECT_ROOT, sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

function layoutOf(map: LoadedMap, signalAll = false): { layout: TrafficLayout; net: LaneNetwork } {
  const net = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
  return { layout: buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id), { signalAll }), net };
}

function plansOf(layout: TrafficLayout, net: LaneNetwork): Map<string, SignalPlan> {
  const plans = new Map<string, SignalPlan>();
  for (const cj of layout.junctions) if (cj.control === 'signal') plans.set(cj.junction.id, defaultPlan(cj, layout, net.lanes));
  return plans;
}

/** Every junction's shown states conflict-free, and every change of a group's state a legal one (no green→red, yellow for the plan's yellow time, all-red before a conflicting green). */
function checkShown(ctl: SignalController, layout: TrafficLayout, t: number, last: Map<string, { code: string; since: number }>, problems: string[]): void {
  for (const cj of layout.junctions) {
    if (cj.control !== 'signal') continue;
    const shown = ctl.junctionStates(cj);
    for (const c of stateConflicts(cj, layout.groups, shown)) problems.push(`t=${t.toFixed(1)}: ${c}`);
    cj.groups.forEach((g, k) => {
      const id = layout.groups[g].id;
      const prev = last.get(id);
      const code = shown[k];
      if (prev && prev.code !== code) {
        const plan = ctl.plan(cj.junction.id)!;
        if ((prev.code === 'G' || prev.code === 'g') && (code === 'r' || code === 'o')) problems.push(`t=${t.toFixed(1)}: ${id} green → red without yellow`);
        if (prev.code === 'y' && code === 'r' && t - prev.since < Math.min(plan.yellow_s, PLAN_LIMITS.minYellowS) - 1e-6) problems.push(`t=${t.toFixed(1)}: ${id} yellow for ${(t - prev.since).toFixed(1)} s only`);
        if ((code === 'G' || code === 'g') && prev.code !== 'G' && prev.code !== 'g') {
          // every conflicting group red (or off) for the all-red time before
          for (const h of cj.groups) {
            if (h === g || !groupsConflict(cj, layout.groups, g, h, true)) continue;
            const o = last.get(layout.groups[h].id);
            if (o && !((o.code === 'r' || o.code === 'o') && t - o.since >= Math.min(plan.all_red_s, PLAN_LIMITS.minPhaseS) - 1e-6)) problems.push(`t=${t.toFixed(1)}: ${id} green while ${layout.groups[h].id} was ${o.code} ${(t - o.since).toFixed(1)} s ago`);
          }
        }
      }
      if (!prev || prev.code !== code) last.set(id, { code, since: t });
    });
  }
}

describe('signal plans', () => {
  it('the demo track: two phases, each green ending in 3–4 s of yellow and an all-red, a cycle of 60–120 s, valid', () => {
    const { layout, net } = layoutOf(loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json')));
    const cj = layout.junctions[0];
    const p = defaultPlan(cj, layout, net.lanes);
    expect(validatePlan(p, cj, layout.groups)).toEqual([]);
    expect(p.cycle_s).toBeGreaterThanOrEqual(60);
    expect(p.cycle_s).toBeLessThanOrEqual(120);
    expect(p.yellow_s).toBeGreaterThanOrEqual(3);
    expect(p.yellow_s).toBeLessThanOrEqual(4);
    expect(p.all_red_s).toBeGreaterThanOrEqual(1);
    expect(p.phases.map((ph) => ph.states)).toEqual(['Gr', 'yr', 'rr', 'rG', 'ry', 'rr'].map((x) => (p.phases[0].states === 'Gr' ? x : [...x].reverse().join(''))));
  });

  it('refuses a plan that shows conflicting greens, ends a green without yellow, skips the all-red or has absurd durations — naming each problem', () => {
    const { layout, net } = layoutOf(loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json')));
    const cj = layout.junctions[0];
    const base = defaultPlan(cj, layout, net.lanes);
    const bad = (phases: Array<[number, string]>, extra: Partial<SignalPlan> = {}) => {
      const cycle = phases.reduce((a, [d]) => a + d, 0);
      return validatePlan({ ...base, ...extra, phases: phases.map(([duration_s, states]) => ({ duration_s, states })), cycle_s: extra.cycle_s ?? cycle }, cj, layout.groups);
    };
    expect(bad([[30, 'GG'], [4, 'yy'], [2, 'rr']]).join()).toMatch(/J1\.[AB] \(green\) and J1\.[AB] \(green\) conflict/);
    expect(bad([[30, 'Gr'], [2, 'rr'], [30, 'rG'], [4, 'ry'], [2, 'rr']]).join()).toMatch(/J1\.A goes from green to red without yellow/);
    expect(bad([[30, 'Gr'], [4, 'yr'], [30, 'rG'], [4, 'ry']]).join()).toMatch(/no all-red clearance/);
    expect(bad([[30, 'Gr'], [1, 'yr'], [2, 'rr'], [30, 'rG'], [4, 'ry'], [2, 'rr']]).join()).toMatch(/yellow .* lasts 1 s/);
    expect(bad([[900, 'Gr'], [4, 'yr'], [2, 'rr'], [30, 'rG'], [4, 'ry'], [2, 'rr']]).join()).toMatch(/duration_s 900 outside/);
    expect(bad([[30, 'Gx'], [4, 'yr'], [2, 'rr']]).join()).toMatch(/unknown state "x"/);
    expect(bad([[30, 'G']]).join()).toMatch(/one character per signal group/);
    expect(bad(base.phases.map((p) => [p.duration_s, p.states]), { offset_s: 1e6 }).join()).toMatch(/offset_s/);
    expect(bad(base.phases.map((p) => [p.duration_s, p.states]))).toEqual([]);
  });

  it('live input: refused whole when it names an unknown junction or group, shows conflicting greens, or has a bad timeout; a valid one runs through the clearances and times out back to the plan', () => {
    const { layout, net } = layoutOf(loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json')));
    const ctl = new SignalController(layout, plansOf(layout, net));
    const plan = ctl.plan('J1')!;
    // the first green phase's group: at t=1 it is green, the other red
    ctl.update(1);
    const states = () => Object.fromEntries(ctl.states().map((s) => [s.id, s.code]));
    const greenNow = Object.entries(states()).find(([, c]) => c === 'G')![0];
    const redNow = greenNow === 'J1.A' ? 'J1.B' : 'J1.A';
    expect(() => ctl.setLive({ junction: 'J9', states: {} })).toThrow(/unknown junction "J9".*J1/);
    expect(() => ctl.setLive({ junction: 'J1', states: { 'J1.Z': 'G' } })).toThrow(/unknown signal group "J1.Z"/);
    expect(() => ctl.setLive({ junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'G' } })).toThrow(/refused: J1\.[AB] \(green\) and J1\.[AB] \(green\) conflict/);
    expect(() => ctl.setLive({ junction: 'J1', states: { 'J1.A': 'purple' } })).toThrow(/state "purple"/);
    expect(() => ctl.setLive({ junction: 'J1', phase: 99 })).toThrow(/phase 99 does not exist/);
    expect(() => ctl.setLive({ junction: 'J1', states: { [redNow]: 'G' }, timeout_s: -1 })).toThrow(/timeout_s/);
    expect(states()).toEqual({ [greenNow]: 'G', [redNow]: 'r' });
    // the red one green for 20 s: the green one ends in yellow, then all-red, then the switch
    const r = ctl.setLive({ junction: 'J1', states: { [redNow]: 'green' }, timeout_s: 20 });
    expect(r.clearance).toBe(true);
    const seen: Array<[number, string, string]> = [];
    const last = new Map<string, { code: string; since: number }>();
    const problems: string[] = [];
    for (let k = 11; k <= 400; k++) {
      const t = k / 10;
      ctl.update(t);
      checkShown(ctl, layout, t, last, problems);
      const s = states();
      if (!seen.length || seen[seen.length - 1][1] !== s[greenNow] || seen[seen.length - 1][2] !== s[redNow]) seen.push([t, s[greenNow], s[redNow]]);
    }
    expect(problems).toEqual([]);
    // y after the input, r after yellow_s, the other green after all_red_s more
    expect(seen[0]).toEqual([1.1, 'y', 'r']);
    expect(seen[1][1]).toBe('r');
    expect(seen[1][0]).toBeCloseTo(1.1 + plan.yellow_s, 5);
    expect(seen[2]).toEqual([expect.closeTo(1.1 + plan.yellow_s + plan.all_red_s, 5), 'r', 'G']);
    // after the 20 s timeout the plan is back (through a clearance), and says so
    ctl.update(60);
    expect(ctl.states().every((s) => s.source === 'plan')).toBe(true);
  });

  it('timed for the NPCs expected (Webster): the cycle grows with the flows to the longest when saturated, each phase\'s green keeps up with its flow, the busier axis gets the longer green', () => {
    const { layout, net } = layoutOf(loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json')));
    const cj = layout.junctions[0];
    const cycleFor = (npcs: number) => defaultPlan(cj, layout, net.lanes, laneFlows(net.lanes, npcs), true);
    const few = cycleFor(5), some = cycleFor(30), many = cycleFor(63);
    expect(few.cycle_s).toBe(PLAN_LIMITS.minCycleS);
    expect(some.cycle_s).toBeGreaterThanOrEqual(few.cycle_s);
    expect(many.cycle_s).toBe(PLAN_LIMITS.maxCycleS2); // 63 NPCs through one crossing: saturated
    for (const p of [few, some, many]) expect(validatePlan(p, cj, layout.groups)).toEqual([]);
    // per second, the flows of 30 NPCs: every phase's degree of saturation (flow over capacity at 1,800/h) ≤ 0.8
    const flows = laneFlows(net.lanes, 30);
    const greens = some.phases.filter((ph) => ph.states.includes('G'));
    for (const ph of greens) {
      const k = ph.states.indexOf('G');
      const g = layout.groups[cj.groups[k]];
      const q = Math.max(...g.movements.map((m) => Math.min(...cj.movements[m].pieces.map((pc) => flows[pc.lane]))));
      expect((q * some.cycle_s) / (SATURATION_VPS * ph.duration_s)).toBeLessThanOrEqual(0.8 + 1e-9);
    }
    // flows relative: they sum to 1; per second they scale with the NPCs
    const rel = laneFlows(net.lanes);
    expect(rel.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    const f30 = laneFlows(net.lanes, 30), f60 = laneFlows(net.lanes, 60);
    for (let i = 0; i < f30.length; i++) expect(f60[i]).toBeCloseTo(2 * f30[i], 9);
  });

  it('a four-way crossing with signals: a plan whose phases serve every group, valid', () => {
    const { layout, net } = layoutOf(crossingMap({ signals: true }));
    const cj = layout.junctions[0];
    const p = defaultPlan(cj, layout, net.lanes);
    expect(validatePlan(p, cj, layout.groups)).toEqual([]);
    for (let k = 0; k < cj.groups.length; k++) expect(p.phases.some((ph) => ph.states[k] === 'G')).toBe(true);
  });
});

const RUN = have('shared');
describe.skipIf(!RUN)('every junction of K-City and FMTC, signalised: never two conflicting movements green or yellow together', () => {
  const maps: Record<string, LoadedMap> = {};
  beforeAll(async () => {
    mkdtempSync(join(tmpdir(), 'vils-plans-'));
    for (const site of ['kcity', 'fmtc']) maps[site] = parseMapJson(JSON.parse(JSON.stringify((await convertNgii(sharedPath('data', 'ngii', site))).map)), site);
  }, 60_000);

  it('a queue that cannot stand before its line (FMTC J3.D, 11.7 m after J4) waits at the junction before: its phase gets the time its first vehicle needs to come up; K-City has no such group', () => {
    const starts: Record<string, string[]> = {};
    for (const site of ['kcity', 'fmtc']) {
      const { layout, net } = layoutOf(maps[site]);
      starts[site] = [];
      for (const cj of layout.junctions) {
        if (cj.control !== 'signal') continue;
        for (const g of cj.groups) {
          const t = queueStartUpS(cj, layout.groups[g], layout, net.lanes);
          if (t > 0) starts[site].push(`${layout.groups[g].id} ${t.toFixed(1)}`);
        }
      }
    }
    expect(starts.kcity).toEqual([]);
    // through J4 (18–25 m) and the 11.7 m between from a standstill at 1.5 m/s², up to 30 km/h: about 7 s
    expect(starts.fmtc.map((s) => s.split(' ')[0])).toEqual(['J3.D', 'J3.D.left']);
    for (const s of starts.fmtc) expect(Number(s.split(' ')[1])).toBeGreaterThan(6);
    for (const s of starts.fmtc) expect(Number(s.split(' ')[1])).toBeLessThan(8.5);
    // and J3's plan gives approach D's phase that much more green than the flows alone would
    const { layout, net } = layoutOf(maps.fmtc);
    const cj = layout.junctions.find((c) => c.junction.id === 'J3')!;
    const flows = laneFlows(net.lanes, 30);
    const plan = defaultPlan(cj, layout, net.lanes, flows, true);
    expect(validatePlan(plan, cj, layout.groups)).toEqual([]);
    const d = cj.groups.indexOf(layout.groups.findIndex((g) => g.id === 'J3.D'));
    const dGreen = plan.phases.find((p) => p.states[d] === 'G')!.duration_s;
    const others = plan.phases.filter((p) => p.states[d] !== 'G' && /G/.test(p.states)).map((p) => p.duration_s);
    expect(dGreen).toBeGreaterThanOrEqual(Math.max(...others) + 6);
  });

  for (const site of ['kcity', 'fmtc']) {
    it(`${site}: the default plans over two cycles, and random live inputs and plan changes`, () => {
      const { layout, net } = layoutOf(maps[site], true);
      const signalised = layout.junctions.filter((c) => c.control === 'signal');
      expect(signalised.length).toBe(layout.junctions.length);
      const plans = plansOf(layout, net);
      for (const cj of signalised) expect(validatePlan(plans.get(cj.junction.id)!, cj, layout.groups), cj.junction.id).toEqual([]);
      // the plans alone, over two of the longest cycles
      const ctl = new SignalController(layout, plans);
      const last = new Map<string, { code: string; since: number }>();
      const problems: string[] = [];
      const longest = Math.max(...[...plans.values()].map((p) => p.cycle_s));
      for (let k = 0; k <= Math.ceil(20 * longest); k++) {
        ctl.update(k / 10);
        checkShown(ctl, layout, k / 10, last, problems);
      }
      expect(problems.slice(0, 5)).toEqual([]);
      // random live inputs (valid or not) at random times, on fixed-time or vehicle-actuated plans with random
      // detections (or none): refused ones change nothing, accepted ones never show a conflict
      const actuatedPlans = new Map([...plans].map(([id, p]) => [id, p.phases.length > 1 ? actuatePlan(p) : p]));
      for (const cj of signalised) expect(validatePlan(actuatedPlans.get(cj.junction.id)!, cj, layout.groups), cj.junction.id).toEqual([]);
      const ids = signalised.map((c) => c.junction.id);
      fc.assert(fc.property(
        fc.array(fc.record({
          dt: fc.integer({ min: 1, max: 80 }),
          junction: fc.integer({ min: 0, max: ids.length - 1 }),
          kind: fc.constantFrom('states', 'phase', 'release'),
          phase: fc.integer({ min: -1, max: 12 }),
          codes: fc.array(fc.constantFrom('G', 'g', 'y', 'r', 'o'), { minLength: 1, maxLength: 12 }),
          timeout: fc.integer({ min: 1, max: 40 }),
          // what the detectors see meanwhile (none: the rules off); per group: call, queued, a vehicle arriving
          detect: fc.boolean(),
          bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 16 }),
        }), { minLength: 1, maxLength: 25 }),
        fc.boolean(),
        (inputs, actuated) => {
          const c = new SignalController(layout, actuated ? actuatedPlans : plans);
          const det = new SignalDetection(layout.groups.length);
          const seen = new Map<string, { code: string; since: number }>();
          const errs: string[] = [];
          let k = 0;
          for (const inp of inputs) {
            const j = ids[inp.junction];
            const cj = signalised[inp.junction];
            const before = c.junctionStates(cj);
            try {
              if (inp.kind === 'release') c.clearLive(j);
              else if (inp.kind === 'phase') c.setLive({ junction: j, phase: inp.phase, timeout_s: inp.timeout });
              else c.setLive({ junction: j, states: Object.fromEntries(cj.groups.map((g, i) => [layout.groups[g].id, inp.codes[i % inp.codes.length]])), timeout_s: inp.timeout });
            } catch (e) {
              if (!(e instanceof InputError)) throw e;
              if (c.junctionStates(cj) !== before) errs.push(`a refused input changed ${j}`);
            }
            det.clear();
            for (let g = 0; g < layout.groups.length; g++) {
              const b = inp.bits[g % inp.bits.length];
              det.call[g] = b & 1;
              det.queued[g] = (b >> 1) & 1;
              if (b & 4) det.arrive[g] = 1;
            }
            for (let s = 0; s < inp.dt; s++) {
              k++;
              c.update(k / 10, inp.detect ? det : undefined);
              checkShown(c, layout, k / 10, seen, errs);
            }
          }
          return errs.length === 0 || (() => { throw new Error(errs.slice(0, 3).join('\n')); })();
        },
      ), { numRuns: 60, seed: 22 });
    }, 120_000);
  }
});
