import { describe, expect, it } from 'vitest';
import { OBS_SIZE, PARTNER_OFFSET, ROAD_OFFSET } from '../../src/policy/index.js';
import { buildRoadEntities, RoadIndex } from '../../src/map/index.js';
import { ObservationBuilder } from '../../src/traffic/observation.js';
import { AgentKind } from '../../src/traffic/world.js';
import { makeWorld } from '../helpers/world-builder.js';

const f = Math.fround;
const observe = (world: ReturnType<typeof makeWorld>, observer = 0, roads: RoadIndex | null = null, s = 0.7) => {
  const out = new Float32Array(OBS_SIZE).fill(NaN);
  new ObservationBuilder(world.capacity).build(world, roads, [observer], 1, out, s);
  return out;
};
const partner = (o: Float32Array, k: number) => Array.from(o.subarray(PARTNER_OFFSET + 6 * k, PARTNER_OFFSET + 6 * k + 6));
const road = (o: Float32Array, k: number) => Array.from(o.subarray(ROAD_OFFSET + 13 * k, ROAD_OFFSET + 13 * k + 13));

describe('ego block (spec §3)', () => {
  it('normalises speed, scaled size, ego-frame goal and the collided flag', () => {
    // ego at (10, 20) facing north (+y), 5 m/s, 4.5 × 2 m, goal 100 m ahead and 30 m to its left (−x)
    const w = makeWorld([{ x: 10, y: 20, yaw: Math.PI / 2, speed: 5, goal: [-20, 120] }]);
    w.collided[0] = 1;
    const o = observe(w);
    expect(o[0]).toBeCloseTo(0.05, 6);
    expect(o[1]).toBe(f((4.5 * 0.7) / 30));
    expect(o[2]).toBe(f((2 * 0.7) / 15));
    expect(o[3]).toBeCloseTo(0.1, 6); // forward
    expect(o[4]).toBeCloseTo(0.03, 6); // left is positive
    expect(o[5]).toBe(1);
  });
  it('uses the policy size scale (1.0 gives the raw size)', () => {
    const o = observe(makeWorld([{ x: 0, y: 0 }]), 0, null, 1.0);
    expect(o[1]).toBe(f(4.5 / 30));
    expect(o[2]).toBe(f(2 / 15));
  });
});

describe('partner block (spec §4)', () => {
  it('rotates into the ego frame, wraps relative heading, pads with zero rows', () => {
    const w = makeWorld([
      { x: 10, y: 20, yaw: Math.PI / 2 },
      { x: 0, y: 20, yaw: Math.PI, speed: 3, length: 5, width: 2.5 }, // 10 m to the ego's left, facing west
      { x: 10, y: 10, yaw: -Math.PI / 2, speed: 4 }, // 10 m behind, facing south: relative heading ±π → 0.5
    ]);
    const o = observe(w);
    const p0 = partner(o, 0);
    expect(p0[0]).toBeCloseTo(0.03, 6);
    expect(p0[1]).toBeCloseTo(0, 6);
    expect(p0[2]).toBeCloseTo(0.01, 6);
    expect(p0[3]).toBeCloseTo(0.25, 6);
    expect(p0[4]).toBe(f((5 * 0.7) / 30));
    expect(p0[5]).toBe(f((2.5 * 0.7) / 15));
    const p1 = partner(o, 1);
    expect(p1[1]).toBeCloseTo(-0.01, 6);
    expect(Math.abs(p1[3])).toBeCloseTo(0.5, 6);
    for (let k = 2; k < 63; k++) expect(partner(o, k)).toEqual([0, 0, 0, 0, 0, 0]);
  });
  it('keeps partners at exactly 50 m and drops those beyond; invisible ones are omitted, not zeroed in place', () => {
    const w = makeWorld([
      { x: 0, y: 0 },
      { x: 50.01, y: 0, speed: 1 },
      { x: 30, y: 40, speed: 2 }, // exactly 50 m
      { x: 0, y: -10, speed: 3 },
    ]);
    const o = observe(w);
    expect(partner(o, 0)[0]).toBeCloseTo(0.02, 6);
    expect(partner(o, 1)[0]).toBeCloseTo(0.03, 6);
    expect(partner(o, 2)).toEqual([0, 0, 0, 0, 0, 0]);
  });
  it('caps at 63 partners, external (injected) agents first so they are never dropped', () => {
    const specs = [{ x: 0, y: 0 }];
    for (let i = 0; i < 70; i++) specs.push({ x: 1 + (i % 10), y: 5 + Math.floor(i / 10) * 5 });
    const w = makeWorld([...specs, { x: 20, y: 20, kind: AgentKind.External, speed: 9 } as never]);
    const o = observe(w);
    expect(partner(o, 0)[0]).toBeCloseTo(0.09, 6); // the external agent, created last, comes first
    let filled = 0;
    for (let k = 0; k < 63; k++) if (partner(o, k).some((v) => v !== 0)) filled++;
    expect(filled).toBe(63);
  });
});

describe('road block (spec §5)', () => {
  it('writes ego-frame rows with scale, relative heading and one-hot type; pads with type-None rows', () => {
    const roads = new RoadIndex(buildRoadEntities([
      { type: 'road_edge', geometry: [{ x: 12, y: 20 }, { x: 12, y: 30 }] }, // 2 m right of the ego, along its heading
      { type: 'stop_sign', geometry: [{ x: 10, y: 40 }] },
      { type: 'lane', geometry: [{ x: 500, y: 500 }, { x: 501, y: 500 }] }, // out of range
    ], { x: 0, y: 0 }));
    const w = makeWorld([{ x: 10, y: 20, yaw: Math.PI / 2 }]);
    const o = observe(w, 0, roads);
    const r0 = road(o, 0);
    expect(r0[0]).toBeCloseTo(0.005, 6);
    expect(r0[1]).toBeCloseTo(-0.002, 6);
    expect(r0[2]).toBeCloseTo(0.05, 6);
    expect(r0[3]).toBeCloseTo(0.001, 6);
    expect(r0[4]).toBeCloseTo(0.001, 6);
    expect(r0[5]).toBeCloseTo(0, 6);
    expect(r0.slice(6)).toEqual([0, 1, 0, 0, 0, 0, 0]);
    const r1 = road(o, 1);
    expect(r1[0]).toBeCloseTo(0.02, 6);
    expect(r1[2]).toBeCloseTo(0.002, 6);
    expect(r1[4]).toBeCloseTo(0.01, 6);
    expect(r1[5]).toBeCloseTo(-0.25, 6); // stop sign heading 0 seen from a north-facing ego
    expect(r1.slice(6)).toEqual([0, 0, 0, 0, 0, 0, 1]);
    for (let k = 2; k < 200; k++) expect(road(o, k)).toEqual([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  });
  it('takes the first 200 in-range entities in creation order', () => {
    const roadsJson = [];
    for (let i = 0; i < 250; i++) roadsJson.push({ type: 'lane', geometry: [{ x: 45 - i * 0.1, y: 0 }, { x: 45 - i * 0.1, y: 1 }] });
    const roads = new RoadIndex(buildRoadEntities(roadsJson, { x: 0, y: 0 }));
    const o = observe(makeWorld([{ x: 0, y: 0 }]), 0, roads);
    expect(road(o, 0)[0]).toBeCloseTo(0.045, 6); // entity 0 (farthest) first
    expect(road(o, 199)[0]).toBeCloseTo((45 - 199 * 0.1) / 1000, 6);
  });
});
