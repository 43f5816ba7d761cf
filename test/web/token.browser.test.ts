/**
 * The web map on a server with tokens, in a real browser: opened with ?token=<operator> it loads, streams
 * and controls the session (its REST calls carry the token, its stream URL too); with a viewer token it
 * watches and a command shows the server's refusal; without a token it says what is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VilsServer } from '../../src/server/app.js';
import { accessSettings } from '../../src/server/access.js';
import { startServer } from '../helpers/server-fixture.js';
import { CHROMIUM, browserLock, buildWebBundle, launchBrowser, openPage, until, vils, type BrowserSession } from './browser.js';

const OPERATOR = 'page-operator-0123456789';
const VIEWER = 'page-viewer-0123456789ab';

describe.skipIf(!CHROMIUM)('web map with access tokens', () => {
  let server: VilsServer;
  let url: string;
  let session: BrowserSession;
  let unlock = () => {};
  beforeAll(async () => {
    unlock = await browserLock();
    buildWebBundle();
    const access = accessSettings({ tokens: [{ token: OPERATOR, role: 'operator', name: 'desk' }, { token: VIEWER, role: 'viewer', name: 'wall' }] }, {});
    ({ server, url } = await startServer({ config: { npc_target: 4 }, access }));
    session = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await session?.close();
    await server?.close();
    unlock();
  }, 30_000);

  it('opened with an operator token: loads, streams and pauses the session through the API', async () => {
    const { page, log } = await openPage(session.context, `${url}/?token=${OPERATOR}`);
    await until(async () => (await page.locator('#st-conn').innerText()) === 'live', 'the stream to be live');
    expect(server.host.runner.state).toBe('running');
    await page.keyboard.press('Space');
    await until(() => server.host.runner.state === 'paused', 'the server to be paused by the page');
    // the page learns the new state from the server's answer: press again only once it shows it
    await until(async () => (await page.locator('#st-state').textContent()) === 'paused', 'the page to show paused');
    await page.keyboard.press('Space');
    await until(() => server.host.runner.state === 'running', 'the server to run again');
    expect(await vils<number>(page, 'mapCounts().lane')).toBeGreaterThan(0);
    expect(log.errors).toEqual([]);
    expect(log.foreign).toEqual([]);
    // a reload without ?token keeps the tab's token
    await page.goto(`${url}/`);
    await until(async () => (await page.locator('#st-conn').innerText()) === 'live', 'live again after a reload without ?token');
    await page.close();
  });

  it('with a viewer token: watches, and a command shows the server’s refusal', async () => {
    const { page } = await openPage(session.context, `${url}/?token=${VIEWER}`);
    await until(async () => (await page.locator('#st-conn').innerText()) === 'live', 'the stream to be live');
    expect(server.host.runner.state).toBe('running');
    await page.keyboard.press('Space');
    await until(async () => /needs a operator token; wall is a viewer/.test((await page.locator('#toasts').allInnerTexts()).join('\n')), 'the refusal shown');
    expect(server.host.runner.state).toBe('running');
    await page.close();
  });

  it('without a token: says a token is needed instead of showing an empty map', async () => {
    const context = await session.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${url}/`);
      await until(async () => /needs a viewer token/.test(await page.locator('body').innerText()), 'the page to say a token is needed', 10_000);
    } finally {
      await context.close();
    }
  });
});
