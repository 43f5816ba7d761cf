/**
 * docs/web-map.md's size of the web map's script ("one script of about N KiB (about M KiB gzipped)") against a fresh
 * build: `npm run build:web`'s own esbuild command, run into a temporary folder (dist/ is left alone), must give
 * a main.js within 10 % of both figures. A change to src/web that moves the bundle by more than that fails here
 * until the README says the new size.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';

const out = mkdtempSync(join(tmpdir(), 'vils-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The README's two figures, in KiB. */
function readmeFigures(): { kib: number; gzipKib: number } {
  const readme = readFileSync(join(PROJECT_ROOT, 'docs', 'web-map.md'), 'utf8').replace(/\s+/g, ' ');
  const m = /one script of about (\d+(?:\.\d+)?) KiB \(about (\d+(?:\.\d+)?) KiB gzipped/.exec(readme);
  if (!m) throw new Error('docs/web-map.md no longer says "one script of about N KiB (about M KiB gzipped": update this test with it');
  return { kib: Number(m[1]), gzipKib: Number(m[2]) };
}

/** `npm run build:web`'s command with its --outdir replaced by a temporary folder. */
function buildWeb(): Buffer {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts['build:web'].split(/\s+/).filter((w) => w !== '');
  expect(words[0]).toBe('esbuild');
  expect(words.filter((w) => w.startsWith('--outdir='))).toHaveLength(1);
  const args = words.slice(1).map((w) => (w.startsWith('--outdir=') ? `--outdir=${out}` : w));
  execFileSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'esbuild'), args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  return readFileSync(join(out, 'main.js'));
}

describe('the README quotes the size of the web map bundle', () => {
  it('main.js and its gzip size are within 10 % of the README figures', () => {
    const { kib, gzipKib } = readmeFigures();
    const js = buildWeb();
    const builtKib = js.length / 1024;
    const builtGzipKib = gzipSync(js).length / 1024;
    const say = `built main.js ${builtKib.toFixed(1)} KiB, ${builtGzipKib.toFixed(1)} KiB gzipped; README: about ${kib} KiB, about ${gzipKib} KiB gzipped`;
    expect(Math.abs(builtKib - kib) / builtKib, say).toBeLessThanOrEqual(0.1);
    expect(Math.abs(builtGzipKib - gzipKib) / builtGzipKib, say).toBeLessThanOrEqual(0.1);
  }, 180_000);
});
