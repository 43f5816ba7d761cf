/**
 * The web map's time-sync panel in Chromium: the status bar sums up the conductor (mode, Tc, assets, lagging
 * ones) and Y opens the table of assets with each one's time, skew to Tc and held counts, a lagging external
 * simulator in red. The screenshot is kept in test/web/artifacts/time-sync-panel.png.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTimeSettings } from '../../src/time/index.js';
import { CHROMIUM, shot, until, usePage } from './browser.js';

const FIXTURE = fileURLToPath(new URL('../time/fixtures/udp-asset.mjs', import.meta.url));

describe.skipIf(!CHROMIUM)('web map: time-sync panel', () => {
  const fx = usePage(() => ({ config: { npc_target: 20 }, time: { ...defaultTimeSettings('realtime'), asset_port: 0, asset_timeout_s: 5 } }));
  const children: ChildProcess[] = [];
  beforeAll(() => {
    const port = String(fx.server.host.time.assetPort);
    // one simulator that keeps up, one that does 30 ms of work per 10 ms step and falls behind
    children.push(spawn(process.execPath, [FIXTURE, port, 'sensor-sim', '10000', '1000000000', '0'], { stdio: 'ignore' }));
    children.push(spawn(process.execPath, [FIXTURE, port, 'slow-sim', '10000', '1000000000', '30'], { stdio: 'ignore' }));
  });
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  it('the status bar sums the conductor up; Y opens each asset\'s time, skew to Tc and held counts, the lagging one in red', async () => {
    const page = fx.page;
    await until(async () => (await page.textContent('#st-sync'))?.includes('lagging'), 'a lagging asset in the status bar', 10_000);
    // the slow one lags; on a machine this busy the one that keeps up may for a moment too: the bar counts them
    const bar = (await page.textContent('#st-sync'))!;
    expect(bar).toMatch(/^realtime · Tc [\d.]+ s · 4 assets · [12] lagging$/);
    expect(await page.getAttribute('#st-sync', 'class')).toContain('bad');
    expect(await page.isHidden('#time-panel')).toBe(true);
    await page.keyboard.press('y');
    await until(async () => (await page.locator('#time-body tbody tr').count()) === 4, 'four rows', 5000);
    const rows = await page.$$eval('#time-body tbody tr', (trs) => trs.map((tr) => ({ cls: tr.className, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '') })));
    const by = new Map(rows.map((r) => [r.cells[0], r]));
    expect([...by.keys()].sort()).toEqual(['sensor-sim', 'slow-sim', 'wall-clock', 'world']);
    expect(by.get('wall-clock')!.cells[1]).toBe('real car (wall clock, never held)'); // never held: its skew is no fault
    expect(by.get('wall-clock')!.cls).toBe('wallclock');
    expect(by.get('world')!.cells.slice(1, 3)).toEqual(['in-process', '100.0']);
    expect(by.get('sensor-sim')!.cells[1]).toBe('external');
    expect(by.get('slow-sim')!.cls).toBe('lagging');
    expect(Number(by.get('slow-sim')!.cells[4])).toBeGreaterThan(100); // skew now, beyond dmax
    // the one that keeps up: not red while the bar counts one lagging (the table and the bar read one status)
    if (/· 1 lagging$/.test(bar) && !/· 2 lagging$/.test((await page.textContent('#st-sync'))!)) expect(by.get('sensor-sim')!.cls).toBe('');
    expect(Number(by.get('sensor-sim')!.cells[6])).toBeGreaterThan(0); // held: it waits for Tc
    expect(await page.textContent('#time-body .time-head')).toMatch(/realtime · Tc [\d.]+ s · dmax 100\.0 ms · step 1 ms · UDP \d+ · 0 violations/);
    // the colour of a lagging row is the page's "bad" red
    const colour = await page.evaluate("getComputedStyle(document.querySelector('#time-body tr.lagging td')).color");
    expect(colour).toBe('rgb(255, 90, 90)');
    await shot(page, 'time-sync-panel.png');
    await page.click('#time-close');
    expect(await page.isHidden('#time-panel')).toBe(true);
    expect(fx.log.errors).toEqual([]);
  }, 60_000);
});
