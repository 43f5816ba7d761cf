/**
 * Opens a parameter file of an expected kind: flat VDSim files are returned as they are, a catalog part's
 * `body:` is unwrapped, and any other kind of file is rejected with a message that says what it is.
 */
import { type Classification, PART_ENVELOPE_KEYS, type ParamsKind, classifyConfig, describeKind } from './classify.js';
import { ConfigError } from './errors.js';
import { type YamlReadOptions, isRecord, readYamlFile } from './yaml-file.js';

export interface LoadOptions extends YamlReadOptions {}

export interface ConfigSource {
  path: string;
  /** Set when the file was a catalog part whose body was unwrapped. */
  part?: { id?: string; type?: string };
}

export interface LoadResult<T> {
  params: T;
  /** Unknown keys, duplicate keys (when allowed), inconsistencies and unsupported features. */
  warnings: string[];
  source: ConfigSource;
  /** Recognised keys no equation reads (e.g. a vehicle's renderer geometry). */
  metadata: Record<string, unknown>;
}

export interface OpenedDocument {
  body: unknown;
  warnings: string[];
  source: ConfigSource;
  classification: Classification;
}

export function openParamsDocument(path: string, expected: ParamsKind, opts: LoadOptions = {}): OpenedDocument {
  const file = readYamlFile(path, opts);
  const c = classifyConfig(file.data);
  const warnings = [...file.warnings];
  if (c.kind !== expected) {
    const what = c.kind === 'unsupported-part' ? `${c.description}, whose type this port cannot load` : c.description;
    throw new ConfigError(path, undefined, `is ${what}, not ${describeKind(expected)}`);
  }
  if (!c.part) return { body: file.data, warnings, source: { path }, classification: c };
  const data = file.data as Record<string, unknown>;
  for (const k of Object.keys(data)) {
    if (!PART_ENVELOPE_KEYS.includes(k)) warnings.push(`${path}: unknown catalog part key '${k}' ignored`);
  }
  if (!isRecord(data.body)) throw new ConfigError(path, 'body', 'expected a map');
  return { body: data.body, warnings, source: { path, part: { id: c.partId, type: c.partType } }, classification: c };
}
