import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { chooseEncoding } from '../../../src/map/ngii/encoding.js';
import { readLayer } from '../../../src/map/ngii/read-layer.js';
import { latLonToUtm } from '../../../src/geo/frame.js';
import { PRJ_UTM52N, PRJ_UTMK, PRJ_WGS84, writeLayer, type FieldDef } from '../../helpers/shp-writer.js';
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
    expect(summary.missing).toEqual([]);

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
    expect(summary.missing).toEqual(['C4_SPEEDBUMP']);
    expect(summary.warnings.join(' ')).toMatch(/C4_SPEEDBUMP is missing/);
    expect(map.map.counts.speed_bump).toBeUndefined();
    await expect(convertNgii(mkdtempSync(join(tmpdir(), 'ngii-e-')))).rejects.toThrow(/no NGII layer with geometry found/);
  });
});
