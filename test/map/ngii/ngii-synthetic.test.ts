import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { chooseEncoding } from '../../../src/map/ngii/encoding.js';
import { readLayer } from '../../../src/map/ngii/read-layer.js';
import { latLonToUtm } from '../../../src/geo/frame.js';
import { parseMapJson } from '../../../src/map/scene-json.js';
import { parseTrafficControl } from '../../../src/map/traffic-control.js';
import { PRJ_UTM52N, PRJ_UTMK, PRJ_WGS84, writeLayer, type Coord, type FieldDef } from '../../helpers/shp-writer.js';
import { tmForward, utmForward } from '../../helpers/kruger-utm.js';

const CP949_STOP_LINE = Uint8Array.from([0xc1, 0xa4, 0xc1, 0xf6, 0xbc, 0xb1]); // 정지선
const E0 = 302000, N0 = 4123000;

const A2_FIELDS = (linkSpelling: string): FieldDef[] => [
  { name: 'ID', type: 'C', length: 12 }, { name: 'LinkType', type: 'C', length: 2 }, { name: 'RoadRank', type: 'C', length: 1 },
  { name: 'MaxSpeed', type: 'N', length: 3 }, { name: 'LaneNo', type: 'N', length: 2 },
  { name: 'R_LinkID', type: 'C', length: 12 }, { name: linkSpelling, type: 'C', length: 12 },
  { name: 'FromNodeID', type: 'C', length: 12 }, { name: 'ToNodeID', type: 'C', length: 12 },
  { name: 'Length', type: 'F', length: 17, decimals: 2 },
];

function writeSite(dir: string, opts: { prj: string | null; cpg?: string; toCrs: (e: number, n: number) => [number, number] }): void {
  const P = (e: number, n: number): [number, number, number] => [...opts.toCrs(E0 + e, N0 + n), 30];
  writeLayer(dir, {
    name: 'A1_NODE', shapeType: 11, withM: true, prj: opts.prj, cpg: opts.cpg, headerZ: [-Number.MAX_VALUE, -Number.MAX_VALUE], headerM: [-Number.MAX_VALUE, -Number.MAX_VALUE],
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'NodeType', type: 'C', length: 2 }],
    records: [
      { points: [P(0, 0)], attributes: { ID: 'N1', NodeType: '1' } },
      { points: [P(100, 0)], attributes: { ID: 'N2', NodeType: '99' } },
      { points: [P(200, 0)], attributes: { ID: 'N3', NodeType: '7' } },
    ],
  });
  writeLayer(dir, {
    name: 'A2_LINK', shapeType: 13, prj: opts.prj, cpg: opts.cpg, headerZ: [0, 0],
    fields: A2_FIELDS('L_LinKID'),
    records: [
      // duplicate consecutive vertex, MaxSpeed 0 (unset), a stated Length far from the geometry
      { points: [P(0, 0), P(50, 0), P(50, 0), P(100, 0)], attributes: { ID: 'L1', LinkType: '6', RoadRank: '9', MaxSpeed: 0, LaneNo: 1, R_LinkID: null, L_LinKID: 'L1B', FromNodeID: 'N1', ToNodeID: 'N2', Length: 164.5 } },
      { points: [P(0, 3.5), P(100, 3.5)], attributes: { ID: 'L1B', LinkType: '6', RoadRank: '9', MaxSpeed: 60, LaneNo: 2, R_LinkID: 'L1', L_LinKID: null, FromNodeID: 'N1', ToNodeID: 'N2', Length: 100 } },
      { points: [P(100, 0), P(200, 0)], attributes: { ID: 'L2', LinkType: '1', RoadRank: '1', MaxSpeed: 40, LaneNo: 91, R_LinkID: null, L_LinKID: null, FromNodeID: 'N2', ToNodeID: 'N3', Length: 100 } },
    ],
  });
  writeLayer(dir, {
    name: 'B2_SURFACELINEMARK', shapeType: 13, prj: opts.prj, cpg: opts.cpg, withM: true,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 3 }, { name: 'Kind', type: 'C', length: 5 }, { name: 'R_linkID', type: 'C', length: 12 }, { name: 'Remark', type: 'C', length: 30 }],
    records: [
      { points: [P(0, 1.75), P(100, 1.75)], attributes: { ID: 'B1', Type: '121', Kind: '501', R_linkID: 'L1', Remark: null } },
      { points: [P(95, -2), P(95, 2)], attributes: { ID: 'B2', Type: '999', Kind: '530', R_linkID: null, Remark: opts.cpg ? '정지선' : CP949_STOP_LINE } },
      { points: [], attributes: { ID: 'B3', Type: '212', Kind: '503', R_linkID: null, Remark: null } }, // 0-point PolyLineZ
      { points: [P(0, -1.75), P(100, -1.75)], attributes: { ID: 'B4', Type: '777', Kind: '503', R_linkID: null, Remark: null } },
    ],
  });
  writeLayer(dir, {
    name: 'C3_VEHICLEPROTECTIONSAFETY', shapeType: 13, prj: opts.prj, cpg: opts.cpg,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 2 }, { name: 'isCentral', type: 'C', length: 1 }],
    records: [
      { points: [P(0, -4), P(100, -4)], attributes: { ID: 'C1', Type: '4', isCentral: '0' } },
      { points: [P(0, 6), P(100, 6)], attributes: { ID: 'C2', Type: '3', isCentral: '1' } },
      { points: [P(40, 6), P(45, 6)], attributes: { ID: 'C3', Type: '6', isCentral: '1' } },
    ],
  });
  // an 8-vertex ring of a 6 × 2 m bump rotated 30°, closed
  const ring: Array<[number, number, number]> = [];
  const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
  for (const [u, v] of [[-3, -1], [0, -1], [3, -1], [3, 0], [3, 1], [0, 1], [-3, 1], [-3, 0], [-3, -1]]) ring.push(P(60 + u * c - v * s, u * s + v * c));
  writeLayer(dir, {
    name: 'C4_SPEEDBUMP', shapeType: 15, prj: opts.prj, cpg: opts.cpg,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 1 }, { name: 'LinkID', type: 'C', length: 12 }],
    records: [{ points: ring, attributes: { ID: 'S1', Type: '1', LinkID: null } }],
  });
}

describe('NGII converter on synthetic shapefiles with every quirk', () => {
  it('UTM 52N, CP949 without a hint, typos in field names, bogus header Z/M, 0-point records, duplicates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-a-'));
    writeSite(dir, { prj: PRJ_UTM52N, toCrs: (e, n) => [e, n] });
    expect(chooseEncoding(join(dir, 'B2_SURFACELINEMARK.dbf')).encoding).toBe('euc-kr');
    const b2 = await readLayer(join(dir, 'B2_SURFACELINEMARK.shp'), 'B2');
    expect(b2.features.find((f) => f.properties.ID === 'B2')?.properties.Remark).toBe('정지선');
    expect(b2.emptyGeometries).toBe(1);

    const { map, summary } = await convertNgii(dir, { origin: { lat: 37.23, lon: 126.77 } });
    expect(map.map.counts).toEqual({ lane: 3, road_line: 3, road_edge: 2, speed_bump: 1 });
    expect(summary.layers.B2_SURFACELINEMARK?.skipped).toEqual({ 'empty geometry': 1 });
    expect(summary.layers.C3_VEHICLEPROTECTIONSAFETY?.skipped).toEqual({ 'Type 6 median opening (not a barrier)': 1 });
    expect(summary.unknownCodes).toEqual({ 'B2 Type 777 → 5 ROAD_LINE_UNKNOWN': 1 });
    expect(summary.duplicateVerticesDropped).toBe(1);
    expect(summary.missing).toEqual(['C1_TRAFFICLIGHT', 'B1_SAFETYSIGN', 'B3_SURFACEMARK']); // optional: no signal heads, signs or crosswalks
    expect(map.traffic_control).toEqual({ signals: [], crosswalks: [], stop_lines: [{ id: 'B2', geometry: expect.any(Array), lanes: ['L1'] }], signs: [] });

    const lanes = map.map.lane_graph.lanes as Array<Record<string, any>>;
    const l1 = lanes.find((l) => l.id === 'L1')!;
    expect(l1).toMatchObject({ from_node: 'N1', to_node: 'N2', next: ['L2'], left: 'L1B', right: null, pocket: false, speed_limit_default: true });
    expect(l1.length).toBeCloseTo(100, 3); // recomputed, not the stated 164.5
    expect(l1.speed_limit).toBeCloseTo(50 / 3.6, 3);
    expect(lanes.find((l) => l.id === 'L1B')).toMatchObject({ right: 'L1', speed_limit: 16.667 });
    expect(lanes.find((l) => l.id === 'L2')).toMatchObject({ pocket: true, next: [] });
    expect(map.roads[l1.road_index].geometry).toHaveLength(3);
    expect(map.roads[lanes.find((l) => l.id === 'L2')!.road_index].map_element_id).toBe(1); // RoadRank 1 → FREEWAY

    const lines = map.roads.filter((r) => r.type === 'road_line');
    expect(lines.map((r) => [r.source_id, r.map_element_id])).toEqual([['B1', 12], ['B2', 5], ['B4', 5]]);
    const edges = map.roads.filter((r) => r.type === 'road_edge');
    expect(edges.map((r) => [r.source_id, r.map_element_id])).toEqual([['C1', 15], ['C2', 16]]);

    // the speed bump becomes its 4-corner minimum rectangle: 6 × 2 m, long side at 30°
    const bump = map.roads.find((r) => r.type === 'speed_bump')!.geometry;
    expect(bump).toHaveLength(4);
    const sides = [0, 1].map((i) => Math.hypot(bump[i + 1].x - bump[i].x, bump[i + 1].y - bump[i].y)).sort((a, b) => a - b);
    expect(sides[0]).toBeCloseTo(2, 2);
    expect(sides[1]).toBeCloseTo(6, 2);

    // local = UTM − origin UTM
    const o = latLonToUtm(37.23, 126.77);
    expect(map.roads[l1.road_index].geometry[0].x).toBeCloseTo(E0 - o.easting, 3);
    expect(map.roads[l1.road_index].geometry[0].y).toBeCloseTo(N0 - o.northing, 3);
    expect(map.map.nodes).toHaveLength(3);
  });

  it('geographic degrees with a UTF-8 .cpg are projected to UTM 52N within 1 cm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-c-'));
    // degrees from UTM via a fine inverse search on the independent projection
    const toDeg = (e: number, n: number): [number, number] => {
      let lat = 37.23, lon = 126.77;
      for (let k = 0; k < 8; k++) {
        const u = utmForward(lat, lon, 52);
        lat += (n - u.northing) / 110990;
        lon += (e - u.easting) / 88500;
      }
      return [lon, lat];
    };
    writeSite(dir, { prj: PRJ_WGS84, cpg: 'UTF-8', toCrs: toDeg });
    expect(chooseEncoding(join(dir, 'A2_LINK.dbf'))).toMatchObject({ encoding: 'utf-8' });
    const { map } = await convertNgii(dir, { origin: { lat: 37.23, lon: 126.77 } });
    const o = utmForward(37.23, 126.77, 52);
    const l1 = (map.map.lane_graph.lanes as Array<Record<string, any>>).find((l) => l.id === 'L1')!;
    const g = map.roads[l1.road_index].geometry;
    expect(g[0].x).toBeCloseTo(E0 - o.easting, 2);
    expect(g[0].y).toBeCloseTo(N0 - o.northing, 2);
    expect(g[g.length - 1].x).toBeCloseTo(E0 + 100 - o.easting, 2);
    expect(map.map.source_crs).toMatch(/EPSG:4326/);
  });

  it('UTM-K (EPSG:5179) is recognised from its parameters and projected within 1 cm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-k-'));
    const GRS80 = 1 / 298.257222101;
    const toUtmk = (e: number, n: number): [number, number] => {
      let lat = 37.23, lon = 126.77;
      for (let k = 0; k < 8; k++) {
        const u = utmForward(lat, lon, 52);
        lat += (n - u.northing) / 110990;
        lon += (e - u.easting) / 88500;
      }
      const k5179 = tmForward(lat, lon, { lon0: 127.5, falseEasting: 1000000, falseNorthing: 2000000, lat0: 38, f: GRS80 });
      return [k5179.easting, k5179.northing];
    };
    writeSite(dir, { prj: PRJ_UTMK, toCrs: toUtmk });
    const { map } = await convertNgii(dir, { origin: { lat: 37.23, lon: 126.77 } });
    const o = utmForward(37.23, 126.77, 52);
    const edge = map.roads.find((r) => r.source_id === 'C1')!.geometry;
    expect(edge[0].x).toBeCloseTo(E0 - o.easting, 2);
    expect(edge[0].y).toBeCloseTo(N0 - 4 - o.northing, 2);
    expect(map.map.source_crs).toMatch(/EPSG:5179/);
  });

  it('without a .prj, degree-sized coordinates are read as degrees, with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-n-'));
    writeSite(dir, { prj: null, cpg: 'UTF-8', toCrs: (e, n) => [126.77 + (e - E0) / 88500, 37.23 + (n - N0) / 110990] });
    const { map, summary } = await convertNgii(dir);
    expect(summary.warnings.some((w) => /no \.prj .*degrees/.test(w))).toBe(true);
    expect(Math.abs(map.roads[0].geometry[0].x)).toBeLessThan(1000);
  });

  it('warns about missing layers instead of failing, and fails clearly on a folder with none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-m-'));
    writeSite(dir, { prj: PRJ_UTM52N, toCrs: (e, n) => [e, n] });
    const { rmSync } = await import('node:fs');
    for (const ext of ['shp', 'shx', 'dbf', 'prj']) rmSync(join(dir, `C4_SPEEDBUMP.${ext}`));
    const { map, summary } = await convertNgii(dir);
    expect(summary.missing).toEqual(['C4_SPEEDBUMP', 'C1_TRAFFICLIGHT', 'B1_SAFETYSIGN', 'B3_SURFACEMARK']);
    expect(summary.warnings.join(' ')).toMatch(/C4_SPEEDBUMP is missing/);
    expect(map.map.counts.speed_bump).toBeUndefined();
    await expect(convertNgii(mkdtempSync(join(tmpdir(), 'ngii-e-')))).rejects.toThrow(/no NGII layer with geometry found/);
  });
});

/**
 * A site for the traffic-control layers (UTM 52N metres, E0/N0 + local offsets):
 * - three eastbound lanes L1 (left, y 0), L2 (y −3.5), L3 (y −7) from x 0 to 100, where stop line SG crosses them;
 *   intersection path P1 starts on SG at (100, 0) and runs east to x 140; L6 runs east at y 22.6
 * - SR: a stop line at x 50 from y 20 to 22, short of L6's centre line (0.6 m beyond its end), naming L6 in
 *   R_linkID and a lane that is not in A2 in L_LinkID: attached by its reference only
 * - SA: a stop line 2 cm beside P1 and along it, naming P1: attached to nothing
 * - U1 between two underpass nodes (NodeType 5), B1 with RoadType 3 (bridge), E1 with one underpass node
 */
function writeTrafficSite(dir: string, signs: 'point' | 'polygon'): void {
  const P = (e: number, n: number): Coord => [E0 + e, N0 + n, 30];
  writeLayer(dir, {
    name: 'A1_NODE', shapeType: 11, prj: PRJ_UTM52N,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'NodeType', type: 'C', length: 2 }],
    records: [
      ['N1', 0, 0, '1'], ['N2', 100, 0, '1'], ['N5', 140, 0, '1'], ['N6', 0, 22.6, '99'], ['N7', 100, 22.6, '99'],
      ['U1', 200, -50, '5'], ['U2', 260, -50, '5'], ['U3', 300, -50, '99'], ['B1', 200, -80, '99'], ['B2', 260, -80, '99'],
    ].map(([id, e, n, t]) => ({ points: [P(e as number, n as number)], attributes: { ID: id as string, NodeType: t as string } })),
  });
  const link = (id: string, pts: Coord[], from: string, to: string, right: string | null, left: string | null, linkType = '6', roadType = '1') =>
    ({ points: pts, attributes: { ID: id, LinkType: linkType, RoadRank: '9', RoadType: roadType, MaxSpeed: 50, LaneNo: 1, R_LinkID: right, L_LinkID: left, FromNodeID: from, ToNodeID: to, Length: 0 } });
  writeLayer(dir, {
    name: 'A2_LINK', shapeType: 13, prj: PRJ_UTM52N,
    fields: [...A2_FIELDS('L_LinkID'), { name: 'RoadType', type: 'C', length: 1 }],
    records: [
      link('L1', [P(0, 0), P(100, 0)], 'N1', 'N2', 'L2', null),
      link('L2', [P(0, -3.5), P(100, -3.5)], 'N1', 'N2', 'L3', 'L1'),
      link('L3', [P(0, -7), P(100, -7)], 'N1', 'N2', null, 'L2'),
      link('P1', [P(100, 0), P(140, 0)], 'N2', 'N5', null, null, '1'),
      link('L6', [P(0, 22.6), P(100, 22.6)], 'N6', 'N7', null, null),
      link('U1', [P(200, -50), P(260, -50)], 'U1', 'U2', null, null),
      link('E1', [P(260, -50), P(300, -50)], 'U2', 'U3', null, null),
      link('BR', [P(200, -80), P(260, -80)], 'B1', 'B2', null, null, '6', '3'),
    ],
  });
  writeLayer(dir, {
    name: 'B2_SURFACELINEMARK', shapeType: 13, prj: PRJ_UTM52N,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 3 }, { name: 'Kind', type: 'C', length: 5 }, { name: 'R_linkID', type: 'C', length: 12 }, { name: 'L_LinkID', type: 'C', length: 12 }],
    records: [
      { points: [P(0, -1.75), P(100, -1.75)], attributes: { ID: 'LL', Type: '212', Kind: '503', R_linkID: 'L2', L_LinkID: 'L1' } },
      { points: [P(100, 1.75), P(100, -8.75)], attributes: { ID: 'SG', Type: '211', Kind: '530', R_linkID: null, L_LinkID: null } },
      { points: [P(50, 20), P(50, 22)], attributes: { ID: 'SR', Type: '211', Kind: '530', R_linkID: 'L6', L_LinkID: 'A2NOTHERE' } },
      { points: [P(110, 0.02), P(118, 0.02)], attributes: { ID: 'SA', Type: '211', Kind: '530', R_linkID: 'P1', L_LinkID: null } },
    ],
  });
  // C1 with the K-City spelling postID
  writeLayer(dir, {
    name: 'C1_TRAFFICLIGHT', shapeType: 11, prj: PRJ_UTM52N,
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 2 }, { name: 'LinkID', type: 'C', length: 12 }, { name: 'Ref_Lane', type: 'N', length: 2 }, { name: 'postID', type: 'C', length: 12 }],
    records: [
      ['H1', '2', 'L1', 3, 'POST1'], // three lanes: L1, then R_LinkID twice
      ['H2', '1', 'L2', 3, null], // the chain ends after L3
      ['H3', '11', 'A2MISSING', 1, 'POST1'], // LinkID not in A2
      ['H4', '42', 'L1', 1, null], // unknown code
      ['H5', '8', 'L3', 0, null], // Ref_Lane 0: the link alone
      ['H6', '15', 'L1', 1, null],
    ].map(([id, type, linkId, ref, post], i) => ({ points: [P(102 + i, 4)], attributes: { ID: id as string, Type: type as string, LinkID: linkId as string, Ref_Lane: ref as number, postID: post as string | null } })),
  });
  // B1 with the 2019 spelling PostID and a lower-case ref_lane
  const at = (e: number, n: number): Coord[] => (signs === 'point' ? [P(e, n)] : [P(e - 1, n - 0.5), P(e + 1, n - 0.5), P(e + 1, n + 0.5), P(e - 1, n + 0.5), P(e - 1, n - 0.5)]);
  writeLayer(dir, {
    name: 'B1_SAFETYSIGN', shapeType: signs === 'point' ? 11 : 15, prj: PRJ_UTM52N, cpg: 'UTF-8',
    fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 1 }, { name: 'SubType', type: 'C', length: 3 }, { name: 'LinkID', type: 'C', length: 12 }, { name: 'ref_lane', type: 'N', length: 2 }, { name: 'PostID', type: 'C', length: 12 }, { name: 'Remark', type: 'C', length: 30 }],
    records: [
      ['G1', '2', '227', 'L1', 2, null, 60, 5],
      ['G2', '2', '224', 'L2', 1, 'POST2', 61, 5, '최고속도 60km/h'],
      ['G3', '2', '228', 'L3', 1, null, 62, 5],
      ['G4', '1', '199', 'L1', 1, null, 63, 5],
      ['G5', '2', '225', 'L1', 1, null, 64, 5],
      ['G6', '2', '226', 'A2MISSING', 1, null, 65, 5],
      ['G7', '3', '', 'L1', 1, null, 66, 5], // 2023-model sign: no SubType
    ].map(([id, type, sub, linkId, ref, post, e, n, remark]) => ({ points: at(e as number, n as number), attributes: { ID: id as string, Type: type as string, SubType: sub as string, LinkID: linkId as string, ref_lane: ref as number, PostID: post as string | null, Remark: (remark as string | undefined) ?? null } })),
  });
}

describe('NGII traffic control on synthetic shapefiles: signal heads, stop lines, signs, lane levels', () => {
  const origin = { lat: 37.23, lon: 126.77 };
  const o = latLonToUtm(origin.lat, origin.lon);
  const lx = (e: number) => Math.round((E0 + e - o.easting) * 1000) / 1000;
  const ly = (n: number) => Math.round((N0 + n - o.northing) * 1000) / 1000;

  it('signal heads: codes, Ref_Lane along R_LinkID, a short chain, a missing LinkID, an unknown code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-tc-'));
    writeTrafficSite(dir, 'point');
    const { map, summary } = await convertNgii(dir, { origin });
    expect(parseTrafficControl(JSON.parse(JSON.stringify(map.traffic_control)))).toEqual(map.traffic_control);
    const heads = Object.fromEntries(map.traffic_control.signals.map((h) => [h.id, h]));
    expect(heads.H1).toEqual({ id: 'H1', x: lx(102), y: ly(4), code: '2', head: 'vehicle_horizontal_4_colour_a', kind: 'vehicle', left_arrow: true, lanes: ['L1', 'L2', 'L3'], post: 'POST1' });
    expect(heads.H2).toMatchObject({ code: '1', head: 'vehicle_horizontal_3_colour', kind: 'vehicle', left_arrow: false, lanes: ['L2', 'L3'] });
    expect(heads.H2.post).toBeUndefined();
    expect(heads.H3).toMatchObject({ kind: 'pedestrian', head: 'pedestrian', lanes: [], post: 'POST1' });
    expect(heads.H4).toMatchObject({ code: '42', kind: 'other', head: 'unknown', left_arrow: false, lanes: ['L1'] });
    expect(heads.H5).toMatchObject({ kind: 'bus', head: 'bus_3_colour', lanes: ['L3'] });
    expect(heads.H6).toMatchObject({ kind: 'vehicle', head: 'vehicle_auxiliary_vertical_4_colour', left_arrow: true });
    const c1 = summary.layers.C1_TRAFFICLIGHT!;
    expect(c1).toMatchObject({ read: 6, written: 6, skipped: {} });
    expect(c1.lanes).toEqual({
      'LinkID + Ref_Lane − 1 right neighbours': 4,
      'R_LinkID chain ended before Ref_Lane lanes (kept what there is)': 1,
      'LinkID not a lane of A2_LINK (no lanes)': 1,
    });
    expect(c1.codes['Type 2 vehicle_horizontal_4_colour_a (차량횡형-사색등A)']).toBe(1);
    expect(summary.unknownCodes).toEqual({ 'C1 Type 42 → signal head kind other': 1 });
    expect(summary.warnings.some((w) => /C1_TRAFFICLIGHT: 1 records name a LinkID that is not a lane/.test(w))).toBe(true);
    expect(summary.missing).toEqual(['C3_VEHICLEPROTECTIONSAFETY', 'C4_SPEEDBUMP', 'B3_SURFACEMARK']);
    // nothing of this reaches roads
    expect(map.map.counts).toEqual({ lane: 8, road_line: 4, road_edge: expect.any(Number) });
    expect(map.roads.some((r) => /^(H|G)\d$/.test(r.source_id))).toBe(false);
  });

  it('stop lines: by reference, by geometry (ends on the line count), not along a lane; still road lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-tc-'));
    writeTrafficSite(dir, 'point');
    const { map, summary } = await convertNgii(dir, { origin });
    const lines = Object.fromEntries(map.traffic_control.stop_lines.map((l) => [l.id, l]));
    expect(Object.keys(lines)).toEqual(['SG', 'SR', 'SA']);
    // the approach lanes end on SG and the intersection path starts on it
    expect(lines.SG).toEqual({ id: 'SG', geometry: [{ x: lx(100), y: ly(1.75) }, { x: lx(100), y: ly(-8.75) }], lanes: ['L1', 'L2', 'L3', 'P1'] });
    // drawn short of L6's centre line: only its reference finds L6; A2NOTHERE is not a lane
    expect(lines.SR.lanes).toEqual(['L6']);
    // P1 runs along SA, 2 cm away: neither its reference nor the geometry attaches it
    expect(lines.SA.lanes).toEqual([]);
    expect(summary.stopLines).toEqual({ total: 3, byReference: 1, byGeometry: 1, referenceAndGeometry: 0, unattached: 1, danglingReferences: 1, referencesNotAcross: 1 });
    expect(summary.warnings.join('\n')).toMatch(/1 of 3 stop lines meet no lane/);
    expect(map.roads.filter((r) => r.type === 'road_line').map((r) => r.source_id)).toEqual(['LL', 'SG', 'SR', 'SA']);
  });

  it('signs from point records: stop, yield, speed limits, slow; Remark value; the rest skipped by code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-tc-'));
    writeTrafficSite(dir, 'point');
    const { map, summary } = await convertNgii(dir, { origin });
    expect(map.traffic_control.signs).toEqual([
      { id: 'G1', x: lx(60), y: ly(5), code: '227', kind: 'stop', lanes: ['L1', 'L2'] },
      { id: 'G2', x: lx(61), y: ly(5), code: '224', kind: 'speed_limit', lanes: ['L2'], value_kmh: 60 },
      { id: 'G3', x: lx(62), y: ly(5), code: '228', kind: 'yield', lanes: ['L3'] },
      { id: 'G5', x: lx(64), y: ly(5), code: '225', kind: 'min_speed', lanes: ['L1'] },
      { id: 'G6', x: lx(65), y: ly(5), code: '226', kind: 'slow', lanes: [] },
    ]);
    const b1 = summary.layers.B1_SAFETYSIGN!;
    expect(b1).toMatchObject({ read: 7, written: 5 });
    expect(b1.skipped).toEqual({ 'SubType 199 caution sign': 1, 'no SubType (Type 3 regulatory (규제) per the 2023 manual; which sign is unknown)': 1 });
    expect(b1.lanes).toMatchObject({ 'LinkID not a lane of A2_LINK (no lanes)': 1 });
    expect(parseTrafficControl(JSON.parse(JSON.stringify(map.traffic_control)))).toEqual(map.traffic_control);
  });

  it('signs from polygon records stand at the ring centroid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-tc-'));
    writeTrafficSite(dir, 'polygon');
    const { map } = await convertNgii(dir, { origin });
    const g1 = map.traffic_control.signs.find((s) => s.id === 'G1')!;
    expect(g1.x).toBeCloseTo(lx(60), 3);
    expect(g1.y).toBeCloseTo(ly(5), 3);
    expect(map.traffic_control.signs.map((s) => s.kind)).toEqual(['stop', 'speed_limit', 'yield', 'min_speed', 'slow']);
    expect(parseTrafficControl(JSON.parse(JSON.stringify(map.traffic_control)))).toEqual(map.traffic_control);
  });

  it('lane levels: RoadType 2–5 or both nodes structure nodes → 1; the loader reads the map as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-tc-'));
    writeTrafficSite(dir, 'point');
    const { map } = await convertNgii(dir, { origin });
    const lanes = map.map.lane_graph.lanes as Array<Record<string, any>>;
    expect(Object.fromEntries(lanes.map((l) => [l.id, [l.road_type, l.level]]))).toEqual({
      L1: ['1', 0], L2: ['1', 0], L3: ['1', 0], P1: ['1', 0], L6: ['1', 0], U1: ['1', 1], E1: ['1', 0], BR: ['3', 1],
    });
    const loaded = parseMapJson(JSON.parse(JSON.stringify(map)), 'synthetic');
    expect(loaded.trafficControl.signals).toHaveLength(6);
    expect(loaded.trafficControl.stop_lines).toHaveLength(3);
    expect(loaded.mapMetadata!.lane_graph!.lanes.filter((l) => l.level === 1).map((l) => l.id)).toEqual(['U1', 'BR']);
  });
});

describe('NGII crosswalks on synthetic shapefiles (B3_SURFACEMARK)', () => {
  it('Kind 5321 → crosswalks with the axis across the lanes; 534 counted, arrows skipped, a duplicate ID skipped, no lane → the long side with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngii-cw-'));
    writeTrafficSite(dir, 'point');
    const P = (e: number, n: number): Coord => [E0 + e, N0 + n, 30];
    const ring = (e0: number, n0: number, e1: number, n1: number) => [P(e0, n0), P(e1, n0), P(e1, n1), P(e0, n1), P(e0, n0)];
    writeLayer(dir, {
      name: 'B3_SURFACEMARK', shapeType: 15, prj: PRJ_UTM52N,
      fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'Type', type: 'C', length: 1 }, { name: 'Kind', type: 'C', length: 5 }, { name: 'LinkID', type: 'C', length: 12 }],
      records: [
        { points: ring(90, 1.75, 93, -8.75), attributes: { ID: 'CW1', Type: '5', Kind: '5321', LinkID: 'L1' } }, // across L1–L3: 10.5 m
        { points: ring(40, 21.1, 46, 24.1), attributes: { ID: 'CW2', Type: '5', Kind: '5321', LinkID: 'L6' } }, // 6 m along L6, 3 m across it
        { points: ring(500, 500, 510, 503), attributes: { ID: 'CW3', Type: '5', Kind: '5321', LinkID: null } }, // no lane
        { points: ring(90, 1.75, 93, -8.75), attributes: { ID: 'CW1', Type: '5', Kind: '5321', LinkID: 'L1' } }, // duplicate ID
        { points: ring(94, 1.75, 95, -8.75), attributes: { ID: 'BX', Type: '5', Kind: '534', LinkID: 'L1' } },
        { points: ring(80, -1, 82, 1), attributes: { ID: 'AR', Type: '1', Kind: '5371', LinkID: 'L1' } },
      ],
    });
    const { map, summary } = await convertNgii(dir, { origin: { lat: 37.23, lon: 126.77 } });
    const cws = map.traffic_control.crosswalks!;
    expect(cws.map((c) => c.id)).toEqual(['CW1', 'CW2', 'CW3']);
    const [c1, c2, c3] = cws;
    expect(c1.length).toBeCloseTo(10.5, 3);
    expect(c1.width).toBeCloseTo(3, 3);
    expect(Math.abs(c1.b.x - c1.a.x)).toBeLessThan(1e-3); // walks north–south, across the east-going lanes
    expect(c1.lanes).toEqual(['L1', 'L2', 'L3']);
    expect(c1.polygon).toHaveLength(4); // the closing repeat dropped
    expect(c2.length).toBeCloseTo(3, 3); // across L6, though the outline is longer along it
    expect(c2.width).toBeCloseTo(6, 3);
    expect(c2.lanes).toEqual(['L6']);
    expect(c3.lanes).toEqual([]);
    expect(c3.length).toBeCloseTo(10, 3);
    expect(summary.crosswalks).toEqual({ total: 3, axisFromLanes: 2, axisFromLongSide: 1, withLanes: 2, laneCrossings: 4, bicycleCrossings: 1 });
    expect(summary.layers.B3_SURFACEMARK!.skipped).toEqual({ 'crossing with a duplicate ID': 1, 'Kind 534 bicycle crossing (not carried)': 1, 'not a crossing (arrows and other marks)': 1 });
    expect(summary.warnings).toContain('B3_SURFACEMARK: 1 of 3 crosswalks have no lane through them: walking axis along the outline\'s long side');
    expect(map.roads.every((r) => r.type !== 'crosswalk')).toBe(true);
    expect(parseTrafficControl(JSON.parse(JSON.stringify(map.traffic_control)))).toEqual(map.traffic_control);
    expect(parseMapJson(JSON.parse(JSON.stringify(map)), 'syn').trafficControl.crosswalks).toEqual(cws);
  });
});
