/**
 * Exact encodings for what a recording must give back bit for bit: NPC states as float64 columns (base64),
 * and numbers in JSON with −0 kept (JSON.stringify writes −0 as 0; every other finite double round-trips
 * exactly through JSON text in JavaScript).
 */
import type { NpcHold, NpcState } from '../scene/index.js';
import type { SignalGroupState } from '../scene/signals/index.js';
import type { ObjectKind } from '../vehicle/index.js';

/**
 * The NPC state fields compared in replay, in column order. flags: 1 collided, 2 off-road, 4 auto, bits 3–5
 * the hold (NPC_HOLDS index; frame format 2 — recordings made before it have 0 there), and bits 6–7 the kind
 * (NPC_KINDS index: 0 vehicle, 1 pedestrian, 2 cyclist; frame format 3 — recordings made before it have 0 there).
 */
export const NPC_COLUMNS = ['id', 'x', 'y', 'yaw', 'vx', 'vy', 'speed', 'length', 'width', 'goalX', 'goalY', 'flags'] as const;
export type NpcColumn = (typeof NPC_COLUMNS)[number];
const C = NPC_COLUMNS.length;

/** Why an NPC stands, by its index in the flags column (bits 3–5). */
export const NPC_HOLDS: readonly NpcHold[] = ['none', 'red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue', 'crosswalk'];
const HOLD_SHIFT = 3;
/** the flags bits of frame format 1 (collided, off-road, auto) */
export const NPC_FLAGS_V1_MASK = 7;
/** What an NPC is, by its index in the flags column (bits 6–7). */
export const NPC_KINDS: readonly ObjectKind[] = ['vehicle', 'pedestrian', 'cyclist'];
const KIND_SHIFT = 6;
/** the flags bits of frame format 2 (format 1's and the hold) */
export const NPC_FLAGS_V2_MASK = 63;

const flagsOf = (n: NpcState) => (n.collided ? 1 : 0) | (n.offroad ? 2 : 0) | (n.auto ? 4 : 0) | (Math.max(0, NPC_HOLDS.indexOf(n.hold)) << HOLD_SHIFT)
  | (n.kind === undefined ? 0 : Math.max(0, NPC_KINDS.indexOf(n.kind)) << KIND_SHIFT);

/** The flags column in words: "collided, auto, hold red". */
export function describeNpcFlags(f: number): string {
  const out: string[] = [];
  if (f & 1) out.push('collided');
  if (f & 2) out.push('off-road');
  if (f & 4) out.push('auto');
  out.push(`hold ${NPC_HOLDS[(f >> HOLD_SHIFT) & 7] ?? `#${(f >> HOLD_SHIFT) & 7}`}`);
  if (f >> KIND_SHIFT) out.push(NPC_KINDS[(f >> KIND_SHIFT) & 3] ?? `kind #${(f >> KIND_SHIFT) & 3}`);
  return out.join(', ');
}

/** NPC states as one float64 array, column by column (all ids, then all x, ...). */
export function packNpcs(npcs: readonly NpcState[]): Float64Array {
  const n = npcs.length;
  const out = new Float64Array(n * C);
  for (let i = 0; i < n; i++) {
    const s = npcs[i];
    out[i] = s.id;
    out[n + i] = s.x;
    out[2 * n + i] = s.y;
    out[3 * n + i] = s.yaw;
    out[4 * n + i] = s.vx;
    out[5 * n + i] = s.vy;
    out[6 * n + i] = s.speed;
    out[7 * n + i] = s.length;
    out[8 * n + i] = s.width;
    out[9 * n + i] = s.goalX;
    out[10 * n + i] = s.goalY;
    out[11 * n + i] = flagsOf(s);
  }
  return out;
}

export function unpackNpcs(cols: Float64Array): NpcState[] {
  const n = cols.length / C;
  if (!Number.isInteger(n)) throw new RangeError(`packed NPC states: ${cols.length} values is not a multiple of ${C}`);
  const out: NpcState[] = [];
  for (let i = 0; i < n; i++) {
    const f = cols[11 * n + i];
    const s: NpcState = {
      id: cols[i], x: cols[n + i], y: cols[2 * n + i], yaw: cols[3 * n + i], vx: cols[4 * n + i], vy: cols[5 * n + i],
      speed: cols[6 * n + i], length: cols[7 * n + i], width: cols[8 * n + i], goalX: cols[9 * n + i], goalY: cols[10 * n + i],
      collided: (f & 1) !== 0, offroad: (f & 2) !== 0, auto: (f & 4) !== 0, hold: NPC_HOLDS[(f >> HOLD_SHIFT) & 7] ?? 'none',
    };
    // a person keeps its kind; a vehicle stays without one, as the scene makes it
    const kind = NPC_KINDS[(f >> KIND_SHIFT) & 3];
    if (kind !== undefined && kind !== 'vehicle') s.kind = kind;
    out.push(s);
  }
  return out;
}

export function f64ToBase64(a: Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

export function base64ToF64(s: string): Float64Array {
  const b = Buffer.from(s, 'base64');
  if (b.byteLength % 8 !== 0) throw new RangeError(`base64 float64 data of ${b.byteLength} bytes is not a multiple of 8`);
  // copy: a Buffer's offset in its pool need not be 8-aligned
  const out = new Float64Array(b.byteLength / 8);
  new Uint8Array(out.buffer).set(b);
  return out;
}

export interface NpcDifference {
  /** NPC index in the frame (order of the scene's NPC list) */
  index: number;
  id: number;
  field: NpcColumn | 'count';
  expected: number;
  actual: number;
}

const bits = new Float64Array(2);
const bitsU = new BigUint64Array(bits.buffer);
/** Same float64 bit pattern (so NaN equals NaN of the same payload, and −0 differs from +0). */
export function sameBits(a: number, b: number): boolean {
  bits[0] = a;
  bits[1] = b;
  return bitsU[0] === bitsU[1];
}

/**
 * The first field that differs between two packed frames, or null when they are equal bit for bit. `flagsMask`
 * compares only those bits of the flags (NPC_FLAGS_V1_MASK for a recording made before holds were recorded).
 */
export function firstNpcDifference(expected: Float64Array, actual: Float64Array, flagsMask?: number): NpcDifference | null {
  const ne = expected.length / C;
  const na = actual.length / C;
  const n = Math.min(ne, na);
  const flags = C - 1;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < C; c++) {
      let e = expected[c * ne + i];
      let a = actual[c * na + i];
      if (c === flags && flagsMask !== undefined) {
        e &= flagsMask;
        a &= flagsMask;
      }
      if (!sameBits(e, a)) return { index: i, id: expected[i], field: NPC_COLUMNS[c], expected: e, actual: a };
    }
  }
  if (ne !== na) return { index: n, id: ne > n ? expected[n] : actual[n], field: 'count', expected: ne, actual: na };
  return null;
}

// ---- signal groups ----

/**
 * The signal group state fields compared in replay, in column order: the group's numeric id, its state code (the
 * character's code: G, g, y, r, o), what drives it (SIGNAL_SOURCES index) and the time to its next change (NaN
 * when none is known: set live).
 */
export const SIGNAL_COLUMNS = ['numeric_id', 'code', 'source', 'time_to_change_s'] as const;
export type SignalColumn = (typeof SIGNAL_COLUMNS)[number];
const SC = SIGNAL_COLUMNS.length;
export const SIGNAL_SOURCES: ReadonlyArray<SignalGroupState['source']> = ['plan', 'live', 'transition'];

/** Signal group states as one float64 array, column by column (all numeric ids, then all codes, ...). */
export function packSignals(groups: readonly SignalGroupState[]): Float64Array {
  const n = groups.length;
  const out = new Float64Array(n * SC);
  for (let i = 0; i < n; i++) {
    const g = groups[i];
    out[i] = g.numeric_id;
    out[n + i] = g.code.charCodeAt(0);
    out[2 * n + i] = SIGNAL_SOURCES.indexOf(g.source);
    out[3 * n + i] = g.time_to_change_s === null ? NaN : g.time_to_change_s;
  }
  return out;
}

/** What a recording knows of a signal group besides its state (session metadata `signal_groups`). */
export interface SignalGroupInfo {
  id: string;
  numeric_id: number;
  junction: string;
  left: boolean;
  lanes: string[];
  /** the stop line, map frame: [[x, y], …] */
  stop_line: Array<[number, number]>;
}

/** Packed signal states back to states; `groups` (by numeric id) gives their ids, junctions and lanes. */
export function unpackSignals(cols: Float64Array, groups: ReadonlyMap<number, SignalGroupInfo> = new Map()): SignalGroupState[] {
  const n = cols.length / SC;
  if (!Number.isInteger(n)) throw new RangeError(`packed signal states: ${cols.length} values is not a multiple of ${SC}`);
  const colour = { G: 'green', g: 'green_yield', y: 'yellow', r: 'red', o: 'off' } as const;
  const out: SignalGroupState[] = [];
  for (let i = 0; i < n; i++) {
    const id = cols[i];
    const info = groups.get(id);
    const code = String.fromCharCode(cols[n + i]) as SignalGroupState['code'];
    const ttc = cols[3 * n + i];
    out.push({
      id: info?.id ?? `#${id}`, numeric_id: id, junction: info?.junction ?? '', code, state: colour[code] ?? 'off',
      time_to_change_s: Number.isNaN(ttc) ? null : ttc, source: SIGNAL_SOURCES[cols[2 * n + i]] ?? 'plan', left: info?.left ?? false, lanes: info?.lanes ?? [],
    });
  }
  return out;
}

export interface SignalDifference {
  /** group index in the frame */
  index: number;
  numeric_id: number;
  field: SignalColumn | 'count';
  expected: number;
  actual: number;
}

/** The first field that differs between two packed signal frames, or null when they are equal bit for bit. */
export function firstSignalDifference(expected: Float64Array, actual: Float64Array): SignalDifference | null {
  const ne = expected.length / SC;
  const na = actual.length / SC;
  const n = Math.min(ne, na);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < SC; c++) {
      const e = expected[c * ne + i];
      const a = actual[c * na + i];
      if (!sameBits(e, a)) return { index: i, numeric_id: expected[i], field: SIGNAL_COLUMNS[c], expected: e, actual: a };
    }
  }
  if (ne !== na) return { index: n, numeric_id: ne > n ? expected[n] : actual[n], field: 'count', expected: ne, actual: na };
  return null;
}

/** A value of a signal column in words (the code's letter, the source's name). */
export function describeSignalValue(field: SignalColumn | 'count', v: number): string {
  if (field === 'code') return Number.isInteger(v) && v > 0 && v < 128 ? String.fromCharCode(v) : String(v);
  if (field === 'source') return SIGNAL_SOURCES[v] ?? String(v);
  if (field === 'time_to_change_s' && Number.isNaN(v)) return 'none';
  return Object.is(v, -0) ? '-0' : String(v);
}

/** A number for JSON that keeps −0 (written as the string "-0"). */
export function exactNum(v: number): number | string {
  return Object.is(v, -0) ? '-0' : v;
}

export function fromExactNum(v: unknown, what = 'number'): number {
  if (v === '-0') return -0;
  if (typeof v !== 'number') throw new TypeError(`${what}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

/** Shallow copy of an object with every number made −0-safe (nested plain objects too). */
export function exactObject<T extends object>(o: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    if (typeof v === 'number') out[k] = exactNum(v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = exactObject(v as object);
    else out[k] = v;
  }
  return out;
}

/** Inverse of exactObject: "-0" strings back to −0 (use it only on objects that hold numbers, never free text). */
export function fromExactObject(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === '-0') out[k] = -0;
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = fromExactObject(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}
