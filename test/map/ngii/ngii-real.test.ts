import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { readLayer } from '../../../src/map/ngii/read-layer.js';
import { FMTC_ORIGIN } from '../../../src/geo/frame.js';
import { HAVE_SHARED, sharedPath } from '../../helpers/shared.js';
import { readShpVertices } from '../../helpers/shp-writer.js';
import { utmForward } from '../../helpers/kruger-utm.js';

const KCITY = sharedPath('data', 'ngii', 'kcity');
const FMTC = sharedPath('data', 'ngii', 'fmtc');

describe.skipIf(!HAVE_SHARED)('NGII converter on the real K-City release (UTM 52N, CP949 without a hint)', () => {
  it('converts in under 5 s with the expected counts, every A2 link in the lane graph, and vertices within 1 cm', async () => {
    const t0 = performance.now();
    const { map, summary } = await convertNgii(KCITY);
    const seconds = (performance.now() - t0) / 1000;
    expect(seconds).toBeLessThan(5);
    // 688 edges written; the few that lanes drive straight across (a grade-separated crossing) cut open there
    expect(map.map.counts).toEqual({ lane: 809, road_line: 1574, road_edge: 692, speed_bump: 6 });
    expect(map.map.road_edges_cut_at_lane_crossings).toBe(12);
    expect(Object.fromEntries(Object.entries(summary.layers).map(([k, v]) => [k, v!.read]))).toEqual({
      A1_NODE: 712, A2_LINK: 809, B2_SURFACELINEMARK: 1574, C3_VEHICLEPROTECTIONSAFETY: 690, C4_SPEEDBUMP: 6,
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

describe.skipIf(!HAVE_SHARED)('NGII converter on the real FMTC release (partial, WGS84 degrees, UTF-8)', () => {
  it('projects degrees within 1 cm of an independent UTM computation and lands around the FMTC origin', async () => {
    const { map, summary } = await convertNgii(FMTC, { origin: FMTC_ORIGIN });
    // no C3 in this release: a drivable boundary derived from the lanes and their painted lines
    expect(map.map.counts).toMatchObject({ lane: 220, road_line: 466 });
    expect(map.map.counts.road_edge).toBeGreaterThan(10);
    expect(map.map.derived_road_edges).toMatchObject({ lane_width_m: 3.5, shoulder_m: 0.5 });
    expect(summary.missing).toEqual(['C3_VEHICLEPROTECTIONSAFETY', 'C4_SPEEDBUMP']);
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
