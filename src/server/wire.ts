/**
 * The protocol adapters between the scene (map frame, simulation time) and the wire: GNSS ego_state → an
 * ego report in the map frame, and the one npc_states frame builder (also used for the REST NPC list, so
 * both round the same way).
 */
import { convergenceDeg, headingFromYaw, type GeoFrame } from '../geo/frame.js';
import type { EgoReport, EgoState, NpcState, SceneSnapshot } from '../scene/index.js';
import { signalEntries, type SignalEntry } from '../scene/signals/signal-entries.js';
import type { EgoFrameEntry, NpcFrameEntry, NpcHoldReason, NpcStatesMessage, ObjectKind, RunState } from '../protocol/index.js';
import type { GnssEgo } from './ego-state-schema.js';

export type { GnssEgo, RunState };

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const r7 = (v: number) => Math.round(v * 1e7) / 1e7;

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

/**
 * An NPC entry as this server writes it (the schema: npcEntrySchema in src/protocol/frame.ts): every extension
 * filled, but actor (a scripted actor only) and hold (only while something holds it).
 */
export type NpcEntry = NpcFrameEntry & Required<Pick<NpcFrameEntry, 'heading' | 'vx' | 'vy' | 'collided' | 'offroad' | 'kind'>>;

export function npcEntry(geo: GeoFrame, n: NpcState): NpcEntry {
  const ll = geo.toLatLon(n.x, n.y);
  return {
    id: n.id, x: r3(n.x), y: r3(n.y), lat: r7(ll.lat), lon: r7(ll.lon), yaw: r3(n.yaw),
    heading: r3(geo.yawToHeading(n.yaw, n.x, n.y)), speed: r3(n.speed), vx: r3(n.vx), vy: r3(n.vy),
    length: r3(n.length), width: r3(n.width), collided: n.collided, offroad: n.offroad, kind: n.kind ?? 'vehicle',
    ...(n.actor !== undefined ? { actor: n.actor } : {}),
    ...(n.hold !== 'none' ? { hold: n.hold } : {}),
  };
}

/** An NPC entry NpcFrameBuilder rewrites frame after frame (a class of its own: its fields hold doubles in place; the same keys in the same order). */
class ReusedNpcEntry implements NpcEntry {
  id = 0;
  x = 0;
  y = 0;
  lat = 0;
  lon = 0;
  yaw = 0;
  heading = 0;
  speed = 0;
  vx = 0;
  vy = 0;
  length = 0;
  width = 0;
  collided = false;
  offroad = false;
  kind: ObjectKind = 'vehicle';
  /** JSON leaves it out while undefined: a policy NPC's entry is as it always was */
  actor: string | undefined = undefined;
  /** likewise, while nothing holds it */
  hold: NpcHoldReason | undefined = undefined;
}

/**
 * The npc_states frames of a stream of snapshots, for a sink that encodes one frame at a time (the host): the
 * frame buildNpcStatesFrame makes, value for value, with
 *  - the NPC entries written into reused objects (valid until the next build: the frame is for encoding, not
 *    for keeping);
 *  - each NPC's latitude, longitude and meridian convergence computed once per position: one inverse
 *    projection and the convergence's two forward ones (npcEntry makes four: yawToHeading projects the point
 *    again), and none for an NPC at the same point as in the frame before (standing, or the same time shown
 *    again). The heading is yawToHeading's arithmetic on that convergence.
 * Positions between steps are interpolated per frame, so the projections follow the positions, not the steps.
 */
export class NpcFrameBuilder {
  private readonly entries: NpcEntry[] = [];
  private readonly npcs: NpcEntry[] = [];
  private geo: GeoFrame | null = null;
  /** by the NPC's index in the frame before: its id and position, and what they gave */
  private id = new Float64Array(0);
  private x = new Float64Array(0);
  private y = new Float64Array(0);
  private lat = new Float64Array(0);
  private lon = new Float64Array(0);
  private conv = new Float64Array(0);
  private cached = 0;
  /** projections made (tests count them) */
  projected = 0;

  build(geo: GeoFrame, s: SceneSnapshot, state: RunState, wallTimeS: number): NpcStatesFrame {
    return frameOf(s, state, wallTimeS, this.entriesOf(geo, s.npcs));
  }

  private entriesOf(geo: GeoFrame, list: readonly NpcState[]): NpcEntry[] {
    if (geo !== this.geo) {
      this.geo = geo;
      this.cached = 0;
    }
    const count = list.length;
    if (count > this.id.length) this.grow(count);
    const out = this.npcs;
    // a plain array kept at the frame's length (the entries past it stay in the pool)
    while (out.length > count) out.pop();
    for (let k = 0; k < count; k++) {
      const n = list[k];
      if (!(k < this.cached && this.id[k] === n.id && this.x[k] === n.x && this.y[k] === n.y)) {
        const ll = geo.toLatLon(n.x, n.y);
        this.id[k] = n.id;
        this.x[k] = n.x;
        this.y[k] = n.y;
        this.lat[k] = ll.lat;
        this.lon[k] = ll.lon;
        this.conv[k] = convergenceDeg(ll.lat, ll.lon);
        this.projected++;
      }
      let e = this.entries[k];
      if (e === undefined) {
        e = new ReusedNpcEntry();
        this.entries.push(e);
      }
      e.id = n.id;
      e.x = r3(n.x);
      e.y = r3(n.y);
      e.lat = r7(this.lat[k]);
      e.lon = r7(this.lon[k]);
      e.yaw = r3(n.yaw);
      e.heading = r3(headingFromYaw(n.yaw, this.conv[k]));
      e.speed = r3(n.speed);
      e.vx = r3(n.vx);
      e.vy = r3(n.vy);
      e.length = r3(n.length);
      e.width = r3(n.width);
      e.collided = n.collided;
      e.offroad = n.offroad;
      e.kind = n.kind ?? 'vehicle';
      e.actor = n.actor;
      e.hold = n.hold === 'none' ? undefined : n.hold;
      if (k < out.length) out[k] = e;
      else out.push(e);
    }
    this.cached = count;
    return out;
  }

  private grow(n: number): void {
    const cap = Math.max(n, 2 * this.id.length, 64);
    const keep = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    this.id = keep(this.id); this.x = keep(this.x); this.y = keep(this.y);
    this.lat = keep(this.lat); this.lon = keep(this.lon); this.conv = keep(this.conv);
  }
}

/** An NPC for GET /api/npcs: the frame entry plus its goal, whether the scene spawned it and why it is held back. */
export function npcDetail(geo: GeoFrame, n: NpcState) {
  return { ...npcEntry(geo, n), goal_x: r3(n.goalX), goal_y: r3(n.goalY), auto: n.auto, hold: n.hold };
}

/**
 * An ego entry as this server writes it (the schema: egoEntrySchema): with its box and client timestamp (null:
 * none). Binary frames carry neither heading_source nor the fix and clock figures; frames recorded before those
 * were added lack them too.
 */
export type EgoEntry = EgoFrameEntry & Required<Pick<EgoFrameEntry, 'length' | 'width' | 'timestamp'>>;

export function egoEntry(e: EgoState): EgoEntry {
  const out: EgoEntry = {
    ego_id: e.egoId, x: r3(e.x), y: r3(e.y), yaw: r3(e.yaw), speed: r3(e.speed), length: r3(e.length), width: r3(e.width),
    stale: e.stale, collided: e.collided, timestamp: e.clientTimestamp,
  };
  if (e.headingSource !== undefined) out.heading_source = e.headingSource;
  if (e.accel !== undefined) {
    out.accel = r3(e.accel);
    out.yaw_rate = Math.round(e.yawRate * 1e4) / 1e4;
    out.fix_time_s = r3(e.fixTime);
  }
  if (e.clockSource !== undefined) {
    out.latency_s = r3(e.latencyS ?? 0);
    out.clock_offset_s = r3(e.clockOffsetS ?? 0);
    out.clock_source = e.clockSource;
    out.out_of_order = e.outOfOrder ?? 0;
    out.clock_jumps = e.clockJumps ?? 0;
  }
  return out;
}


/**
 * An npc_states frame as this server builds it (the schema: npcStatesSchema): with its simulation time, run state
 * and egos. Frames decoded from the binary format carry no signals (binary clients get signal_states messages).
 */
export type NpcStatesFrame = Omit<NpcStatesMessage, 'npcs' | 'egos' | 'signals'> & Required<Pick<NpcStatesMessage, 'sim_time_s' | 'state'>> & {
  npcs: NpcEntry[];
  egos: EgoEntry[];
  signals?: SignalEntry[];
};

export function buildNpcStatesFrame(geo: GeoFrame, s: SceneSnapshot, state: RunState, wallTimeS: number): NpcStatesFrame {
  return frameOf(s, state, wallTimeS, s.npcs.map((n) => npcEntry(geo, n)));
}

function frameOf(s: SceneSnapshot, state: RunState, wallTimeS: number, npcs: NpcEntry[]): NpcStatesFrame {
  const t = s.timings;
  return {
    type: 'npc_states',
    timestamp: wallTimeS,
    sim_time_s: r3(s.time),
    step: s.step,
    state,
    npcs,
    metrics: {
      sim_time_ms: t ? r3(t.scene_ms - t.inference_ms) : 0,
      policy_time_ms: t ? r3(t.inference_ms) : 0,
      total_time_ms: t ? r3(t.scene_ms) : 0,
      num_active_npcs: s.npcs.length,
    },
    egos: s.egos.map(egoEntry),
    signals: signalEntries(s.signals),
  };
}
