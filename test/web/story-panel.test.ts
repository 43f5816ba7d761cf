/**
 * The web map's test-case panel in Chromium (issue 23 item 2), on configs/cases/cut_in.yaml served live as the
 * CLI serves it (startServe, in-process, in real time): the panel shows the case before the first attempt;
 * starting the scene arms attempt 1; the cutter is drawn as a scripted actor and its inspector says so; the
 * cut-in is ticked at 2.5 s of simulation time and the verdict is PASSED with both criteria passed; Arm makes
 * attempt 2 (sending the number it shows, 1) and Reset ends it (aborted, idle) and takes the actor away; an arm
 * the server refuses as stale (409) makes the panel catch up and say so. With the real car under test and no car
 * connected, Arm is refused with the server's reason; a scene serving no test case shows no panel and does not
 * ask for one. Every wait is on a condition; the scene runs on a paced clock (about real time, no tick ever late).
 * The screenshot during the attempt is kept in test/web/artifacts/story-panel.png.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { testModel } from '../helpers/server-fixture.js';
import { PacedClock } from '../helpers/paced-clock.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { browserLock, buildWebBundle, CHROMIUM, launchBrowser, openPage, shot, until, vils, type BrowserSession, type PageLog } from './browser.js';

const CASE = join(PROJECT_ROOT, 'configs', 'cases', 'cut_in.yaml');
const DEMO = join(PROJECT_ROOT, 'maps', 'demo-track.json');

interface StoryDebug { served: string; polling: boolean; shown: boolean; attempt: number | null; state: string | null; status: string | null }
interface Actor { id: number; actor: string; sx: number; sy: number }
interface FrameNpc { id: number; x: number; y: number; actor?: string }

const serveArgs = (...extra: string[]) => ['--scenario', CASE, ...extra, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'];
const story = (page: Page) => vils<StoryDebug>(page, 'story()');
const text = async (page: Page, sel: string) => ((await page.locator(sel).count()) ? page.locator(sel).innerText() : '');
const toasts = async (page: Page) => (await page.locator('#toasts .toast').allInnerTexts()).join('\n');
const frameActors = async (page: Page) => ((await vils<{ npcs: FrameNpc[] } | null>(page, 'lastFrame()'))?.npcs ?? []).filter((n) => n.actor !== undefined);
/** console errors but the refusals the test asks for (a 400 is logged by the browser as a failed resource) */
const unexpected = (log: PageLog) => log.errors.filter((e) => !/status of 400/.test(e));

describe.skipIf(!CHROMIUM)('web map: the test-case panel', () => {
  let serve: ServeHandle | null = null;
  let session: BrowserSession | undefined;
  let unlock = () => {};
  let page: Page;
  let log: PageLog;
  const api = async <T = any>(method: string, path: string): Promise<T> => (await (await fetch(serve!.address + path, { method })).json()) as T;

  beforeAll(async () => {
    unlock = await browserLock();
    buildWebBundle();
    // paused: the page is open before the first attempt is armed, whatever the machine's speed; a second scene
    // (plain) serves no test case
    // on a clock that keeps about real time for the page but lets no tick run late (test/helpers/paced-clock.ts):
    // the case runs as on a quiet machine however busy this one is (a skipped tick moved the cut-in to 2.4 s)
    const clock = new PacedClock();
    serve = await startServe(serveArgs('--paused', '--scene', `plain=${DEMO}`), { clock, epochNow: () => 1.7e9 + clock.now() });
    session = await launchBrowser();
    ({ page, log } = await openPage(session.context, `${serve.address}/`));
  }, 240_000);
  afterAll(async () => {
    await session?.close();
    await serve?.server.close();
    unlock();
  }, 30_000);

  it('shows the case; starting the scene arms attempt 1; the cutter is drawn as a scripted actor and its inspector says so', async () => {
    await until(async () => (await story(page)).shown, 'the test-case panel');
    expect(await text(page, '#story-case')).toBe('cut_in');
    expect(await text(page, '#story-attempt')).toBe('attempt 0');
    expect(await text(page, '#story-badge')).toMatch(/no attempt/i);
    expect(await text(page, '#story-state')).toBe('idle: an attempt is armed at the next reset');
    expect(await text(page, '#story-body .story-who')).toMatch(/under test\s+sim1 \(simulated; armed at every reset\)\s+actors\s+cutter/);
    expect(await page.isVisible('#lg-actor')).toBe(true);
    expect(await page.isDisabled('#story-reset')).toBe(true);

    await page.keyboard.press(' ');
    await until(async () => (await story(page)).attempt === 1, 'attempt 1 armed when the scene starts');
    expect(await text(page, '#story-attempt')).toBe('attempt 1');
    // blue while under way: "armed" until the cut-in fires, then "running"
    expect(await page.getAttribute('#story-badge', 'class')).toMatch(/badge (armed|running)/);
    // the criteria are listed with their limits from the start
    await until(async () => (await page.locator('#story-body tr[data-criterion]').count()) === 2, 'two criteria');
    expect(await text(page, '#story-body tr[data-criterion="min_ttc"] td.limit')).toBe('≥ 1 s');

    // the cutter in the frames (id 1000000 + n) and drawn as an actor
    const [cutter] = await until(async () => {
      const a = await frameActors(page);
      return a.length ? a : null;
    }, 'the cutter among the NPCs of the frames');
    expect(cutter.actor).toBe('cutter');
    expect(cutter.id).toBeGreaterThanOrEqual(1_000_000);
    // zoomed in on it: a box of its size, not an arrowhead, and room to click it
    await vils(page, `setView(${cutter.x}, ${cutter.y}, 3)`);
    const drawn = await until(async () => (await vils<Actor[]>(page, 'actorsDrawn()')).find((a) => a.actor === 'cutter'), 'the cutter drawn as an actor');
    expect(drawn.id).toBe(cutter.id);
    // the status bar counts it apart from the policy's NPCs
    await until(async () => (await text(page, '#st-npcs')) === '0 + 1 actor', 'the status bar: 0 NPCs + 1 actor');

    // a click on it: the inspector names it (it moves at up to 14 m/s: click where it is now, again if it moved on)
    await until(async () => {
      const a = (await frameActors(page)).find((n) => n.actor === 'cutter');
      if (!a) return false;
      const p = await vils<{ x: number; y: number }>(page, `mapToPage(${a.x}, ${a.y})`);
      await page.mouse.click(p.x, p.y);
      return (await text(page, '#insp-fields')).includes('scripted actor cutter of test case cut_in');
    }, 'the inspector of the cutter');
    expect(await text(page, '#insp-title')).toBe(`Actor cutter · ${cutter.id}`);
    expect(await page.isHidden('#insp-delete')).toBe(true);
    expect(await text(page, '#insp-fields')).not.toMatch(/goal/);
  }, 120_000);

  it('ticks the cut-in at 2.5 s, keeps the screenshot, and ends PASSED with both criteria passed', async () => {
    const ticked = '#story-body li.started[data-event="cut_in"]';
    await until(async () => (await page.locator(ticked).count()) === 1, 'the cut-in ticked', 60_000);
    expect(await text(page, `${ticked} .t`)).toBe('2.5 s');
    expect(await text(page, `${ticked} .tick`)).toBe('✓');
    expect(await text(page, '#story-body .story-happenings')).toMatch(/2\.5 s event started cut_in/);
    // the picture: the ego and the cutter in the middle, the panel and the cutter's inspector open
    const ego = (await vils<{ egos?: Array<{ x: number; y: number }> }>(page, 'lastFrame()')).egos?.[0];
    const cutter = (await frameActors(page))[0];
    if (ego && cutter) await vils(page, `setView(${(ego.x + cutter.x) / 2}, ${(ego.y + cutter.y) / 2}, 7)`);
    if ((await story(page)).state === 'running') await shot(page, 'story-panel.png');

    await until(async () => (await story(page)).status === 'passed', 'the verdict', 90_000);
    await until(async () => (await text(page, '#story-badge')) !== '' && (await page.getAttribute('#story-badge', 'class'))?.includes('passed'), 'the PASSED badge');
    expect((await text(page, '#story-badge')).toUpperCase()).toBe('PASSED');
    expect(await text(page, '#story-state')).toMatch(/^ended at 12\.5 s: end condition$/);
    for (const c of ['no_collision', 'min_ttc']) expect(await text(page, `#story-body tr[data-criterion="${c}"] td.verdict`)).toMatch(/^pass$/i);
    expect(await text(page, '#story-body tr[data-criterion="min_ttc"] td.value')).toMatch(/^\d+\.\d\d s at \d+\.\d s$/);
    // what the page shows is what the server says
    const s = await api('GET', '/api/story');
    expect(s.result.status).toBe('passed');
    expect(Number((await text(page, '#story-body tr[data-criterion="min_ttc"] td.value')).split(' ')[0])).toBeCloseTo(s.result.criteria[1].value, 2);
    expect(await page.isDisabled('#story-reset')).toBe(true);
    await shot(page, 'story-panel-passed.png');
  }, 150_000);

  it('Arm makes attempt 2 (naming attempt 1, the one it shows); Reset ends it (aborted, idle) and takes the actor away', async () => {
    await page.keyboard.press('Escape');
    const sent: unknown[] = [];
    const onRequest = (r: { url(): string; postData(): string | null }) => {
      if (r.url().endsWith('/api/story/arm')) sent.push(JSON.parse(r.postData() ?? 'null'));
    };
    page.on('request', onRequest);
    await page.click('#story-arm');
    await until(async () => (await story(page)).attempt === 2, 'attempt 2');
    page.off('request', onRequest);
    expect(sent).toEqual([{ attempt: 1 }]);
    expect(await text(page, '#story-attempt')).toBe('attempt 2');
    expect(await page.getAttribute('#story-badge', 'class')).toMatch(/badge (armed|running)/);
    expect(await toasts(page)).toMatch(/Attempt 2 armed/);
    expect(await text(page, '#story-body .story-earlier')).toMatch(/earlier: 1 passed/);
    await until(async () => !(await page.isDisabled('#story-reset')), 'Reset enabled while an attempt is under way');
    await page.click('#story-reset');
    await until(async () => (await story(page)).state === 'idle', 'the state idle');
    expect(await text(page, '#story-state')).toMatch(/^idle: no attempt under way/);
    expect((await text(page, '#story-badge')).toUpperCase()).toBe('ABORTED');
    expect(await page.getAttribute('#story-badge', 'class')).toBe('badge aborted');
    expect(await toasts(page)).toMatch(/Attempt 2 reset: aborted, its actors removed/);
    const s = await api('GET', '/api/story');
    expect(s.attempts.map((a: { attempt: number; status: string }) => `${a.attempt} ${a.status}`)).toEqual(['1 passed', '2 aborted']);
    // the actor leaves the frames and the drawing
    await until(async () => (await frameActors(page)).length === 0 && (await vils<Actor[]>(page, 'actorsDrawn()')).length === 0, 'the actor gone');
    expect(unexpected(log)).toEqual([]);
  }, 90_000);

  it('an arm refused as stale (409: another arm came first) makes the panel catch up and say so', async () => {
    // the server's answer to an arm naming an attempt that is no longer the current one
    await page.route('**/api/story/arm', (route) => route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ statusCode: 409, error: 'Conflict', message: 'attempt 2 has ended (the request named attempt 1)' }) }));
    try {
      await page.click('#story-arm');
      await until(async () => (await toasts(page)).includes('Arm refused: attempt 2 was armed meanwhile'), 'the panel says the arm was stale');
    } finally {
      await page.unroute('**/api/story/arm');
    }
    expect((await story(page)).attempt).toBe(2);
  }, 30_000);

  it('a scene serving no test case shows no panel and never asks for one', async () => {
    const asked: string[] = [];
    session!.context.on('request', (r) => {
      if (r.url().includes('/scenes/plain/api/')) asked.push(new URL(r.url()).pathname);
    });
    const { page: plain, log: plainLog } = await openPage(session!.context, `${serve!.address}/scenes/plain/`);
    // decided from the status the page polls anyway
    await until(async () => (await story(plain)).served === 'none', 'the page to know the scene serves no test case');
    const d = await story(plain);
    expect(d.polling).toBe(false);
    expect(d.shown).toBe(false);
    expect(await plain.isHidden('#story-panel')).toBe(true);
    expect(await plain.isHidden('#lg-actor')).toBe(true);
    await plain.keyboard.press('v');
    await until(async () => (await toasts(plain)).includes('This scene serves no test case'), 'V says there is none');
    expect(await plain.isHidden('#story-panel')).toBe(true);
    // three status polls later, still nothing asked of /api/story
    await until(() => asked.filter((p) => p.endsWith('/api/status')).length >= 3, 'three status polls');
    expect(asked.filter((p) => p.includes('/api/story'))).toEqual([]);
    expect(plainLog.errors).toEqual([]);
    await plain.close();
  }, 60_000);

  it('with the real car under test and no car connected, Arm is refused with the server\'s reason', async () => {
    await session!.close();
    await serve!.server.close();
    session = undefined;
    serve = await startServe(serveArgs('--story-ego', 'car'));
    session = await launchBrowser();
    ({ page, log } = await openPage(session.context, `${serve.address}/`));
    await until(async () => (await story(page)).shown, 'the test-case panel');
    expect(await text(page, '#story-state')).toBe('idle: press Arm when the car is where the test begins');
    expect(await text(page, '#story-body .story-who')).toMatch(/under test\s+car \(the real car as sim1; armed by the operator\)/);
    await page.click('#story-arm');
    await until(async () => (await toasts(page)).includes('Arm refused: the vehicle under test, ego car, is not in the scene'), 'the refusal in the server\'s words');
    expect(await page.locator('#toasts .toast.error').count()).toBeGreaterThan(0);
    expect((await story(page)).attempt).toBe(0);
    expect(unexpected(log)).toEqual([]);
  }, 120_000);
});
