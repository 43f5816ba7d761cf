/**
 * Walk signals (src/scene/signals/walk-layout.ts, walk-signals.ts, walk-check.ts) on a hand-made four-way crossing
 * with a crosswalk on each arm and one mid-block: which vehicle groups each walk conflicts with, the walk → flashing
 * → don't walk timing (pedestrian green = entry time + length ÷ walking speed), the interlock under a live input,
 * the per-step crosswalk states, and the plan check that refuses a walk across a protected green.
 */
import { describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import type { LoadedMap } from '../../src/map/scene-json.js';
import type { CrosswalkRecord } from '../../src/map/traffic-control.js';
import { SignalController } from '../../src/scene/signals/controller.js';
import { buildTrafficLayout, type TrafficLayout } from '../../src/scene/junction-kit/layout.js';
import { defaultPlan, validatePlan, type SignalPlan } from '../../src/scene/signals/plan.js';
import { buildWalkLayout, pedestrianGreenS, walkClearanceS, type WalkLayout } from '../../src/scene/signals/walk-layout.js';
import { WALK_ENTRY_S, WALK_SPEED_MPS } from '../../src/scene/signals/signal-params.js';
import { CROSSWALK_DONT_WALK, CROSSWALK_FLASHING, CROSSWALK_NONE, CROSSWALK_STATE_NAMES, CROSSWALK_WALK, WalkSignals } from '../../src/scene/signals/walk-signals.js';
import { InputError } from '../../src/scene/errors.js';
import { walksNeverWalking, withWalkTime } from '../../src/scene/signals/walk-plan.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { crossingMap } from '../helpers/junction-maps.js';

/** A crossing of two 9 m roads (x and y axes); a 3 m wide crosswalk on an arm, `at` m from the centre. */
function crosswalk(id: string, arm: 'E' | 'W' | 'N' | 'S', at = 10.5): CrosswalkRecord {
  const h = 4.5, w = 1.5;
  const c = arm === 'E' ? { x: at, y: 0 } : arm === 'W' ? { x: -at, y: 0 } : arm === 'N' ? { x: 0, y: at } : { x: 0, y: -at };
  const alongX = arm === 'N' || arm === 'S'; // a crossing of the north–south road walks east–west
  const polygon = alongX
    ? [{ x: -h, y: c.y - w }, { x: h, y: c.y - w }, { x: h, y: c.y + w }, { x: -h, y: c.y + w }]
    : [{ x: c.x - w, y: -h }, { x: c.x + w, y: -h }, { x: c.x + w, y: h }, { x: c.x - w, y: h }];
  const a = alongX ? { x: -h, y: c.y } : { x: c.x, y: -h };
  const b = alongX ? { x: h, y: c.y } : { x: c.x, y: h };
  return { id, polygon, a, b, length: 9, width: 3, lanes: alongX ? ['NB', 'SB'] : ['EB', 'WB'] };
}

interface Rig { map: LoadedMap; net: LaneNetwork; layout: TrafficLayout; walks: WalkLayout; plan: SignalPlan; ctl: SignalController; ws: WalkSignals }

function rig(planOf?: (p: SignalPlan) => SignalPlan): Rig {
  const base = crossingMap({ signals: true });
  const crosswalks = [crosswalk('CW-E', 'E'), crosswalk('CW-N', 'N'), crosswalk('CW-W', 'W'), crosswalk('CW-S', 'S'), crosswalk('CW-MID', 'E', 80)];
  const map: LoadedMap = { ...base, trafficControl: { ...base.trafficControl, crosswalks } };
  const net = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
  const layout = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
  const walks = buildWalkLayout(layout, net.lanes, crosswalks);
  const cj = layout.junctions.find((j) => j.control === 'signal')!;
  const plan = (planOf ?? ((p) => p))(defaultPlan(cj, layout, net.lanes));
  const ctl = new SignalController(layout, new Map([[cj.junction.id, plan]]), walks);
  return { map, net, layout, walks, plan, ctl, ws: new WalkSignals(walks, ctl, crosswalks.length) };
}

const groupIds = (r: Rig, gs: readonly number[]) => gs.map((g) => r.layout.groups[g].id).sort();
/** the approach group ids of the east–west and north–south roads */
function axes(r: Rig): { ew: string[]; ns: string[] } {
  const ew: string[] = [], ns: string[] = [];
  for (const g of r.layout.groups) {
    const lane = g.lanes[0];
    const L = r.net.lanes[r.net.laneById(lane)];
    (Math.abs(L.xs[L.xs.length - 1] - L.xs[0]) > Math.abs(L.ys[L.ys.length - 1] - L.ys[0]) ? ew : ns).push(g.id);
  }
  return { ew: ew.sort(), ns: ns.sort() };
}

describe('walk groups and their timing on a four-way crossing', () => {
  it('the formula: clearance = length ÷ 1.0 m/s, pedestrian green = 7 s + that', () => {
    expect(WALK_SPEED_MPS).toBe(1.0);
    expect(WALK_ENTRY_S).toBe(7);
    expect(walkClearanceS(12)).toBe(12);
    expect(pedestrianGreenS(12)).toBe(19);
    expect(pedestrianGreenS(32)).toBe(39); // Seoul's example: a 32 m crossing, 7 s + 32 s
  });

  it('one walk group per crosswalk at the junction; each conflicts with the road it crosses, the mid-block one is unsignalised', () => {
    const r = rig();
    const { ew, ns } = axes(r);
    expect(r.walks.groups.map((g) => g.crosswalkId).sort()).toEqual(['CW-E', 'CW-N', 'CW-S', 'CW-W']);
    for (const g of r.walks.groups) {
      expect(g.id).toMatch(/^J\d+\.walk\.[1-4]$/);
      expect(g.clearanceS).toBe(9);
      // a crossing of the east–west road (east and west arms) runs with the north–south phase
      expect(groupIds(r, g.conflicts.map((c) => c.group))).toEqual(['CW-E', 'CW-W'].includes(g.crosswalkId) ? ew : ns);
      expect(g.conflicts.every((c) => c.turn === 'straight')).toBe(true);
    }
    expect(r.walks.groupOfCrosswalk[4]).toBe(-1);
    expect(r.walks.groups.map((g) => g.numericId).sort()).toEqual([5, 6, 7, 8]); // after the 4 vehicle groups
  });

  it('walk, then flashing for the clearance, ending the all-red before the crossing road turns green; never while it is green or yellow', () => {
    const r = rig();
    const { ew } = axes(r);
    const east = r.walks.groups.findIndex((g) => g.crosswalkId === 'CW-E');
    const conflict = r.walks.groups[east].conflicts.map((c) => c.group);
    const changes: Array<{ t: number; st: number; redFor: number }> = [];
    let last = -1;
    const dt = 0.1;
    for (let s = 0; s <= Math.round((3 * r.plan.cycle_s) / dt); s++) {
      const t = s * dt;
      r.ctl.update(t);
      r.ws.update(t);
      const st = r.ws.crosswalkStates[0];
      expect(st).toBe(r.ws.groupStates[east]);
      expect(r.ws.crosswalkStates[4]).toBe(CROSSWALK_NONE);
      if (st !== CROSSWALK_DONT_WALK) for (const g of conflict) expect(['r', 'o']).toContain(r.ctl.code(g));
      if (st !== last) changes.push({ t, st, redFor: Math.min(...conflict.map((g) => r.ctl.redFor(g))) });
      last = st;
    }
    expect(ew.length).toBe(2);
    // walk → flashing → don't walk, once a cycle
    const walks = changes.filter((c) => c.st === CROSSWALK_WALK);
    expect(walks.length).toBeGreaterThanOrEqual(2);
    for (const w of walks) {
      const i = changes.indexOf(w);
      const flash = changes[i + 1], stop = changes[i + 2];
      if (!stop) continue;
      expect(flash.st).toBe(CROSSWALK_FLASHING);
      expect(stop.st).toBe(CROSSWALK_DONT_WALK);
      expect(flash.t - w.t).toBeGreaterThanOrEqual(WALK_ENTRY_S - 1e-9); // the steady walk: at least the entry time
      expect(stop.t - flash.t).toBeCloseTo(9, 5); // the clearance: 9 m at 1.0 m/s
      // the clearance ends the plan's all-red before the crossing road can turn green (to a step)
      expect(stop.redFor).toBeGreaterThanOrEqual(r.plan.all_red_s - dt - 1e-9);
      expect(stop.redFor).toBeLessThanOrEqual(r.plan.all_red_s + dt + 1e-9);
      // the walk starts once the crossing road has been red for the all-red time
      expect(w.redFor).toBeGreaterThan(pedestrianGreenS(9) + r.plan.all_red_s - 1e-9);
    }
    const steady = changes[changes.indexOf(walks[0]) + 1].t - walks[0].t;
    expect(steady + 9).toBeLessThanOrEqual(r.plan.cycle_s);
    expect(steady + 9).toBeGreaterThan(pedestrianGreenS(9) - 1e-9);
  });

  it('a live input that turns the crossing road green ends the walk at once (the interlock), and reset goes back to don\'t walk', () => {
    const r = rig();
    const cj = r.layout.junctions.find((j) => j.control === 'signal')!;
    const east = r.walks.groups.findIndex((g) => g.crosswalkId === 'CW-E');
    let t = 0;
    for (; t < 3 * r.plan.cycle_s && r.ws.groupStates[east] !== CROSSWALK_WALK; t = Math.round((t + 0.1) * 10) / 10) {
      r.ctl.update(t);
      r.ws.update(t);
    }
    expect(r.ws.groupStates[east]).toBe(CROSSWALK_WALK);
    const { ew } = axes(r);
    r.ctl.setLive({ junction: cj.junction.id, states: Object.fromEntries(ew.map((id) => [id, 'G'])), timeout_s: 60 });
    let sawGreen = false;
    for (let k = 0; k < 200; k++) {
      t = Math.round((t + 0.1) * 10) / 10;
      r.ctl.update(t);
      r.ws.update(t);
      const green = r.walks.groups[east].conflicts.some((c) => r.ctl.code(c.group) !== 'r' && r.ctl.code(c.group) !== 'o');
      if (green) {
        sawGreen = true;
        expect(r.ws.groupStates[east]).toBe(CROSSWALK_DONT_WALK);
      }
    }
    expect(sawGreen).toBe(true);
    r.ws.reset();
    expect([...r.ws.crosswalkStates]).toEqual([1, 1, 1, 1, 0]);
    expect(CROSSWALK_STATE_NAMES[r.ws.crosswalkStates[4]]).toBe('none');
  });

  it('the entries in the signals lists are marked walk, with their crosswalk, and never change the vehicle groups', () => {
    const r = rig();
    r.ctl.update(0);
    r.ws.update(0);
    const entries = r.ws.states();
    expect(entries).toHaveLength(4);
    for (const e of entries) {
      expect(e.walk).toMatch(/^(walk|flashing|dont_walk)$/);
      expect(e.crosswalks).toHaveLength(1);
      expect(e.lanes).toEqual([]);
      expect(e.code).toBe(e.walk === 'walk' ? 'G' : e.walk === 'flashing' ? 'y' : 'r');
    }
    expect(r.ctl.states().every((e) => e.walk === undefined)).toBe(true);
  });
});

describe('the plan check refuses a walk across a protected green', () => {
  it('walks granted in the parallel phase pass; one in the crossing road\'s green is refused with the group and the movement', () => {
    const r = rig();
    const cj = r.layout.junctions.find((j) => j.control === 'signal')!;
    const walkGroups = r.walks.byJunction[r.layout.junctions.indexOf(cj)].map((w) => r.walks.groups[w]);
    const order = walkGroups.map((g) => g.crosswalkId);
    const { ew } = axes(r);
    const ewK = ew.map((id) => cj.groups.findIndex((g) => r.layout.groups[g].id === id));
    // W where the walk's crossing road is red in the phase
    const good: SignalPlan = {
      ...r.plan,
      phases: r.plan.phases.map((p) => ({
        ...p,
        walks: order.map((id) => {
          const crossesEw = id === 'CW-E' || id === 'CW-W';
          const ewRed = ewK.every((k) => p.states[k] === 'r');
          const nsRed = cj.groups.every((g, k) => ewK.includes(k) || p.states[k] === 'r');
          return (crossesEw ? ewRed : nsRed) ? 'W' : 'r';
        }).join(''),
      })),
    };
    expect(validatePlan(good, cj, r.layout.groups, walkGroups)).toEqual([]);
    // grant every walk in every phase: refused, naming the conflict
    const bad: SignalPlan = { ...r.plan, phases: r.plan.phases.map((p) => ({ ...p, walks: 'W'.repeat(order.length) })) };
    const errs = validatePlan(bad, cj, r.layout.groups, walkGroups);
    expect(errs.length).toBeGreaterThan(0);
    expect(errs.join('\n')).toMatch(new RegExp(`${cj.junction.id} phase \\d+: walk ${cj.junction.id}\\.walk\\.\\d \\(crosswalk CW-[EW]\\) refused: ${ew[0].replace('.', '\\.')} is green and its protected green crosses it \\(straight from lane (EB|WB)\\)`));
    expect(validatePlan({ ...r.plan, phases: r.plan.phases.map((p) => ({ ...p, walks: 'W' })) }, cj, r.layout.groups, walkGroups)[0]).toMatch(/walks "W" must have one character per walk group \(4: /);
    expect(validatePlan({ ...r.plan, phases: r.plan.phases.map((p, i) => (i === 0 ? { ...p, walks: 'rrrr' } : p)) }, cj, r.layout.groups, walkGroups)[0]).toMatch(/walks are given for 1 of \d+ phases/);
    expect(validatePlan({ ...r.plan, phases: r.plan.phases.map((p) => ({ ...p, walks: 'rrXr' })) }, cj, r.layout.groups, walkGroups)[0]).toMatch(/unknown walk state "X"/);
    // the controller refuses such a plan whole, and a plan's `r` keeps the walk from starting
    expect(() => r.ctl.setPlan(bad)).toThrow(InputError);
    const none = rig((p) => ({ ...p, phases: p.phases.map((ph) => ({ ...ph, walks: 'rrrr' })) }));
    for (let s = 0; s < 1500; s++) {
      none.ctl.update(s / 10);
      none.ws.update(s / 10);
      expect(none.ws.groupStates.every((v) => v === CROSSWALK_DONT_WALK)).toBe(true);
    }
  });
});

/** A diagonal crossing through the middle of the junction (a scramble, 대각선 횡단보도): both roads' throughs cross it. */
function diagonal(id: string): CrosswalkRecord {
  const d = 6, w = 1.5 / Math.SQRT2;
  const polygon = [{ x: -d + w, y: -d - w }, { x: d + w, y: d - w }, { x: d - w, y: d + w }, { x: -d - w, y: -d + w }];
  return { id, polygon, a: { x: -d, y: -d }, b: { x: d, y: d }, length: Math.hypot(2 * d, 2 * d), width: 3, lanes: ['EB', 'WB', 'NB', 'SB'] };
}

describe('walk time in the derived plan (walk-plan.ts): a walk that could not run before runs every cycle', () => {
  function site(extra: CrosswalkRecord[]) {
    const base = crossingMap({ signals: true });
    const crosswalks = [crosswalk('CW-E', 'E'), crosswalk('CW-N', 'N'), crosswalk('CW-W', 'W'), crosswalk('CW-S', 'S'), ...extra];
    const map: LoadedMap = { ...base, trafficControl: { ...base.trafficControl, crosswalks } };
    const net = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
    const layout = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
    const walks = buildWalkLayout(layout, net.lanes, crosswalks);
    const cj = layout.junctions.find((j) => j.control === 'signal')!;
    const mine = walks.byJunction[layout.junctions.indexOf(cj)].map((w) => walks.groups[w]);
    return { net, layout, walks, cj, mine, crosswalks };
  }
  type Site = ReturnType<typeof site>;
  /** per walk group over `cycles` cycles: each walk shown with its steady and flashing seconds; and the walks shown while a conflict was not red */
  function run(s: Site, plan: SignalPlan, cycles: number) {
    const ctl = new SignalController(s.layout, new Map([[s.cj.junction.id, plan]]), s.walks);
    const ws = new WalkSignals(s.walks, ctl, s.crosswalks.length);
    const shown = s.walks.groups.map(() => [] as Array<{ t: number; walkS: number; flashS: number }>);
    let acrossGreen = 0;
    const prev = Uint8Array.from(ws.groupStates);
    for (let k = 0; k <= Math.round(cycles * plan.cycle_s * 10); k++) {
      const t = k / 10;
      ctl.update(t);
      ws.update(t);
      s.walks.groups.forEach((g, w) => {
        const st = ws.groupStates[w];
        if (st !== CROSSWALK_DONT_WALK && g.conflicts.some((c) => !['r', 'o'].includes(ctl.code(c.group)))) acrossGreen++;
        if (st === CROSSWALK_WALK && prev[w] !== CROSSWALK_WALK) shown[w].push({ t, walkS: 0, flashS: 0 });
        prev[w] = st;
        const last = shown[w][shown[w].length - 1];
        if (last && st === CROSSWALK_WALK) last.walkS += 0.1;
        if (last && st === CROSSWALK_FLASHING) last.flashS += 0.1;
      });
    }
    return { shown, acrossGreen };
  }
  /** once in each cycle after the first: a steady walk of at least the entry time (to a step), then the whole clearance */
  const everyCycle = (s: Site, plan: SignalPlan, r: ReturnType<typeof run>, w: number, cycles: number) => {
    for (let c = 1; c < cycles - 1; c++) {
      const a = c * plan.cycle_s, b = a + plan.cycle_s;
      if (!r.shown[w].some((x) => x.t >= a && x.t < b && x.walkS >= WALK_ENTRY_S - 0.11 && x.flashS >= s.walks.groups[w].clearanceS - 0.11)) return false;
    }
    return true;
  };

  it('a parallel phase too short for the pedestrian green (10 s greens, 9 m crossings need 7 + 9 s): its green is lengthened', () => {
    const s = site([]);
    const short = defaultPlan(s.cj, s.layout, s.net.lanes);
    for (const p of short.phases) if (/G/.test(p.states)) p.duration_s = 10;
    short.cycle_s = short.phases.reduce((a, p) => a + p.duration_s, 0);
    expect(validatePlan(short, s.cj, s.layout.groups, s.mine)).toEqual([]);
    // before: 10 s green + the yellow leave 13–14 s, less than 7 + 9 s; the walk needs 3 + 9 s at the least, so it
    // starts but never shows the entry time
    const before = run(s, short, 5);
    expect(s.walks.groups.every((_, w) => !everyCycle(s, short, before, w, 5))).toBe(true);
    const { plan, lengthened, interval } = withWalkTime(short, s.cj, s.mine);
    expect(interval).toEqual([]);
    expect(lengthened.length).toBe(2); // one per axis: the first walk of each lengthens its phase for the other too
    expect(validatePlan(plan, s.cj, s.layout.groups, s.mine)).toEqual([]);
    const after = run(s, plan, 5);
    expect(after.acrossGreen).toBe(0);
    for (let w = 0; w < s.walks.groups.length; w++) expect(everyCycle(s, plan, after, w, 5), s.walks.groups[w].id).toBe(true);
    expect(plan.cycle_s).toBeGreaterThan(short.cycle_s);
  });

  it('a diagonal crossing both roads cross: no phase is free, the derived plan gains a pedestrian interval (all vehicles red) and it walks every cycle', () => {
    const s = site([diagonal('CW-X')]);
    const x = s.walks.groups.findIndex((g) => g.crosswalkId === 'CW-X');
    expect(x).toBeGreaterThanOrEqual(0);
    expect(s.walks.groups[x].conflicts.map((c) => c.group).sort()).toEqual([...s.cj.groups].sort()); // every through crosses it
    const base = defaultPlan(s.cj, s.layout, s.net.lanes);
    const before = run(s, base, 4);
    expect(before.shown[x]).toEqual([]); // it never walks
    expect(walksNeverWalking(base, s.cj, s.mine)).toEqual([s.walks.groups[x].id]);
    const { plan, interval } = withWalkTime(base, s.cj, s.mine);
    expect(interval).toEqual([s.walks.groups[x].id]);
    expect(validatePlan(plan, s.cj, s.layout.groups, s.mine)).toEqual([]);
    expect(walksNeverWalking(plan, s.cj, s.mine)).toEqual([]);
    // the interval: a phase with every vehicle group red that grants the diagonal walk
    const ped = plan.phases.find((p) => /^r+$/.test(p.states) && p.walks?.[s.mine.indexOf(s.walks.groups[x])] === 'W' && p.duration_s > plan.all_red_s);
    expect(ped).toBeDefined();
    const after = run(s, plan, 4);
    expect(after.acrossGreen).toBe(0);
    for (let w = 0; w < s.walks.groups.length; w++) expect(everyCycle(s, plan, after, w, 4), s.walks.groups[w].id).toBe(true);
    // without the grant the interval has no vehicle green to start the walk by: it would never walk (the grant is what starts it)
    const ungranted = { ...plan, phases: plan.phases.map(({ walks: _w, ...p }) => p) };
    expect(run(s, ungranted, 4).shown[x]).toEqual([]);
  });

  it('plans not in the default shape are left as they are', () => {
    const s = site([diagonal('CW-X')]);
    const base = defaultPlan(s.cj, s.layout, s.net.lanes);
    // the last all-red split in two halves: not green / yellow / all-red triples
    const last = base.phases[base.phases.length - 1];
    const odd = { ...base, phases: [...base.phases.slice(0, -1), { ...last, duration_s: last.duration_s / 2 }, { ...last, duration_s: last.duration_s / 2 }] };
    expect(withWalkTime(odd, s.cj, s.mine).plan).toBe(odd);
  });
});
