/** Small readers for scenario YAML maps: every error names the file and the dotted key, and says what was expected. */
import { ConfigError } from '../plant/config/errors.js';
import { isRecord } from '../plant/config/yaml-file.js';

export function expectKeys(map: Record<string, unknown>, allowed: readonly string[], file: string, prefix: string): void {
  for (const k of Object.keys(map)) {
    if (!allowed.includes(k)) throw new ConfigError(file, prefix ? `${prefix}.${k}` : k, `unknown key (expected one of ${allowed.join(', ')})`);
  }
}

export function numberAt(map: Record<string, unknown>, k: string, file: string, key: string, def: number, min = -Infinity, max = Infinity): number {
  const v = map[k];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(file, key, `expected a finite number, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw new ConfigError(file, key, `must be within [${min}, ${max}], got ${v}`);
  return v;
}

export function stringAt(map: Record<string, unknown>, k: string, file: string, key: string, def?: string): string | undefined {
  const v = map[k];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'string') throw new ConfigError(file, key, `expected a string, got ${JSON.stringify(v)}`);
  return v;
}

export function boolAt(map: Record<string, unknown>, k: string, file: string, key: string, def: boolean): boolean {
  const v = map[k];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw new ConfigError(file, key, `expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

export function mapAt(map: Record<string, unknown>, k: string, file: string, key: string): Record<string, unknown> | undefined {
  const v = map[k];
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw new ConfigError(file, key, `expected a map, got ${JSON.stringify(v)}`);
  return v;
}

/** Sets `value` at a dotted path (`a.b.0.c`) in plain data, creating maps on the way. */
export function setDotted(doc: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let cur: Record<string, unknown> | unknown[] = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i];
    const container = cur as Record<string, unknown>;
    let next = Array.isArray(cur) ? (cur as unknown[])[Number(p)] : container[p];
    if (!isRecord(next) && !Array.isArray(next)) {
      next = {};
      if (Array.isArray(cur)) (cur as unknown[])[Number(p)] = next;
      else container[p] = next;
    }
    cur = next as Record<string, unknown>;
  }
  const last = parts[parts.length - 1];
  if (Array.isArray(cur)) cur[Number(last)] = value;
  else cur[last] = value;
}

/** Deep copy of plain YAML data. */
export function clonePlain<T>(v: T): T {
  return structuredClone(v);
}
