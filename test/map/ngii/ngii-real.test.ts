import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { readLayer } from '../../../src/map/ngii/read-layer.js';
import { FMTC_ORIGIN } from '../../../src/geo/frame.js';
import { parseMapJson } from '../../../src/map/scene-json.js';
import { parseTrafficControl, type TrafficControlRecords } from '../../../src/map/traffic-control.js';
import { sharedPath } from '../../helpers/shared.js';
import { readShpVertices } from '../../helpers/shp-writer.js';
import { utmForward } from '../../helpers/kruger-utm.js';
import { have } from '../../helpers/prerequisites.js';

const KCITY = sharedPath('data', 'ngii', 'kcity');
const FMTC = sharedPath('data', 'ngii', 'fmtc');

const RUN = have('shared');

describe.skipIf(!RUN)('NGII converter on the real K-City release (UTM 52N, CP949 without a hint)', () => {

  // (how fast it converts is the machine's: `vils convert-map` prints its time, and a test never asserts it)
  it('converts with the expected counts, every A2 link in the lane graph, and vertices within 1 cm', async () => {
    const { map, summary } = await convertNgii(KCITY);
    // 688 edges written; the few that lanes drive straight across (a grade-separated crossing) cut open there
    expect(map.map.counts).toEqual({ lane: 809, road_line: 1574, road_edge: 692, speed_bump: 6 });
    expect(map.map.road_edges_cut_at_lane_crossings).toBe(12);
    expect(Object.fromEntries(Object.entries(summary.layers).map(([k, v]) => [k, v!.read]))).toEqual({
      A1_NODE: 712, A2_LINK: 809, B2_SURFACELINEMARK: 1574, C3_VEHICLEPROTECTIONSAFETY: 690, C4_SPEEDBUMP: 6, C1_TRAFFICLIGHT: 81, B1_SAFETYSIGN: 198, B3_SURFACEMARK: 301,
    });
    expect(summary.layers.C3_VEHICLEPROTECTIONSAFETY?.skipped).toEqual({ 'Type 6 median opening (not a barrier)': 2 });
    expect(summary.layers.A2_LINK?.encoding).toMatch(/^euc-kr/);
    expect(summary.unknownCodes).toEqual({});

    const lanes = map.map.lane_graph.lanes as Array<Record<string, any>>;
    expect(lanes).toHaveLength(809);
    expect(new Set(lanes.map((l) => l.id)).size).toBe(809);
    expect(lanes.filter((l) => l.pocket)).toHaveLength(80); // LaneNo 91 ×79 and 92 ×1
    expect(lanes.filter((l) => l.speed_limit_default)).toHaveLength(355); // MaxSpeed 0
    expect(lanes.filter((l) => l.next.length > 0).length).toBeGreaterThan(700);
    for (const l of lanes) for (const n of l.next) expect(lanes.some((m) => m.id === n)).toBe(true);

    // vertices: the raw UTM coordinates, read from the .shp bytes directly, equal local + origin within 1 cm
    const raw = readShpVertices(readFileSync(`${KCITY}/A2_LINK.shp`), 50);
    const o = map.map.origin;
    for (let k = 0; k < raw.length; k++) {
      const lane = lanes[k];
      const g = map.roads[lane.road_index].geometry;
      expect(Math.abs(g[0].x + o.utm_e - raw[k][0][0])).toBeLessThan(0.01);
      expect(Math.abs(g[0].y + o.utm_n - raw[k][0][1])).toBeLessThan(0.01);
      const last = raw[k][raw[k].length - 1];
      expect(Math.abs(g[g.length - 1].x + o.utm_e - last[0])).toBeLessThan(0.01);
    }
  });

  it('decodes the Korean text (Maker) as CP949', async () => {
    const layer = await readLayer(`${KCITY}/A1_NODE.shp`, 'A1_NODE');
    expect(layer.features[0].properties.Maker).toBe('새한항업컨소시엄');
  });
});

describe.skipIf(!RUN)('NGII converter on the real FMTC release (partial, WGS84 degrees, UTF-8)', () => {

  it('projects degrees within 1 cm of an independent UTM computation and lands around the FMTC origin', async () => {
    const { map, summary } = await convertNgii(FMTC, { origin: FMTC_ORIGIN });
    // no C3 in this release: a drivable boundary derived from the lanes and their painted lines
    expect(map.map.counts).toMatchObject({ lane: 220, road_line: 466 });
    expect(map.map.counts.road_edge).toBeGreaterThan(10);
    expect(map.map.derived_road_edges).toMatchObject({ lane_width_m: 3.5, shoulder_m: 0.5 });
    expect(summary.missing).toEqual(['C3_VEHICLEPROTECTIONSAFETY', 'C4_SPEEDBUMP', 'B1_SAFETYSIGN']);
    const edges = map.roads.filter((r) => r.type === 'road_edge');
    const laneRoads = map.roads.filter((r) => r.type === 'lane');
    const distances: number[] = [];
    for (const l of laneRoads) {
      for (const p of l.geometry) {
        let best = Infinity;
        for (const e of edges) {
          for (let i = 1; i < e.geometry.length; i++) {
            const a = e.geometry[i - 1], b = e.geometry[i];
            const dx = b.x - a.x, dy = b.y - a.y;
            const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
            best = Math.min(best, Math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy));
          }
        }
        distances.push(best);
      }
    }
    distances.sort((a, b) => a - b);
    expect(distances[0]).toBeGreaterThan(0.9); // never across a lane (a lane's end cap is 1 m beyond its end)
    expect(distances[distances.length >> 1]).toBeGreaterThan(2); // half a lane plus the shoulder, or more
    expect(summary.layers.A2_LINK?.encoding).toMatch(/^utf-8 \(\.cpg/);
    expect(map.map.source_crs).toMatch(/EPSG:4326/);
    const lanes = map.map.lane_graph.lanes as Array<Record<string, any>>;
    expect(lanes).toHaveLength(220);
    expect(lanes.filter((l) => l.speed_limit === 13.889)).toHaveLength(195); // MaxSpeed 50 km/h

    const raw = readShpVertices(readFileSync(`${FMTC}/A2_LINK.shp`), 30);
    const o = utmForward(FMTC_ORIGIN.lat, FMTC_ORIGIN.lon, 52);
    for (let k = 0; k < raw.length; k++) {
      const [lon, lat] = raw[k][0];
      const u = utmForward(lat, lon, 52);
      const g = map.roads[lanes[k].road_index].geometry[0];
      expect(Math.abs(g.x - (u.easting - o.easting))).toBeLessThan(0.01);
      expect(Math.abs(g.y - (u.northing - o.northing))).toBeLessThan(0.01);
    }
    // the track surrounds the FMTC origin: within a few hundred metres of (0, 0)
    let sx = 0, sy = 0, n = 0;
    for (const r of map.roads) for (const p of r.geometry) { sx += p.x; sy += p.y; n++; }
    expect(Math.hypot(sx / n, sy / n)).toBeLessThan(300);
  });

  it('chooses the data centre as origin when none is given', async () => {
    const { map } = await convertNgii(FMTC);
    expect(map.map.origin.lat).toBeGreaterThan(37.36255);
    expect(map.map.origin.lat).toBeLessThan(37.36668);
    expect(map.map.origin.lon).toBeGreaterThan(126.72185);
    expect(map.map.origin.lon).toBeLessThan(126.72587);
  });
});

const countBy = <T,>(xs: readonly T[], key: (x: T) => string) => {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
};

describe.skipIf(!RUN)('NGII traffic control on the real K-City release: signal heads, stop lines, signs, lane levels', () => {
  let map: Awaited<ReturnType<typeof convertNgii>>['map'];
  let summary: Awaited<ReturnType<typeof convertNgii>>['summary'];
  let tc: TrafficControlRecords;
  let laneIds: Set<string>;
  beforeAll(async () => {
    ({ map, summary } = await convertNgii(KCITY));
    tc = map.traffic_control;
    laneIds = new Set((map.map.lane_graph.lanes as Array<{ id: string }>).map((l) => l.id));
  });

  it('the records pass the loader and leave roads as they were', () => {
    expect(parseTrafficControl(JSON.parse(JSON.stringify(tc)))).toEqual(tc);
    const loaded = parseMapJson(JSON.parse(JSON.stringify(map)), 'K-City');
    expect(loaded.trafficControl.signals).toHaveLength(81);
    expect(map.map.counts).toEqual({ lane: 809, road_line: 1574, road_edge: 692, speed_bump: 6 });
    expect(map.roads.every((r) => ['lane', 'road_line', 'road_edge', 'speed_bump'].includes(r.type))).toBe(true);
  });

  it('81 signal heads: pedestrian (11) ×38, vehicle with a left arrow (2) ×30, vehicle (1) ×10, bus (8) ×3', async () => {
    expect(tc.signals).toHaveLength(81);
    expect(countBy(tc.signals, (h) => `${h.code} ${h.kind} ${h.head} ${h.left_arrow}`)).toEqual({
      '11 pedestrian pedestrian false': 38,
      '2 vehicle vehicle_horizontal_4_colour_a true': 30,
      '1 vehicle vehicle_horizontal_3_colour false': 10,
      '8 bus bus_3_colour false': 3,
    });
    expect(summary.layers.C1_TRAFFICLIGHT).toMatchObject({ read: 81, written: 81, skipped: {} });
    expect(tc.signals.filter((h) => h.post)).toHaveLength(76); // 5 heads have no postID
    for (const h of tc.signals) {
      if (h.kind === 'vehicle' || h.kind === 'bus') expect(h.lanes.length, h.id).toBeGreaterThanOrEqual(1);
      for (const l of h.lanes) expect(laneIds.has(l), `${h.id} → ${l}`).toBe(true);
    }
    // Ref_Lane is the number of lanes: LinkID, then its R_LinkID neighbours
    const raw = await readLayer(`${KCITY}/C1_TRAFFICLIGHT.shp`, 'C1');
    const right = new Map((map.map.lane_graph.lanes as Array<{ id: string; right: string | null }>).map((l) => [l.id, l.right]));
    const wide = raw.features.filter((f) => Number(f.properties.Ref_Lane) >= 2);
    expect(wide).toHaveLength(17); // Ref_Lane 2 ×15, 3 ×2
    for (const f of wide) {
      const h = tc.signals.find((x) => x.id === f.properties.ID)!;
      expect(h.lanes[0]).toBe(f.properties.LinkID);
      expect(h.lanes).toHaveLength(Number(f.properties.Ref_Lane)); // every neighbour exists in K-City
      for (let i = 1; i < h.lanes.length; i++) expect(h.lanes[i]).toBe(right.get(h.lanes[i - 1]));
    }
  });

  it('164 stop lines, still road lines too, nearly all attached to lanes (mostly by geometry)', () => {
    expect(tc.stop_lines).toHaveLength(164);
    const lineIds = new Set(map.roads.filter((r) => r.type === 'road_line').map((r) => r.source_id));
    for (const s of tc.stop_lines) {
      expect(lineIds.has(s.id)).toBe(true);
      for (const l of s.lanes) expect(laneIds.has(l)).toBe(true);
    }
    const attached = tc.stop_lines.filter((s) => s.lanes.length > 0).length;
    const sl = summary.stopLines;
    console.log(`K-City stop lines attached to ≥ 1 lane: ${attached}/164 (${((100 * attached) / 164).toFixed(1)} %); by reference ${sl.byReference}, by geometry only ${sl.byGeometry}, none ${sl.unattached}; ${sl.referencesNotAcross} references to lanes not across the line ignored`);
    expect(attached / 164).toBeGreaterThanOrEqual(0.97); // measured 164/164
    expect(sl.total).toBe(164);
    expect(sl.byReference + sl.byGeometry + sl.unattached).toBe(164);
    expect(sl.byGeometry).toBeGreaterThan(150); // most K-City stop lines have no usable R/L reference
  });

  it('regulatory signs by SubType: stop 13, yield 9, speed_limit 20, slow 25 (and min_speed 2); no values in Remark', () => {
    expect(countBy(tc.signs, (s) => s.kind)).toEqual({ stop: 13, yield: 9, speed_limit: 20, slow: 25, min_speed: 2 });
    expect(countBy(tc.signs, (s) => `${s.code} ${s.kind}`)).toEqual({ '227 stop': 13, '228 yield': 9, '224 speed_limit': 20, '226 slow': 25, '225 min_speed': 2 });
    expect(tc.signs.some((s) => s.value_kmh !== undefined)).toBe(false);
    expect(summary.layers.B1_SAFETYSIGN).toMatchObject({ read: 198, written: 69 });
    expect(Object.values(summary.layers.B1_SAFETYSIGN!.skipped).reduce((a, b) => a + b, 0)).toBe(129);
    for (const s of tc.signs) {
      expect(s.lanes.length, s.id).toBeGreaterThanOrEqual(1);
      for (const l of s.lanes) expect(laneIds.has(l)).toBe(true);
    }
  });

  it('the underpass lanes A219BS010374/375 are level 1, every other lane at grade', () => {
    const lanes = map.map.lane_graph.lanes as Array<{ id: string; level: number; road_type: string }>;
    expect(lanes.filter((l) => l.level === 1).map((l) => l.id)).toEqual(['A219BS010374', 'A219BS010375']);
    expect(lanes.filter((l) => l.level === 0)).toHaveLength(807);
    expect(new Set(lanes.map((l) => l.road_type))).toEqual(new Set(['1'])); // K-City marks the underpass by its nodes only
  });
});

describe.skipIf(!RUN)('NGII traffic control on the real FMTC release', () => {

  it('16 heads (8 four-colour vehicle heads with a left arrow, 8 pedestrian), 32 stop lines, no B1 layer', async () => {
    const { map, summary } = await convertNgii(FMTC, { origin: FMTC_ORIGIN });
    const tc = map.traffic_control;
    expect(parseTrafficControl(JSON.parse(JSON.stringify(tc)))).toEqual(tc);
    expect(countBy(tc.signals, (h) => `${h.code} ${h.kind} ${h.left_arrow}`)).toEqual({ '2 vehicle true': 8, '11 pedestrian false': 8 });
    const laneIds = new Set((map.map.lane_graph.lanes as Array<{ id: string }>).map((l) => l.id));
    for (const h of tc.signals) {
      expect(h.lanes.length).toBeGreaterThanOrEqual(1);
      for (const l of h.lanes) expect(laneIds.has(l)).toBe(true);
    }
    expect(tc.stop_lines).toHaveLength(32);
    const attached = tc.stop_lines.filter((s) => s.lanes.length > 0).length;
    console.log(`FMTC stop lines attached to ≥ 1 lane: ${attached}/32; by reference ${summary.stopLines.byReference}, by geometry only ${summary.stopLines.byGeometry}`);
    expect(attached / 32).toBeGreaterThanOrEqual(0.95); // measured 32/32, all by geometry (FMTC's stop lines carry no references)
    expect(tc.signs).toEqual([]);
    expect(summary.missing).toContain('B1_SAFETYSIGN');
    expect(summary.warnings.join('\n')).toMatch(/B1_SAFETYSIGN is missing: no traffic signs/);
  });
});

describe.skipIf(!RUN)('what a scene runs on the converted maps: paths joined, lines derived (issue 41 item 2)', () => {
  it('FMTC: J3\'s free right turn from approach B (lane 016) joins J3 under J3.B; K-City: the sign approaches without paint get derived lines', async () => {
    const { junctionReport } = await import('../../../src/scene/signals/junction-report.js');
    const fmtc = junctionReport(parseMapJson(JSON.parse(JSON.stringify((await convertNgii(FMTC)).map)), 'fmtc'));
    expect(fmtc.joined).toContainEqual({ junction: 'J3', lane: 'A2235W000016', turn: 'right', group: 'J3.B' });
    expect(fmtc.derived_stop_lines).toEqual([]);
    const kcity = junctionReport(parseMapJson(JSON.parse(JSON.stringify((await convertNgii(KCITY)).map)), 'kcity'));
    // every movement through a signalised junction is governed: the joined ones there name their group
    expect(kcity.joined.filter((j) => j.group !== null).map((j) => j.junction).sort()).toEqual(['J64', 'J65']);
    expect(kcity.derived_stop_lines.filter((l) => l.kind === 'stop').map((l) => l.id)).toEqual(['J8.A', 'J9.A']);
    expect(kcity.derived_stop_lines.every((l) => l.kind !== 'signal')).toBe(true);
  });
});
