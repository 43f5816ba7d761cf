/** Hand-made road maps with junctions, for traffic-control tests. */
import { parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import type { CrosswalkRecord } from '../../src/map/traffic-control.js';

type Pt = { x: number; y: number };

const line = (x0: number, y0: number, x1: number, y1: number, step = 2): Pt[] => {
  const n = Math.max(1, Math.round(Math.hypot(x1 - x0, y1 - y0) / step));
  return Array.from({ length: n + 1 }, (_, i) => ({ x: x0 + ((x1 - x0) * i) / n, y: y0 + ((y1 - y0) * i) / n }));
};

/** A map of the given lanes (each a road of type lane, linked by `next`), with these signal heads and nothing else. */
function laneMap(name: string, lanes: Array<{ id: string; pts: Pt[]; next: string[] }>, control: { signals: unknown[] } = { signals: [] }): LoadedMap {
  const roads: Array<{ type: string; geometry: Pt[]; map_element_id?: number }> = [];
  const graph = lanes.map((l) => {
    roads.push({ type: 'lane', geometry: l.pts, map_element_id: 2 });
    return { id: l.id, road_index: roads.length - 1, next: l.next, left: null, right: null };
  });
  return parseMapJson({
    map: { name, origin: { lat: 37.3645, lon: 126.7239 }, lane_graph: { lanes: graph } },
    roads,
    traffic_control: { signals: control.signals, stop_lines: [], signs: [] },
  }, name);
}

/**
 * A four-way crossing of two two-way roads at the origin, one lane each way (3.5 m lanes, driving on the right),
 * arms `arm` m long: lanes EB (eastbound, y = −1.75), WB, NB (x = +1.75), SB; each runs straight through. Road
 * edges 4.5 m either side of each road, cut open at the crossing. `signs` puts a stop or yield sign on lanes.
 */
export function crossingMap(opts: { arm?: number; signs?: Record<string, 'stop' | 'yield'>; signals?: boolean } = {}): LoadedMap {
  const a = opts.arm ?? 150;
  const h = 1.75;
  const lanes: Array<{ id: string; pts: Pt[] }> = [
    { id: 'EB', pts: line(-a, -h, a, -h) },
    { id: 'WB', pts: line(a, h, -a, h) },
    { id: 'NB', pts: line(h, -a, h, a) },
    { id: 'SB', pts: line(-h, a, -h, -a) },
  ];
  const roads: Array<{ type: string; geometry: Pt[]; map_element_id?: number }> = [];
  const graph = lanes.map((l) => {
    roads.push({ type: 'lane', geometry: l.pts, map_element_id: 2 });
    return { id: l.id, road_index: roads.length - 1, next: [], left: null, right: null };
  });
  const cut = 7;
  for (const s of [-4.5, 4.5]) {
    roads.push({ type: 'road_edge', geometry: line(-a, s, -cut, s), map_element_id: 15 });
    roads.push({ type: 'road_edge', geometry: line(cut, s, a, s), map_element_id: 15 });
    roads.push({ type: 'road_edge', geometry: line(s, -a, s, -cut), map_element_id: 15 });
    roads.push({ type: 'road_edge', geometry: line(s, cut, s, a), map_element_id: 15 });
  }
  // where each lane enters the crossing, and which way it comes from
  const before: Record<string, Pt> = { EB: { x: -10, y: -h }, WB: { x: 10, y: h }, NB: { x: h, y: -10 }, SB: { x: -h, y: 10 } };
  const signs = Object.entries(opts.signs ?? {}).map(([lane, kind], i) => ({ id: `SG${i + 1}`, x: before[lane].x, y: before[lane].y, kind, lanes: [lane] }));
  const signals = opts.signals ? lanes.map((l, i) => ({ id: `H${i + 1}`, x: before[l.id].x, y: before[l.id].y, head: 'vehicle_horizontal_3_colour', kind: 'vehicle', left_arrow: false, lanes: [l.id] })) : [];
  return parseMapJson({
    map: { name: 'crossing', origin: { lat: 37.3645, lon: 126.7239 }, lane_graph: { lanes: graph } },
    roads,
    traffic_control: { signals, stop_lines: [], signs },
  }, 'crossing');
}

/**
 * Two lanes that merge into one, as FMTC's J20 and J3 have them: IN1 runs east along y = 0 to the origin, IN2 comes
 * in from the south-west at 30° and ends there too, and OUT runs on east. Both IN lanes lead into OUT.
 */
export function mergeMap(): LoadedMap {
  const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
  return laneMap('merge', [
    { id: 'IN1', pts: line(-80, 0, 0, 0), next: ['OUT'] },
    { id: 'IN2', pts: line(-80 * c, -80 * s, 0, 0), next: ['OUT'] },
    { id: 'OUT', pts: line(0, 0, 100, 0), next: [] },
  ]);
}

/**
 * A signalised corner where a right turn merges into a through road: EB (eastbound along y = −1.75) ends at
 * x = −8 and turns right (south) on a quarter circle into SOUTH, which SB (southbound along x = −1.75) also runs
 * into, straight through. EB's only way on is the right turn. Heads on EB and SB.
 */
export function rightTurnMap(): LoadedMap {
  const h = 1.75, e = 8, r = e - h;
  const arc: Pt[] = Array.from({ length: 9 }, (_, i) => {
    const a = Math.PI / 2 - (i / 8) * (Math.PI / 2);
    return { x: -e + r * Math.cos(a), y: -e + r * Math.sin(a) };
  });
  const lanes: Array<{ id: string; pts: Pt[]; next: string[] }> = [
    { id: 'EB', pts: line(-150, -h, -e, -h), next: ['EB_RIGHT'] },
    { id: 'EB_RIGHT', pts: arc, next: ['SOUTH'] },
    { id: 'SB', pts: line(-h, 150, -h, e), next: ['SB_THRU'] },
    { id: 'SB_THRU', pts: line(-h, e, -h, -e), next: ['SOUTH'] },
    { id: 'SOUTH', pts: line(-h, -e, -h, -150), next: [] },
  ];
  const head = (id: string, x: number, y: number, lane: string) => ({ id, x, y, head: 'vehicle_horizontal_3_colour', kind: 'vehicle', left_arrow: false, lanes: [lane] });
  return laneMap('right-turn', lanes, { signals: [head('H1', -10, -h, 'EB'), head('H2', -h, 10, 'SB')] });
}

/**
 * Two lanes of one road that merge into one, neither giving way (FMTC's J20): LEFT and RIGHT run east 3.5 m apart
 * (y = ±1.75) to x = −30, then close in over 30 m to the origin, where OUT runs on east.
 */
export function zipMap(): LoadedMap {
  const side = (y: number): Pt[] => [...line(-150, y, -30, y), ...line(-30, y, 0, 0).slice(1)];
  const lanes: Array<{ id: string; pts: Pt[]; next: string[] }> = [
    { id: 'LEFT', pts: side(1.75), next: ['OUT'] },
    { id: 'RIGHT', pts: side(-1.75), next: ['OUT'] },
    { id: 'OUT', pts: line(0, 0, 150, 0), next: [] },
  ];
  return laneMap('zip', lanes);
}

/**
 * Two lanes of one approach where a turn from one crosses the other's way on (K-City's J35): A and B run east 3.5 m
 * apart (A on the left at y = +1.75, B at y = −1.75) to x = −10; A runs straight on as A_THRU, B turns left on a
 * quarter circle (B_LEFT) across A_THRU into NORTH. Each lane has its signal head (`signals`), both of one group.
 */
export function sideBySideCrossMap(opts: { signals?: boolean } = {}): LoadedMap {
  const h = 1.75, e = 10, r = 14;
  // B_LEFT: from (−10, −1.75) heading east, a quarter circle to the left of radius r, centre (−10, −1.75 + r)
  const arc: Pt[] = Array.from({ length: 17 }, (_, i) => {
    const a = -Math.PI / 2 + (i / 16) * (Math.PI / 2);
    return { x: -e + r * Math.cos(a), y: -h + r + r * Math.sin(a) };
  });
  const end = arc[arc.length - 1];
  const lanes: Array<{ id: string; pts: Pt[]; next: string[] }> = [
    { id: 'A', pts: line(-150, h, -e, h), next: ['A_THRU'] },
    { id: 'A_THRU', pts: line(-e, h, e, h), next: ['A_OUT'] },
    { id: 'A_OUT', pts: line(e, h, 150, h), next: [] },
    { id: 'B', pts: line(-150, -h, -e, -h), next: ['B_LEFT'] },
    { id: 'B_LEFT', pts: arc, next: ['NORTH'] },
    { id: 'NORTH', pts: line(end.x, end.y, end.x, 150), next: [] },
  ];
  const head = (id: string, y: number, lane: string) => ({ id, x: -e - 1, y, head: 'vehicle_horizontal_3_colour', kind: 'vehicle', left_arrow: false, lanes: [lane] });
  return laneMap('side-by-side-cross', lanes, { signals: opts.signals ? [head('H1', h, 'A'), head('H2', -h, 'B')] : [] });
}

/** where rightTurnMapWithExitCrosswalk's crosswalk crosses SOUTH (its axis; stripes y = −8.5 … −11.5) */
export const EXIT_CROSSWALK_Y = -10;

/**
 * rightTurnMap with a crosswalk across SOUTH right at the turn's exit (EB ends at the junction, x = −8; the turn
 * exits into SOUTH at y = −8), walked west → east, unsignalised; the turn and the through lane are the junction's
 * own lanes (link_type 1, as NGII's junction links).
 */
export function rightTurnMapWithExitCrosswalk(): LoadedMap {
  const map = rightTurnMap();
  const a = { x: -6, y: EXIT_CROSSWALK_Y }, b = { x: 2.5, y: EXIT_CROSSWALK_Y }, w = 3;
  const cw: CrosswalkRecord = {
    id: 'CW1', a, b, length: b.x - a.x, width: w, lanes: ['SOUTH'],
    polygon: [{ x: a.x, y: a.y - w / 2 }, { x: b.x, y: b.y - w / 2 }, { x: b.x, y: b.y + w / 2 }, { x: a.x, y: a.y + w / 2 }],
  };
  for (const l of map.mapMetadata!.lane_graph!.lanes) if (l.id === 'EB_RIGHT' || l.id === 'SB_THRU') l.link_type = '1';
  return { ...map, trafficControl: { ...map.trafficControl, crosswalks: [cw] } };
}
