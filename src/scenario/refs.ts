/**
 * Finding the files a scenario names (seed 001 §2: "the scenario references the others by name"). A reference
 * is a path (absolute, relative to the working directory, or to the referring file) or a stem resolved through
 * a search path of config folders: the referring file's folder and its parent, the caller's folders,
 * `VILS_CONFIG_PATH` (colon-separated) and the project's `configs/`. In each folder a stem is looked for in
 * VDSim's tree layout (`vehicles/<stem>.yaml`, `parts/tire/<stem>.yaml`, ...) and in the flattened layout of
 * `../shared/data/vdsim` (`vehicles_<stem>.yaml`, `parts_tire_<stem>.yaml`, `map_<stem>.yaml`, ...). An alias
 * table maps VDSim's names onto other files (`{'vehicle:sedan': 'generic_sedan.yaml'}`).
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../plant/config/errors.js';
import { projectRoot } from '../util/project-root.js';

export type RefKind = 'vehicle' | 'tire' | 'sensors' | 'map' | 'comms' | 'scenario' | 'path';

const PATTERNS: Record<RefKind, readonly string[]> = {
  vehicle: ['vehicles/%.yaml', 'vehicles_%.yaml', 'parts/chassis/%.yaml', 'parts_chassis_%.yaml', '%.yaml'],
  tire: ['tires/%.yaml', 'parts/tire/%.yaml', 'parts_tire_%.yaml', 'tires_%.yaml', 'tire_%.yaml', '%.yaml'],
  sensors: ['sensors/%.yaml', 'sensors_%.yaml', '%.yaml'],
  map: ['maps/%.yaml', 'map_%.yaml', '%.yaml'],
  comms: ['comms/%.yaml', 'comms_%.yaml', '%.yaml'],
  scenario: ['scenarios/%.yaml', 'experiments/%.yaml', 'experiment_%.yaml', 'scenario_%.yaml', '%.yaml'],
  path: ['paths/%.yaml', 'path_%.yaml', '%.yaml'],
};

export interface RefOptions {
  /** More config folders, searched after the referring file's own (and before the project's configs/). */
  searchPath?: readonly string[];
  /** `kind:stem` → file (a path, or a stem of the same kind). */
  aliases?: Readonly<Record<string, string>>;
}

/** How a scenario is loaded: where its references are found, and the overrides on top of it. */
export interface ScenarioLoadOptions extends RefOptions {
  /** dotted key → value, applied on top of the file's own `_overrides` */
  overrides?: Readonly<Record<string, unknown>>;
  allowDuplicateKeys?: boolean;
}

export function projectConfigDir(): string {
  return join(projectRoot(), 'configs');
}

/** The folders a reference made in `file` is looked for in, in order. */
export function searchRoots(file: string, opts: RefOptions = {}): string[] {
  const own = dirname(resolve(file));
  const env = (process.env.VILS_CONFIG_PATH ?? '').split(':').filter(Boolean);
  const roots = [own, dirname(own), ...(opts.searchPath ?? []).map((d) => resolve(d)), ...env.map((d) => resolve(d)), projectConfigDir()];
  return [...new Set(roots)];
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

/**
 * Resolves `ref` (given in `file` at `key`) to a file path, or throws a ConfigError that says where it looked.
 * A VDSim-root path (`configs/paths/oval.yaml`) that is not found as a path is retried by its stem.
 */
export function resolveRef(ref: unknown, kind: RefKind, file: string, key: string, opts: RefOptions = {}): string {
  if (typeof ref !== 'string' || ref.trim() === '') throw new ConfigError(file, key, `expected the name or path of a ${kind} file, got ${JSON.stringify(ref)}`);
  const alias = opts.aliases?.[`${kind}:${ref}`];
  if (alias !== undefined) return resolveRef(alias, kind, file, key, { ...opts, aliases: undefined });
  const looksLikePath = /[/\\]/.test(ref) || /\.ya?ml$|\.json$/.test(ref);
  if (looksLikePath) {
    for (const p of isAbsolute(ref) ? [ref] : [resolve(ref), join(dirname(resolve(file)), ref)]) if (isFile(p)) return p;
  }
  const stem = looksLikePath ? basename(ref).replace(/\.(ya?ml|json)$/, '') : ref;
  const roots = searchRoots(file, opts);
  for (const root of roots) {
    for (const pattern of PATTERNS[kind]) {
      const p = join(root, pattern.replace('%', stem));
      if (isFile(p) && resolve(p) !== resolve(file)) return p;
    }
  }
  throw new ConfigError(file, key, `${kind} '${ref}' not found: looked for ${looksLikePath ? `the path ${ref}, then ` : ''}${PATTERNS[kind].map((p) => p.replace('%', stem)).join(', ')} in ${roots.join(', ')}`);
}
