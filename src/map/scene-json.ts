/**
 * Loading GPUDrive scene JSON (spec §8) and VILS road JSON (same `roads`, plus map metadata; see
 * maps/README.md). Validation happens here, at the edge: anything malformed fails with the path of the
 * offending field, so the engine can trust its input.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MapFormatError } from './errors.js';
import { missingMap } from './map-files.js';
import { parseTrafficControl, type TrafficControlRecords } from './traffic-control.js';
import type { Point2, RoadJson, SceneJson, SceneMetadataJson, SceneObjectJson } from './types.js';

export { MapFormatError };

/** Metadata of a VILS road map (absent for GPUDrive scenes). */
export interface RoadMapMetadata {
  name?: string;
  crs?: string;
  origin?: { lat: number; lon: number; utm_e?: number; utm_n?: number };
  lane_graph?: LaneGraphJson;
  [key: string]: unknown;
}

export interface LaneJson {
  id: string | number;
  road_index: number;
  from_node?: string | number;
  to_node?: string | number;
  next?: Array<string | number>;
  left?: string | number | null;
  right?: string | number | null;
  length?: number;
  speed_limit?: number;
  pocket?: boolean;
  /** NGII LinkType ('1': a path inside an intersection) */
  link_type?: string;
  lane_no?: number | null;
  /** 1 on a structure (bridge, tunnel, underpass, overpass), 0 or absent at grade */
  level?: number;
}

export interface LaneGraphJson {
  lanes: LaneJson[];
}

export interface LoadedMap {
  readonly label: string;
  readonly scene: SceneJson;
  /** Present for VILS road maps. */
  readonly mapMetadata?: RoadMapMetadata;
  /** signal heads, stop lines and signs (empty lists when the map has none) */
  readonly trafficControl: TrafficControlRecords;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function point(v: unknown, where: string): Point2 {
  if (!isObj(v) || !isNum(v.x) || !isNum(v.y)) throw new MapFormatError(`${where}: expected {x, y} with finite numbers`);
  return { x: v.x, y: v.y };
}

function road(v: unknown, where: string): RoadJson {
  if (!isObj(v)) throw new MapFormatError(`${where}: expected an object`);
  if (typeof v.type !== 'string') throw new MapFormatError(`${where}.type: expected a string`);
  if (!Array.isArray(v.geometry)) throw new MapFormatError(`${where}.geometry: expected an array of points`);
  const geometry = v.geometry.map((p, i) => point(p, `${where}.geometry[${i}]`));
  const out: RoadJson = { type: v.type, geometry };
  if (isNum(v.map_element_id)) out.map_element_id = v.map_element_id;
  if (isNum(v.id)) out.id = v.id;
  return out;
}

function object(v: unknown, where: string): SceneObjectJson {
  if (!isObj(v)) throw new MapFormatError(`${where}: expected an object`);
  const arr = (k: string): unknown[] => {
    const a = v[k];
    if (!Array.isArray(a)) throw new MapFormatError(`${where}.${k}: expected an array`);
    return a;
  };
  const position = arr('position').map((p, i) => point(p, `${where}.position[${i}]`));
  const velocity = arr('velocity').map((p, i) => point(p, `${where}.velocity[${i}]`));
  const heading = arr('heading').map((h, i) => {
    if (!isNum(h)) throw new MapFormatError(`${where}.heading[${i}]: expected a number`);
    return h;
  });
  const valid = arr('valid').map((b, i) => {
    if (typeof b !== 'boolean') throw new MapFormatError(`${where}.valid[${i}]: expected a boolean`);
    return b;
  });
  if (position.length === 0) throw new MapFormatError(`${where}.position: at least one timestep is needed`);
  for (const [k, a] of [['velocity', velocity], ['heading', heading], ['valid', valid]] as const) {
    if (a.length < position.length) throw new MapFormatError(`${where}.${k}: ${a.length} entries for ${position.length} positions`);
  }
  for (const k of ['width', 'length'] as const) {
    if (!isNum(v[k])) throw new MapFormatError(`${where}.${k}: expected a number`);
  }
  if (typeof v.type !== 'string') throw new MapFormatError(`${where}.type: expected a string`);
  const out: SceneObjectJson = {
    position, velocity, heading, valid,
    width: v.width as number,
    length: v.length as number,
    goalPosition: point(v.goalPosition, `${where}.goalPosition`),
    type: v.type,
  };
  if (isNum(v.height)) out.height = v.height;
  if (isNum(v.id)) out.id = v.id;
  if (typeof v.mark_as_expert === 'boolean') out.mark_as_expert = v.mark_as_expert;
  return out;
}

function metadata(v: unknown): SceneMetadataJson | undefined {
  if (!isObj(v)) return undefined;
  const out: SceneMetadataJson = {};
  if (isNum(v.sdc_track_index)) out.sdc_track_index = v.sdc_track_index;
  if (Array.isArray(v.objects_of_interest)) out.objects_of_interest = v.objects_of_interest.filter(isNum);
  if (Array.isArray(v.tracks_to_predict)) {
    out.tracks_to_predict = v.tracks_to_predict
      .filter((t): t is Record<string, unknown> => isObj(t) && isNum(t.track_index))
      .map((t) => ({ track_index: t.track_index as number, difficulty: isNum(t.difficulty) ? t.difficulty : 0 }));
  }
  return out;
}

/** Validates parsed JSON as a scene or road map. */
export function parseMapJson(data: unknown, label = 'map'): LoadedMap {
  if (!isObj(data)) throw new MapFormatError(`${label}: top level must be an object`);
  if (!Array.isArray(data.roads)) throw new MapFormatError(`${label}: "roads" must be an array`);
  const roads = data.roads.map((r, i) => road(r, `${label}: roads[${i}]`));
  const objects = data.objects === undefined ? [] : Array.isArray(data.objects) ? data.objects.map((o, i) => object(o, `${label}: objects[${i}]`)) : null;
  if (objects === null) throw new MapFormatError(`${label}: "objects" must be an array`);
  const scene: SceneJson = {
    name: typeof data.name === 'string' ? data.name : label,
    scenario_id: typeof data.scenario_id === 'string' ? data.scenario_id : undefined,
    objects,
    roads,
    metadata: metadata(data.metadata),
  };
  const mapMetadata = isObj(data.map) ? (data.map as RoadMapMetadata) : undefined;
  if (mapMetadata?.lane_graph) markStructureLanes(mapMetadata);
  return { label, scene, mapMetadata, trafficControl: parseTrafficControl(data.traffic_control, label) };
}

/** NGII NodeTypes that start or end a structure: tunnel, bridge, underpass, overpass. */
const STRUCTURE_NODE_TYPES = new Set(['3', '4', '5', '6']);

/**
 * Lanes of maps converted before `level` was written: a lane between two structure nodes (A1 NodeType 3–6) is on
 * the structure (K-City's underpass is drawn across the road above it).
 */
function markStructureLanes(meta: RoadMapMetadata): void {
  const nodes = meta.nodes;
  if (!Array.isArray(nodes)) return;
  const structure = new Set<string>();
  for (const n of nodes) if (isObj(n) && STRUCTURE_NODE_TYPES.has(String(n.type))) structure.add(String(n.id));
  if (structure.size === 0) return;
  for (const l of meta.lane_graph!.lanes) {
    if (l.level === undefined && l.from_node !== undefined && l.to_node !== undefined && structure.has(String(l.from_node)) && structure.has(String(l.to_node))) l.level = 1;
  }
}

export function loadMapFile(path: string): LoadedMap {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    // a path that is not there: where it was looked for and which maps there are, not a bare ENOENT
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new MapFormatError(missingMap(path) ?? `${basename(path)}: ${(err as Error).message}`);
    throw new MapFormatError(`${basename(path)}: ${(err as Error).message}`);
  }
  return parseMapJson(data, basename(path));
}
