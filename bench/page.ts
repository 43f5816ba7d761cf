/**
 * The web map's frame time in a real browser: `npm run bench:page [-- --map <road JSON>] [-- --npcs 63]
 * [-- --hz 50] [-- --seconds 5] [-- --json]`. Starts `vils serve` (a child process; the demo track unless
 * --map names another, e.g. K-City converted from ../shared), opens the page in Debian's Chromium
 * (VILS_CHROMIUM names another) with playwright-core, lets the page fill, then reads the page's own figures
 * (window.__vils.stats(): the time between animation frames from requestAnimationFrame timestamps, and the
 * drawing time per frame) over --seconds. The page keeps up when the frame time stays at the display's 16.7 ms.
 * These figures depend on the machine, which is why `npm test` reports them and asserts none.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServe, stopServe } from './serve-child.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { map: { type: 'string' }, npcs: { type: 'string' }, hz: { type: 'string' }, seconds: { type: 'string' }, json: { type: 'boolean' } },
});
const npcs = Number(values.npcs ?? 63);
const hz = Number(values.hz ?? 50);
const seconds = Number(values.seconds ?? 5);
const browserPath = process.env.VILS_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (!browserPath) {
  console.error('bench:page needs Chromium: apt-get install chromium (or VILS_CHROMIUM=<binary>)');
  process.exit(2);
}

interface Stats { n: number; mean: number; p50: number; p95: number; max: number }

const dir = mkdtempSync(join(tmpdir(), 'vils-bench-page-'));
const cfg = join(dir, 'config.json');
writeFileSync(cfg, JSON.stringify({ npc_target: npcs, publish_hz: hz }));
const { child, base } = await startServe(['--config', cfg, '--no-record', ...(values.map ? ['--map', values.map] : [])], process.env, 60_000);
const profile = mkdtempSync(join(tmpdir(), 'vils-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: browserPath,
  headless: true,
  chromiumSandbox: false,
  args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 860 },
});
try {
  const page = await context.newPage();
  const t0 = performance.now();
  await page.goto(base);
  const vils = async <T>(expr: string): Promise<T> => (await page.evaluate(`window.__vils.${expr}`)) as T;
  for (let waited = 0; waited < 60_000; waited += 100) {
    if (Number(await page.locator('#st-npcs').innerText()) >= npcs) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const loadMs = performance.now() - t0;
  await vils('resetStats()');
  const frames0 = await vils<{ frames: number }>('stats()');
  const m0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const s = await vils<{ frame: Stats; draw: Stats; mapRenderMs: number; frames: number }>('stats()');
  const secs = (performance.now() - m0) / 1000;
  const result = {
    map: values.map ?? 'demo track', npcs, publish_hz: hz, seconds: secs,
    frames_received_per_s: (s.frames - frames0.frames) / secs,
    frame_ms: s.frame, draw_ms: s.draw, road_layer_ms: s.mapRenderMs, page_full_ms: loadMs,
  };
  if (values.json) console.log(JSON.stringify(result));
  else {
    console.log(`web map, ${result.map}, ${npcs} NPCs at ${hz} Hz, ${secs.toFixed(1)} s: ${result.frames_received_per_s.toFixed(1)} frames/s received`);
    console.log(`  frame time p50 ${s.frame.p50.toFixed(1)} ms, p95 ${s.frame.p95.toFixed(1)} ms, max ${s.frame.max.toFixed(1)} ms over ${s.frame.n} animation frames`);
    console.log(`  drawing p50 ${s.draw.p50.toFixed(2)} ms, p95 ${s.draw.p95.toFixed(2)} ms; road layer ${s.mapRenderMs.toFixed(1)} ms; all NPCs shown ${loadMs.toFixed(0)} ms after opening`);
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await stopServe(child);
}
