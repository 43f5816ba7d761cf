/** Crosswalks from the real K-City and FMTC releases (B3_SURFACEMARK Kind 5321): counts, axes across the lanes, lanes crossed. */
import { beforeAll, describe, expect, it } from 'vitest';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { FMTC_ORIGIN } from '../../../src/geo/frame.js';
import { parseMapJson } from '../../../src/map/scene-json.js';
import { parseTrafficControl, type CrosswalkRecord } from '../../../src/map/traffic-control.js';
import { sharedPath } from '../../helpers/shared.js';
import { have } from '../../helpers/prerequisites.js';

const RUN = have('shared');
type Converted = Awaited<ReturnType<typeof convertNgii>>;
type Lane = { id: string; road_index: number };

/** The lane's direction at its point nearest the crosswalk's centre, from the map's own lane geometry. */
function laneDirectionNear(map: Converted['map'], laneId: string, c: CrosswalkRecord): [number, number] {
  const lane = (map.map.lane_graph.lanes as Lane[]).find((l) => l.id === laneId)!;
  const g = map.roads[lane.road_index].geometry;
  const cx = (c.a.x + c.b.x) / 2, cy = (c.a.y + c.b.y) / 2;
  let best = Infinity, dir: [number, number] = [1, 0];
  for (let i = 1; i < g.length; i++) {
    const d = Math.hypot((g[i].x + g[i - 1].x) / 2 - cx, (g[i].y + g[i - 1].y) / 2 - cy);
    if (d < best) { best = d; dir = [g[i].x - g[i - 1].x, g[i].y - g[i - 1].y]; }
  }
  return dir;
}

function checkAxes(map: Converted['map']) {
  const laneIds = new Set((map.map.lane_graph.lanes as Lane[]).map((l) => l.id));
  let cosSum = 0, n = 0;
  for (const c of map.traffic_control.crosswalks!) {
    expect(Math.hypot(c.b.x - c.a.x, c.b.y - c.a.y)).toBeCloseTo(c.length, 2);
    expect(c.width).toBeGreaterThan(1);
    for (const l of c.lanes) {
      expect(laneIds.has(l), `${c.id} → ${l}`).toBe(true);
      const d = laneDirectionNear(map, l, c);
      const cos = Math.abs(d[0] * (c.b.x - c.a.x) + d[1] * (c.b.y - c.a.y)) / (Math.hypot(...d) * c.length);
      cosSum += cos;
      n++;
    }
  }
  // the walking axis runs across the lanes crossed: on average within ~25° of perpendicular to them
  return cosSum / n;
}

describe.skipIf(!RUN)('crosswalks from the real NGII releases', () => {
  let kcity: Converted, fmtc: Converted;
  beforeAll(async () => {
    kcity = await convertNgii(sharedPath('data', 'ngii', 'kcity'));
    fmtc = await convertNgii(sharedPath('data', 'ngii', 'fmtc'), { origin: FMTC_ORIGIN });
  });

  it('K-City: 53 crosswalks (Kind 5321), the 10 bicycle crossings (534) counted and not carried, never roads', () => {
    const tc = kcity.map.traffic_control;
    expect(tc.crosswalks).toHaveLength(53);
    expect(kcity.summary.crosswalks).toMatchObject({ total: 53, bicycleCrossings: 10 });
    expect(kcity.summary.layers.B3_SURFACEMARK).toMatchObject({ read: 301, written: 53 });
    expect(kcity.summary.layers.B3_SURFACEMARK!.skipped['Kind 534 bicycle crossing (not carried)']).toBe(10);
    expect(kcity.map.map.counts).toEqual({ lane: 809, road_line: 1574, road_edge: 692, speed_bump: 6 });
    expect(parseTrafficControl(JSON.parse(JSON.stringify(tc)))).toEqual(tc);
    expect(parseMapJson(JSON.parse(JSON.stringify(kcity.map)), 'kcity').trafficControl.crosswalks).toHaveLength(53);
  });

  it('K-City: lanes cross 51 of them (221 crossings), the axis across those lanes; the 2 with no lane take the long side', () => {
    const cws = kcity.map.traffic_control.crosswalks!;
    expect(cws.filter((c) => c.lanes.length > 0)).toHaveLength(51);
    expect(kcity.summary.crosswalks).toMatchObject({ withLanes: 51, laneCrossings: 221, axisFromLanes: 51, axisFromLongSide: 2 });
    expect(cws.filter((c) => c.lanes.length === 0).map((c) => c.id).sort()).toEqual(['B319BS010010', 'B319BS010044']);
    const meanCos = checkAxes(kcity.map);
    console.log(`K-City crosswalks: mean |cos| between the walking axis and the lanes crossed ${meanCos.toFixed(3)}`);
    expect(meanCos).toBeLessThan(0.42);
    // one painted wider (4.0 m) than the one lane it crosses (3.1 m): the axis is across the lane, not the long side
    const narrow = cws.find((c) => c.id === 'B319BS010002')!;
    expect(narrow.length).toBeLessThan(narrow.width);
    expect(narrow.lanes).toEqual(['A219BS010619']);
  });

  it('FMTC: 19 crosswalks, every one crossed by lanes (113 crossings), the 3 bicycle crossings not carried', () => {
    const tc = fmtc.map.traffic_control;
    expect(tc.crosswalks).toHaveLength(19);
    expect(fmtc.summary.crosswalks).toEqual({ total: 19, axisFromLanes: 19, axisFromLongSide: 0, withLanes: 19, laneCrossings: 113, bicycleCrossings: 3 });
    expect(parseTrafficControl(JSON.parse(JSON.stringify(tc)))).toEqual(tc);
    expect(fmtc.map.roads.every((r) => r.type !== 'crosswalk')).toBe(true);
    const meanCos = checkAxes(fmtc.map);
    console.log(`FMTC crosswalks: mean |cos| between the walking axis and the lanes crossed ${meanCos.toFixed(3)}`);
    expect(meanCos).toBeLessThan(0.42);
  });
});
