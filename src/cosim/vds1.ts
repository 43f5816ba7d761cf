/**
 * The VDS1 co-simulation wire protocol of VDSim (cosim/cosim_protocol.hpp; ../shared/spec/vdsim-plant.md §1,
 * seed 002 §3–5): fixed-length little-endian UDP datagrams, a 24-byte header, the payload, and a trailing CRC-32
 * (zlib) over every preceding byte.
 *
 *   header  0 u32 magic 0x56445331 · 4 u16 version · 6 u16 msg_type (1 CMD, 2 STATE) · 8 u32 seq ·
 *           12 u32 vehicle_id (v4+; `_pad` = 0 before) · 16 f64 timestamp
 *   CMD     76 B in every version: 24 steer_tire · 32 throttle · 40 brake · 48 i32 gear · 52 u8 handbrake ·
 *           53 pad[3] · 56 aux_accel · 64 aux_speed · 72 crc
 *   STATE   all-f64 payload from offset 24, each version appending before the CRC: v1 220 B, v2 372 B,
 *           v3/v4 436 B, v5 452 B (see STATE_FIELDS)
 *
 * Pure: no sockets, no clock. Encoders write into a caller's buffer (reused; nothing is allocated per packet);
 * decoders read into a caller's object and return null, or the reason the datagram is rejected.
 */
import { crc32Int } from './crc32.js';

export const VDS1_MAGIC = 0x56445331;
/** The version VDSim's server speaks today (cosim_protocol.hpp kVersion). */
export const VDS1_VERSION = 5;
export const VDS1_MIN_VERSION = 1;
export const VDS1_MAX_VERSION = 5;
export const MSG_CMD = 1;
export const MSG_STATE = 2;
export const HEADER_BYTES = 24;
export const CRC_BYTES = 4;
export const CMD_BYTES = 76;

/**
 * STATE payload fields in wire order; field i sits at byte 24 + 8·i. The spec's summary table prints ax at
 * offset 112, which collides with yaw_rate (96 + 2·8); the per-field tables of seed 002 §5 and the Python
 * decoders' slices (wheel_spin at 136) put ax at 120 and ay at 128, as here.
 */
export const STATE_FIELDS = [
  'x', 'y', 'z', 'roll', 'pitch', 'yaw', 'vx', 'vy', 'vz', 'roll_rate', 'pitch_rate', 'yaw_rate', 'ax', 'ay',
  'wheel_spin_fl', 'wheel_spin_fr', 'wheel_spin_rl', 'wheel_spin_rr', 'steer_applied', 'wheel_radius',
  'Fz_fl', 'Fz_fr', 'Fz_rl', 'Fz_rr',
  // v2
  'rack_torque', 'slip_ratio_fl', 'slip_ratio_fr', 'slip_ratio_rl', 'slip_ratio_rr',
  'slip_angle_fl', 'slip_angle_fr', 'slip_angle_rl', 'slip_angle_rr', 'susp_fl', 'susp_fr', 'susp_rl', 'susp_rr',
  'm_ax', 'm_ay', 'm_wz', 'm_steer', 'm_gnss_x', 'm_gnss_y',
  // v3
  'Fx_fl', 'Fx_fr', 'Fx_rl', 'Fx_rr', 'Fy_fl', 'Fy_fr', 'Fy_rl', 'Fy_rr',
  // v5
  'throttle_applied', 'brake_applied',
] as const;
export type StateFieldName = (typeof STATE_FIELDS)[number];

/** Index of each STATE field in StateFields.v (offset = 24 + 8·index). */
export const SI = {
  x: 0, y: 1, z: 2, roll: 3, pitch: 4, yaw: 5, vx: 6, vy: 7, vz: 8, rollRate: 9, pitchRate: 10, yawRate: 11,
  ax: 12, ay: 13, wheelSpin: 14, steerApplied: 18, wheelRadius: 19, Fz: 20,
  rackTorque: 24, slipRatio: 25, slipAngle: 29, susp: 33, mAx: 37, mAy: 38, mWz: 39, mSteer: 40, mGnssX: 41, mGnssY: 42,
  Fx: 43, Fy: 47, throttleApplied: 51, brakeApplied: 52,
} as const;

/** Number of f64 STATE fields per version (v4 only turned the header pad into vehicle_id). */
const STATE_DOUBLES = [0, 24, 43, 51, 51, 53];

export function isVds1Version(v: number): boolean {
  return Number.isInteger(v) && v >= VDS1_MIN_VERSION && v <= VDS1_MAX_VERSION;
}

function checkVersion(version: number): void {
  if (!isVds1Version(version)) throw new RangeError(`VDS1 version must be ${VDS1_MIN_VERSION}..${VDS1_MAX_VERSION}, got ${version}`);
}

/** f64 fields in a STATE of this version. */
export function stateDoubles(version: number): number {
  checkVersion(version);
  return STATE_DOUBLES[version];
}

/** Datagram size of a STATE of this version: 220, 372, 436, 436, 452. */
export function stateBytes(version: number): number {
  return HEADER_BYTES + 8 * stateDoubles(version) + CRC_BYTES;
}
export const MAX_STATE_BYTES = HEADER_BYTES + 8 * STATE_DOUBLES[VDS1_MAX_VERSION] + CRC_BYTES;

/**
 * Why a datagram was dropped. The first six are format checks; `bad_value` is a well-formed CMD whose steer,
 * throttle or brake is not a number a controller can mean (see plausibleControl); the last two need the
 * receiver's state.
 */
export type Vds1Reject = 'short' | 'magic' | 'version' | 'type' | 'length' | 'crc' | 'bad_value' | 'stale_seq' | 'unknown_vehicle';
export const REJECT_REASONS: readonly Vds1Reject[] = ['short', 'magic', 'version', 'type', 'length', 'crc', 'bad_value', 'stale_seq', 'unknown_vehicle'];
export type RejectCounts = Record<Vds1Reject, number>;
export function rejectCounts(): RejectCounts {
  return { short: 0, magic: 0, version: 0, type: 0, length: 0, crc: 0, bad_value: 0, stale_seq: 0, unknown_vehicle: 0 };
}

/**
 * The largest |steer| [rad] and |throttle|, |brake| a CMD may carry. Within them VDSim's rules apply (the plant
 * clamps pedals to [0, 1] and the steering to its rack); beyond them (NaN, ±Infinity, 1e308) the number means
 * nothing a controller could intend, and clamping it would turn garbage into full throttle: the CMD is dropped
 * and counted as bad_value. The advisory aux fields are not checked (VDSim's Python client sends NaN there).
 */
export const MAX_CMD_STEER_RAD = 2 * Math.PI;
export const MAX_CMD_PEDAL = 10;

export function plausibleControl(cmd: Pick<CmdFields, 'steer' | 'throttle' | 'brake'>): boolean {
  return Math.abs(cmd.steer) <= MAX_CMD_STEER_RAD && Math.abs(cmd.throttle) <= MAX_CMD_PEDAL && Math.abs(cmd.brake) <= MAX_CMD_PEDAL;
}

/** A CMD (controller → sim). */
export class CmdFields {
  seq = 0;
  vehicleId = 0;
  /** Sender time [s]; VDSim's server ignores it. */
  timestamp = 0.5;
  /** Road-wheel steer angle [rad], + = left. */
  steer = 0.5;
  throttle = 0.5;
  brake = 0.5;
  /** +1 forward, −1 reverse, 0 neutral. */
  gear = 1;
  handbrake = 0;
  /** Advisory targets, decoded but unused by the server. */
  auxAccel = 0.5;
  auxSpeed = 0.5;

  constructor() {
    // fractional first values keep these fields in V8's double representation (no boxing on store)
    this.timestamp = this.steer = this.throttle = this.brake = this.auxAccel = this.auxSpeed = 0;
  }
}

/** A STATE (sim → controller): header fields plus the f64 payload in wire order (index with SI). */
export class StateFields {
  seq = 0;
  vehicleId = 0;
  timestamp = 0.5;
  readonly v = new Float64Array(STATE_DOUBLES[VDS1_MAX_VERSION]);

  constructor() {
    this.timestamp = 0;
  }

  get(name: StateFieldName): number {
    return this.v[STATE_FIELDS.indexOf(name)];
  }
}

/*
 * Hot-path notes: fields are written and read through DataViews (inlined by V8, no boxing), not Buffer's
 * read/write methods; a datagram to decode is first copied into one scratch buffer, so no view is created per
 * datagram; CRCs are compared as int32.
 */
const views = new WeakMap<ArrayBufferLike, DataView>();

/** A DataView over the whole ArrayBuffer behind `buf` (created once per buffer; Node pools small Buffers). */
export function viewOf(buf: Uint8Array): DataView {
  let v = views.get(buf.buffer);
  if (v === undefined) {
    v = new DataView(buf.buffer);
    views.set(buf.buffer, v);
  }
  return v;
}

/** Scratch a received datagram is copied into before decoding (VDSim's server reads into a 256 B buffer). */
const RX = new Uint8Array(1024);
const RXV = new DataView(RX.buffer);

function load(buf: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) RX[i] = buf[i];
}

function writeHeader(dv: DataView, b: number, version: number, msgType: number, seq: number, vehicleId: number, timestamp: number): void {
  dv.setUint32(b, VDS1_MAGIC, true);
  dv.setUint16(b + 4, version, true);
  dv.setUint16(b + 6, msgType, true);
  dv.setUint32(b + 8, seq, true);
  dv.setUint32(b + 12, version >= 4 ? vehicleId : 0, true); // v1–v3: `_pad`, written 0
  dv.setFloat64(b + 16, timestamp, true);
}

/** Writes a 76-byte CMD at `off` of `out`; returns its length. */
export function encodeCmd(out: Uint8Array, cmd: Readonly<CmdFields>, version = VDS1_VERSION, off = 0): number {
  checkVersion(version);
  const dv = viewOf(out);
  const b = out.byteOffset + off;
  writeHeader(dv, b, version, MSG_CMD, cmd.seq, cmd.vehicleId, cmd.timestamp);
  dv.setFloat64(b + 24, cmd.steer, true);
  dv.setFloat64(b + 32, cmd.throttle, true);
  dv.setFloat64(b + 40, cmd.brake, true);
  dv.setInt32(b + 48, cmd.gear, true);
  dv.setUint32(b + 52, cmd.handbrake ? 1 : 0, true); // handbrake u8 + 3 pad bytes
  dv.setFloat64(b + 56, cmd.auxAccel, true);
  dv.setFloat64(b + 64, cmd.auxSpeed, true);
  dv.setInt32(b + 72, crc32Int(out, off, off + 72), true);
  return CMD_BYTES;
}

/** Writes a STATE of `version` at `off` of `out`; returns its length (stateBytes(version)). */
export function encodeState(out: Uint8Array, s: Readonly<StateFields>, version = VDS1_VERSION, off = 0): number {
  const n = stateDoubles(version);
  const dv = viewOf(out);
  const b = out.byteOffset + off;
  writeHeader(dv, b, version, MSG_STATE, s.seq, s.vehicleId, s.timestamp);
  const v = s.v;
  for (let i = 0; i < n; i++) dv.setFloat64(b + HEADER_BYTES + 8 * i, v[i], true);
  const end = HEADER_BYTES + 8 * n;
  dv.setInt32(b + end, crc32Int(out, off, off + end), true);
  return end + CRC_BYTES;
}

/**
 * Decodes a CMD with the rules of VDSim's C++ server (cosim_protocol.hpp decode_cmd), in its order: fewer than
 * 76 bytes, wrong magic, a version other than `version` (no negotiation), a msg_type other than CMD, a CRC that
 * does not match bytes [0, 72). Longer datagrams are accepted and only their first 76 bytes read: the C++ server
 * and Python's decode_cmd agree on that (the C++ receive buffer is 256 B and truncates anything longer, which
 * still decodes). For v1–v3 the header's vehicle_id bytes are padding: vehicleId reads as 0.
 */
export function decodeCmd(buf: Uint8Array, len: number, version: number, out: CmdFields): Vds1Reject | null {
  if (len < CMD_BYTES || buf.length < CMD_BYTES) return 'short';
  load(buf, CMD_BYTES);
  const dv = RXV;
  if (dv.getUint32(0, true) !== VDS1_MAGIC) return 'magic';
  const v = dv.getUint16(4, true);
  if (v !== version) return 'version';
  if (dv.getUint16(6, true) !== MSG_CMD) return 'type';
  if (dv.getInt32(72, true) !== crc32Int(RX, 0, 72)) return 'crc';
  out.seq = dv.getUint32(8, true);
  out.vehicleId = v >= 4 ? dv.getUint32(12, true) : 0;
  out.timestamp = dv.getFloat64(16, true);
  out.steer = dv.getFloat64(24, true);
  out.throttle = dv.getFloat64(32, true);
  out.brake = dv.getFloat64(40, true);
  out.gear = dv.getInt32(48, true);
  out.handbrake = RX[52];
  out.auxAccel = dv.getFloat64(56, true);
  out.auxSpeed = dv.getFloat64(64, true);
  return null;
}

/**
 * Decodes a STATE the way VDSim's Python side does (protocol.py decode_state; the C++ code has no STATE
 * decoder): the length must be exactly that of the version, the CRC is checked first, then magic, version and
 * type. `version` 'any' takes the version from the header (bytes 4–5) and checks the length against it.
 */
export function decodeState(buf: Uint8Array, len: number, version: number | 'any', out: StateFields): Vds1Reject | null {
  if (len < HEADER_BYTES + CRC_BYTES || buf.length < len) return 'short';
  if (len > MAX_STATE_BYTES) return 'length';
  load(buf, len);
  const dv = RXV;
  let v: number;
  if (version === 'any') {
    v = dv.getUint16(4, true);
    if (!isVds1Version(v)) return dv.getUint32(0, true) !== VDS1_MAGIC ? 'magic' : 'version';
  } else {
    v = version;
  }
  const n = stateDoubles(v);
  const end = HEADER_BYTES + 8 * n;
  if (len !== end + CRC_BYTES) return len < end + CRC_BYTES ? 'short' : 'length';
  if (dv.getInt32(end, true) !== crc32Int(RX, 0, end)) return 'crc';
  if (dv.getUint32(0, true) !== VDS1_MAGIC) return 'magic';
  if (dv.getUint16(4, true) !== v) return 'version';
  if (dv.getUint16(6, true) !== MSG_STATE) return 'type';
  out.seq = dv.getUint32(8, true);
  out.vehicleId = v >= 4 ? dv.getUint32(12, true) : 0;
  out.timestamp = dv.getFloat64(16, true);
  const f = out.v;
  for (let i = 0; i < n; i++) f[i] = dv.getFloat64(HEADER_BYTES + 8 * i, true);
  for (let i = n; i < f.length; i++) f[i] = 0;
  return null;
}

/** The receiver-side record of one vehicle: the last accepted CMD sequence number. */
export interface CmdTarget {
  lastSeq: number;
}

/**
 * Decodes CMD datagrams and routes them to a vehicle, applying every rule of spec §1.7–1.8 and counting each
 * drop by reason: the format checks of decodeCmd, then plausible controls (plausibleControl), then the target vehicle (header vehicle_id from v4; before
 * v4 the `defaultVehicleId`) — an unknown one is dropped — then the sequence number, per target vehicle as in
 * vdsim_realtime: seq 0 is always accepted (unsequenced), any other seq ≤ the vehicle's last accepted one is
 * stale. The accepted seq becomes the last one, 0 included, and there is no wrap-around handling (VDSim's
 * behaviour: a client that restarts its counter is ignored until it passes the old value). Pure: the caller
 * owns the sockets and applies the command in `cmd`.
 */
export class Vds1CmdReceiver<T extends CmdTarget> {
  readonly drops: RejectCounts = rejectCounts();
  /** The fields of the last datagram that passed the format checks. */
  readonly cmd = new CmdFields();
  received = 0;
  accepted = 0;
  lastReject: Vds1Reject | null = null;

  constructor(
    readonly version: number,
    private readonly lookup: (vehicleId: number) => T | undefined,
    private readonly defaultVehicleId = 0,
  ) {
    checkVersion(version);
  }

  /**
   * The target of an accepted CMD (its fields in `cmd`), or null when dropped (reason in `lastReject`).
   * `defaultVehicleId` is the target of a v1–v3 CMD (e.g. the vehicle of the channel it arrived on).
   */
  receive(buf: Uint8Array, len = buf.length, defaultVehicleId = this.defaultVehicleId): T | null {
    this.received++;
    const cmd = this.cmd;
    let reason = decodeCmd(buf, len, this.version, cmd);
    // NaN fails every comparison: plausibleControl is false for it
    if (reason === null && !plausibleControl(cmd)) reason = 'bad_value';
    let target: T | undefined;
    if (reason === null) {
      target = this.lookup(this.version >= 4 ? cmd.vehicleId : defaultVehicleId);
      if (target === undefined) reason = 'unknown_vehicle';
      else if (cmd.seq !== 0 && cmd.seq <= target.lastSeq) reason = 'stale_seq';
    }
    this.lastReject = reason;
    if (reason !== null || target === undefined) {
      this.drops[reason ?? 'unknown_vehicle']++;
      return null;
    }
    target.lastSeq = cmd.seq;
    this.accepted++;
    return target;
  }

  get dropped(): number {
    let n = 0;
    for (const r of REJECT_REASONS) n += this.drops[r];
    return n;
  }
}
