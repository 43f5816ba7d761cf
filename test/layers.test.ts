/**
 * Imports flow one way: cli → server/web → record → session → scenario → scene → traffic/plant/cosim →
 * policy/map/protocol → geo/time/util/vehicle. A module may import from its own folder and from lower layers only
 * (plus the sideways edge named here). The session (what runs a scene) sits on the scenario's egos and story; a
 * recording's replay makes the session's calls again, and the server hosts both.
 * And no import circles anywhere, type-only imports included (issue 42 took the last ones apart).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/shared.js';

const LAYER: Record<string, number> = {
  util: 0, time: 0, geo: 0, vehicle: 0,
  policy: 1, map: 1, protocol: 1,
  traffic: 2, plant: 2, cosim: 2,
  scene: 3,
  scenario: 4,
  session: 5,
  record: 6,
  server: 7, web: 7,
  cli: 8,
};
/** sideways edges within a layer, by design */
const ALLOWED_SIDEWAYS = new Set(['cosim->plant']);

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

  it('has no import circles', () => {
    const src = join(PROJECT_ROOT, 'src');
    const all = files(src);
    const known = new Set(all);
    const edges = new Map<string, string[]>();
    for (const f of all) {
      const out: string[] = [];
      for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        let t = join(dirname(f), m[1]).replace(/\.js$/, '.ts');
        if (!known.has(t) && known.has(t.replace(/\.ts$/, '/index.ts'))) t = t.replace(/\.ts$/, '/index.ts');
        if (known.has(t)) out.push(t);
      }
      edges.set(f, out);
    }
    // strongly connected groups of more than one file (Tarjan's algorithm)
    let next = 0;
    const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], onStack = new Set<string>();
    const circles: string[] = [];
    const visit = (v: string): void => {
      index.set(v, next); low.set(v, next); next++;
      stack.push(v); onStack.add(v);
      for (const w of edges.get(v)!) {
        if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
        else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) !== index.get(v)) return;
      const group: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); group.push(relative(src, w)); } while (w !== v);
      if (group.length > 1) circles.push(group.sort().join(' '));
    };
    for (const v of all) if (!index.has(v)) visit(v);
    expect(circles.sort()).toEqual([]);
  });

  it('has one advance of a scene on the conductor: ConductedWorld.advanceTo, which the session and vils run\'s world both take', () => {
    const src = join(PROJECT_ROOT, 'src');
    // outside src/time, only ConductedWorld.advanceTo calls a TimedWorld's (or a TimeSession's) own advance
    const callers = files(src)
      .filter((f) => !relative(src, f).startsWith('time/'))
      .filter((f) => /\bthis\.advance\(Math\.round|\b(timed|world|session|conductor)\.advance\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(src, f));
    expect(callers).toEqual(['scenario/conducted-world.ts']);
    expect(readFileSync(join(src, 'session/scene-session.ts'), 'utf8')).toMatch(/conductor\.world\.advanceTo\(/);
    expect(readFileSync(join(src, 'scenario/world.ts'), 'utf8')).toMatch(/this\.timed\.advanceTo\(/);
    expect(readFileSync(join(src, 'cli/drive.ts'), 'utf8')).toMatch(/session\.advanceTo\(/);
  });
});
