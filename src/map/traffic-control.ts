/**
 * Traffic control records of a VILS road map: signal heads, stop lines and regulatory signs, each attached to the
 * lanes it applies to (lane-graph ids). They live beside `roads` under `traffic_control` and never become road
 * entities: the policy's observation is GPUDrive's and stays exactly as it is. Junctions are not stored; they are
 * derived from the lanes (junctions.ts). Validation happens here, at the edge, with the path of the field at fault.
 * Crosswalks (painted pedestrian crossings, NGII B3 Kind 5321: src/map/ngii/crosswalks.ts) are records here too,
 * never road entities; their walk signals are derived by the scene (src/scene/signals/walk-signals.ts).
 */
import { MapFormatError } from './errors.js';

/** What a signal head shows to whom (from its NGII code, table below). */
export type SignalHeadKind = 'vehicle' | 'bus' | 'pedestrian' | 'bicycle' | 'lane_control' | 'warning' | 'other';

export interface SignalHeadRecord {
  id: string;
  x: number;
  y: number;
  /** the source's code (NGII C1 Type), when there is one */
  code?: string;
  /** the head's design, e.g. vehicle_horizontal_4_colour_a */
  head: string;
  kind: SignalHeadKind;
  /** the head has a left-turn arrow lamp: its approach gets a protected left phase */
  left_arrow: boolean;
  /** lanes it controls, leftmost first (NGII: LinkID and Ref_Lane − 1 right neighbours) */
  lanes: string[];
  post?: string;
}

export interface StopLineRecord {
  id: string;
  geometry: Array<{ x: number; y: number }>;
  /** lanes it crosses (from the source's references where it has them, else by geometry) */
  lanes: string[];
}

export type SignKind = 'stop' | 'yield' | 'speed_limit' | 'min_speed' | 'slow';

export interface SignRecord {
  id: string;
  x: number;
  y: number;
  code?: string;
  kind: SignKind;
  lanes: string[];
  /** the posted value of a speed sign [km/h], when the source gives it */
  value_kmh?: number;
}

/**
 * A painted pedestrian crossing (NGII B3_SURFACEMARK Kind 5321). People walk it along its axis, from kerb `a` to
 * kerb `b` or back; vehicles on the lanes it names cross it.
 */
export interface CrosswalkRecord {
  id: string;
  /** outline in the map frame, a ring without its closing repeat */
  polygon: Array<{ x: number; y: number }>;
  /** the walking axis, kerb to kerb: the centre line of the outline's rectangle ACROSS the lanes it crosses (src/map/crosswalks.ts) */
  a: { x: number; y: number };
  b: { x: number; y: number };
  /** |b − a| [m], and the crossing's width along the road [m] */
  length: number;
  width: number;
  /** lanes whose centre lines cross it */
  lanes: string[];
}

export interface TrafficControlRecords {
  signals: SignalHeadRecord[];
  stop_lines: StopLineRecord[];
  signs: SignRecord[];
  /** absent in maps made before crosswalks were carried: read as none */
  crosswalks?: CrosswalkRecord[];
}

export const SIGN_KINDS: readonly SignKind[] = ['stop', 'yield', 'speed_limit', 'min_speed', 'slow'];
export const SIGNAL_HEAD_KINDS: readonly SignalHeadKind[] = ['vehicle', 'bus', 'pedestrian', 'bicycle', 'lane_control', 'warning', 'other'];

export function emptyTrafficControl(): TrafficControlRecords {
  return { signals: [], stop_lines: [], signs: [], crosswalks: [] };
}

/** A map's crosswalks (none when it has no `crosswalks` list). */
export function crosswalksOf(records: TrafficControlRecords): readonly CrosswalkRecord[] {
  return records.crosswalks ?? [];
}

/** A crosswalk's stated length may differ from |b − a| by at most this [m] (the converter rounds to 1 mm). */
export const CROSSWALK_LENGTH_TOLERANCE_M = 0.01;

/** Heads that control vehicles on the lanes they name (a pedestrian or bicycle head controls the crossing, not the lanes). */
export function controlsVehicles(h: SignalHeadRecord): boolean {
  return h.kind === 'vehicle' || h.kind === 'bus';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function str(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) throw new MapFormatError(`${where}: expected a non-empty string`);
  return v;
}

function lanes(v: unknown, where: string): string[] {
  if (!Array.isArray(v)) throw new MapFormatError(`${where}: expected an array of lane ids`);
  return v.map((l, i) => {
    if (typeof l !== 'string' && !isNum(l)) throw new MapFormatError(`${where}[${i}]: expected a lane id`);
    return String(l);
  });
}

function num(v: unknown, where: string): number {
  if (!isNum(v)) throw new MapFormatError(`${where}: expected a finite number`);
  return v;
}

function list<T>(o: Record<string, unknown>, key: string, where: string, each: (v: unknown, w: string) => T): T[] {
  const v = o[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new MapFormatError(`${where}.${key}: expected an array`);
  return v.map((e, i) => each(e, `${where}.${key}[${i}]`));
}

/** Validates a map's `traffic_control` (absent: none). Ids must be unique within each list. */
export function parseTrafficControl(data: unknown, label = 'map'): TrafficControlRecords {
  if (data === undefined || data === null) return emptyTrafficControl();
  const where = `${label}: traffic_control`;
  if (!isObj(data)) throw new MapFormatError(`${where}: expected an object`);
  const signals = list(data, 'signals', where, (v, w): SignalHeadRecord => {
    if (!isObj(v)) throw new MapFormatError(`${w}: expected an object`);
    const kind = v.kind === undefined ? 'vehicle' : v.kind;
    if (typeof kind !== 'string' || !(SIGNAL_HEAD_KINDS as readonly string[]).includes(kind)) throw new MapFormatError(`${w}.kind: expected one of ${SIGNAL_HEAD_KINDS.join(', ')}`);
    if (v.left_arrow !== undefined && typeof v.left_arrow !== 'boolean') throw new MapFormatError(`${w}.left_arrow: expected true or false`);
    const out: SignalHeadRecord = {
      id: str(v.id, `${w}.id`), x: num(v.x, `${w}.x`), y: num(v.y, `${w}.y`),
      head: v.head === undefined ? 'vehicle_3_colour' : str(v.head, `${w}.head`),
      kind: kind as SignalHeadKind, left_arrow: v.left_arrow === true, lanes: lanes(v.lanes, `${w}.lanes`),
    };
    if (v.code !== undefined) out.code = str(String(v.code), `${w}.code`);
    if (typeof v.post === 'string' && v.post) out.post = v.post;
    return out;
  });
  const stopLines = list(data, 'stop_lines', where, (v, w): StopLineRecord => {
    if (!isObj(v)) throw new MapFormatError(`${w}: expected an object`);
    if (!Array.isArray(v.geometry) || v.geometry.length < 2) throw new MapFormatError(`${w}.geometry: expected at least 2 points`);
    const geometry = v.geometry.map((p, i) => {
      if (!isObj(p)) throw new MapFormatError(`${w}.geometry[${i}]: expected {x, y}`);
      return { x: num(p.x, `${w}.geometry[${i}].x`), y: num(p.y, `${w}.geometry[${i}].y`) };
    });
    return { id: str(v.id, `${w}.id`), geometry, lanes: v.lanes === undefined ? [] : lanes(v.lanes, `${w}.lanes`) };
  });
  const signs = list(data, 'signs', where, (v, w): SignRecord => {
    if (!isObj(v)) throw new MapFormatError(`${w}: expected an object`);
    if (typeof v.kind !== 'string' || !(SIGN_KINDS as readonly string[]).includes(v.kind)) throw new MapFormatError(`${w}.kind: expected one of ${SIGN_KINDS.join(', ')}`);
    const out: SignRecord = { id: str(v.id, `${w}.id`), x: num(v.x, `${w}.x`), y: num(v.y, `${w}.y`), kind: v.kind as SignKind, lanes: lanes(v.lanes, `${w}.lanes`) };
    if (v.code !== undefined) out.code = str(String(v.code), `${w}.code`);
    if (v.value_kmh !== undefined && v.value_kmh !== null) {
      const kmh = num(v.value_kmh, `${w}.value_kmh`);
      if (!(kmh > 0 && kmh <= 200)) throw new MapFormatError(`${w}.value_kmh: ${kmh} is not a speed limit (0 < km/h ≤ 200)`);
      out.value_kmh = kmh;
    }
    return out;
  });
  const crosswalks = list(data, 'crosswalks', where, (v, w): CrosswalkRecord => {
    if (!isObj(v)) throw new MapFormatError(`${w}: expected an object`);
    const pt = (p: unknown, at: string) => {
      if (!isObj(p)) throw new MapFormatError(`${at}: expected {x, y}`);
      return { x: num(p.x, `${at}.x`), y: num(p.y, `${at}.y`) };
    };
    const id = str(v.id, `${w}.id`);
    if (!Array.isArray(v.polygon) || v.polygon.length < 3) throw new MapFormatError(`${w}.polygon: expected at least 3 points`);
    const polygon = v.polygon.map((p, i) => pt(p, `${w}.polygon[${i}]`));
    const a = pt(v.a, `${w}.a`), b = pt(v.b, `${w}.b`);
    const length = num(v.length, `${w}.length`), width = num(v.width, `${w}.width`);
    if (!(length > 0)) throw new MapFormatError(`${w}.length: ${length} is not a crossing length (> 0 m)`);
    if (!(width > 0)) throw new MapFormatError(`${w}.width: ${width} is not a crossing width (> 0 m)`);
    const ab = Math.hypot(b.x - a.x, b.y - a.y);
    if (Math.abs(ab - length) > CROSSWALK_LENGTH_TOLERANCE_M) throw new MapFormatError(`${w}.length: ${length} m, but a→b is ${Math.round(ab * 1000) / 1000} m apart (the walking axis runs kerb to kerb)`);
    return { id, polygon, a, b, length, width, lanes: v.lanes === undefined ? [] : lanes(v.lanes, `${w}.lanes`) };
  });
  for (const [name, items] of [['signals', signals], ['stop_lines', stopLines], ['signs', signs], ['crosswalks', crosswalks]] as const) {
    const seen = new Set<string>();
    for (const it of items) {
      if (seen.has(it.id)) throw new MapFormatError(`${where}.${name}: id ${it.id} appears twice`);
      seen.add(it.id);
    }
  }
  return { signals, stop_lines: stopLines, signs, crosswalks };
}
