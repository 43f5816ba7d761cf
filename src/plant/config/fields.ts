/**
 * Schema-driven reading of flat YAML maps into parameter objects: each known key is type-checked and copied;
 * null keeps the default; unknown keys become warnings. Errors name the file and the (dotted) key.
 */
import { ConfigError } from './errors.js';
import { isRecord } from './yaml-file.js';

export type FieldKind =
  | { type: 'number'; min?: number; exclusiveMin?: number }
  | { type: 'int'; min?: number }
  | { type: 'bool' }
  | { type: 'string' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'array'; length: number; names: string }
  | { type: 'list' };

export interface FieldSpec {
  /** YAML key (VDSim's snake_case member name). */
  key: string;
  /** Property of the target object. */
  field: string;
  kind: FieldKind;
}

export interface ReadContext {
  file: string;
  /** Dotted path of the map being read ('' at top level; 'lugre' for a sub-map). */
  prefix: string;
  warnings: string[];
}

export const NUM: FieldKind = { type: 'number' };
export const POSITIVE: FieldKind = { type: 'number', exclusiveMin: 0 };
export const NON_NEGATIVE: FieldKind = { type: 'number', min: 0 };
export const BOOL: FieldKind = { type: 'bool' };
export const QUAD: FieldKind = { type: 'array', length: 4, names: '[FL, FR, RL, RR]' };
export const VEC3: FieldKind = { type: 'array', length: 3, names: '[x, y, z]' };

export function dotted(ctx: ReadContext, key: string): string {
  return ctx.prefix ? `${ctx.prefix}.${key}` : key;
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (isRecord(v)) return 'a map';
  return typeof v === 'string' ? `'${v}'` : String(v);
}

export function readValue(value: unknown, kind: FieldKind, ctx: ReadContext, key: string): unknown {
  const fail = (what: string): never => {
    throw new ConfigError(ctx.file, dotted(ctx, key), `${what}, got ${describe(value)}`);
  };
  switch (kind.type) {
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('expected a finite number');
      const v = value as number;
      if (kind.min !== undefined && v < kind.min) fail(`must be ≥ ${kind.min}`);
      if (kind.exclusiveMin !== undefined && !(v > kind.exclusiveMin)) fail(`must be > ${kind.exclusiveMin}`);
      return v;
    }
    case 'int': {
      if (typeof value !== 'number' || !Number.isInteger(value)) fail('expected an integer');
      if (kind.min !== undefined && (value as number) < kind.min) fail(`must be ≥ ${kind.min}`);
      return value;
    }
    case 'bool':
      if (typeof value !== 'boolean') fail('expected true or false');
      return value;
    case 'string':
      if (typeof value !== 'string') fail('expected a string');
      return value;
    case 'enum':
      if (typeof value !== 'string' || !kind.values.includes(value)) fail(`expected one of ${kind.values.join(' | ')}`);
      return value;
    case 'array': {
      if (!Array.isArray(value) || value.length !== kind.length) fail(`must be a list of ${kind.length} numbers ${kind.names}`);
      const arr = value as unknown[];
      arr.forEach((x, i) => {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw new ConfigError(ctx.file, `${dotted(ctx, key)}[${i}]`, `expected a finite number, got ${describe(x)}`);
      });
      return [...(arr as number[])];
    }
    case 'list': {
      if (!Array.isArray(value)) fail('expected a list of numbers');
      const arr = value as unknown[];
      arr.forEach((x, i) => {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw new ConfigError(ctx.file, `${dotted(ctx, key)}[${i}]`, `expected a finite number, got ${describe(x)}`);
      });
      return [...(arr as number[])];
    }
  }
}

/**
 * Copies every key of `src` that `specs` knows into `target`; keys in `handled` are skipped (the caller reads
 * them); other keys produce an "unknown key" warning.
 */
export function readFields(
  src: Record<string, unknown>,
  target: object,
  specs: readonly FieldSpec[],
  ctx: ReadContext,
  handled: ReadonlySet<string> = new Set(),
): void {
  const out = target as Record<string, unknown>;
  const byKey = new Map(specs.map((s) => [s.key, s]));
  for (const [key, value] of Object.entries(src)) {
    if (handled.has(key)) continue;
    const spec = byKey.get(key);
    if (!spec) {
      ctx.warnings.push(`${ctx.file}: unknown key '${dotted(ctx, key)}' ignored`);
      continue;
    }
    if (value === null || value === undefined) continue;
    out[spec.field] = readValue(value, spec.kind, ctx, key);
  }
}

/** Reads a sub-map (e.g. `lugre:`), which must be a map when present. */
export function subMap(src: Record<string, unknown>, key: string, ctx: ReadContext): Record<string, unknown> | undefined {
  const v = src[key];
  if (v === null || v === undefined) return undefined;
  if (!isRecord(v)) throw new ConfigError(ctx.file, dotted(ctx, key), `expected a map, got ${describe(v)}`);
  return v;
}

export function childContext(ctx: ReadContext, key: string): ReadContext {
  return { ...ctx, prefix: dotted(ctx, key) };
}
