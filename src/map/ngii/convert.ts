/**
 * NGII precision-map shapefiles → VILS road JSON (GPUDrive `roads` + map metadata and lane graph).
 *
 *   A2_LINK                     → lane        (one per link, in the driving direction)
 *   B2_SURFACELINEMARK          → road_line   (map_element_id from Type; stop and guide lines kept as lines)
 *   C3_VEHICLEPROTECTIONSAFETY  → road_edge   (15 boundary, 16 median when IsCentral = 1; median openings skipped)
 *   C4_SPEEDBUMP                → speed_bump  (the ring's minimum-area rectangle: GPUDrive boxes the first 4 points)
 *   A1_NODE                     → lane graph nodes (and, with A2 RoadType, each lane's level)
 *   C1_TRAFFICLIGHT             → traffic_control.signals      (never roads; see traffic-control.ts)
 *   B2 Kind 530 (stop lines)    → traffic_control.stop_lines   (as well as road_line)
 *   B1_SAFETYSIGN               → traffic_control.signs        (regulatory signs only)
 *   B3_SURFACEMARK Kind 5321    → traffic_control.crosswalks   (never roads; see crosswalks.ts: Kind 534, the bicycle
 *                                                               crossing beside it, is counted, not carried)
 *
 * Coordinates go layer CRS → UTM 52N → local metres about the origin (given, or the map's centre).
 */
import { readdirSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { GeoFrame, utmToLatLon } from '../../geo/frame.js';
import { A2_LINK_TYPE_NAMES, A2_ROAD_TYPE_NAMES, B2_KIND_NAMES, C3_NOT_AN_EDGE, C3_TYPE_NAMES, DEFAULT_SPEED_LIMIT_KMH, POCKET_LANE_MIN, STRUCTURE_NODE_TYPES, STRUCTURE_ROAD_TYPES, laneElementId, roadLineElementId } from './codes.js';
import { detectCrs, toUtm52n, type Crs } from './crs.js';
import { FieldReader } from './fields.js';
import { dedupe, minAreaRectangle, polylineLength, type Pt } from './geometry.js';
import { layerPath, readLayer, type LayerRead } from './read-layer.js';
import { cutEdgesAtLaneCrossings, deriveRoadEdges } from '../drivable.js';
import type { TrafficControlRecords } from '../traffic-control.js';
import { convertCrosswalks, emptyCrosswalkTally, type CrosswalkTally } from './crosswalks.js';
import { LINK_NOT_A_LANE, StopLineMatcher, convertSignalHeads, convertSigns, emptyStopLineAttachment, stopLineRecord, type LaneShape, type StopLineAttachment } from './traffic-control.js';

export const LAYERS = ['A1_NODE', 'A2_LINK', 'B2_SURFACELINEMARK', 'C3_VEHICLEPROTECTIONSAFETY', 'C4_SPEEDBUMP', 'C1_TRAFFICLIGHT', 'B1_SAFETYSIGN', 'B3_SURFACEMARK'] as const;
type LayerName = (typeof LAYERS)[number];
/** The layers the map's extent (and so its default origin) comes from: signals, signs and surface marks lie on or beside the roads. */
const EXTENT_LAYERS: readonly LayerName[] = ['A1_NODE', 'A2_LINK', 'B2_SURFACELINEMARK', 'C3_VEHICLEPROTECTIONSAFETY', 'C4_SPEEDBUMP'];

const MISSING: Record<LayerName, string> = {
  A1_NODE: 'nodes', A2_LINK: 'lanes', B2_SURFACELINEMARK: 'painted lines or stop lines',
  C3_VEHICLEPROTECTIONSAFETY: 'kerbs or barriers from the data (a boundary is derived from the lanes instead)',
  C4_SPEEDBUMP: 'speed bumps', C1_TRAFFICLIGHT: 'signal heads', B1_SAFETYSIGN: 'traffic signs', B3_SURFACEMARK: 'crosswalks',
};

export interface ConvertOptions {
  origin?: { lat: number; lon: number };
  onProgress?: (layer: string, done: number) => void;
}

export interface LayerSummary {
  read: number;
  written: number;
  skipped: Record<string, number>;
  codes: Record<string, number>;
  /** how the layer's traffic-control records got their lanes (C1, B1) */
  lanes?: Record<string, number>;
  encoding: string;
  crs: string;
}

export interface ConversionSummary {
  layers: Partial<Record<LayerName, LayerSummary>>;
  missing: LayerName[];
  warnings: string[];
  unknownCodes: Record<string, number>;
  duplicateVerticesDropped: number;
  /** B2 Kind 530 → traffic_control.stop_lines: how they got their lanes */
  stopLines: StopLineAttachment;
  /** B3 Kind 5321 → traffic_control.crosswalks: how their axes were found, how many lanes cross them */
  crosswalks: CrosswalkTally;
}

interface RoadOut {
  type: string;
  geometry: Array<{ x: number; y: number }>;
  map_element_id: number;
  id: number;
  source_id: string;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
/** B2 Kind of a stop line (정지선). */
const STOP_LINE_KIND = '530';
const inc = (o: Record<string, number>, k: string, n = 1) => {
  o[k] = (o[k] ?? 0) + n;
};

export async function convertNgii(dir: string, opts: ConvertOptions = {}) {
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  const files = readdirSync(dir);
  const summary: ConversionSummary = { layers: {}, missing: [], warnings: [], unknownCodes: {}, duplicateVerticesDropped: 0, stopLines: emptyStopLineAttachment(), crosswalks: emptyCrosswalkTally() };
  const reads: Partial<Record<LayerName, LayerRead>> = {};
  for (const name of LAYERS) {
    const path = layerPath(dir, name, files);
    if (!path) {
      summary.missing.push(name);
      summary.warnings.push(`${name} is missing: no ${MISSING[name]} in the output`);
      continue;
    }
    reads[name] = await readLayer(path, name, opts.onProgress ? (n) => opts.onProgress!(name, n) : undefined);
  }
  if (!reads.A2_LINK) summary.warnings.push('without A2_LINK the map has no lanes and no lane graph; NPC goals fall back to the road edges and lines');

  // One CRS per site: every layer has the same .prj (spec §1); take each layer's own anyway.
  const crsOf = (r: LayerRead): Crs => {
    const first = r.features[0]?.parts[0]?.[0];
    return detectCrs(r.prj, first ? { x: first[0], y: first[1] } : undefined);
  };

  // Origin: given, or the centre of the data.
  const utmPoints: Array<[number, number]> = [];
  const projected = new Map<LayerName, { crs: Crs; features: Array<{ properties: Record<string, unknown>; parts: Pt[][] }> }>();
  for (const name of LAYERS) {
    const r = reads[name];
    if (!r) continue;
    const crs = crsOf(r);
    if (!r.prj) summary.warnings.push(`${name}: no .prj (${crs.reason})`);
    const fwd = toUtm52n(crs);
    const features = r.features.map((f) => ({ properties: f.properties, parts: f.parts.map((part) => part.map(([x, y]) => fwd(x, y))) }));
    if (EXTENT_LAYERS.includes(name)) for (const f of features) for (const part of f.parts) for (const p of part) utmPoints.push(p);
    projected.set(name, { crs, features });
  }
  let origin = opts.origin;
  if (!origin && utmPoints.length === 0) for (const p of projected.values()) for (const f of p.features) for (const part of f.parts) for (const q of part) utmPoints.push(q);
  if (!origin) {
    if (utmPoints.length === 0) throw new Error(`${dir}: no NGII layer with geometry found (looked for ${LAYERS.join(', ')})`);
    let minE = Infinity, maxE = -Infinity, minN = Infinity, maxN = -Infinity;
    for (const [e, n] of utmPoints) { minE = Math.min(minE, e); maxE = Math.max(maxE, e); minN = Math.min(minN, n); maxN = Math.max(maxN, n); }
    const c = utmToLatLon((minE + maxE) / 2, (minN + maxN) / 2);
    origin = { lat: Math.round(c.lat * 1e6) / 1e6, lon: Math.round(c.lon * 1e6) / 1e6 };
  }
  const geo = new GeoFrame(origin);
  const local = (p: [number, number]): Pt => [p[0] - geo.originUtm.easting, p[1] - geo.originUtm.northing];

  const roads: RoadOut[] = [];
  const lanes: Array<Record<string, unknown>> = [];
  const nodes: Array<{ id: string; x: number; y: number; type: string }> = [];
  const laneShapes: LaneShape[] = [];
  const traffic: TrafficControlRecords = { signals: [], stop_lines: [], signs: [], crosswalks: [] };
  const addRoad = (type: string, pts: Pt[], elementId: number, sourceId: string) => {
    roads.push({ type, geometry: pts.map(([x, y]) => ({ x: r3(x), y: r3(y) })), map_element_id: elementId, id: roads.length, source_id: sourceId });
    return roads.length - 1;
  };
  const layerSummary = (name: LayerName): LayerSummary => {
    const r = reads[name]!;
    const s: LayerSummary = { read: r.features.length + r.emptyGeometries, written: 0, skipped: {}, codes: {}, encoding: `${r.encoding.encoding} (${r.encoding.reason})`, crs: `${projected.get(name)!.crs.label} (${projected.get(name)!.crs.reason})` };
    if (r.emptyGeometries) inc(s.skipped, 'empty geometry', r.emptyGeometries);
    summary.layers[name] = s;
    return s;
  };
  /** Local polyline with duplicate vertices removed; null (and counted) if fewer than 2 distinct points remain. */
  const line = (parts: Pt[][], s: LayerSummary): Pt[] | null => {
    const { points, dropped } = dedupe(parts.flat().map((p) => local(p as [number, number])));
    summary.duplicateVerticesDropped += dropped;
    if (points.length < 2) {
      inc(s.skipped, 'fewer than 2 distinct vertices');
      return null;
    }
    return points;
  };

  // A1 nodes
  const a1 = projected.get('A1_NODE');
  if (a1) {
    const s = layerSummary('A1_NODE');
    const f = new FieldReader(a1.features[0]?.properties ?? {});
    for (const feat of a1.features) {
      const p = local(feat.parts[0][0] as [number, number]);
      const type = f.str(feat.properties, 'NodeType');
      inc(s.codes, `NodeType ${type || '(empty)'}`);
      nodes.push({ id: f.str(feat.properties, 'ID'), x: r3(p[0]), y: r3(p[1]), type });
      s.written++;
    }
  }

  // A2 lanes and the lane graph
  const structureNodes = new Set(nodes.filter((n) => STRUCTURE_NODE_TYPES.has(n.type)).map((n) => n.id));
  const a2 = projected.get('A2_LINK');
  if (a2) {
    const s = layerSummary('A2_LINK');
    const f = new FieldReader(a2.features[0]?.properties ?? {});
    const linkByFrom = new Map<string, string[]>();
    const rows: Array<Record<string, unknown>> = [];
    for (const feat of a2.features) {
      const p = feat.properties;
      const id = f.str(p, 'ID');
      const pts = line(feat.parts, s);
      if (!pts) continue;
      const linkType = f.str(p, 'LinkType');
      inc(s.codes, `LinkType ${linkType}${A2_LINK_TYPE_NAMES[linkType] ? ` ${A2_LINK_TYPE_NAMES[linkType]}` : ''}`);
      if (!A2_LINK_TYPE_NAMES[linkType]) inc(summary.unknownCodes, `A2 LinkType ${linkType || '(empty)'} → lane`);
      const maxSpeed = f.num(p, 'MaxSpeed');
      const laneNo = f.num(p, 'LaneNo');
      if (!(maxSpeed > 0)) inc(s.codes, 'MaxSpeed 0/unset → default');
      const from = f.str(p, 'FromNodeID');
      const to = f.str(p, 'ToNodeID');
      const roadType = f.str(p, 'RoadType');
      if (roadType && !A2_ROAD_TYPE_NAMES[roadType]) inc(summary.unknownCodes, `A2 RoadType ${roadType} → at grade unless its nodes say otherwise`);
      // on a structure: by RoadType, or between two structure start/end nodes (K-City's underpass has RoadType 1)
      const level = STRUCTURE_ROAD_TYPES.has(roadType) || (structureNodes.has(from) && structureNodes.has(to)) ? 1 : 0;
      if (level) inc(s.codes, `level 1 (${STRUCTURE_ROAD_TYPES.has(roadType) ? `RoadType ${roadType} ${A2_ROAD_TYPE_NAMES[roadType]}` : 'between structure nodes'})`);
      const roadIndex = addRoad('lane', pts, laneElementId(f.str(p, 'RoadRank')), id);
      laneShapes.push({ id, pts });
      rows.push({
        id, road_index: roadIndex, from_node: from || null, to_node: to || null, next: [] as string[],
        left: f.str(p, 'L_LinkID') || null, right: f.str(p, 'R_LinkID') || null,
        length: r3(polylineLength(pts)), speed_limit: r3(((maxSpeed > 0 ? maxSpeed : DEFAULT_SPEED_LIMIT_KMH) * 1000) / 3600),
        speed_limit_default: !(maxSpeed > 0), pocket: laneNo >= POCKET_LANE_MIN, lane_no: Number.isFinite(laneNo) ? laneNo : null, link_type: linkType,
        road_type: roadType || null, level,
      });
      if (from) linkByFrom.set(from, [...(linkByFrom.get(from) ?? []), id]);
      s.written++;
    }
    const known = new Set(rows.map((r) => r.id as string));
    let danglingNeighbours = 0;
    for (const r of rows) {
      r.next = r.to_node ? (linkByFrom.get(r.to_node as string) ?? []).filter((n) => n !== r.id) : [];
      for (const k of ['left', 'right'] as const) {
        if (r[k] && !known.has(r[k] as string)) {
          danglingNeighbours++;
          r[k] = null;
        }
      }
      lanes.push(r);
    }
    if (danglingNeighbours) summary.warnings.push(`A2_LINK: ${danglingNeighbours} left/right references to links that are not in the layer were dropped`);
  }

  // lanes by id, for the traffic-control records that name them
  const rightOf = new Map<string, string | null>(lanes.map((l) => [l.id as string, l.right as string | null]));
  const matcher = new StopLineMatcher(laneShapes);
  const stopLineIds = new Set<string>();

  // B2 lines; stop lines also into traffic_control
  const b2 = projected.get('B2_SURFACELINEMARK');
  if (b2) {
    const s = layerSummary('B2_SURFACELINEMARK');
    const f = new FieldReader(b2.features[0]?.properties ?? {});
    for (const feat of b2.features) {
      const p = feat.properties;
      const pts = line(feat.parts, s);
      if (!pts) continue;
      const type = f.str(p, 'Type');
      const kind = f.str(p, 'Kind');
      inc(s.codes, `Type ${type || '(empty)'} / Kind ${kind || '(empty)'}${B2_KIND_NAMES[kind] ? ` ${B2_KIND_NAMES[kind]}` : ''}`);
      let id = roadLineElementId(type);
      if (id === null) {
        inc(summary.unknownCodes, `B2 Type ${type || '(empty)'} → 5 ROAD_LINE_UNKNOWN`);
        id = 5;
      }
      if (kind && !B2_KIND_NAMES[kind]) inc(summary.unknownCodes, `B2 Kind ${kind} → kept as a line`);
      const sourceId = f.str(p, 'ID');
      const roadIndex = addRoad('road_line', pts, id, sourceId);
      s.written++;
      if (kind === STOP_LINE_KIND) {
        if (!sourceId || stopLineIds.has(sourceId)) {
          inc(s.skipped, `stop line ${sourceId ? 'with a duplicate ID' : 'without ID'} (kept as a line, not in traffic_control)`);
          continue;
        }
        stopLineIds.add(sourceId);
        traffic.stop_lines.push(stopLineRecord(sourceId, roads[roadIndex].geometry.map((q) => ({ ...q })), [f.str(p, 'R_LinkID'), f.str(p, 'L_LinkID')], pts, matcher, summary.stopLines));
      }
    }
  }

  // C3 edges
  const c3 = projected.get('C3_VEHICLEPROTECTIONSAFETY');
  if (c3) {
    const s = layerSummary('C3_VEHICLEPROTECTIONSAFETY');
    const f = new FieldReader(c3.features[0]?.properties ?? {});
    for (const feat of c3.features) {
      const p = feat.properties;
      const type = f.str(p, 'Type');
      const central = f.str(p, 'IsCentral') === '1';
      inc(s.codes, `Type ${type || '(empty)'}${C3_TYPE_NAMES[type] ? ` ${C3_TYPE_NAMES[type]}` : ''}${central ? ' (median)' : ''}`);
      if (C3_NOT_AN_EDGE.has(type)) {
        inc(s.skipped, 'Type 6 median opening (not a barrier)');
        continue;
      }
      if (!C3_TYPE_NAMES[type]) inc(summary.unknownCodes, `C3 Type ${type || '(empty)'} → road edge`);
      const pts = line(feat.parts, s);
      if (!pts) continue;
      addRoad('road_edge', pts, central ? 16 : 15, f.str(p, 'ID'));
      s.written++;
    }
  }

  // C4 speed bumps
  const c4 = projected.get('C4_SPEEDBUMP');
  if (c4) {
    const s = layerSummary('C4_SPEEDBUMP');
    const f = new FieldReader(c4.features[0]?.properties ?? {});
    for (const feat of c4.features) {
      const ring = dedupe(feat.parts[0].map((q) => local(q as [number, number]))).points;
      if (ring.length < 3) {
        inc(s.skipped, 'fewer than 3 distinct vertices');
        continue;
      }
      inc(s.codes, `Type ${f.str(feat.properties, 'Type') || '(empty)'}`);
      addRoad('speed_bump', minAreaRectangle(ring), 19, f.str(feat.properties, 'ID'));
      s.written++;
    }
  }

  // C1 signal heads and B1 signs: traffic_control only (a polygon sign stands at its ring's centroid)
  const localFeatures = (name: LayerName) => projected.get(name)!.features.map((ft) => ({ properties: ft.properties, parts: ft.parts.map((part) => part.map((q) => local(q as [number, number]))) }));
  if (projected.has('C1_TRAFFICLIGHT')) {
    traffic.signals = convertSignalHeads(localFeatures('C1_TRAFFICLIGHT'), rightOf, layerSummary('C1_TRAFFICLIGHT'), summary.unknownCodes);
  }
  if (projected.has('B1_SAFETYSIGN')) {
    traffic.signs = convertSigns(localFeatures('B1_SAFETYSIGN'), rightOf, layerSummary('B1_SAFETYSIGN'));
  }
  if (projected.has('B3_SURFACEMARK')) {
    traffic.crosswalks = convertCrosswalks(localFeatures('B3_SURFACEMARK'), laneShapes, layerSummary('B3_SURFACEMARK'), summary.crosswalks);
    const cw = summary.crosswalks;
    if (cw.axisFromLongSide) summary.warnings.push(`B3_SURFACEMARK: ${cw.axisFromLongSide} of ${cw.total} crosswalks have no lane through them: walking axis along the outline's long side`);
  }
  for (const name of ['C1_TRAFFICLIGHT', 'B1_SAFETYSIGN'] as const) {
    const missingLink = summary.layers[name]?.lanes?.[LINK_NOT_A_LANE];
    if (missingLink) summary.warnings.push(`${name}: ${missingLink} records name a LinkID that is not a lane of A2_LINK: written without lanes`);
  }
  const sl = summary.stopLines;
  if (sl.unattached) summary.warnings.push(`B2_SURFACELINEMARK: ${sl.unattached} of ${sl.total} stop lines meet no lane: written without lanes`);
  if (sl.danglingReferences) summary.warnings.push(`B2_SURFACELINEMARK: ${sl.danglingReferences} stop-line R_LinkID/L_LinkID references are not lanes of A2_LINK (ignored)`);
  if (sl.referencesNotAcross) summary.warnings.push(`B2_SURFACELINEMARK: ${sl.referencesNotAcross} stop-line R_LinkID/L_LinkID references name a lane that runs along the line or passes it more than 1 m away (ignored)`);

  // the drivable area where the data leaves gaps (src/map/drivable.ts): edges that lanes drive across are
  // cut open; without C3 a boundary is derived from the lanes
  const cut = cutEdgesAtLaneCrossings(roads);
  if (cut.cuts > 0) summary.warnings.push(`C3: road edges crossed by lanes were cut open at ${cut.cuts} crossings (a grade-separated crossing drawn flat, or a data error)`);
  roads.splice(0, roads.length, ...(cut.roads as RoadOut[]));
  let derived: { method: string; lane_width_m: number; shoulder_m: number; polylines: number } | undefined;
  if (!reads.C3_VEHICLEPROTECTIONSAFETY && roads.some((r) => r.type === 'lane')) {
    const d = deriveRoadEdges(roads);
    for (const e of d.edges) addRoad('road_edge', e.geometry.map((p) => [p.x, p.y]), 15, 'derived');
    derived = { method: 'union of the lanes widened to the painted lines beside them (else half the lane width) plus a shoulder (VILS)', lane_width_m: d.laneWidth, shoulder_m: d.shoulder, polylines: d.edges.length };
    summary.warnings.push(`no C3: derived ${d.edges.length} road-edge outlines from the lanes (to the painted lines, else ${d.laneWidth} m lanes, plus ${d.shoulder} m), marked derived_road_edges in the map metadata`);
  }
  roads.forEach((r, i) => (r.id = i));

  const counts: Record<string, number> = {};
  for (const r of roads) inc(counts, r.type);
  const sourceFiles = LAYERS.filter((l) => reads[l]).map((l) => basename(layerPath(dir, l, files)!));
  const crs = [...projected.values()][0]?.crs;
  const map = {
    name: basename(dir.replace(/\/+$/, '')),
    map: {
      name: basename(dir.replace(/\/+$/, '')),
      source: 'NGII precision road map (정밀도로지도) shapefiles; NGII user notice applies: do not redistribute',
      source_files: sourceFiles,
      source_crs: crs?.label ?? 'unknown',
      crs: 'local metres (x east, y grid north) about origin, UTM zone 52N grid (EPSG:32652)',
      origin: { lat: origin.lat, lon: origin.lon, utm_e: r3(geo.originUtm.easting), utm_n: r3(geo.originUtm.northing) },
      counts,
      ...(derived ? { derived_road_edges: derived } : {}),
      ...(cut.cuts > 0 ? { road_edges_cut_at_lane_crossings: cut.cuts } : {}),
      nodes,
      lane_graph: { lanes },
    },
    roads,
    traffic_control: traffic,
  };
  return { map, summary };
}
