/**
 * Map YAML (spec §6.6, seed 001 §3): the road surface and the driving line, plus — VILS's addition — the road
 * JSON the NPCs drive on (`road_map:`), whose lanes can also make the driving line:
 *
 *   road_map: ../../maps/demo-track.json          # optional: a VILS road map (lanes, NPCs, the web map)
 *   road: { surface: { ref: flat, mu: 1.0, mu_right: -1, mu_boundary: 0 }, grade: 0, bank: 0 }
 *   driving_line:
 *     source: lanes, route: [R1, R2, ...], closed: true     # lanes of the road map's lane graph, in order
 *     source: shape, shape: oval | circle | figure8, R: 50, L: 150, n: 160
 *     source: waypoints, points: [[x, y, v?], ...], closed?
 *     type: waypoints, source: <path file {points: [[x, y, vx]]}>   # the form VDSim's shipped maps use
 *     type: straight, length: 500
 *
 * A VILS road JSON can also be named directly as a scenario's map (lanes, no driving line, μ 1). VDSim's
 * `xodr`/`rd5` lines and random-road surfaces are refused with the file and key.
 */
import { dirname, isAbsolute, join } from 'node:path';
import type { GroundSpec } from '../cosim/scene.js';
import { loadMapFile, type LoadedMap } from '../map/scene-json.js';
import { ConfigError } from '../plant/config/errors.js';
import { isRecord, readYamlFile } from '../plant/config/yaml-file.js';
import { type DrivingLine, makeLine, shapeLine } from './line.js';
import { type RefOptions, resolveRef } from './refs.js';
import { expectKeys, numberAt } from './yaml-util.js';

export interface ScenarioMap {
  file: string;
  label: string;
  ground: GroundSpec;
  /** the VILS road JSON (lanes for NPCs), when the map has one */
  roadMapPath: string | null;
  line: DrivingLine | null;
}

const MAP_KEYS = ['road_map', 'road', 'driving_line', 'name', 'label', 'description'];
const ROAD_KEYS = ['width', 'surface', 'grade', 'bank'];
const SURFACE_KEYS = ['ref', 'mu', 'mu_right', 'mu_boundary', 'class'];

const mapCache = new Map<string, LoadedMap>();

/** A road JSON, loaded once per process. */
export function roadMap(path: string): LoadedMap {
  let m = mapCache.get(path);
  if (!m) {
    m = loadMapFile(path);
    mapCache.set(path, m);
  }
  return m;
}

function waypoints(v: unknown, file: string, key: string): number[][] {
  if (!Array.isArray(v) || v.length < 2) throw new ConfigError(file, key, 'expected a list of at least 2 points [x, y] or [x, y, v]');
  return v.map((p, i) => {
    if (Array.isArray(p) && p.length >= 2 && p.length <= 3 && p.every((x) => typeof x === 'number' && Number.isFinite(x))) return p as number[];
    if (isRecord(p) && typeof p.x === 'number' && typeof p.y === 'number') return typeof p.v === 'number' ? [p.x, p.y, p.v] : typeof p.vx === 'number' ? [p.x, p.y, p.vx] : [p.x, p.y];
    throw new ConfigError(file, `${key}[${i}]`, `expected [x, y] or [x, y, v] with finite numbers, got ${JSON.stringify(p)}`);
  });
}

/** Closed when the ends are no further apart than twice the longest step. */
function looksClosed(pts: number[][]): boolean {
  let maxStep = 0;
  for (let i = 1; i < pts.length; i++) maxStep = Math.max(maxStep, Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]));
  return pts.length > 2 && Math.hypot(pts[0][0] - pts[pts.length - 1][0], pts[0][1] - pts[pts.length - 1][1]) <= 2 * maxStep;
}

function closedFlag(dl: Record<string, unknown>, file: string, pts: number[][]): boolean {
  if (dl.closed === undefined || dl.closed === null) return looksClosed(pts);
  if (typeof dl.closed !== 'boolean') throw new ConfigError(file, 'driving_line.closed', 'expected true or false');
  return dl.closed;
}

/** The lanes of `route` (lane ids of the map's lane graph) joined into one line, at the lanes' speed limits. */
export function laneRouteLine(map: LoadedMap, route: unknown, closed: boolean, file: string, key: string): DrivingLine {
  const lanes = map.mapMetadata?.lane_graph?.lanes;
  if (!lanes || lanes.length === 0) throw new ConfigError(file, key, `the road map ${map.label} has no lane graph to take lanes from`);
  if (!Array.isArray(route) || route.length === 0) throw new ConfigError(file, key, 'expected a list of lane ids');
  const pts: number[][] = [];
  route.forEach((id, i) => {
    const lane = lanes.find((l) => String(l.id) === String(id));
    if (!lane) throw new ConfigError(file, `${key}[${i}]`, `no lane '${String(id)}' in ${map.label} (lanes: ${lanes.slice(0, 20).map((l) => l.id).join(', ')}${lanes.length > 20 ? ', …' : ''})`);
    if (i > 0) {
      const prev = lanes.find((l) => String(l.id) === String(route[i - 1]));
      if (prev?.next && !prev.next.map(String).includes(String(id))) throw new ConfigError(file, `${key}[${i}]`, `lane '${String(id)}' does not follow '${String(route[i - 1])}' in the lane graph (its successors: ${prev.next.join(', ') || 'none'})`);
    }
    const geom = map.scene.roads[lane.road_index]?.geometry ?? [];
    const v = typeof lane.speed_limit === 'number' && lane.speed_limit > 0 ? lane.speed_limit : NaN;
    for (const p of geom) pts.push([p.x, p.y, v]);
  });
  return makeLine(pts, closed);
}

function parseLine(dl: unknown, file: string, opts: RefOptions, road: LoadedMap | null): DrivingLine | null {
  if (dl === undefined || dl === null) return null;
  if (!isRecord(dl)) throw new ConfigError(file, 'driving_line', 'expected a map {source: shape | waypoints | lanes, ...}');
  const source = dl.source;
  const type = dl.type;
  if (type === 'straight') {
    const len = numberAt(dl, 'length', file, 'driving_line.length', 500, 1e-3);
    return makeLine([[0, 0], [len, 0]], false);
  }
  if (type === 'waypoints' && typeof source === 'string') {
    const path = resolveRef(source, 'path', file, 'driving_line.source', opts);
    const data = readYamlFile(path).data;
    if (!isRecord(data)) throw new ConfigError(path, 'points', 'expected a path file {points: [[x, y, vx], ...]}');
    const pts = waypoints(data.points, path, 'points');
    return makeLine(pts, closedFlag(dl, file, pts));
  }
  if (type !== undefined && type !== 'waypoints') throw new ConfigError(file, 'driving_line.type', `expected straight or waypoints, got ${JSON.stringify(type)}`);
  switch (source) {
    case 'shape': {
      const shape = dl.shape ?? 'oval';
      if (shape !== 'oval' && shape !== 'circle' && shape !== 'figure8') throw new ConfigError(file, 'driving_line.shape', `expected oval, circle or figure8, got ${JSON.stringify(shape)}`);
      const n = numberAt(dl, 'n', file, 'driving_line.n', 160, 8);
      return makeLine(shapeLine(shape, numberAt(dl, 'R', file, 'driving_line.R', 50, 1e-3), numberAt(dl, 'L', file, 'driving_line.L', 150, 0), Math.round(n)), true);
    }
    case 'waypoints': {
      const pts = waypoints(dl.points, file, 'driving_line.points');
      return makeLine(pts, closedFlag(dl, file, pts));
    }
    case 'lanes': {
      if (!road) throw new ConfigError(file, 'driving_line.source', 'lanes need a road map: add road_map: <VILS road JSON>');
      const closed = dl.closed === undefined ? true : dl.closed === true;
      return laneRouteLine(road, dl.route, closed, file, 'driving_line.route');
    }
    case 'xodr':
    case 'rd5':
      throw new ConfigError(file, 'driving_line.source', `${source} driving lines are not supported (use waypoints, shape or lanes)`);
    default:
      throw new ConfigError(file, 'driving_line.source', `expected shape, waypoints or lanes (or type: straight / type: waypoints with a path file), got ${JSON.stringify(source)}`);
  }
}

export function loadScenarioMap(path: string, opts: RefOptions = {}, muOverride?: number): ScenarioMap {
  const ground: GroundSpec = { mu: 1, muRight: -1, muBoundary: 0, grade: 0, bank: 0 };
  if (path.endsWith('.json')) {
    const m = roadMap(path);
    return { file: path, label: m.label, ground: { ...ground, mu: muOverride ?? 1 }, roadMapPath: path, line: null };
  }
  const data = readYamlFile(path).data;
  if (!isRecord(data)) throw new ConfigError(path, undefined, 'expected a map file {road, driving_line}');
  expectKeys(data, MAP_KEYS, path, '');
  let roadMapPath: string | null = null;
  if (data.road_map !== undefined && data.road_map !== null) {
    if (typeof data.road_map !== 'string') throw new ConfigError(path, 'road_map', 'expected the path of a VILS road JSON');
    roadMapPath = isAbsolute(data.road_map) ? data.road_map : join(dirname(path), data.road_map);
    try {
      roadMap(roadMapPath);
    } catch (err) {
      throw new ConfigError(path, 'road_map', (err as Error).message);
    }
  }
  if (data.road !== undefined && data.road !== null) {
    if (!isRecord(data.road)) throw new ConfigError(path, 'road', 'expected a map {surface: {ref, mu}}');
    expectKeys(data.road, ROAD_KEYS, path, 'road');
    ground.grade = numberAt(data.road, 'grade', path, 'road.grade', 0);
    ground.bank = numberAt(data.road, 'bank', path, 'road.bank', 0);
    const s = data.road.surface;
    if (s !== undefined && s !== null) {
      if (!isRecord(s)) throw new ConfigError(path, 'road.surface', 'expected a map {ref, mu}');
      expectKeys(s, SURFACE_KEYS, path, 'road.surface');
      if (s.ref !== undefined && s.ref !== 'flat') throw new ConfigError(path, 'road.surface.ref', `only flat surfaces are ported (ISO 8608 and rough roads are not), got ${JSON.stringify(s.ref)}`);
      ground.mu = numberAt(s, 'mu', path, 'road.surface.mu', 1, 0);
      ground.muRight = numberAt(s, 'mu_right', path, 'road.surface.mu_right', -1);
      ground.muBoundary = numberAt(s, 'mu_boundary', path, 'road.surface.mu_boundary', 0);
    }
  }
  if (muOverride !== undefined) ground.mu = muOverride;
  const line = parseLine(data.driving_line, path, opts, roadMapPath ? roadMap(roadMapPath) : null);
  const label = typeof data.label === 'string' ? data.label : typeof data.name === 'string' ? data.name : path.split('/').pop()!.replace(/\.ya?ml$/, '');
  return { file: path, label, ground, roadMapPath, line };
}
