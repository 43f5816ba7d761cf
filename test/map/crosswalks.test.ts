/** Crosswalk records: the walking axis across the lanes, the lanes crossed, validation with the field path, the round trip. */
import { describe, expect, it } from 'vitest';
import { CROSSING_MIN_ANGLE_DEG, crosswalkGeometry, crosswalkOfHead, directionInside, distanceToCrossingAxis } from '../../src/map/crosswalks.js';
import type { Pt } from '../../src/map/ngii/geometry.js';
import { MapFormatError } from '../../src/map/errors.js';
import { parseMapJson } from '../../src/map/scene-json.js';
import { parseTrafficControl } from '../../src/map/traffic-control.js';

const rect = (x0: number, y0: number, x1: number, y1: number): Pt[] => [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
const vertical = (id: string, x: number, dir = 1) => ({ id, pts: dir > 0 ? [[x, -30], [x, 30]] as Pt[] : [[x, 30], [x, -30]] as Pt[] });
const horizontal = (id: string, y: number) => ({ id, pts: [[-30, y], [30, y]] as Pt[] });

describe('crosswalk geometry', () => {
  it('a crossing of a two-way road: the axis across the lanes (here its long side), every lane crossed', () => {
    // 10 m across a road running north–south (lanes at x = ±1.75, ±5.25), 4 m wide along it
    const g = crosswalkGeometry(rect(-5, -2, 5, 2), [vertical('N1', 1.75), vertical('N2', 5.25 - 1), vertical('S1', -1.75, -1), vertical('S2', -4, -1)]);
    expect(g.axisFrom).toBe('lanes');
    expect(g.length).toBeCloseTo(10, 6);
    expect(g.width).toBeCloseTo(4, 6);
    expect(Math.abs(g.b[1] - g.a[1])).toBeLessThan(1e-9); // the axis runs east–west
    expect(Math.abs(g.b[0] - g.a[0])).toBeCloseTo(10, 6);
    expect(g.lanes.sort()).toEqual(['N1', 'N2', 'S1', 'S2']);
  });

  it('a crossing painted wider than the road: the axis is across the lane, not the long side', () => {
    // 3 m across one northbound lane, 6 m along it (K-City B319BS010002 is 3.1 × 4.0 m like this)
    const g = crosswalkGeometry(rect(-1.5, -3, 1.5, 3), [vertical('L', 0)]);
    expect(g.axisFrom).toBe('lanes');
    expect(g.length).toBeCloseTo(3, 6);
    expect(g.width).toBeCloseTo(6, 6);
    expect(Math.abs(g.b[1] - g.a[1])).toBeLessThan(1e-9);
    expect(g.lanes).toEqual(['L']);
    // without the lane, the long side is all there is
    const bare = crosswalkGeometry(rect(-1.5, -3, 1.5, 3), []);
    expect(bare.axisFrom).toBe('long_side');
    expect(bare.length).toBeCloseTo(6, 6);
    expect(bare.lanes).toEqual([]);
  });

  it('a skewed road: the axis follows the outline, across lanes that meet it at an angle', () => {
    const th = (25 * Math.PI) / 180; // the road runs at 25° off north; the crossing's rectangle is rotated with it
    const rot = ([x, y]: Pt): Pt => [x * Math.cos(th) - y * Math.sin(th), x * Math.sin(th) + y * Math.cos(th)];
    const ring = rect(-1.5, -3, 1.5, 3).map(rot);
    const lane = { id: 'L', pts: [rot([0, -30]), rot([0, 30])] };
    const g = crosswalkGeometry(ring, [lane]);
    const ax: Pt = [g.b[0] - g.a[0], g.b[1] - g.a[1]];
    const d: Pt = [lane.pts[1][0] - lane.pts[0][0], lane.pts[1][1] - lane.pts[0][1]];
    expect(Math.abs(ax[0] * d[0] + ax[1] * d[1]) / (Math.hypot(...ax) * Math.hypot(...d))).toBeLessThan(1e-9);
    expect(g.length).toBeCloseTo(3, 6);
  });

  it('lanes along the stripes, or passing by, do not cross it; the majority of lanes decides the axis', () => {
    const g = crosswalkGeometry(rect(-5, -2, 5, 2), [vertical('N1', 1.75), vertical('S1', -1.75, -1), horizontal('ALONG', 0), vertical('BESIDE', 7)]);
    expect(g.lanes.sort()).toEqual(['N1', 'S1']);
    expect(Math.abs(g.b[1] - g.a[1])).toBeLessThan(1e-9);
    // a lane at 20° to the axis (below CROSSING_MIN_ANGLE_DEG) does not count; at 40° it does
    const at = (id: string, deg: number) => {
      const r = (deg * Math.PI) / 180;
      return { id, pts: [[-20 * Math.cos(r), -20 * Math.sin(r)], [20 * Math.cos(r), 20 * Math.sin(r)]] as Pt[] };
    };
    expect(CROSSING_MIN_ANGLE_DEG).toBe(30);
    const h = crosswalkGeometry(rect(-5, -2, 5, 2), [vertical('N1', 1.75), vertical('N2', 3), at('SHALLOW', 20), at('STEEP', 40)]);
    expect(h.lanes.sort()).toEqual(['N1', 'N2', 'STEEP']);
  });

  it('directionInside clips a polyline to the ring (length inside, direction of travel)', () => {
    const d = directionInside([[0, -30], [0, 30]], rect(-5, -2, 5, 2))!;
    expect(d[0]).toBeCloseTo(0, 9);
    expect(d[1]).toBeCloseTo(4, 9);
    expect(directionInside([[10, -30], [10, 30]], rect(-5, -2, 5, 2))).toBeNull();
    // a lane that starts inside (an intersection path from the stop line)
    expect(directionInside([[0, 0], [0, 30]], rect(-5, -2, 5, 2))![1]).toBeCloseTo(2, 9);
  });

  it('a pedestrian head governs the crossing in line with it, not the one whose end is at the same corner', () => {
    // two crossings meeting at the corner (6, 6): one east–west along y = 4, one north–south along x = 4
    const ew = { id: 'EW', a: { x: -4, y: 4 }, b: { x: 4, y: 4 } };
    const ns = { id: 'NS', a: { x: 4, y: -4 }, b: { x: 4, y: 4 } };
    const head = { x: 6.5, y: 4.3 }; // on the east kerb, in line with EW
    expect(distanceToCrossingAxis(head, ew)).toBeCloseTo(Math.hypot(0.3, 2.5), 9);
    expect(crosswalkOfHead(head, [ns, ew])).toBe(1);
    expect(crosswalkOfHead({ x: 40, y: 40 }, [ns, ew])).toBe(-1);
  });
});

const good = () => ({
  id: 'CW1', polygon: [{ x: -5, y: -2 }, { x: 5, y: -2 }, { x: 5, y: 2 }, { x: -5, y: 2 }],
  a: { x: -5, y: 0 }, b: { x: 5, y: 0 }, length: 10, width: 4, lanes: ['N1', 'S1'],
});
const tcWith = (crosswalks: unknown) => ({ signals: [], stop_lines: [], signs: [], crosswalks });
const fails = (crosswalks: unknown) => {
  try {
    parseTrafficControl(tcWith(crosswalks), 'm');
  } catch (e) {
    expect(e).toBeInstanceOf(MapFormatError);
    return (e as Error).message;
  }
  throw new Error('expected a MapFormatError');
};

describe('crosswalk validation (parseTrafficControl)', () => {
  it('reads a good record, and a map without `crosswalks` as none', () => {
    expect(parseTrafficControl(tcWith([good()])).crosswalks).toEqual([good()]);
    expect(parseTrafficControl({ signals: [], stop_lines: [], signs: [] }).crosswalks).toEqual([]);
    expect(parseTrafficControl(undefined).crosswalks).toEqual([]);
  });

  it('names the field at fault', () => {
    expect(fails({})).toBe('m: traffic_control.crosswalks: expected an array');
    expect(fails([{ ...good(), id: '' }])).toBe('m: traffic_control.crosswalks[0].id: expected a non-empty string');
    expect(fails([{ ...good(), polygon: [{ x: 0, y: 0 }, { x: 1, y: 0 }] }])).toBe('m: traffic_control.crosswalks[0].polygon: expected at least 3 points');
    expect(fails([good(), { ...good(), polygon: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 1, y: 'n' }] }])).toBe('m: traffic_control.crosswalks[1].polygon[2].y: expected a finite number');
    expect(fails([{ ...good(), a: undefined }])).toBe('m: traffic_control.crosswalks[0].a: expected {x, y}');
    expect(fails([{ ...good(), width: 0 }])).toBe('m: traffic_control.crosswalks[0].width: 0 is not a crossing width (> 0 m)');
    expect(fails([{ ...good(), length: -1 }])).toBe('m: traffic_control.crosswalks[0].length: -1 is not a crossing length (> 0 m)');
    expect(fails([{ ...good(), length: 12 }])).toBe('m: traffic_control.crosswalks[0].length: 12 m, but a→b is 10 m apart (the walking axis runs kerb to kerb)');
    expect(fails([{ ...good(), lanes: 'N1' }])).toBe('m: traffic_control.crosswalks[0].lanes: expected an array of lane ids');
    expect(fails([{ ...good(), lanes: [{}] }])).toBe('m: traffic_control.crosswalks[0].lanes[0]: expected a lane id');
    expect(fails([good(), good()])).toBe('m: traffic_control.crosswalks: id CW1 appears twice');
  });

  it('round-trips through a road map file and never becomes a road', () => {
    const json = {
      map: { name: 'x', origin: { lat: 37.36, lon: 126.72 }, lane_graph: { lanes: [{ id: 'N1', road_index: 0, next: [] }] } },
      roads: [{ type: 'lane', geometry: [{ x: 1.75, y: -30 }, { x: 1.75, y: 30 }], map_element_id: 2 }],
      traffic_control: tcWith([good()]),
    };
    const loaded = parseMapJson(JSON.parse(JSON.stringify(json)), 'x');
    expect(loaded.trafficControl.crosswalks).toEqual([good()]);
    expect(loaded.scene.roads.map((r) => r.type)).toEqual(['lane']);
    expect(parseTrafficControl(JSON.parse(JSON.stringify(loaded.trafficControl)))).toEqual(loaded.trafficControl);
  });
});
