/**
 * `vils replay --play` serves the web map as `vils serve` does (issue 27 item 6): GET / is the page (with its
 * Content-Security-Policy), its files are under /web/, and GET /api/map draws the recorded map — so a
 * recording can be watched in a browser, not only through the stream and Foxglove.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlayback, type Playback } from '../../src/server/playback.js';
import { PAGE_CSP, loadWebBundle } from '../../src/server/plugins/web.js';
import { startServer } from '../helpers/server-fixture.js';
import { FastClock } from './fast-clock.js';

describe('vils replay --play: the web map', () => {
  let dir: string;
  let file: string;
  let mapName = '';
  const open: Playback[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vils-replay-web-'));
    const rec = join(dir, 'rec');
    const clock = new FastClock(0);
    const { server } = await startServer({ config: { npc_target: 4, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir: rec } });
    mapName = server.host.map.label;
    const deadline = performance.now() + 60_000;
    while (server.host.runner.simNow() < 1) {
      if (performance.now() > deadline) throw new Error(`the recording server reached only ${server.host.runner.simNow()} s in 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.close();
    file = join(rec, readdirSync(rec)[0]);
  }, 90_000);

  afterAll(async () => {
    for (const p of open) await p.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const play = async (opts: Parameters<typeof createPlayback>[1] = {}) => {
    const pb = await createPlayback(file, { loop: true, logLevel: false, ...opts });
    open.push(pb);
    return { pb, address: await pb.app.listen({ port: 0, host: '127.0.0.1' }) };
  };

  it('GET / is the page of the web bundle, its files under /web/, as vils serve serves them', async () => {
    const web = join(dir, 'web');
    mkdirSync(web);
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>VILS test page</title><script src="web/main.js"></script>');
    writeFileSync(join(web, 'main.js'), 'console.log("vils");');
    const { address } = await play({ web: loadWebBundle(web) });
    const page = await fetch(`${address}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(await page.text()).toContain('VILS test page');
    const js = await fetch(`${address}/web/main.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toBe('console.log("vils");');
  });

  it('GET /api/map is the recorded map; the page\'s default bundle is the built one (or says how to build it)', async () => {
    const { address } = await play();
    const map = await fetch(`${address}/api/map`);
    expect(map.status).toBe(200);
    const m = (await map.json()) as { name: string; bounds: { min_x: number; max_x: number }; counts: { lane: number } };
    expect(m.name).toBe(mapName);
    expect(m.bounds.max_x).toBeGreaterThan(m.bounds.min_x);
    expect(m.counts.lane).toBeGreaterThan(0);
    const page = await fetch(`${address}/`);
    const built = loadWebBundle();
    if (built.missing) {
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/npm run build/);
    } else {
      expect(page.status).toBe(200);
      expect(Buffer.from(await page.arrayBuffer()).equals(built.files.get('index.html')!.body)).toBe(true);
    }
    // still a playback: the status says so
    expect(((await (await fetch(`${address}/api/status`)).json()) as { state: string }).state).toBe('playback');
  });
});
