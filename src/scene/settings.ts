/**
 * The one table of settings (issue 24 item 3): key, type, default, unit, range, description and whether a change
 * needs a restart. The scene's defaults, the REST schema (src/server/schemas.ts), the scenario YAML's `scene:`
 * checks and `vils serve --config` are all made from it, and `checkSettings` enforces it on every path, so a
 * setting is refused the same way wherever it comes from (before, 5e-324 passed as an ego length).
 */
import { InputError } from './errors.js';

export type SettingType = 'number' | 'integer' | 'boolean' | 'enum';

export interface SettingSpec {
  type: SettingType;
  default: number | boolean | string;
  /** SI unit or what the number counts (shown in messages and docs) */
  unit?: string;
  min?: number;
  max?: number;
  values?: readonly string[];
  description: string;
  /** sizes the world: a running scene refuses to change it */
  restart?: boolean;
}

export type SettingsTable = Readonly<Record<string, SettingSpec>>;

/** Why `value` is not a valid `key` by `spec`, or null when it is. */
export function settingProblem(key: string, spec: SettingSpec, value: unknown): string | null {
  const unit = spec.unit ? ` ${spec.unit}` : '';
  switch (spec.type) {
    case 'boolean':
      return typeof value === 'boolean' ? null : `${key} must be true or false, got ${JSON.stringify(value)}`;
    case 'enum':
      return typeof value === 'string' && spec.values!.includes(value) ? null : `${key} must be one of ${spec.values!.join(', ')}, got ${JSON.stringify(value)}`;
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${key} must be a finite number, got ${JSON.stringify(value)}`;
      if (spec.type === 'integer' && !Number.isInteger(value)) return `${key} must be a whole number, got ${value}`;
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        return `${key} must be within ${spec.min ?? '-∞'}–${spec.max ?? '∞'}${unit}, got ${value}`;
      }
      return null;
    }
  }
}

/** Throws InputError naming the first unknown key or bad value of `patch` (nothing is applied by it). */
export function checkSettings(patch: Readonly<Record<string, unknown>>, table: SettingsTable, what = 'setting'): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const spec = table[k];
    if (!spec) throw new InputError(`unknown ${what} "${k}" (expected one of ${Object.keys(table).join(', ')})`);
    const problem = settingProblem(k, spec, v);
    if (problem) throw new InputError(problem);
  }
}

/** The defaults of a table, as a plain object. */
export function settingDefaults(table: SettingsTable): Record<string, number | boolean | string> {
  return Object.fromEntries(Object.entries(table).map(([k, s]) => [k, s.default]));
}

/** A JSON schema (draft 7, as fastify and Ajv take it) for objects of these settings. */
export function settingsJsonSchema(table: SettingsTable): { type: 'object'; additionalProperties: false; properties: Record<string, Record<string, unknown>> } {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [k, s] of Object.entries(table)) {
    const unit = s.unit ? ` [${s.unit}]` : '';
    const restart = s.restart ? '; only at start (refused at runtime)' : '';
    const description = `${s.description}${unit}${restart}`;
    if (s.type === 'enum') properties[k] = { enum: [...s.values!], description };
    else if (s.type === 'boolean') properties[k] = { type: 'boolean', description };
    else {
      const p: Record<string, unknown> = { type: s.type, description };
      if (s.min !== undefined) p.minimum = s.min;
      if (s.max !== undefined) p.maximum = s.max;
      properties[k] = p;
    }
  }
  return { type: 'object', additionalProperties: false, properties };
}
