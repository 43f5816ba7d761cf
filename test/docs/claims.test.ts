/**
 * The pages hold to the code (issue 46 item 5): every JSON body a reader copies parses — in prose as in `curl -d`
 * (intersections.md's `PUT /api/signals/J1 {states: …}` was answered "Body is not valid JSON") — every key the web
 * map's key table documents is one the page handles, and every key it handles is documented (the table left out
 * `Y`), in the help overlay too; development.md's layout names every folder of src/ (it left out src/scenario/).
 * The `json` and `yaml` blocks are parsed by harness.ts, the `sh` blocks run there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { parseDoc } from './blocks.js';
import { curlBodies, documentedKeys, handledKeys, helpKeys, layoutFolders, proseJson } from './claims.js';
import { PAGES, PAGES_ON_VDS1_PORTS } from './harness.js';

const read = (f: string) => readFileSync(join(PROJECT_ROOT, f), 'utf8');
const parses = (s: string) => {
  try {
    JSON.parse(s);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('the pages hold to the code', () => {
  it('every JSON body in the prose parses (requests written as METHOD /path {…}, JSON objects a reader copies)', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const b of proseJson(read(page))) {
        checked++;
        const err = parses(b.json);
        if (err) bad.push(`${page}:${b.line}: ${b.what} is not JSON (${err}): ${b.json}`);
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(5);
  });

  it('every curl body sent as JSON in the pages\' commands parses', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const s of parseDoc(page, read(page))) {
        if (s.type !== 'block' || s.lang !== 'sh') continue;
        for (const body of curlBodies(s.body)) {
          checked++;
          if (parses(body)) bad.push(`${page}:${s.line}: ${body}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('the web map\'s keys: the table documents every key the page handles and only those; the help overlay lists them too', () => {
    const documented = documentedKeys(read('docs/web-map.md'));
    const handled = handledKeys(read('src/web/input.ts'));
    expect(handled).toContain('Y');
    expect(handled.filter((k) => !documented.includes(k)), 'keys the page handles that docs/web-map.md does not list').toEqual([]);
    expect(documented.filter((k) => !handled.includes(k)), 'keys docs/web-map.md lists that the page does not handle').toEqual([]);
    const help = helpKeys(read('src/web/index.html'));
    expect(handled.filter((k) => !help.includes(k)), 'keys missing from the help overlay').toEqual([]);
  });

  it('every page whose commands use the VDS1 default ports (7001, 7002) holds their lock while it runs (harness.ts)', () => {
    const sample = ['configs/comms/sim_ego.yaml'].map(read).join('\n');
    expect(sample).toMatch(/port: 7001/);
    for (const page of PAGES) {
      const blocks = parseDoc(page, read(page)).filter((s) => s.type === 'block' && s.lang === 'sh').map((s) => (s.type === 'block' ? s.body.replace(/#.*$/gm, '') : '')).join('\n');
      const uses = /\b700[12]\b|demo_lap_comms|vils realtime|vds1_client/.test(blocks);
      if (uses) expect(PAGES_ON_VDS1_PORTS, `${page} uses VDS1's default ports`).toContain(page);
    }
  });

  it('development.md\'s layout names every folder of src/ (subfolders too, one line each), and only folders that exist', () => {
    const listed = layoutFolders(read('docs/development.md'));
    const foldersUnder = (rel: string): string[] => readdirSync(join(PROJECT_ROOT, 'src', rel))
      .filter((f) => statSync(join(PROJECT_ROOT, 'src', rel, f)).isDirectory())
      .flatMap((f) => [rel ? `${rel}/${f}` : f, ...foldersUnder(rel ? `${rel}/${f}` : f)]);
    const folders = foldersUnder('');
    expect(folders.filter((f) => !listed.includes(f)), 'folders of src/ the layout leaves out').toEqual([]);
    expect(listed.filter((f) => !folders.includes(f)), 'folders the layout names that src/ does not have').toEqual([]);
  });
});
