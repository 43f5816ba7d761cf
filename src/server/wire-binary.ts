/**
 * The compact npc_states frame for big audiences: the same frame as the JSON npc_states, in a fixed binary
 * layout, about a fifth of the bytes. A stream client asks for it when it connects
 * (`/ws/vils/stream?format=binary`); JSON stays the default, and every other message (ego_state, ping, pong,
 * error) stays JSON text. Binary frames are WebSocket binary messages; text messages are JSON as before.
 *
 * Every number is the JSON frame's value at the JSON frame's rounding, as an integer of its last digit, so a
 * decoded frame equals the JSON one (`decodeNpcStatesBinary`; the layout is in docs/protocol/npc_states.binary.md).
 * All little-endian:
 *
 *   header (44 bytes)
 *     0  4 × u8   "VNS" and the version, 1
 *     4  u8       state: 0 running, 1 paused, 2 stopped
 *     5  u8       0
 *     6  u16      NPC count
 *     8  u16      ego count
 *     10 u16      metrics.num_active_npcs
 *     12 u32      step
 *     16 f64      timestamp (s since the Unix epoch)
 *     24 f64      sim_time_s
 *     32 3 × i32  metrics.sim_time_ms, policy_time_ms, total_time_ms, in µs
 *   NPC (44 bytes each)
 *     0  u32  id
 *     4  i32  x, y [mm]; 12 i32 lat, lon [1e-7 deg]; 20 i32 heading [millidegrees]
 *     24 i32  speed, vx, vy [mm/s]
 *     36 i16  yaw [mrad]; 38 u16 length, width [mm]; 42 u8 flags (1 collided, 2 off-road, 4 a test case's scripted actor,
 *             bits 3–4 the kind: KIND_CODES 0 vehicle, 1 pedestrian, 2 cyclist; readers of version 1 made before it
 *             ignore those bits, and a frame made before it reads as all vehicles);
 *     43 u8 hold (HOLD_CODES: 0 none, 1 red, 2 yellow, 3 stop_sign, 4 give_way, 5 box, 6 queue, 7 crosswalk)
 *   ego (29 bytes + its id)
 *     0  u16  byte length L of ego_id, then L bytes of UTF-8
 *     +0 i32  x, y [mm]; +8 i16 yaw [mrad]; +10 i32 speed [mm/s]; +14 u16 length, width [mm]
 *     +18 u8  flags (1 stale, 2 collided, 4 has a timestamp); +19 f64 timestamp (0 when it has none)
 */
import type { NpcHold } from '../scene/index.js';
import type { ObjectKind } from '../vehicle/index.js';
import type { NpcStatesFrame, RunState } from './wire.js';

/** why an NPC is held back, by its code in byte 43 of its record (0: nothing holds it) */
export const HOLD_CODES: readonly NpcHold[] = ['none', 'red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue', 'crosswalk'];

/** what an NPC is, by its code in bits 3–4 of its flags byte (42) */
export const KIND_CODES: readonly ObjectKind[] = ['vehicle', 'pedestrian', 'cyclist'];
const KIND_SHIFT = 3;

export const BINARY_MAGIC = [0x56, 0x4e, 0x53] as const; // "VNS"
export const BINARY_VERSION = 1;
export const BINARY_HEADER_BYTES = 44;
export const BINARY_NPC_BYTES = 44;
const EGO_FIXED_BYTES = 29;
const STATES: readonly RunState[] = ['running', 'paused', 'stopped'];

const I32_MAX = 2 ** 31 - 1;
const fixed = (v: number, scale: number, max: number) => {
  const k = Math.round(v * scale);
  return k > max ? max : k < -max - 1 ? -max - 1 : k;
};

/** The binary form of a frame (one Buffer, written once for every client that asked for it). */
export function encodeNpcStatesBinary(f: NpcStatesFrame): Buffer {
  const egoIds = f.egos.map((e) => Buffer.from(e.ego_id, 'utf8'));
  let size = BINARY_HEADER_BYTES + f.npcs.length * BINARY_NPC_BYTES;
  for (const id of egoIds) size += EGO_FIXED_BYTES + id.length;
  const buf = Buffer.allocUnsafe(size);
  buf[0] = BINARY_MAGIC[0]; buf[1] = BINARY_MAGIC[1]; buf[2] = BINARY_MAGIC[2]; buf[3] = BINARY_VERSION;
  buf.writeUInt8(Math.max(0, STATES.indexOf(f.state)), 4);
  buf.writeUInt8(0, 5);
  buf.writeUInt16LE(f.npcs.length, 6);
  buf.writeUInt16LE(f.egos.length, 8);
  buf.writeUInt16LE(f.metrics.num_active_npcs, 10);
  buf.writeUInt32LE(f.step, 12);
  buf.writeDoubleLE(f.timestamp, 16);
  buf.writeDoubleLE(f.sim_time_s, 24);
  buf.writeInt32LE(fixed(f.metrics.sim_time_ms, 1000, I32_MAX), 32);
  buf.writeInt32LE(fixed(f.metrics.policy_time_ms, 1000, I32_MAX), 36);
  buf.writeInt32LE(fixed(f.metrics.total_time_ms, 1000, I32_MAX), 40);
  let o = BINARY_HEADER_BYTES;
  for (const n of f.npcs) {
    buf.writeUInt32LE(n.id >>> 0, o);
    buf.writeInt32LE(fixed(n.x, 1000, I32_MAX), o + 4);
    buf.writeInt32LE(fixed(n.y, 1000, I32_MAX), o + 8);
    buf.writeInt32LE(fixed(n.lat, 1e7, I32_MAX), o + 12);
    buf.writeInt32LE(fixed(n.lon, 1e7, I32_MAX), o + 16);
    buf.writeInt32LE(fixed(n.heading, 1000, I32_MAX), o + 20);
    buf.writeInt32LE(fixed(n.speed, 1000, I32_MAX), o + 24);
    buf.writeInt32LE(fixed(n.vx, 1000, I32_MAX), o + 28);
    buf.writeInt32LE(fixed(n.vy, 1000, I32_MAX), o + 32);
    buf.writeInt16LE(fixed(n.yaw, 1000, 32767), o + 36);
    buf.writeUInt16LE(Math.min(65535, Math.max(0, Math.round(n.length * 1000))), o + 38);
    buf.writeUInt16LE(Math.min(65535, Math.max(0, Math.round(n.width * 1000))), o + 40);
    buf.writeUInt8((n.collided ? 1 : 0) | (n.offroad ? 2 : 0) | (n.actor !== undefined ? 4 : 0) | (Math.max(0, KIND_CODES.indexOf(n.kind)) << KIND_SHIFT), o + 42);
    buf.writeUInt8(n.hold === undefined ? 0 : HOLD_CODES.indexOf(n.hold), o + 43);
    o += BINARY_NPC_BYTES;
  }
  f.egos.forEach((e, k) => {
    const id = egoIds[k];
    buf.writeUInt16LE(id.length, o);
    id.copy(buf, o + 2);
    o += 2 + id.length;
    buf.writeInt32LE(fixed(e.x, 1000, I32_MAX), o);
    buf.writeInt32LE(fixed(e.y, 1000, I32_MAX), o + 4);
    buf.writeInt16LE(fixed(e.yaw, 1000, 32767), o + 8);
    buf.writeInt32LE(fixed(e.speed, 1000, I32_MAX), o + 10);
    buf.writeUInt16LE(Math.min(65535, Math.max(0, Math.round(e.length * 1000))), o + 14);
    buf.writeUInt16LE(Math.min(65535, Math.max(0, Math.round(e.width * 1000))), o + 16);
    const ts = e.timestamp;
    buf.writeUInt8((e.stale ? 1 : 0) | (e.collided ? 2 : 0) | (ts !== null ? 4 : 0), o + 18);
    buf.writeDoubleLE(ts ?? 0, o + 19);
    o += EGO_FIXED_BYTES - 2;
  });
  return buf;
}

/** Reads a binary frame back into the JSON frame's shape (for clients, tests and benchmarks). */
export function decodeNpcStatesBinary(data: Uint8Array): NpcStatesFrame {
  const b = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length < BINARY_HEADER_BYTES || b[0] !== BINARY_MAGIC[0] || b[1] !== BINARY_MAGIC[1] || b[2] !== BINARY_MAGIC[2]) throw new Error('not a binary npc_states frame');
  if (b[3] !== BINARY_VERSION) throw new Error(`binary npc_states version ${b[3]}, this reader knows ${BINARY_VERSION}`);
  const nNpcs = b.readUInt16LE(6);
  const nEgos = b.readUInt16LE(8);
  const frame: NpcStatesFrame = {
    type: 'npc_states',
    timestamp: b.readDoubleLE(16),
    sim_time_s: b.readDoubleLE(24),
    step: b.readUInt32LE(12),
    state: STATES[b[4]] ?? 'stopped',
    npcs: [],
    metrics: {
      sim_time_ms: b.readInt32LE(32) / 1000,
      policy_time_ms: b.readInt32LE(36) / 1000,
      total_time_ms: b.readInt32LE(40) / 1000,
      num_active_npcs: b.readUInt16LE(10),
    },
    egos: [],
  };
  let o = BINARY_HEADER_BYTES;
  for (let k = 0; k < nNpcs; k++, o += BINARY_NPC_BYTES) {
    const flags = b[o + 42];
    frame.npcs.push({
      id: b.readUInt32LE(o), x: b.readInt32LE(o + 4) / 1000, y: b.readInt32LE(o + 8) / 1000,
      lat: b.readInt32LE(o + 12) / 1e7, lon: b.readInt32LE(o + 16) / 1e7, yaw: b.readInt16LE(o + 36) / 1000,
      heading: b.readInt32LE(o + 20) / 1000, speed: b.readInt32LE(o + 24) / 1000, vx: b.readInt32LE(o + 28) / 1000, vy: b.readInt32LE(o + 32) / 1000,
      length: b.readUInt16LE(o + 38) / 1000, width: b.readUInt16LE(o + 40) / 1000, collided: (flags & 1) !== 0, offroad: (flags & 2) !== 0,
      kind: KIND_CODES[(flags >> KIND_SHIFT) & 3] ?? 'vehicle',
      ...(b[o + 43] > 0 && b[o + 43] < HOLD_CODES.length ? { hold: HOLD_CODES[b[o + 43]] as Exclude<NpcHold, 'none'> } : {}),
    });
  }
  for (let k = 0; k < nEgos; k++) {
    const len = b.readUInt16LE(o);
    const egoId = b.toString('utf8', o + 2, o + 2 + len);
    o += 2 + len;
    const flags = b[o + 18];
    frame.egos.push({
      ego_id: egoId, x: b.readInt32LE(o) / 1000, y: b.readInt32LE(o + 4) / 1000, yaw: b.readInt16LE(o + 8) / 1000, speed: b.readInt32LE(o + 10) / 1000,
      length: b.readUInt16LE(o + 14) / 1000, width: b.readUInt16LE(o + 16) / 1000, stale: (flags & 1) !== 0, collided: (flags & 2) !== 0,
      timestamp: flags & 4 ? b.readDoubleLE(o + 19) : null,
    });
    o += EGO_FIXED_BYTES - 2;
  }
  return frame;
}
