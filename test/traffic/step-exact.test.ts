/**
 * The live step's shortcuts (issue #17) must not change any NPC's behaviour by a single bit. Each one is pinned
 * against the computation it replaces:
 *  - the shield: a candidate tried before for an NPC in a step is not rolled out again; edges no rollout can
 *    reach are left out once per NPC; a rollout stopped at a pose no continuation step changes skips the no-op
 *    steps; the vehicles' heading cosines are computed once per step (obbOverlapCS); vehicles a rollout cannot
 *    come near (by its speed after the first step) are left out of its vehicle checks; a lane offset's hypot is
 *    taken only for the segments nearest by squared distance (issue 24);
 *  - motion prediction (issue 24): a vehicle whose inputs are unchanged (standing still) keeps its lane path and
 *    curve limit; a path's directions are computed as far as first needed (the keep-speed predictions' headings
 *    are never used); the bend search stops where no further point can lower the curve limit and skips points
 *    that cannot; car-following looks at the vehicles in its path's x range and skips chunks of the path whose
 *    bounding box is no nearer; the shield's vehicles are looked up by x (XOrder);
 *  - observations (issue 24): an observer standing still gets the road rows it had;
 *  - road lookups (issue 24): a uniform grid (PointGrid) instead of kdbush, and obbOverlapIn (obbOverlapCS with its
 *    arguments in an array: no boxed doubles) in the shield;
 *  - collisions: road entities whose corner circle is more than 0.5 m away are not box-tested;
 *  - Route.goal computes its samples as its search reaches them; LaneNetwork.pose finds its segment by bisection;
 *  - the quality figures' "vehicle ahead" skips the heading's trigonometry for vehicles too far to reach the
 *    path whatever their heading (mayReachPath).
 * The scene test runs a live scene with the shortcuts and one made with `reference: true` (the engine's switch to
 * the original computation) side by side, compares every NPC's published state and the quality figures step for
 * step, and checks from the engines' work counters that the reference did the work the shortcuts save: on the demo track, on FMTC converted from ../shared (its road edges and two-way lanes exercise
 * the edge and lane checks the demo track hardly needs), and on any map VILS_EXACT_MAPS names
 * (comma-separated paths, e.g. the converted K-City; converted maps are not in the repository).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupScene, type LiveScene } from '../../src/scene/index.js';
import { mayReachPath } from '../../src/scene/quality.js';
import { POLICY_DT, type StepWork } from '../../src/traffic/engine.js';
import type { LaneNetwork } from '../../src/traffic/lanes.js';
import type { SafetyShield } from '../../src/traffic/shield.js';
import { obbOverlap, obbOverlapCS, obbOverlapIn } from '../../src/traffic/obb.js';
import { PointGrid } from '../../src/map/point-grid.js';
import { XOrder } from '../../src/traffic/x-order.js';
import { Route } from '../../src/traffic/route.js';
import { SeededRandom } from '../../src/util/random.js';
import { convertNgii } from '../../src/map/ngii/convert.js';
import { PROJECT_ROOT, sharedPath } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';
import { have } from '../helpers/prerequisites.js';

/** Every NPC's state as the scene publishes it (pose, velocity, goal, flags, what holds it), number for number. */
function stateOf(scene: LiveScene): string {
  // Object.is-exact: the numbers' shortest round-trip strings, -0 kept
  return JSON.stringify(scene.snapshot().npcs, (_k, v) => (Object.is(v, -0) ? '-0' : v));
}

/** the work counters of a scene's shield and motion predictor (the shortcuts beyond StepWork's) */
interface MoreWork {
  vehicleTests: number;
  directions: number;
  followPoints: number;
}

interface Comparison {
  differing: number;
  steps: number;
  npcSteps: number;
  fast: StepWork;
  reference: StepWork;
  fastMore: MoreWork;
  referenceMore: MoreWork;
}

function moreWork(scene: LiveScene): MoreWork {
  const shield = (scene as unknown as { engine: { shield: SafetyShield } }).engine.shield;
  return { vehicleTests: shield.work.vehicleTests, directions: shield.predictor.work.directions, followPoints: shield.predictor.work.followPoints };
}

async function compare(mapPath: string, npcs: number, steps: number, seed: number): Promise<Comparison> {
  const model = testModel();
  const a = await setupScene({ mapPath, modelPath: model, config: { npc_target: npcs, seed } });
  // the reference computation, chosen by its switch: no remembered candidates, every near edge tested, no
  // parked rollouts, every road entity near a vehicle box-tested
  const b = await setupScene({ mapPath, modelPath: model, config: { npc_target: npcs, seed }, reference: true });
  a.scene.reset();
  b.scene.reset();
  let differing = 0;
  for (let k = 0; k < steps; k++) {
    await a.scene.advanceTo(k * POLICY_DT);
    await b.scene.advanceTo(k * POLICY_DT);
    if (stateOf(a.scene) !== stateOf(b.scene)) differing++;
  }
  if (JSON.stringify(a.scene.quality.summary()) !== JSON.stringify(b.scene.quality.summary())) differing++;
  const npcSteps = a.scene.quality.summary().npc_steps;
  const fast = a.scene.stepWork(), reference = b.scene.stepWork();
  const fastMore = moreWork(a.scene), referenceMore = moreWork(b.scene);
  await a.release();
  await b.release();
  return { differing, steps, npcSteps, fast, reference, fastMore, referenceMore };
}

/** The reference computation did the work the shortcuts leave out, so the two runs compared are two paths. */
function expectTwoPaths(r: Comparison): void {
  console.log(`[step-exact] work, shortcuts vs reference: ${JSON.stringify({ ...r.fast, ...r.fastMore })} vs ${JSON.stringify({ ...r.reference, ...r.referenceMore })}`);
  expect(r.fast.shieldChecks).toBeGreaterThan(0);
  // a candidate tried twice for an NPC in a step is rare: the reference checks it again
  expect(r.reference.shieldChecks).toBeGreaterThanOrEqual(r.fast.shieldChecks);
  expect(r.reference.edgeTests).toBeGreaterThan(r.fast.edgeTests); // edges out of reach, parked rollouts
  expect(r.reference.continuationSteps).toBeGreaterThan(r.fast.continuationSteps); // parked rollouts rolled on
  expect(r.reference.boxTests).toBeGreaterThan(r.fast.boxTests); // corner pre-test
  expect(r.referenceMore.vehicleTests).toBeGreaterThan(r.fastMore.vehicleTests); // vehicles a rollout cannot meet
  expect(r.referenceMore.directions).toBeGreaterThan(r.fastMore.directions); // path directions not needed
  expect(r.referenceMore.followPoints).toBeGreaterThan(r.fastMore.followPoints); // car-following's chunk bounds
}

const extraMaps = (process.env.VILS_EXACT_MAPS ?? '').split(',').filter((p) => p && existsSync(p));

describe('live step shortcuts: NPCs exactly as without them', () => {
  it('demo track, 63 NPCs, 400 steps: every state, shield decision and quality figure equal', async () => {
    const r = await compare(join(PROJECT_ROOT, 'maps', 'demo-track.json'), 63, 400, 3);
    expect(r.npcSteps).toBeGreaterThan(20_000);
    expect(r.differing).toBe(0);
    expectTwoPaths(r);
  });

  it.skipIf(!have('shared'))('FMTC (converted from ../shared), 63 NPCs, 300 steps', async () => {
    const mapPath = join(mkdtempSync(join(tmpdir(), 'vils-exact-')), 'fmtc.json');
    writeFileSync(mapPath, JSON.stringify((await convertNgii(sharedPath('data', 'ngii', 'fmtc'))).map));
    const r = await compare(mapPath, 63, 300, 1);
    expect(r.differing).toBe(0);
    expectTwoPaths(r);
  });

  it.skipIf(extraMaps.length === 0)('maps named by VILS_EXACT_MAPS (K-City, FMTC), 63 NPCs, 300 steps', async () => {
    for (const m of extraMaps) {
      const r = await compare(m, 63, 300, 1);
      expect(r.differing, m).toBe(0);
    }
  });
});

describe('exact stand-ins', () => {
  it('obbOverlapCS is obbOverlap given the cosines and sines', () => {
    const rng = new SeededRandom(11);
    let overlaps = 0, mismatches = 0;
    for (let k = 0; k < 200_000; k++) {
      const ax = (rng.next() - 0.5) * 20, ay = (rng.next() - 0.5) * 20, ayaw = (rng.next() - 0.5) * 8;
      const bx = (rng.next() - 0.5) * 20, by = (rng.next() - 0.5) * 20, byaw = (rng.next() - 0.5) * 8;
      const al = rng.next() * 4, aw = rng.next() * 2, bl = rng.next() * 30, bw = rng.next() * 2;
      const r = obbOverlap(ax, ay, ayaw, al, aw, bx, by, byaw, bl, bw);
      if (r) overlaps++;
      if (r !== obbOverlapCS(ax, ay, Math.cos(ayaw), Math.sin(ayaw), al, aw, bx, by, Math.cos(byaw), Math.sin(byaw), bl, bw)) mismatches++;
    }
    expect(overlaps).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
  });

  it('obbOverlapIn is obbOverlapCS with its arguments in an array', () => {
    const rng = new SeededRandom(12);
    const v = new Float64Array(12);
    let overlaps = 0, mismatches = 0;
    for (let k = 0; k < 200_000; k++) {
      const ayaw = (rng.next() - 0.5) * 8, byaw = (rng.next() - 0.5) * 8;
      const args = [(rng.next() - 0.5) * 20, (rng.next() - 0.5) * 20, Math.cos(ayaw), Math.sin(ayaw), rng.next() * 4, rng.next() * 2,
        (rng.next() - 0.5) * 20, (rng.next() - 0.5) * 20, Math.cos(byaw), Math.sin(byaw), rng.next() * 30, rng.next() * 2] as const;
      v.set(args);
      const r = obbOverlapCS(...args);
      if (r) overlaps++;
      if (r !== obbOverlapIn(v)) mismatches++;
    }
    expect(overlaps).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
  });

  it('PointGrid answers the points within a radius as the scan of all of them does (kdbush\'s test)', () => {
    const rng = new SeededRandom(13);
    const n = 3000;
    const xs = new Float32Array(n), ys = new Float32Array(n);
    for (let k = 0; k < n; k++) {
      // clusters along lines (as road entities are), some points on a 1 m lattice (ties on cell borders)
      xs[k] = k % 3 === 0 ? Math.round((rng.next() - 0.5) * 600) : (rng.next() - 0.5) * 600;
      ys[k] = k % 3 === 0 ? Math.round((rng.next() - 0.5) * 400) : (k % 7) * 40 - 140 + rng.next() * 2;
    }
    const grid = new PointGrid(xs, ys, n);
    const out = new Int32Array(n);
    let hits = 0, mismatches = 0;
    for (let q = 0; q < 3000; q++) {
      const x = q % 5 === 0 ? Math.round((rng.next() - 0.5) * 700) : (rng.next() - 0.5) * 700, y = (rng.next() - 0.5) * 500;
      const r = [0, 1, 5, 16, 30, 55.001, 200][q % 7];
      const m = grid.withinInto(x, y, r, out);
      const got = Array.from(out.subarray(0, m)).sort((a, b) => a - b);
      const want: number[] = [];
      for (let k = 0; k < n; k++) {
        const dx = xs[k] - x, dy = ys[k] - y;
        if (dx * dx + dy * dy <= r * r) want.push(k);
      }
      hits += want.length;
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches++;
    }
    expect(hits).toBeGreaterThan(100_000);
    expect(mismatches).toBe(0);
  });

  it('XOrder gives the slots whose key lies in a range, in slot order', () => {
    const rng = new SeededRandom(14);
    const order = new XOrder(80);
    const out = new Int32Array(80);
    let mismatches = 0, found = 0;
    for (let round = 0; round < 2000; round++) {
      order.clear();
      const keys = Array.from({ length: 70 }, (_, j) => (j % 23 === 5 ? NaN : Math.round(rng.next() * 400) / (j % 2 ? 1 : 4)));
      keys.forEach((key, j) => { if (j % 11 !== 3) order.add(j, key); });
      order.sort();
      const lo = rng.next() * 450 - 25, hi = round % 13 === 0 ? NaN : lo + rng.next() * 120;
      const m = order.inRange(lo, hi, out);
      const want = keys.map((key, j) => j).filter((j) => j % 11 !== 3 && (Number.isNaN(hi) || Number.isNaN(keys[j]) || (keys[j] >= lo && keys[j] <= hi)));
      found += m;
      if (JSON.stringify(Array.from(out.subarray(0, m))) !== JSON.stringify(want)) mismatches++;
    }
    expect(found).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
  });

  it('mayReachPath says no only where the test with the heading says no', () => {
    const rng = new SeededRandom(23);
    let no = 0, wrong = 0;
    for (let k = 0; k < 500_000; k++) {
      const along = (rng.next() - 0.4) * 50, lat = rng.next() * 20;
      const hl = 1 + rng.next() * 2, hw = 0.5 + rng.next();
      const length = rng.next() * 12, width = rng.next() * 3, dyaw = (rng.next() - 0.5) * 8;
      if (mayReachPath(along, lat, hl, hw, length, width)) continue;
      no++;
      // quality.ts vehicleAhead's test with the heading (AHEAD_M 15, PATH_MARGIN_M 0.3)
      const cr = Math.abs(Math.cos(dyaw)), sr = Math.abs(Math.sin(dyaw));
      const reachAlong = 0.5 * (cr * length + sr * width);
      const reachAcross = 0.5 * (sr * length + cr * width);
      if (along + reachAlong > hl && along - reachAlong < hl + 15 && lat - reachAcross < hw + 0.3) wrong++;
    }
    expect(no).toBeGreaterThan(100_000);
    expect(wrong).toBe(0);
  });

  it('LaneNetwork.pose and Route.goal as they were, on the demo track', async () => {
    const { scene, release } = await setupScene({ mapPath: join(PROJECT_ROOT, 'maps', 'demo-track.json'), modelPath: testModel(), config: { npc_target: 1 } });
    const lanes = scene.lanes;
    const rng = new SeededRandom(3);
    let poses = 0, goals = 0, mismatches = 0;
    const same = (p: Record<string, unknown>, q: Record<string, unknown>) => JSON.stringify(p) === JSON.stringify(q) && Object.keys(p).every((key) => Object.is(p[key], q[key]));
    for (let li = 0; li < lanes.lanes.length; li++) {
      const L = lanes.lanes[li];
      for (const s of [-1, 0, L.length, L.length + 1, NaN, ...Array.from({ length: 200 }, () => rng.next() * L.length), ...Array.from(L.cum)]) {
        if (!same(lanes.pose(li, s) as never, poseBefore(lanes, li, s) as never)) mismatches++;
        poses++;
      }
      for (let k = 0; k < 40; k++) {
        const route = new Route(lanes, li, rng.next() * L.length, 100 + rng.next() * 600, rng);
        for (let p = 0; p < 30; p++) {
          route.progress = rng.next() * route.length;
          route.lateral = (rng.next() - 0.5) * 2;
          const args: [number, number, number, number] = [6, 5 + rng.next() * 40, rng.next() * 1.5, rng.next() * 5];
          if (!same(route.goal(...args) as never, goalBefore(route, lanes, ...args) as never)) mismatches++;
          goals++;
        }
      }
    }
    await release();
    expect(poses).toBeGreaterThan(1000);
    expect(goals).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
  });
});

/** LaneNetwork.pose as it was: the segment found by a scan from the start. */
function poseBefore(net: LaneNetwork, lane: number, s: number) {
  const { xs, ys, cum } = net.lanes[lane];
  const sc = Math.min(Math.max(s, 0), cum[cum.length - 1]);
  let i = 1;
  while (i < cum.length - 1 && cum[i] < sc) i++;
  const seg = cum[i] - cum[i - 1] || 1;
  const t = (sc - cum[i - 1]) / seg;
  return { x: xs[i - 1] + t * (xs[i] - xs[i - 1]), y: ys[i - 1] + t * (ys[i] - ys[i - 1]), yaw: Math.atan2(ys[i] - ys[i - 1], xs[i] - xs[i - 1]) };
}

/** Route.goal as it was: every sample computed first (poseAt through poseBefore). */
function goalBefore(route: Route, net: LaneNetwork, minLead: number, maxLead: number, maxDeviation: number, lateralGain = 0, step = 2) {
  const r = route as unknown as { lanes: number[]; offsets: number[]; length: number; progress: number; lateral: number };
  const poseAt = (d: number) => {
    const dc = Math.min(Math.max(d, 0), r.length);
    let k = 0;
    while (k + 1 < r.lanes.length && r.offsets[k + 1] <= dc) k++;
    return poseBefore(net, r.lanes[k], dc - r.offsets[k]);
  };
  const start = poseAt(r.progress);
  const last = Math.min(maxLead, r.length - r.progress);
  const samples: Array<{ x: number; y: number }> = [];
  for (let d = step; d < last; d += step) samples.push(poseAt(r.progress + d));
  samples.push(poseAt(r.progress + last));
  let chosen = Math.min(minLead, last);
  for (let k = 0; k < samples.length; k++) {
    const d = k === samples.length - 1 ? last : (k + 1) * step;
    const end = samples[k];
    const dx = end.x - start.x, dy = end.y - start.y;
    const len = Math.hypot(dx, dy) || 1;
    let dev = 0;
    for (let j = 0; j < k; j++) dev = Math.max(dev, Math.abs((samples[j].x - start.x) * dy - (samples[j].y - start.y) * dx) / len);
    if (d > minLead && dev > maxDeviation) break;
    chosen = Math.max(chosen, Math.min(d, last));
  }
  const g = poseAt(r.progress + chosen);
  const final = r.progress + chosen >= r.length - 1e-6;
  if (lateralGain !== 0 && !final) {
    const shift = -lateralGain * r.lateral;
    g.x += -Math.sin(g.yaw) * shift;
    g.y += Math.cos(g.yaw) * shift;
  }
  return { ...g, final, lead: chosen };
}
