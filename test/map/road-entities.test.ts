import { describe, expect, it } from 'vitest';
import { buildRoadEntities, EntityType, parseMapJson, RoadIndex, worldMean } from '../../src/map/index.js';

const f = Math.fround;

describe('road entities (spec §5.1)', () => {
  it('makes one entity per segment: midpoint, start→end heading, (len/2, 0.1, 0.1)', () => {
    const e = buildRoadEntities([{ type: 'lane', geometry: [{ x: 0, y: 0 }, { x: 4, y: 0 }, { x: 4, y: 6 }] }], { x: 0, y: 0 });
    expect(e.count).toBe(2);
    expect([e.x[0], e.y[0], e.halfLength[0], e.halfWidth[0], e.halfHeight[0], e.heading[0], e.type[0]]).toEqual([2, 0, 2, f(0.1), f(0.1), 0, EntityType.RoadLane]);
    expect([e.x[1], e.y[1], e.halfLength[1]]).toEqual([4, 3, 3]);
    expect(e.heading[1]).toBeCloseTo(Math.PI / 2, 6);
  });
  it('boxes crosswalks and speed bumps from the first 4 points', () => {
    const e = buildRoadEntities(
      [{ type: 'crosswalk', geometry: [{ x: 0, y: 0 }, { x: 0, y: 10 }, { x: 3, y: 10 }, { x: 3, y: 0 }, { x: 99, y: 99 }] }],
      { x: 0, y: 0 },
    );
    expect(e.count).toBe(1);
    expect([e.x[0], e.y[0], e.halfLength[0], e.halfWidth[0], e.halfHeight[0], e.type[0]]).toEqual([1.5, 5, 5, 1.5, f(0.1), EntityType.CrossWalk]);
    expect(e.heading[0]).toBeCloseTo(Math.PI / 2, 6); // the longest edge, p0 → p1
  });
  it('places stop signs at geometry[0] with heading 0 and scale (0.2, 0.2, 1); drops driveways and unknown types', () => {
    const e = buildRoadEntities(
      [
        { type: 'driveway', geometry: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 1, y: 1 }, { x: 0, y: 1 }] },
        { type: 'stop_sign', geometry: [{ x: 7, y: 8 }] },
        { type: 'mystery', geometry: [{ x: 0, y: 0 }, { x: 1, y: 0 }] },
      ],
      { x: 1, y: 1 },
    );
    expect(e.count).toBe(1);
    expect([e.x[0], e.y[0], e.halfLength[0], e.halfWidth[0], e.halfHeight[0], e.heading[0], e.type[0], e.road[0]]).toEqual([6, 7, f(0.2), f(0.2), 1, 0, EntityType.StopSign, 1]);
  });
  it('reduces long lane/line/edge polylines before making segments', () => {
    const geometry = Array.from({ length: 21 }, (_, i) => ({ x: i, y: 0 }));
    const e = buildRoadEntities([{ type: 'road_edge', geometry }], { x: 0, y: 0 });
    expect(e.count).toBe(1);
    expect(e.halfLength[0]).toBe(10);
  });
  it('computes the world mean in float32 over valid positions and all road points (spec §7.15)', () => {
    const { scene } = parseMapJson({
      objects: [{ position: [{ x: 1, y: 1 }, { x: 100, y: 100 }], velocity: [{ x: 0, y: 0 }, { x: 0, y: 0 }], heading: [0, 0], valid: [true, false], width: 2, length: 4, goalPosition: { x: 1, y: 1 }, type: 'vehicle' }],
      roads: [{ type: 'driveway', geometry: [{ x: 3, y: 5 }] }, { type: 'lane', geometry: [{ x: 5, y: 3 }] }],
    });
    expect(worldMean(scene)).toEqual({ x: 3, y: 3 });
  });
});

describe('road radius query (spec §5.4)', () => {
  it('returns the first 200 in creation order within the radius, not the nearest 200', () => {
    // 300 one-segment lanes: the first 150 are 40-49 m away, the last 150 are right at the query point
    const roads = [];
    for (let i = 0; i < 300; i++) {
      const d = i < 150 ? 40 + (i % 10) : 0.5;
      roads.push({ type: 'lane', geometry: [{ x: d, y: -0.5 }, { x: d, y: 0.5 }] });
    }
    const index = new RoadIndex(buildRoadEntities(roads, { x: 0, y: 0 }));
    const out = new Int32Array(200);
    expect(index.firstInRadius(0, 0, 50, 200, out)).toBe(200);
    expect(Array.from(out)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
  it('includes a centre at exactly 50 m and excludes one just beyond', () => {
    const roads = [
      { type: 'lane', geometry: [{ x: 50, y: -1 }, { x: 50, y: 1 }] },
      { type: 'lane', geometry: [{ x: 0, y: 49 }, { x: 0, y: 51.002 }] },
      { type: 'lane', geometry: [{ x: -30, y: -40.5 }, { x: -30, y: -39.5 }] },
    ];
    const index = new RoadIndex(buildRoadEntities(roads, { x: 0, y: 0 }));
    const out = new Int32Array(200);
    const n = index.firstInRadius(0, 0, 50, 200, out);
    expect(Array.from(out.subarray(0, n))).toEqual([0, 2]);
  });
});

describe('map JSON validation', () => {
  it('names the offending field', () => {
    expect(() => parseMapJson({ roads: [{ type: 'lane', geometry: [{ x: 0 }] }] }, 'm.json')).toThrow(/m\.json: roads\[0\]\.geometry\[0\]: expected \{x, y\}/);
    expect(() => parseMapJson({ roads: 3 }, 'm.json')).toThrow(/"roads" must be an array/);
    expect(() => parseMapJson({ roads: [], objects: [{ position: [{ x: 0, y: 0 }], velocity: [], heading: [0], valid: [true], width: 1, length: 1, goalPosition: { x: 0, y: 0 }, type: 'vehicle' }] }, 'm.json')).toThrow(/objects\[0\]\.velocity: 0 entries for 1 positions/);
  });
});
