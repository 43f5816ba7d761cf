/**
 * Foxglove messages (JSON encoding, schemas from @foxglove/schemas) for a scene frame: the one builder used
 * by the live Foxglove WebSocket channels and by the MCAP recording, so both look the same in Foxglove.
 *
 *   /vils/scene   foxglove.SceneUpdate     NPC and ego boxes (ids, colours by state), goals; pedestrians as upright
 *                                          cylinders of their size, cyclists as their box, each in a colour of its own
 *   /vils/map     foxglove.SceneUpdate     the map's road layers as line primitives (sent once)
 *   /vils/fix     foxglove.LocationFix     one per ego and per NPC (frame_id ego/<id>, npc/<id>)
 *   /vils/fixes   foxglove.LocationFixes   all of them in one message
 *   /vils/tf      foxglove.FrameTransforms map → ego/<id>
 *   /vils/signals vils.signals             every signal group's state (and /vils/scene draws each group's stop line
 *                                          in its colour: green, yellow, red, grey when off)
 *
 * Frames: `map` is x east, y north (m, UTM grid about the map origin), z up.
 */
import {
  FrameTransforms as FrameTransformsSchema,
  LocationFix as LocationFixSchema,
  LocationFixes as LocationFixesSchema,
  SceneUpdate as SceneUpdateSchema,
} from '@foxglove/schemas/jsonschema.js';
import type { GeoFrame } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import type { EgoState, NpcState, SceneSnapshot } from '../scene/index.js';
import type { ObjectKind } from '../vehicle/index.js';
import type { SignalGroupState } from '../scene/signals/index.js';
import { signalEntries } from '../scene/signals/signal-entries.js';


export const MAP_FRAME = 'map';

export interface Time {
  sec: number;
  nsec: number;
}

export interface Color {
  r: number;
  g: number;
  b: number;
  a: number;
}

export function toTime(seconds: number): Time {
  const s = Math.max(0, seconds);
  let sec = Math.floor(s);
  let nsec = Math.round((s - sec) * 1e9);
  if (nsec >= 1e9) {
    sec += 1;
    nsec -= 1e9;
  }
  return { sec, nsec };
}

export function timeToNs(seconds: number): bigint {
  const t = toTime(seconds);
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

/** The JSON schemas, by schema name, as Foxglove and MCAP want them (a JSON text). */
export const FOXGLOVE_SCHEMAS: Readonly<Record<string, string>> = {
  'foxglove.SceneUpdate': JSON.stringify(SceneUpdateSchema),
  'foxglove.LocationFix': JSON.stringify(LocationFixSchema),
  'foxglove.LocationFixes': JSON.stringify(LocationFixesSchema),
  'foxglove.FrameTransforms': JSON.stringify(FrameTransformsSchema),
};

export const COLORS = {
  npc: { r: 0.2, g: 0.55, b: 1, a: 0.9 },
  npcRequested: { r: 0.65, g: 0.35, b: 1, a: 0.9 },
  npcCollided: { r: 1, g: 0.15, b: 0.1, a: 0.95 },
  npcOffroad: { r: 1, g: 0.6, b: 0.1, a: 0.95 },
  pedestrian: { r: 1, g: 0.85, b: 0.2, a: 0.95 },
  cyclist: { r: 0.1, g: 0.85, b: 0.8, a: 0.95 },
  ego: { r: 0.1, g: 0.85, b: 0.3, a: 0.95 },
  egoStale: { r: 0.55, g: 0.55, b: 0.55, a: 0.6 },
  egoCollided: { r: 1, g: 0, b: 0.5, a: 0.95 },
  goal: { r: 0.2, g: 0.55, b: 1, a: 0.5 },
} as const satisfies Record<string, Color>;

/** Stop lines by signal state. */
export const SIGNAL_COLORS: Readonly<Record<SignalGroupState['code'], Color>> = {
  G: { r: 0.1, g: 0.85, b: 0.25, a: 1 },
  g: { r: 0.55, g: 0.95, b: 0.45, a: 1 },
  y: { r: 1, g: 0.8, b: 0.05, a: 1 },
  r: { r: 0.95, g: 0.1, b: 0.1, a: 1 },
  o: { r: 0.55, g: 0.55, b: 0.55, a: 0.8 },
};

/** Where each signal group's vehicles stop (map frame), by group id: what /vils/scene draws in the group's colour. */
export type StopLines = ReadonlyMap<string, ReadonlyArray<{ readonly x: number; readonly y: number }>>;

const ROAD_COLORS: Record<string, Color> = {
  lane: { r: 0.5, g: 0.5, b: 0.5, a: 0.6 },
  road_line: { r: 0.95, g: 0.95, b: 0.95, a: 0.9 },
  road_edge: { r: 0.2, g: 0.2, b: 0.2, a: 1 },
  crosswalk: { r: 0.9, g: 0.9, b: 0.3, a: 0.8 },
  speed_bump: { r: 0.9, g: 0.5, b: 0.1, a: 0.8 },
  stop_sign: { r: 0.9, g: 0.1, b: 0.1, a: 1 },
};

export function npcColor(n: Pick<NpcState, 'collided' | 'offroad' | 'auto' | 'kind'>): Color {
  if (n.collided) return COLORS.npcCollided;
  if (n.offroad) return COLORS.npcOffroad;
  if (n.kind === 'pedestrian') return COLORS.pedestrian;
  if (n.kind === 'cyclist') return COLORS.cyclist;
  return n.auto ? COLORS.npc : COLORS.npcRequested;
}

/** How tall each kind is drawn [m]: a car's box, a walking adult, a rider on a bicycle. */
export const KIND_HEIGHT_M: Readonly<Record<ObjectKind, number>> = { vehicle: 1.5, pedestrian: 1.75, cyclist: 1.7 };

export function egoColor(e: Pick<EgoState, 'stale' | 'collided'>): Color {
  if (e.collided) return COLORS.egoCollided;
  return e.stale ? COLORS.egoStale : COLORS.ego;
}

// Coordinates to the millimetre, rotations to 1e-6, lat/lon to 1e-8° (about a millimetre): plenty for a view,
// and about half the bytes of full doubles on the wire and in recordings.
const r3 = (v: number) => Math.round(v * 1000) / 1000;
const r6 = (v: number) => Math.round(v * 1e6) / 1e6;
const r8 = (v: number) => Math.round(v * 1e8) / 1e8;
const quat = (yaw: number) => ({ x: 0, y: 0, z: r6(Math.sin(yaw / 2)), w: r6(Math.cos(yaw / 2)) });
const ZERO = { sec: 0, nsec: 0 };
const HEIGHT = 1.5;
const p3 = (x: number, y: number, z: number) => ({ x: r3(x), y: r3(y), z });

function entity(stamp: Time, id: string, extra: Record<string, unknown>) {
  return {
    timestamp: stamp, frame_id: MAP_FRAME, id, lifetime: ZERO, frame_locked: false, metadata: [] as Array<{ key: string; value: string }>,
    arrows: [], cubes: [], spheres: [], cylinders: [], lines: [], triangles: [], texts: [], models: [],
    ...extra,
  };
}

function box(x: number, y: number, yaw: number, length: number, width: number, color: Color, height = HEIGHT) {
  return { pose: { position: p3(x, y, height / 2), orientation: quat(yaw) }, size: { x: r3(length), y: r3(width), z: height }, color };
}

/** A person standing: an upright cylinder as wide as its footprint's larger side (foxglove.CylinderPrimitive). */
function column(x: number, y: number, yaw: number, diameter: number, height: number, color: Color) {
  const d = r3(diameter);
  return { pose: { position: p3(x, y, height / 2), orientation: quat(yaw) }, size: { x: d, y: d, z: height }, bottom_scale: 1, top_scale: 1, color };
}

/** What an NPC is drawn as: a pedestrian a column, a vehicle or cyclist a box of its size (each its own height). */
function body(n: NpcState, c: Color): { cubes: unknown[]; cylinders: unknown[] } {
  const kind = n.kind ?? 'vehicle';
  const h = KIND_HEIGHT_M[kind];
  return kind === 'pedestrian'
    ? { cubes: [], cylinders: [column(n.x, n.y, n.yaw, Math.max(n.length, n.width), h, c)] }
    : { cubes: [box(n.x, n.y, n.yaw, n.length, n.width, c, h)], cylinders: [] };
}

function label(x: number, y: number, text: string, color: Color) {
  return { pose: { position: p3(x, y, HEIGHT + 0.8), orientation: quat(0) }, billboard: true, font_size: 14, scale_invariant: true, color, text };
}

/**
 * NPCs and egos as one SceneUpdate that replaces the previous one (deletion of all, then every entity), and with
 * `stopLines`, each signal group's stop line coloured by its state (`signal/<group id>`).
 */
export function sceneUpdate(s: SceneSnapshot, wallTimeS: number, stopLines?: StopLines) {
  const stamp = toTime(wallTimeS);
  const entities = [];
  for (const n of s.npcs) {
    const c = npcColor(n);
    entities.push(entity(stamp, `npc/${n.id}`, {
      metadata: [
        { key: 'id', value: String(n.id) }, { key: 'speed_mps', value: String(r3(n.speed)) },
        { key: 'state', value: n.collided ? 'collided' : n.offroad ? 'offroad' : 'ok' }, { key: 'auto', value: String(n.auto) },
        // why it is held back (a rule at a junction, or the queue behind one), as the frames carry it
        { key: 'hold', value: n.hold },
        { key: 'kind', value: n.kind ?? 'vehicle' },
      ],
      ...body(n, c),
      spheres: [{ pose: { position: p3(n.goalX, n.goalY, 0.3), orientation: quat(0) }, size: { x: 0.8, y: 0.8, z: 0.8 }, color: COLORS.goal }],
      lines: [{
        type: 0, pose: { position: { x: 0, y: 0, z: 0 }, orientation: quat(0) }, thickness: 0.1, scale_invariant: false,
        points: [p3(n.x, n.y, 0.3), p3(n.goalX, n.goalY, 0.3)], color: COLORS.goal, colors: [], indices: [],
      }],
      texts: [label(n.x, n.y, n.hold === 'none' ? String(n.id) : `${n.id} ${n.hold}`, c)],
    }));
  }
  for (const e of s.egos) {
    const c = egoColor(e);
    entities.push(entity(stamp, `ego/${e.egoId}`, {
      metadata: [{ key: 'ego_id', value: e.egoId }, { key: 'stale', value: String(e.stale) }, { key: 'collided', value: String(e.collided) }],
      cubes: [box(e.x, e.y, e.yaw, e.length, e.width, c)],
      texts: [label(e.x, e.y, e.egoId, c)],
    }));
  }
  if (stopLines) {
    for (const g of s.signals) {
      const line = stopLines.get(g.id);
      if (!line || line.length < 2) continue;
      entities.push(entity(stamp, `signal/${g.id}`, {
        metadata: [
          { key: 'group', value: g.id }, { key: 'junction', value: g.junction }, { key: 'state', value: g.state },
          { key: 'source', value: g.source }, { key: 'time_to_change_s', value: g.time_to_change_s === null ? '' : String(g.time_to_change_s) },
        ],
        lines: [{
          type: 0, pose: { position: { x: 0, y: 0, z: 0 }, orientation: quat(0) }, thickness: 0.5, scale_invariant: false,
          points: line.map((p) => p3(p.x, p.y, 0.05)), color: SIGNAL_COLORS[g.code] ?? SIGNAL_COLORS.o, colors: [], indices: [],
        }],
      }));
    }
  }
  return { deletions: [{ timestamp: stamp, type: 1, id: '' }], entities };
}

/** The JSON schema of /vils/signals (schema name vils.signals). */
export const SIGNALS_SCHEMA = {
  title: 'vils.signals',
  description: 'Every signal group\'s state at a frame (the npc_states frame\'s signals without the lane lists)',
  type: 'object',
  required: ['timestamp', 'sim_time_s', 'signals'],
  properties: {
    timestamp: { type: 'object', properties: { sec: { type: 'integer', minimum: 0 }, nsec: { type: 'integer', minimum: 0, maximum: 999999999 } }, description: 'wall-clock time of the frame' },
    sim_time_s: { type: 'number', description: 'simulation time of the frame, s' },
    signals: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'numeric_id', 'junction', 'state', 'code', 'time_to_change_s', 'source', 'left'],
        properties: {
          id: { type: 'string', description: 'signal group: <junction>.<approach letter>[.left]' },
          numeric_id: { type: 'integer' },
          junction: { type: 'string' },
          state: { enum: ['green', 'green_yield', 'yellow', 'red', 'off'] },
          code: { enum: ['G', 'g', 'y', 'r', 'o'] },
          time_to_change_s: { type: ['number', 'null'], description: 'until the plan changes it (0.1 s steps); null while set live' },
          source: { enum: ['plan', 'live', 'transition'] },
          left: { type: 'boolean', description: 'a protected left-turn group' },
        },
      },
    },
  },
} as const;

/** Every signal group's state, for /vils/signals. */
export function signalsMessage(s: SceneSnapshot, wallTimeS: number) {
  return {
    timestamp: toTime(wallTimeS),
    sim_time_s: r3(s.time),
    // the frame's entries (built once for every exit) without the lane lists
    signals: signalEntries(s.signals).map((g) => ({
      id: g.id, numeric_id: g.numeric_id, junction: g.junction, state: g.state, code: g.code, time_to_change_s: g.time_to_change_s, source: g.source, left: g.left,
    })),
  };
}

/** The stop lines of a layout's signal groups, by group id. */
export function stopLinesOf(groups: ReadonlyArray<{ readonly id: string; readonly stopLine: ReadonlyArray<{ readonly x: number; readonly y: number }> }>): StopLines {
  return new Map(groups.map((g) => [g.id, g.stopLine]));
}

/** The map's road layers as line primitives, one entity per layer (a line strip list per road type). */
export function mapUpdate(map: LoadedMap, wallTimeS: number) {
  const stamp = toTime(wallTimeS);
  const byType = new Map<string, Array<{ x: number; y: number; z: number }>>();
  for (const road of map.scene.roads) {
    const g = road.geometry;
    if (g.length === 0) continue;
    let pts = byType.get(road.type);
    if (!pts) byType.set(road.type, (pts = []));
    if (g.length === 1) {
      // a point feature (stop sign): a short cross
      pts.push({ x: g[0].x - 1, y: g[0].y, z: 0 }, { x: g[0].x + 1, y: g[0].y, z: 0 }, { x: g[0].x, y: g[0].y - 1, z: 0 }, { x: g[0].x, y: g[0].y + 1, z: 0 });
      continue;
    }
    for (let i = 1; i < g.length; i++) pts.push(p3(g[i - 1].x, g[i - 1].y, 0), p3(g[i].x, g[i].y, 0));
  }
  const entities = [...byType].map(([type, points]) => entity(stamp, `map/${type}`, {
    metadata: [{ key: 'layer', value: type }, { key: 'map', value: map.label }],
    lines: [{
      type: 2, pose: { position: { x: 0, y: 0, z: 0 }, orientation: quat(0) }, thickness: type === 'lane' ? 0.15 : 0.25,
      scale_invariant: false, points, color: ROAD_COLORS[type] ?? { r: 0.6, g: 0.6, b: 0.6, a: 0.8 }, colors: [], indices: [],
    }],
  }));
  return { deletions: [{ timestamp: stamp, type: 1, id: '' }], entities };
}

const COV0 = [0, 0, 0, 0, 0, 0, 0, 0, 0];

function fix(stamp: Time, frameId: string, geo: GeoFrame, x: number, y: number, yaw: number, vx: number, vy: number, color: Color) {
  const ll = geo.toLatLon(x, y);
  return {
    timestamp: stamp, frame_id: frameId, latitude: r8(ll.lat), longitude: r8(ll.lon), altitude: 0,
    position_covariance: COV0, position_covariance_type: 0,
    heading: r6((geo.yawToHeading(yaw, x, y) * Math.PI) / 180), velocity: { x: r3(vx), y: r3(vy), z: 0 }, color, metadata: [],
  };
}

/** One LocationFix per ego and per NPC (frame_id ego/<id>, npc/<id>). */
export function locationFixes(s: SceneSnapshot, wallTimeS: number, geo: GeoFrame) {
  const stamp = toTime(wallTimeS);
  const out = [];
  for (const e of s.egos) out.push(fix(stamp, `ego/${e.egoId}`, geo, e.x, e.y, e.yaw, e.speed * Math.cos(e.yaw), e.speed * Math.sin(e.yaw), egoColor(e)));
  for (const n of s.npcs) out.push(fix(stamp, `npc/${n.id}`, geo, n.x, n.y, n.yaw, n.vx, n.vy, npcColor(n)));
  return out;
}

/** map → ego/<id> for every ego. */
export function egoTransforms(s: SceneSnapshot, wallTimeS: number) {
  const stamp = toTime(wallTimeS);
  return {
    transforms: s.egos.map((e) => ({
      timestamp: stamp, parent_frame_id: MAP_FRAME, child_frame_id: `ego/${e.egoId}`,
      translation: p3(e.x, e.y, 0), rotation: quat(e.yaw),
    })),
  };
}
