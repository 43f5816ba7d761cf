/**
 * Imports flow one way: cli → server → scene/scenario/record → traffic/plant/cosim → policy/map → geo/time/util.
 * A module may import from its own folder and from lower layers only (plus the few sideways edges named here).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/shared.js';

const LAYER: Record<string, number> = {
  util: 0, time: 0, geo: 0,
  policy: 1, map: 1,
  traffic: 2, plant: 2, cosim: 2,
  scene: 3, scenario: 3, record: 3,
  server: 4, web: 4,
  cli: 5,
};
/** sideways edges within a layer, by design */
const ALLOWED_SIDEWAYS = new Set(['cosim->plant', 'scenario->scene', 'record->scene', 'scenario->cosim']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('layers', () => {
  it('imports flow one way (no module imports from a higher layer, nothing from converters/)', () => {
    const src = join(PROJECT_ROOT, 'src');
    const bad: string[] = [];
    for (const f of files(src)) {
      const room = relative(src, f).split('/')[0];
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(src, join(f, '..', m[1]));
        if (target.startsWith('..')) {
          bad.push(`${relative(PROJECT_ROOT, f)} imports ${m[1]} (outside src/)`);
          continue;
        }
        const to = target.split('/')[0];
        if (to === room || !(room in LAYER) || !(to in LAYER)) continue;
        if (LAYER[to] < LAYER[room]) continue;
        if (LAYER[to] === LAYER[room] && ALLOWED_SIDEWAYS.has(`${room}->${to}`)) continue;
        bad.push(`${relative(PROJECT_ROOT, f)} (${room}) imports ${to}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
