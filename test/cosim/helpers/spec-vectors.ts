/**
 * VDS1 datagrams built straight from the protocol tables (spec §1.3–1.6, seed 002 §3–5), with a DataView and
 * Node's own zlib CRC-32: nothing here uses the codec under test, so a layout mistake in src/cosim shows up as
 * a mismatch instead of being reproduced on both sides.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';

/** Header: offset, type, field (spec §1.3). */
export const HEADER_TABLE = [
  { off: 0, type: 'u32', name: 'magic' },
  { off: 4, type: 'u16', name: 'version' },
  { off: 6, type: 'u16', name: 'msg_type' },
  { off: 8, type: 'u32', name: 'seq' },
  { off: 12, type: 'u32', name: 'vehicle_id' },
  { off: 16, type: 'f64', name: 'timestamp' },
] as const;

/** CMD payload (spec §1.4): offset, type, field. CRC at 72, total 76. */
export const CMD_TABLE = [
  { off: 24, type: 'f64', name: 'steer_tire' },
  { off: 32, type: 'f64', name: 'throttle' },
  { off: 40, type: 'f64', name: 'brake' },
  { off: 48, type: 'i32', name: 'gear' },
  { off: 52, type: 'u8', name: 'handbrake' },
  { off: 56, type: 'f64', name: 'aux_accel' },
  { off: 64, type: 'f64', name: 'aux_speed' },
] as const;

/** STATE payload, one row per f64 with its byte offset and the version that introduced it (seed 002 §5, spec §1.5). */
export const STATE_TABLE: readonly { off: number; name: string; since: number }[] = [
  { off: 24, name: 'x', since: 1 }, { off: 32, name: 'y', since: 1 }, { off: 40, name: 'z', since: 1 },
  { off: 48, name: 'roll', since: 1 }, { off: 56, name: 'pitch', since: 1 }, { off: 64, name: 'yaw', since: 1 },
  { off: 72, name: 'vx', since: 1 }, { off: 80, name: 'vy', since: 1 }, { off: 88, name: 'vz', since: 1 },
  { off: 96, name: 'roll_rate', since: 1 }, { off: 104, name: 'pitch_rate', since: 1 }, { off: 112, name: 'yaw_rate', since: 1 },
  { off: 120, name: 'ax', since: 1 }, { off: 128, name: 'ay', since: 1 },
  { off: 136, name: 'wheel_spin_fl', since: 1 }, { off: 144, name: 'wheel_spin_fr', since: 1 }, { off: 152, name: 'wheel_spin_rl', since: 1 }, { off: 160, name: 'wheel_spin_rr', since: 1 },
  { off: 168, name: 'steer_applied', since: 1 }, { off: 176, name: 'wheel_radius', since: 1 },
  { off: 184, name: 'Fz_fl', since: 1 }, { off: 192, name: 'Fz_fr', since: 1 }, { off: 200, name: 'Fz_rl', since: 1 }, { off: 208, name: 'Fz_rr', since: 1 },
  { off: 216, name: 'rack_torque', since: 2 },
  { off: 224, name: 'slip_ratio_fl', since: 2 }, { off: 232, name: 'slip_ratio_fr', since: 2 }, { off: 240, name: 'slip_ratio_rl', since: 2 }, { off: 248, name: 'slip_ratio_rr', since: 2 },
  { off: 256, name: 'slip_angle_fl', since: 2 }, { off: 264, name: 'slip_angle_fr', since: 2 }, { off: 272, name: 'slip_angle_rl', since: 2 }, { off: 280, name: 'slip_angle_rr', since: 2 },
  { off: 288, name: 'susp_fl', since: 2 }, { off: 296, name: 'susp_fr', since: 2 }, { off: 304, name: 'susp_rl', since: 2 }, { off: 312, name: 'susp_rr', since: 2 },
  { off: 320, name: 'm_ax', since: 2 }, { off: 328, name: 'm_ay', since: 2 }, { off: 336, name: 'm_wz', since: 2 },
  { off: 344, name: 'm_steer', since: 2 }, { off: 352, name: 'm_gnss_x', since: 2 }, { off: 360, name: 'm_gnss_y', since: 2 },
  { off: 368, name: 'Fx_fl', since: 3 }, { off: 376, name: 'Fx_fr', since: 3 }, { off: 384, name: 'Fx_rl', since: 3 }, { off: 392, name: 'Fx_rr', since: 3 },
  { off: 400, name: 'Fy_fl', since: 3 }, { off: 408, name: 'Fy_fr', since: 3 }, { off: 416, name: 'Fy_rl', since: 3 }, { off: 424, name: 'Fy_rr', since: 3 },
  { off: 432, name: 'throttle_applied', since: 5 }, { off: 440, name: 'brake_applied', since: 5 },
];

/** STATE sizes per version from spec §1.6. */
export const STATE_SIZE: Record<number, number> = { 1: 220, 2: 372, 3: 436, 4: 436, 5: 452 };
export const MAGIC = 0x56445331;

export interface SpecHeader {
  version: number;
  msgType: number;
  seq: number;
  vehicleId: number;
  timestamp: number;
}

function writeHeader(dv: DataView, h: SpecHeader): void {
  dv.setUint32(0, MAGIC, true);
  dv.setUint16(4, h.version, true);
  dv.setUint16(6, h.msgType, true);
  dv.setUint32(8, h.seq, true);
  dv.setUint32(12, h.version >= 4 ? h.vehicleId : 0, true);
  dv.setFloat64(16, h.timestamp, true);
}

function seal(bytes: Uint8Array, crcAt: number): Buffer {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  buf.writeUInt32LE(zlibCrc32(buf.subarray(0, crcAt)), crcAt);
  return buf;
}

export interface SpecCmd {
  steer: number;
  throttle: number;
  brake: number;
  gear?: number;
  handbrake?: number;
  auxAccel?: number;
  auxSpeed?: number;
}

/** A CMD built from CMD_TABLE: 76 bytes, CRC over [0, 72). */
export function specCmd(h: Partial<SpecHeader> & { seq: number }, c: SpecCmd): Buffer {
  const bytes = new Uint8Array(76);
  const dv = new DataView(bytes.buffer);
  writeHeader(dv, { version: 5, msgType: 1, vehicleId: 0, timestamp: 0, ...h });
  const vals: Record<string, number> = {
    steer_tire: c.steer, throttle: c.throttle, brake: c.brake, gear: c.gear ?? 1, handbrake: c.handbrake ?? 0, aux_accel: c.auxAccel ?? 0, aux_speed: c.auxSpeed ?? 0,
  };
  for (const f of CMD_TABLE) {
    const v = vals[f.name];
    if (f.type === 'f64') dv.setFloat64(f.off, v, true);
    else if (f.type === 'i32') dv.setInt32(f.off, v, true);
    else dv.setUint8(f.off, v);
  }
  return seal(bytes, 72);
}

/** A STATE of `version` built from STATE_TABLE; fields not given are 0. */
export function specState(h: Partial<SpecHeader> & { version: number; seq: number }, fields: Record<string, number>): Buffer {
  const size = STATE_SIZE[h.version];
  const bytes = new Uint8Array(size);
  const dv = new DataView(bytes.buffer);
  writeHeader(dv, { msgType: 2, vehicleId: 0, timestamp: 0, ...h });
  for (const f of STATE_TABLE) if (f.since <= h.version) dv.setFloat64(f.off, fields[f.name] ?? 0, true);
  return seal(bytes, size - 4);
}

/** Reads a STATE's fields by the table (for checking what an encoder wrote). */
export function readSpecState(buf: Buffer): { header: SpecHeader & { magic: number; crc: number }; fields: Record<string, number> } {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = dv.getUint16(4, true);
  const fields: Record<string, number> = {};
  for (const f of STATE_TABLE) if (f.since <= version && f.off + 8 <= buf.length - 4) fields[f.name] = dv.getFloat64(f.off, true);
  return {
    header: {
      magic: dv.getUint32(0, true), version, msgType: dv.getUint16(6, true), seq: dv.getUint32(8, true), vehicleId: dv.getUint32(12, true),
      timestamp: dv.getFloat64(16, true), crc: dv.getUint32(buf.length - 4, true),
    },
    fields,
  };
}

/** Distinct, recognisable test values: field i of a state gets base + i + i/8. */
export function distinctFields(base = 100): Record<string, number> {
  const out: Record<string, number> = {};
  STATE_TABLE.forEach((f, i) => (out[f.name] = base + i + i / 8));
  return out;
}

export { zlibCrc32 };
