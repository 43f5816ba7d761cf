/**
 * The field readers every part of the story parser shares: a map, its keys, a bounded number, an id, the one kind
 * of a single-key map, a speed in km/h or m/s, a list, a point, a shape. Each failure is a ConfigError naming the
 * file and the key path and saying what was expected, so the parts read alike and their messages agree.
 */
import { ConfigError } from '../../plant/config/errors.js';
import { isRecord } from '../../plant/config/yaml-file.js';
import type { PointSpec, Shape } from './spec.js';
import { SHAPES } from './spec.js';

const KMH = 1 / 3.6;
const ID = /^[A-Za-z0-9_.-]{1,64}$/;

export class StoryFields {
  constructor(readonly where: string) {}

  fail(key: string, detail: string): never {
    throw new ConfigError(this.where, key, detail);
  }

  map(v: unknown, key: string, what: string): Record<string, unknown> {
    if (!isRecord(v)) this.fail(key, `expected ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  keys(m: Record<string, unknown>, allowed: readonly string[], key: string): void {
    for (const k of Object.keys(m)) if (!allowed.includes(k)) this.fail(`${key}.${k}`, `unknown key (expected one of ${allowed.join(', ')})`);
  }

  /** A finite number within [min, max] (or (min, max] with `open`); `def` when absent (required when def is undefined). */
  num(m: Record<string, unknown>, k: string, key: string, what: string, min: number, max: number, def?: number, open = false): number {
    const v = m[k];
    if (v === undefined || v === null) {
      if (def === undefined) this.fail(`${key}.${k}`, `missing: expected ${what}`);
      return def;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (open && v === min)) this.fail(`${key}.${k}`, `expected ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  id(v: unknown, key: string, what: string): string {
    if (typeof v !== 'string' || !ID.test(v)) this.fail(key, `expected ${what} (1–64 letters, digits, _ . -), got ${JSON.stringify(v)}`);
    return v;
  }

  /** The one key of a single-key map among `kinds` (plus the allowed extra keys). */
  kind(m: Record<string, unknown>, kinds: readonly string[], key: string, what: string, extra: readonly string[] = []): string {
    const found = Object.keys(m).filter((k) => !extra.includes(k));
    for (const k of found) if (!kinds.includes(k)) this.fail(`${key}.${k}`, `unknown ${what} (expected one of ${kinds.join(', ')})`);
    if (found.length !== 1) this.fail(key, `expected exactly one ${what} (one of ${kinds.join(', ')}), got ${found.length ? found.join(' and ') : 'none'}`);
    return found[0];
  }

  /** A speed given as `<base>_kmh` or `<base>_mps` (exactly one), in m/s. */
  speed(m: Record<string, unknown>, base: string, key: string, def?: number): number {
    const kmh = m[`${base}_kmh`], mps = m[`${base}_mps`];
    if (kmh !== undefined && mps !== undefined) this.fail(`${key}.${base}_kmh`, `give ${base}_kmh or ${base}_mps, not both`);
    if (kmh !== undefined) return this.num(m, `${base}_kmh`, key, 'a speed in km/h within [0, 400]', 0, 400) * KMH;
    if (mps !== undefined || def === undefined) return this.num(m, `${base}_mps`, key, `a speed in m/s within [0, 120] (or ${base}_kmh)`, 0, 120);
    return def;
  }

  list(v: unknown, key: string, optional: boolean): unknown[] {
    if ((v === undefined || v === null) && optional) return [];
    if (!Array.isArray(v)) this.fail(key, `expected a list, got ${JSON.stringify(v)}`);
    return v;
  }

  point(v: unknown, key: string): PointSpec {
    const m = this.map(v, key, 'a point {x, y} or {lane, s_m}');
    if (m.lane !== undefined) {
      this.keys(m, ['lane', 's_m'], key);
      return { kind: 'lane', lane: this.id(String(m.lane), `${key}.lane`, 'a lane id'), s: this.num(m, 's_m', key, 'a distance along the lane in metres ≥ 0', 0, 1e6, 0) };
    }
    this.keys(m, ['x', 'y'], key);
    return { kind: 'xy', x: this.num(m, 'x', key, 'x in metres (map frame)', -1e7, 1e7), y: this.num(m, 'y', key, 'y in metres (map frame)', -1e7, 1e7) };
  }

  shape(m: Record<string, unknown>, key: string, def: Shape): Shape {
    const s = m.shape ?? def;
    if (!SHAPES.includes(s as Shape)) this.fail(`${key}.shape`, `expected one of ${SHAPES.join(', ')}, got ${JSON.stringify(s)}`);
    return s as Shape;
  }
}
