/**
 * The protocol adapters between the scene (map frame, simulation time) and the wire: GNSS ego_state → an
 * ego report in the map frame, and the one npc_states frame builder (also used for the REST NPC list, so
 * both round the same way).
 */
import type { GeoFrame } from '../geo/frame.js';
import type { EgoReport, EgoState, HeadingSource, NpcState, SceneSnapshot } from '../scene/index.js';
import type { SignalGroupState } from '../scene/control/index.js';

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const r7 = (v: number) => Math.round(v * 1e7) / 1e7;

export interface GnssEgo {
  lat: number;
  lon: number;
  /** degrees clockwise from true north; absent from a receiver without one (the scene derives the course) */
  heading?: number;
  speed: number;
  length?: number;
  width?: number;
}

export function egoReportFromGnss(geo: GeoFrame, egoId: string, d: GnssEgo, clientTimestamp?: number): EgoReport {
  const p = geo.toLocal(d.lat, d.lon);
  const r: EgoReport = { egoId, x: p.x, y: p.y, speed: d.speed, length: d.length, width: d.width, clientTimestamp: clientTimestamp ?? null };
  // no heading: no yaw key at all (the input log records the report as it is, and a replay derives the course again)
  if (d.heading !== undefined) r.yaw = geo.headingToYaw(d.heading, d.lat, d.lon);
  return r;
}

/** A point given as {x, y} (map metres) or {lat, lon}. */
export function mapPoint(geo: GeoFrame, p: { x?: number; y?: number; lat?: number; lon?: number }): { x: number; y: number } | null {
  const hasXY = p.x !== undefined && p.y !== undefined;
  const hasLL = p.lat !== undefined && p.lon !== undefined;
  if (hasXY === hasLL) return null;
  return hasXY ? { x: p.x as number, y: p.y as number } : geo.toLocal(p.lat as number, p.lon as number);
}

export interface NpcEntry {
  id: number;
  x: number;
  y: number;
  lat: number;
  lon: number;
  yaw: number;
  heading: number;
  speed: number;
  vx: number;
  vy: number;
  length: number;
  width: number;
  collided: boolean;
  offroad: boolean;
}

export function npcEntry(geo: GeoFrame, n: NpcState): NpcEntry {
  const ll = geo.toLatLon(n.x, n.y);
  return {
    id: n.id, x: r3(n.x), y: r3(n.y), lat: r7(ll.lat), lon: r7(ll.lon), yaw: r3(n.yaw),
    heading: r3(geo.yawToHeading(n.yaw, n.x, n.y)), speed: r3(n.speed), vx: r3(n.vx), vy: r3(n.vy),
    length: r3(n.length), width: r3(n.width), collided: n.collided, offroad: n.offroad,
  };
}

/** An NPC for GET /api/npcs: the frame entry plus its goal, whether the scene spawned it and why it is held back. */
export function npcDetail(geo: GeoFrame, n: NpcState) {
  return { ...npcEntry(geo, n), goal_x: r3(n.goalX), goal_y: r3(n.goalY), auto: n.auto, hold: n.hold };
}

export interface EgoEntry {
  ego_id: string;
  x: number;
  y: number;
  yaw: number;
  speed: number;
  length: number;
  width: number;
  stale: boolean;
  collided: boolean;
  timestamp: number | null;
  /** where the yaw comes from (JSON only: binary frames and frames recorded before it leave it out) */
  heading_source?: HeadingSource;
}

export function egoEntry(e: EgoState): EgoEntry {
  const out: EgoEntry = {
    ego_id: e.egoId, x: r3(e.x), y: r3(e.y), yaw: r3(e.yaw), speed: r3(e.speed), length: r3(e.length), width: r3(e.width),
    stale: e.stale, collided: e.collided, timestamp: e.clientTimestamp,
  };
  if (e.headingSource !== undefined) out.heading_source = e.headingSource;
  return out;
}

/** A signal group's state as frames, the REST API and the Foxglove channel show it. */
export interface SignalEntry {
  id: string;
  numeric_id: number;
  junction: string;
  state: SignalGroupState['state'];
  code: SignalGroupState['code'];
  /** seconds until the plan changes it, to 0.1 s (the yellow left while a live input clears); null while it is set live */
  time_to_change_s: number | null;
  source: SignalGroupState['source'];
  left: boolean;
  lanes: readonly string[];
}

const r1 = (v: number) => Math.round(v * 10) / 10;

export function signalEntry(g: SignalGroupState): SignalEntry {
  return {
    id: g.id, numeric_id: g.numeric_id, junction: g.junction, state: g.state, code: g.code,
    time_to_change_s: g.time_to_change_s === null ? null : r1(g.time_to_change_s), source: g.source, left: g.left, lanes: g.lanes,
  };
}

export type RunState = 'running' | 'paused' | 'stopped';

export interface NpcStatesFrame {
  type: 'npc_states';
  /** wall-clock time of the frame, seconds since the Unix epoch */
  timestamp: number;
  /** simulation time shown [s] */
  sim_time_s: number;
  step: number;
  state: RunState;
  npcs: NpcEntry[];
  metrics: { sim_time_ms: number; policy_time_ms: number; total_time_ms: number; num_active_npcs: number };
  egos: EgoEntry[];
  /**
   * every signal group's state at the frame time (empty when the map has none). Absent from frames decoded
   * from the binary format, which carries NPCs and egos only (binary clients get `signal_states` messages).
   */
  signals?: SignalEntry[];
}

export function buildNpcStatesFrame(geo: GeoFrame, s: SceneSnapshot, state: RunState, wallTimeS: number): NpcStatesFrame {
  const t = s.timings;
  return {
    type: 'npc_states',
    timestamp: wallTimeS,
    sim_time_s: r3(s.time),
    step: s.step,
    state,
    npcs: s.npcs.map((n) => npcEntry(geo, n)),
    metrics: {
      sim_time_ms: t ? r3(t.scene_ms - t.inference_ms) : 0,
      policy_time_ms: t ? r3(t.inference_ms) : 0,
      total_time_ms: t ? r3(t.scene_ms) : 0,
      num_active_npcs: s.npcs.length,
    },
    egos: s.egos.map(egoEntry),
    signals: s.signals.map(signalEntry),
  };
}
