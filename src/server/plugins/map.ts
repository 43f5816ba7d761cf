/**
 * GET /api/map: the scene's road layers in the map frame, for drawing (the web map). Roads by type, each
 * with its polyline or polygon as a flat [x0, y0, x1, y1, …] list in metres (1 cm steps); road lines carry
 * their colour and pattern from the Waymax map_element_id, road edges whether they are a median, lanes
 * (centre lines, in driving direction) their lane-graph id and speed limit. Plus the bounds, the origin and
 * the meridian convergence, and the traffic control the scene runs (`traffic_control`): its junctions (outline
 * and control), signal groups (where their vehicles stop, which heads show them), the mapped signal heads (with
 * the groups each shows), stop lines and signs. Signal states are not here: they change, and come with every
 * npc_states frame (`signals`, by group id).
 *
 * The reply is built and gzipped once when the plugin registers (a map never changes under a scene), so
 * serving it never blocks the loop; clients revalidate with the ETag.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { LoadedMap } from '../../map/scene-json.js';
import type { SignalHeadKind, SignKind } from '../../map/traffic-control.js';
import type { JunctionControl, TrafficLayout } from '../../scene/junction-kit/index.js';
import type { SceneHost } from '../host.js';
import { mapReplySchema } from '../schemas.js';
import type { LineColour, LinePattern, MapReply, MapRoad, MapRoadType, MapTrafficControl } from '../../protocol/index.js';

export const MAP_ROAD_TYPES = ['lane', 'road_line', 'road_edge', 'crosswalk', 'speed_bump', 'stop_sign', 'driveway'] as const;
/** GET /api/map's reply and its parts: the protocol's types (derived from mapReplySchema, src/protocol/map.ts) */
type MapJunction = MapTrafficControl['junctions'][number];
type MapSignalGroup = MapTrafficControl['groups'][number];
type MapSignalHead = MapTrafficControl['heads'][number];

/** Waymax road-line ids (spec §8.8) → colour and pattern; anything else (5: unknown) a solid white line. */
export function lineStyle(element: number | undefined): { colour: LineColour; pattern: LinePattern } {
  switch (element) {
    case 6: return { colour: 'white', pattern: 'broken' };
    case 7: return { colour: 'white', pattern: 'solid' };
    case 8: return { colour: 'white', pattern: 'double' };
    case 9: return { colour: 'yellow', pattern: 'broken' };
    case 10: return { colour: 'yellow', pattern: 'double_broken' };
    case 11: return { colour: 'yellow', pattern: 'solid' };
    case 12: return { colour: 'yellow', pattern: 'double' };
    case 13: return { colour: 'yellow', pattern: 'passing' };
    default: return { colour: 'white', pattern: 'solid' };
  }
}

const c2 = (v: number) => Math.round(v * 100) / 100;
const flat2 = (pts: ReadonlyArray<{ readonly x: number; readonly y: number }>): number[] => pts.flatMap((p) => [c2(p.x), c2(p.y)]);

/** The map's traffic control as the scene runs it: the layout's junctions and groups, and the mapped records. */
export function trafficControlReply(map: Pick<LoadedMap, 'trafficControl'>, layout: TrafficLayout | undefined): MapTrafficControl {
  const rec = map.trafficControl ?? { signals: [], stop_lines: [], signs: [] };
  const junctions = layout?.junctions ?? [];
  const groups: MapSignalGroup[] = (layout?.groups ?? []).map((g) => ({
    id: g.id, junction: junctions[g.junction]?.junction.id ?? String(g.junction), stop_line: flat2(g.stopLine), heads: [...g.heads], left: g.left,
  }));
  const groupsOfHead = new Map<string, string[]>();
  for (const g of groups) for (const h of g.heads) groupsOfHead.set(h, [...(groupsOfHead.get(h) ?? []), g.id]);
  return {
    junctions: junctions.map((cj) => ({ id: cj.junction.id, control: cj.control, polygon: flat2(cj.junction.polygon) })),
    groups,
    heads: rec.signals.map((h) => ({ id: h.id, x: c2(h.x), y: c2(h.y), kind: h.kind, head: h.head, left_arrow: h.left_arrow, groups: groupsOfHead.get(h.id) ?? [] })),
    stop_lines: [
      ...rec.stop_lines.map((l) => ({ id: l.id, points: flat2(l.geometry) })),
      ...(layout?.derivedStopLines ?? []).map((l) => ({ id: l.id, points: flat2(l.points), derived: true })),
    ],
    signs: rec.signs.map((s) => ({ id: s.id, x: c2(s.x), y: c2(s.y), kind: s.kind })),
    crosswalks: (rec.crosswalks ?? []).map((c) => ({ id: c.id, polygon: flat2(c.polygon), axis: flat2([c.a, c.b]), lanes: [...c.lanes] })),
  };
}

/** GET /api/map's reply as this server builds it: every road type listed, empty or not. */
export type BuiltMapReply = MapReply & { roads: Record<MapRoadType, MapRoad[]> };

export function buildMapReply(map: LoadedMap, host: Pick<SceneHost, 'geo' | 'scene'>): BuiltMapReply {
  const roads = Object.fromEntries(MAP_ROAD_TYPES.map((t) => [t, [] as MapRoad[]])) as Record<MapRoadType, MapRoad[]>;
  const lanesByRoad = new Map<number, { id: string; speed?: number }>();
  for (const l of map.mapMetadata?.lane_graph?.lanes ?? []) lanesByRoad.set(l.road_index, { id: String(l.id), speed: l.speed_limit });
  let points = 0;
  let skipped = 0;
  map.scene.roads.forEach((r, index) => {
    const type = r.type as MapRoadType;
    if (!MAP_ROAD_TYPES.includes(type) || r.geometry.length === 0) {
      skipped++;
      return;
    }
    const flat: number[] = new Array(r.geometry.length * 2);
    r.geometry.forEach((p, i) => {
      flat[2 * i] = c2(p.x);
      flat[2 * i + 1] = c2(p.y);
    });
    points += r.geometry.length;
    const out: MapRoad = { points: flat, index };
    if (r.map_element_id !== undefined) out.element = r.map_element_id;
    if (type === 'road_line') Object.assign(out, lineStyle(r.map_element_id));
    if (type === 'road_edge') out.median = r.map_element_id === 16;
    if (type === 'lane') {
      const lane = lanesByRoad.get(index);
      if (lane) {
        out.lane_id = lane.id;
        if (lane.speed !== undefined && Number.isFinite(lane.speed)) out.speed_limit = lane.speed;
      }
    }
    roads[type].push(out);
  });
  const b = host.scene.bounds;
  const counts = Object.fromEntries(MAP_ROAD_TYPES.map((t) => [t, roads[t].length])) as MapReply['counts'];
  counts.points = points;
  counts.skipped = skipped;
  return {
    name: map.label,
    origin: { lat: host.geo.origin.lat, lon: host.geo.origin.lon },
    convergence_deg: host.geo.originConvergenceDeg,
    bounds: { min_x: c2(b.minX), min_y: c2(b.minY), max_x: c2(b.maxX), max_y: c2(b.maxY) },
    roads,
    counts,
    // a scene without traffic control (a stand-in host) gives the mapped records and no junctions
    traffic_control: trafficControlReply(map, (host.scene as { control?: { layout: TrafficLayout } }).control?.layout),
  };
}

interface EncodedMap {
  json: Buffer;
  gzip: Buffer;
  etag: string;
}

export async function mapPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const json = Buffer.from(JSON.stringify(buildMapReply(host.map, host)));
  const encoded: EncodedMap = {
    json,
    gzip: await promisify(gzip)(json, { level: 6 }),
    etag: `"${createHash('sha1').update(json).digest('base64url')}"`,
  };

  app.get('/api/map', {
    schema: {
      tags: ['map'],
      description: 'The road layers of the scene\'s map in the map frame (x east, y north, metres about the origin), for drawing, and its traffic control (junctions, signal groups with their stop lines, signal heads, stop lines, signs). Each geometry is a flat [x0, y0, x1, y1, …] list. Signal states come with every npc_states frame.',
      response: { 200: mapReplySchema, 304: { description: 'not modified since the ETag given in If-None-Match', type: 'null' } },
    },
  }, async (req, reply) => {
    reply.header('cache-control', 'no-cache').header('etag', encoded.etag).header('vary', 'accept-encoding');
    if (req.headers['if-none-match'] === encoded.etag) return reply.code(304).send();
    reply.type('application/json; charset=utf-8');
    // the body is encoded once; a Buffer payload is sent as it is (no serialisation per request)
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(encoded.gzip);
    return reply.send(encoded.json);
  });
}
