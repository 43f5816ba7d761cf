/**
 * Exact encodings for what a recording must give back bit for bit: NPC states as float64 columns (base64),
 * and numbers in JSON with −0 kept (JSON.stringify writes −0 as 0; every other finite double round-trips
 * exactly through JSON text in JavaScript).
 */
import type { NpcState } from '../scene/index.js';

/** The NPC state fields compared in replay, in column order (flags pack collided, offroad and auto). */
export const NPC_COLUMNS = ['id', 'x', 'y', 'yaw', 'vx', 'vy', 'speed', 'length', 'width', 'goalX', 'goalY', 'flags'] as const;
export type NpcColumn = (typeof NPC_COLUMNS)[number];
const C = NPC_COLUMNS.length;

const flagsOf = (n: NpcState) => (n.collided ? 1 : 0) | (n.offroad ? 2 : 0) | (n.auto ? 4 : 0);

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
    out.push({
      id: cols[i], x: cols[n + i], y: cols[2 * n + i], yaw: cols[3 * n + i], vx: cols[4 * n + i], vy: cols[5 * n + i],
      speed: cols[6 * n + i], length: cols[7 * n + i], width: cols[8 * n + i], goalX: cols[9 * n + i], goalY: cols[10 * n + i],
      collided: (f & 1) !== 0, offroad: (f & 2) !== 0, auto: (f & 4) !== 0, hold: 'none',
    });
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

/** The first field that differs between two packed frames, or null when they are equal bit for bit. */
export function firstNpcDifference(expected: Float64Array, actual: Float64Array): NpcDifference | null {
  const ne = expected.length / C;
  const na = actual.length / C;
  const n = Math.min(ne, na);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < C; c++) {
      const e = expected[c * ne + i];
      const a = actual[c * na + i];
      if (!sameBits(e, a)) return { index: i, id: expected[i], field: NPC_COLUMNS[c], expected: e, actual: a };
    }
  }
  if (ne !== na) return { index: n, id: ne > n ? expected[n] : actual[n], field: 'count', expected: ne, actual: na };
  return null;
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
