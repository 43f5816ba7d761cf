import { describe, expect, it } from 'vitest';
import { cutEdgesAtLaneCrossings, deriveRoadEdges } from '../../src/map/drivable.js';
import type { RoadJson } from '../../src/map/types.js';

const line = (type: string, pts: Array<[number, number]>): RoadJson => ({ type, geometry: pts.map(([x, y]) => ({ x, y })) });
const distance = (p: { x: number; y: number }, edges: RoadJson[]) => {
  let best = Infinity;
  for (const e of edges) for (let i = 1; i < e.geometry.length; i++) {
    const a = e.geometry[i - 1], b = e.geometry[i];
    const dx = b.x - a.x, dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
    best = Math.min(best, Math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy));
  }
  return best;
};

describe('a drivable boundary derived from the lanes', () => {
  it('outlines two lanes side by side at the painted lines plus the shoulder, as one ring', () => {
    // lanes at y = ±2 (4 m apart), painted edge lines at y = ±4.5, a centre line at 0
    const roads = [
      line('lane', [[0, -2], [50, -2], [100, -2]]),
      line('lane', [[100, 2], [50, 2], [0, 2]]),
      line('road_line', [[0, -4.5], [100, -4.5]]),
      line('road_line', [[0, 4.5], [100, 4.5]]),
      line('road_line', [[0, 0], [100, 0]]),
    ];
    const { edges } = deriveRoadEdges(roads);
    expect(edges).toHaveLength(1);
    const ys = edges[0].geometry.map((p) => p.y);
    expect(Math.max(...ys)).toBeCloseTo(5, 1); // painted line 2.5 m out + 0.5 m shoulder
    expect(Math.min(...ys)).toBeCloseTo(-5, 1);
    const xs = edges[0].geometry.map((p) => p.x);
    expect(Math.min(...xs)).toBeCloseTo(-3, 1); // the ends reach 3 m beyond the lanes
    expect(Math.max(...xs)).toBeCloseTo(103, 1);
  });

  it('uses half the lane width where no line is painted, and closes the slit between lanes that meet end to end', () => {
    const roads = [line('lane', [[0, 0], [40, 0]]), line('lane', [[40.3, 0.05], [80, 0]])];
    const { edges } = deriveRoadEdges(roads, { laneWidth: 3.5, shoulder: 0.5 });
    expect(edges).toHaveLength(1); // one outline: no slit at x = 40
    expect(distance({ x: 40, y: 0 }, edges)).toBeGreaterThan(2.2);
  });
});

describe('road edges that lanes cross', () => {
  it('are cut open 4 m either side of each crossing; others are kept as they are', () => {
    const wall = line('road_edge', [[-50, 10], [50, 10]]);
    const kerb = line('road_edge', [[-50, -10], [50, -10]]);
    const crossing = line('lane', [[0, -5], [0, 30]]);
    const { roads, cuts } = cutEdgesAtLaneCrossings([crossing, wall, kerb]);
    expect(cuts).toBe(1);
    expect(roads[0]).toBe(crossing);
    const pieces = roads.filter((r) => r.type === 'road_edge' && r.geometry[0].y === 10);
    expect(pieces).toHaveLength(2);
    expect(pieces[0].geometry.at(-1)!.x).toBeCloseTo(-4, 6);
    expect(pieces[1].geometry[0].x).toBeCloseTo(4, 6);
    expect(roads).toContain(kerb);
  });
});
