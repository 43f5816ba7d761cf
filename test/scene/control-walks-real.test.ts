/**
 * Issue 43 item 6 (first part): over every signalised junction of K-City and FMTC (converted from ../shared), no
 * walk is ever shown while a protected green runs across its crosswalk — under the default fixed-time plans, the
 * coordinated ones, vehicle-actuated ones with random detections, and random live inputs, stepped over several
 * cycles. The oracle is the test's own: a movement's path (its lane polylines from 15 m before its entry to 15 m
 * past its exit) cut against the crosswalk outline edge by edge, for every movement whose group shows G or y and
 * that is straight or turns under an arrow. Broken on purpose (the walk groups' conflicts dropped), it finds them.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import { convertNgii } from '../../src/map/ngii/convert.js';
import { parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import type { CrosswalkRecord } from '../../src/map/traffic-control.js';
import { SignalController, SignalDetection } from '../../src/scene/signals/controller.js';
import { coordinatePlans } from '../../src/scene/signals/coordination.js';
import { buildTrafficLayout, type ControlledJunction, type TrafficLayout } from '../../src/scene/junction-kit/layout.js';
import { actuatePlan, defaultPlan, laneFlows, validatePlan, type SignalPlan } from '../../src/scene/signals/plan.js';
import { buildWalkLayout, type WalkLayout } from '../../src/scene/signals/walk-layout.js';
import { EXIT_REACH_M, WALK_ENTRY_S } from '../../src/scene/signals/signal-params.js';
import { derivePlans } from '../../src/scene/signals/derived-plans.js';
import { walksNeverWalking } from '../../src/scene/signals/walk-plan.js';
import { CROSSWALK_DONT_WALK, CROSSWALK_FLASHING, CROSSWALK_WALK, WalkSignals } from '../../src/scene/signals/walk-signals.js';
import { InputError } from '../../src/scene/errors.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
type Lane = LaneNetwork['lanes'][number];
import { sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const RUN = have('shared');
type P = { x: number; y: number };

/** The lane's polyline between s0 and s1 (its vertices inside, the ends interpolated). */
function cut(L: Lane, s0: number, s1: number): P[] {
  const at = (s: number): P => {
    let i = 1;
    while (i < L.cum.length - 1 && L.cum[i] < s) i++;
    const seg = L.cum[i] - L.cum[i - 1] || 1, t = Math.min(1, Math.max(0, (s - L.cum[i - 1]) / seg));
    return { x: L.xs[i - 1] + t * (L.xs[i] - L.xs[i - 1]), y: L.ys[i - 1] + t * (L.ys[i] - L.ys[i - 1]) };
  };
  const out = [at(s0)];
  for (let i = 0; i < L.cum.length; i++) if (L.cum[i] > s0 && L.cum[i] < s1) out.push({ x: L.xs[i], y: L.ys[i] });
  out.push(at(s1));
  return out;
}

const cross = (o: P, a: P, b: P) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
function segmentsMeet(a: P, b: P, c: P, d: P): boolean {
  const d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
  return ((d1 > 0) !== (d2 > 0)) && ((d3 > 0) !== (d4 > 0));
}
function inside(p: P, poly: readonly P[]): boolean {
  let w = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    if ((poly[i].y > p.y) !== (poly[j].y > p.y) && p.x < ((poly[j].x - poly[i].x) * (p.y - poly[i].y)) / (poly[j].y - poly[i].y) + poly[i].x) w = !w;
  }
  return w;
}
function pathMeets(path: readonly P[], poly: readonly P[]): boolean {
  if (path.some((p) => inside(p, poly))) return true;
  for (let i = 1; i < path.length; i++) for (let k = 0; k < poly.length; k++) if (segmentsMeet(path[i - 1], path[i], poly[k], poly[(k + 1) % poly.length])) return true;
  return false;
}

/** Per signalised junction: for each crosswalk index, the movements whose path meets it (the oracle's own geometry). */
function oracle(layout: TrafficLayout, lanes: readonly Lane[], crosswalks: readonly CrosswalkRecord[]): Map<ControlledJunction, Map<number, number[]>> {
  const out = new Map<ControlledJunction, Map<number, number[]>>();
  for (const cj of layout.junctions) {
    if (cj.control !== 'signal') continue;
    const per = new Map<number, number[]>();
    for (const m of cj.movements) {
      const path: P[] = [...cut(lanes[m.entry.lane], Math.max(0, m.entry.s - EXIT_REACH_M), m.entry.s)];
      for (const p of m.pieces) path.push(...cut(lanes[p.lane], p.s0, p.s1));
      path.push(...cut(lanes[m.exit.lane], m.exit.s, Math.min(lanes[m.exit.lane].length, m.exit.s + EXIT_REACH_M)));
      crosswalks.forEach((c, i) => {
        if (pathMeets(path, c.polygon)) per.set(i, [...(per.get(i) ?? []), m.index]);
      });
    }
    out.set(cj, per);
  }
  return out;
}

interface Site { map: LoadedMap; net: LaneNetwork; layout: TrafficLayout; walks: WalkLayout; crosswalks: CrosswalkRecord[]; crossing: ReturnType<typeof oracle> }

/** Walks or flashings shown while a protected green (G or y of a straight movement, or of a turn under an arrow) meets the crosswalk. */
function violations(s: Site, ctl: SignalController, ws: WalkSignals, t: number, out: string[]): void {
  for (const [cj, per] of s.crossing) {
    for (const [c, moves] of per) {
      if (ws.crosswalkStates[c] === CROSSWALK_DONT_WALK || ws.crosswalkStates[c] === 0) continue;
      for (const mi of moves) {
        const g = cj.groupOfMovement[mi];
        if (g < 0) continue;
        const m = cj.movements[mi];
        const protectedTurn = m.turn === 'straight' || s.layout.groups[g].left;
        const code = ctl.code(g);
        if (protectedTurn && (code === 'G' || code === 'y')) out.push(`t=${t.toFixed(1)} ${s.crosswalks[c].id} shows ${ws.crosswalkStates[c] === CROSSWALK_WALK ? 'walk' : 'flashing'} while ${s.layout.groups[g].id} is ${code} (${m.turn})`);
      }
    }
  }
}

describe.skipIf(!RUN)('no walk while a protected green runs across it: every signalised junction of K-City and FMTC', () => {
  const sites: Record<string, Site> = {};
  beforeAll(async () => {
    for (const name of ['kcity', 'fmtc']) {
      const map = parseMapJson(JSON.parse(JSON.stringify((await convertNgii(sharedPath('data', 'ngii', name))).map)), name);
      const net = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
      const layout = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
      const crosswalks = map.trafficControl.crosswalks ?? [];
      const walks = buildWalkLayout(layout, net.lanes, crosswalks, map.trafficControl.signals);
      sites[name] = { map, net, layout, walks, crosswalks, crossing: oracle(layout, net.lanes, crosswalks) };
    }
  }, 120_000);

  /**
   * The plans a scene derives (derived-plans.ts, with every walk's time): fixed — default greens; webster and
   * coordinated — timed for 20 NPCs' flows, as a scene times them; actuated — webster's, vehicle-actuated.
   * `vehicleOnly`: the default plans as they were before walk time (walk-plan.ts) — the "before" of the count.
   */
  const plansOf = (s: Site, kind: 'fixed' | 'webster' | 'coordinated' | 'actuated', vehicleOnly = false) => {
    if (vehicleOnly) {
      let plans = new Map<string, SignalPlan>();
      const flows = laneFlows(s.net.lanes, kind === 'fixed' ? undefined : 20);
      for (const cj of s.layout.junctions) if (cj.control === 'signal') plans.set(cj.junction.id, defaultPlan(cj, s.layout, s.net.lanes, flows, kind !== 'fixed'));
      if (kind === 'coordinated') plans = coordinatePlans(s.layout, s.net.lanes, plans, flows);
      if (kind === 'actuated') plans = new Map([...plans].map(([id, p]) => [id, p.phases.length > 1 ? actuatePlan(p) : p]));
      return plans;
    }
    const { plans } = derivePlans(s.layout, s.net.lanes, s.walks, { expectedNpcs: kind === 'fixed' ? undefined : 20, coordinate: kind === 'coordinated' });
    return kind === 'actuated' ? new Map([...plans].map(([id, p]) => [id, p.phases.length > 1 ? actuatePlan(p) : p])) : plans;
  };

  /**
   * Steps the plans over `cycles` of the longest cycle; per walk group, each walk shown: when it started, how long
   * it walked steadily and how long it then flashed [s]; and every walk shown across a protected green.
   */
  const run = (s: Site, plans: Map<string, SignalPlan>, cycles: number, layout: WalkLayout = s.walks, det?: SignalDetection, rnd?: () => number) => {
    const ctl = new SignalController(s.layout, plans, layout);
    const ws = new WalkSignals(layout, ctl, s.crosswalks.length);
    const errs: string[] = [];
    const shown = layout.groups.map(() => [] as Array<{ t: number; walkS: number; flashS: number }>);
    const prev = Uint8Array.from(ws.groupStates);
    const longest = Math.max(...[...plans.values()].map((p) => p.cycle_s));
    for (let k = 0; k <= Math.ceil(10 * cycles * longest); k++) {
      const t = k / 10;
      if (det && rnd && k % 20 === 0) {
        det.clear();
        for (let g = 0; g < s.layout.groups.length; g++) {
          det.call[g] = rnd() < 0.6 ? 1 : 0;
          if (rnd() < 0.3) det.arrive[g] = rnd() * 4;
        }
      }
      ctl.update(t, det);
      ws.update(t);
      violations(s, ctl, ws, t, errs);
      for (let w = 0; w < layout.groups.length; w++) {
        const st = ws.groupStates[w];
        if (st === CROSSWALK_WALK && prev[w] !== CROSSWALK_WALK) shown[w].push({ t, walkS: 0, flashS: 0 });
        prev[w] = st;
        const last = shown[w][shown[w].length - 1];
        if (last && st === CROSSWALK_WALK) last.walkS += 0.1;
        if (last && st === CROSSWALK_FLASHING) last.flashS += 0.1;
      }
    }
    return { errs, shown, longest };
  };

  /** Walk groups that show a whole pedestrian green (7 s steady, less one 0.1 s step, then the whole clearance) in every full cycle of their plan after the first. */
  const walkingEveryCycle = (s: Site, plans: Map<string, SignalPlan>, r: ReturnType<typeof run>, cycles: number): { ok: string[]; not: string[] } => {
    const ok: string[] = [], not: string[] = [];
    s.walks.groups.forEach((g, w) => {
      const p = plans.get(s.layout.junctions[g.junction].junction.id)!;
      let every = true;
      for (let c = 1; p.offset_s + (c + 1) * p.cycle_s <= cycles * r.longest - 1; c++) {
        const a = p.offset_s + c * p.cycle_s, b = a + p.cycle_s;
        if (!r.shown[w].some((x) => x.t >= a - 1e-6 && x.t < b - 1e-6 && x.walkS >= WALK_ENTRY_S - 0.11 && x.flashS >= g.clearanceS - 0.11)) every = false;
      }
      (every ? ok : not).push(g.id);
    });
    return { ok, not };
  };

  it('the walk groups: K-City 40 of its 53 crosswalks (7 signalised junctions), FMTC 6 of 19 (J3); the oracle agrees on who crosses', () => {
    const k = sites.kcity, f = sites.fmtc;
    expect(k.walks.groups).toHaveLength(40);
    expect(f.walks.groups).toHaveLength(6);
    expect(f.walks.groups.every((g) => g.id.startsWith('J3.walk.'))).toBe(true);
    for (const s of [k, f]) {
      for (const g of s.walks.groups) {
        const cj = s.layout.junctions[g.junction];
        const moves = s.crossing.get(cj)!.get(g.crosswalk) ?? [];
        const protectedGroups = [...new Set(moves.filter((mi) => cj.movements[mi].turn === 'straight' || s.layout.groups[cj.groupOfMovement[mi]]?.left).map((mi) => cj.groupOfMovement[mi]).filter((x) => x >= 0))].sort();
        expect(g.conflicts.map((c) => c.group).sort(), g.id).toEqual(protectedGroups);
      }
    }
  });

  for (const name of ['kcity', 'fmtc']) {
    for (const kind of ['fixed', 'webster', 'coordinated'] as const) {
      it(`${name}, derived ${kind} plans over four of the longest cycles: every walk group walks once per cycle (7 s + its clearance), never across a protected green`, () => {
        const s = sites[name];
        const plans = plansOf(s, kind);
        for (const cj of s.layout.junctions) if (cj.control === 'signal') expect(validatePlan(plans.get(cj.junction.id)!, cj, s.layout.groups, s.walks.byJunction[s.layout.junctions.indexOf(cj)].map((w) => s.walks.groups[w])), cj.junction.id).toEqual([]);
        // a yellow beside a green that carries on through a pedestrian interval is a yellow: coordination does not stretch it
        for (const p of plans.values()) for (const ph of p.phases) if (ph.states.includes('y')) expect(ph.duration_s, `${p.junction} ${ph.states}`).toBe(p.yellow_s);
        const r = run(s, plans, 4);
        expect(r.errs.slice(0, 5)).toEqual([]);
        const { ok, not } = walkingEveryCycle(s, plans, r, 4);
        // the same count on the vehicle-only default plans (before walk time): the figure this change moves
        const before = plansOf(s, kind, true);
        const b = walkingEveryCycle(s, before, run(s, before, 4), 4);
        console.log(`${name} ${kind}: ${ok.length} of ${s.walks.groups.length} walk groups show a whole pedestrian green every cycle (vehicle-only plans: ${b.ok.length}); cycles ${[...new Set([...plans.values()].map((p) => p.cycle_s))].join(', ')} s (were ${[...new Set([...before.values()].map((p) => p.cycle_s))].join(', ')} s)`);
        expect(not).toEqual([]);
        expect(ok).toHaveLength(name === 'kcity' ? 40 : 6);
        // every derived plan lets every walk group walk, as the plan view reports it
        for (const cj of s.layout.junctions) if (cj.control === 'signal') expect(walksNeverWalking(plans.get(cj.junction.id)!, cj, s.walks.byJunction[s.layout.junctions.indexOf(cj)].map((w) => s.walks.groups[w])), cj.junction.id).toEqual([]);
        if (kind === 'webster') expect(b.ok.length).toBe(name === 'kcity' ? 20 : 1);
        // and the plan view's check finds the ones the vehicle-only plans never let walk
        const neverBefore = s.layout.junctions.flatMap((cj, j) => (cj.control === 'signal' ? walksNeverWalking(before.get(cj.junction.id)!, cj, s.walks.byJunction[j].map((w) => s.walks.groups[w])) : []));
        expect(neverBefore.length, neverBefore.join(', ')).toBeGreaterThan(0);
        if (name === 'kcity') expect(neverBefore).toEqual(expect.arrayContaining(['J65.walk.3', 'J69.walk.2']));
      }, 120_000);
    }

    it(`${name}, actuated plans (random detections) over three of the longest cycles: no walk across a protected green`, () => {
      const s = sites[name];
      const plans = plansOf(s, 'actuated');
      // no yellow is actuated (one beside a carried green included)
      for (const p of plans.values()) p.phases.forEach((ph, i) => { if (ph.states.includes('y') && p.actuated) expect(p.actuated.phases[i], `${p.junction} ${ph.states}`).toBeNull(); });
      let seed = 7;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const r = run(s, plans, 3, s.walks, new SignalDetection(s.layout.groups.length), rnd);
      expect(r.errs.slice(0, 5)).toEqual([]);
      // greens that may end after 5 s leave a walk its time only where the detections keep them (reported, not asserted)
      console.log(`${name} actuated: ${r.shown.filter((x) => x.length > 0).length} of ${s.walks.groups.length} walk groups walked within three cycles`);
    }, 120_000);

    it(`${name}: random live inputs (valid or not) on fixed or actuated plans never show a walk across a protected green`, () => {
      const s = sites[name];
      const signalised = s.layout.junctions.filter((c) => c.control === 'signal');
      const ids = signalised.map((c) => c.junction.id);
      const fixed = plansOf(s, 'fixed'), actuated = plansOf(s, 'actuated');
      fc.assert(fc.property(
        fc.array(fc.record({
          dt: fc.integer({ min: 1, max: 300 }),
          junction: fc.integer({ min: 0, max: ids.length - 1 }),
          kind: fc.constantFrom('states', 'phase', 'release'),
          phase: fc.integer({ min: 0, max: 12 }),
          codes: fc.array(fc.constantFrom('G', 'g', 'y', 'r', 'o'), { minLength: 1, maxLength: 12 }),
          timeout: fc.integer({ min: 1, max: 40 }),
          bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 16 }),
        }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (inputs, act) => {
          const ctl = new SignalController(s.layout, act ? actuated : fixed, s.walks);
          const ws = new WalkSignals(s.walks, ctl, s.crosswalks.length);
          const det = new SignalDetection(s.layout.groups.length);
          const errs: string[] = [];
          let k = 0;
          for (const inp of inputs) {
            const cj = signalised[inp.junction];
            try {
              if (inp.kind === 'release') ctl.clearLive(ids[inp.junction]);
              else if (inp.kind === 'phase') ctl.setLive({ junction: ids[inp.junction], phase: inp.phase, timeout_s: inp.timeout });
              else ctl.setLive({ junction: ids[inp.junction], states: Object.fromEntries(cj.groups.map((g, i) => [s.layout.groups[g].id, inp.codes[i % inp.codes.length]])), timeout_s: inp.timeout });
            } catch (e) {
              if (!(e instanceof InputError)) throw e;
            }
            det.clear();
            for (let g = 0; g < s.layout.groups.length; g++) {
              const b = inp.bits[g % inp.bits.length];
              det.call[g] = b & 1;
              if (b & 4) det.arrive[g] = 1;
            }
            for (let q = 0; q < inp.dt; q++) {
              k++;
              ctl.update(k / 10, act ? det : undefined);
              ws.update(k / 10);
              violations(s, ctl, ws, k / 10, errs);
            }
          }
          return errs.length === 0 || (() => { throw new Error(errs.slice(0, 3).join('\n')); })();
        },
      ), { numRuns: 25, seed: 43 });
    }, 120_000);
  }

  it('the junction report (vils convert-map) counts them: K-City 40 of 53 signalised, 6 given a pedestrian interval, none never walking; FMTC 6 of 19', async () => {
    const { junctionReport, junctionReportLines } = await import('../../src/scene/signals/junction-report.js');
    const k = junctionReport(sites.kcity.map).walks, f = junctionReport(sites.fmtc.map).walks;
    expect([k.crosswalks, k.signalised, f.crosswalks, f.signalised]).toEqual([53, 40, 19, 6]);
    // no phase of the vehicle plan is free for these six: the derived plan gives them a pedestrian interval, and
    // none of the derived plans' walk groups never walks
    expect(k.pedestrian_intervals).toEqual(['J65.walk.3', 'J65.walk.4', 'J65.walk.5', 'J65.walk.6', 'J69.walk.2', 'J69.walk.3']);
    expect(f.pedestrian_intervals).toEqual([]);
    expect(k.never_free).toEqual([]);
    expect(f.never_free).toEqual([]);
    expect(f.lengthened.length).toBeGreaterThan(0);
    expect(k.groups.find((g) => g.id === 'J66.walk.1')!.conflicts).toEqual(expect.arrayContaining(['J66.B', 'J66.D']));
    console.log(`K-City walks: ${k.with_heads} of ${k.signalised} with mapped pedestrian heads, ${k.lanes_crossed} lanes crossed; FMTC: ${f.with_heads} of ${f.signalised}, ${f.lanes_crossed}`);
    expect(junctionReportLines(junctionReport(sites.fmtc.map)).join('\n')).toMatch(/crosswalks: 19, 6 at signalised junctions \(one walk group each, crossing \d+ lanes; \d+ shown by mapped pedestrian heads\), 13 unsignalised/);
  });

  it('the check can fail: with the walk groups\' conflicts dropped, FMTC shows walks across protected greens', () => {
    const s = sites.fmtc;
    const broken: WalkLayout = { ...s.walks, groups: s.walks.groups.map((g) => ({ ...g, conflicts: [] })) };
    const plans = plansOf(s, 'fixed');
    const ctl = new SignalController(s.layout, plans, broken);
    const ws = new WalkSignals(broken, ctl, s.crosswalks.length);
    const errs: string[] = [];
    for (let k = 0; k <= 1500; k++) {
      ctl.update(k / 10);
      ws.update(k / 10);
      violations(s, ctl, ws, k / 10, errs);
    }
    expect(errs.length).toBeGreaterThan(100);
  });
});
