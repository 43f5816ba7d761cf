/**
 * Finding a map file, and saying so when it is not there: where it was looked for (the path as given, made
 * absolute against the working folder) and the maps that are there to choose from — in that folder and in the
 * project's own maps/ — instead of a bare ENOENT.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { projectRoot } from '../util/project-root.js';

/** The road maps (*.json) of a folder, by name; [] when it is not a folder. */
export function mapsIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json') && statSync(join(dir, n)).isFile()).sort();
  } catch {
    return [];
  }
}

/** Null when `path` is a file, else why not, in words that name where it looked and what is there. */
export function missingMap(path: string, cwd = process.cwd(), root = projectRoot()): string | null {
  const abs = resolve(cwd, path);
  if (existsSync(abs)) return statSync(abs).isFile() ? null : `map ${path}: ${abs} is not a file`;
  const dir = dirname(abs);
  const here = mapsIn(dir);
  const projectMaps = join(root, 'maps');
  const shown = (d: string) => (relative(cwd, d) === '' ? '.' : relative(cwd, d).startsWith('..') ? d : relative(cwd, d));
  const parts = [`map ${path} not found: looked for ${abs}`];
  if (!existsSync(dir)) parts.push(`there is no folder ${dir}`);
  else parts.push(here.length ? `the maps in ${shown(dir)}: ${here.join(', ')}` : `${shown(dir)} holds no map (*.json)`);
  if (resolve(dir) !== resolve(projectMaps)) {
    const ours = mapsIn(projectMaps);
    if (ours.length) parts.push(`the project's maps in ${projectMaps}: ${ours.join(', ')}`);
  }
  return parts.join('; ');
}
