/**
 * Helpers for the web map's browser tests: Debian's Chromium driven by playwright-core (no browser
 * download), the page's bundle built fresh from src/web, and the page's test handle (window.__vils).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { ServerOptions, VilsServer } from '../../src/server/app.js';
import { startServer } from '../helpers/server-fixture.js';
import { machineLock } from '../helpers/machine-lock.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { findChromium } from '../support/prerequisites.mjs';

export { findChromium };

/** Debian's chromium (or VILS_CHROMIUM) when present; null (skip) when not, except with CI set (see have). */
export const CHROMIUM = have('chromium') ? findChromium() : null;
export const ARTIFACTS = join(PROJECT_ROOT, 'test', 'web', 'artifacts');

let bundleDir: string | null = null;

/**
 * Builds the page from src/web with the command `npm run build` runs, into a folder of this test process
 * (test files run in parallel: none reads a bundle another is writing), and points the server at it.
 */
export function buildWebBundle(): string {
  if (bundleDir) return bundleDir;
  const dir = mkdtempSync(join(tmpdir(), 'vils-web-'));
  execFileSync('npm', ['run', '-s', 'build:web', '--', `--outdir=${dir}`], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  process.env.VILS_WEB_DIR = dir;
  bundleDir = dir;
  return dir;
}

/**
 * One browser test file at a time on this machine (vitest runs files in parallel): a Chromium drawing at
 * 60 fps next to a server at 50 Hz is load enough on 2 cores. A lock left by a dead process is taken over.
 */
export function browserLock(timeoutMs = 180_000): Promise<() => void> {
  return machineLock('vils-web-browser-tests', timeoutMs);
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile, no network but this machine, no background traffic. */
export async function launchBrowser(): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'vils-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM as string,
    headless: true,
    chromiumSandbox: false, // --no-sandbox: CI runs as root
    args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 860 },
    deviceScaleFactor: 1,
  });
  return {
    browser: context.browser() as Browser,
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface PageLog {
  errors: string[];
  /** requests to anything but the server under test */
  foreign: string[];
}

/** Opens the page, recording console errors, page errors, failed requests and requests leaving `origin`. */
export async function openPage(ctx: BrowserContext, url: string): Promise<{ page: Page; log: PageLog }> {
  const page = await ctx.newPage();
  const origin = new URL(url).origin;
  const log: PageLog = { errors: [], foreign: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') log.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => log.errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => log.errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith(origin.replace(/^http/, 'ws')) && !u.startsWith('data:')) log.foreign.push(u);
  });
  await page.goto(url);
  // a function, not a string: the page's Content-Security-Policy forbids eval, and a string predicate polls with it
  await page.waitForFunction(() => {
    const v = (globalThis as unknown as { __vils?: { mapLoaded(): boolean; lastFrame(): unknown } }).__vils;
    return v !== undefined && v.mapLoaded() && v.lastFrame() !== null;
  }, null, { timeout: 15_000 });
  return { page, log };
}

export interface PageFixture {
  /** the server under test (a test may replace it) */
  server: VilsServer;
  url: string;
  page: Page;
  log: PageLog;
  /** from opening the page to the map drawn and the first frame in [ms] */
  loadMs: number;
}

/**
 * A browser test file's fixture: its turn on the machine, the bundle built, a server with `opts`, the page
 * open in a fresh Chromium; all closed after the file.
 */
export function usePage(opts: () => Promise<ServerOptions> | ServerOptions): PageFixture {
  const fx = {} as PageFixture;
  let session: BrowserSession | undefined;
  let unlock = () => {};
  beforeAll(async () => {
    unlock = await browserLock();
    buildWebBundle();
    ({ server: fx.server, url: fx.url } = await startServer(await opts()));
    session = await launchBrowser();
    const t0 = performance.now();
    ({ page: fx.page, log: fx.log } = await openPage(session.context, `${fx.url}/`));
    fx.loadMs = performance.now() - t0;
  }, 240_000);
  afterAll(async () => {
    await session?.close();
    await fx.server?.close();
    unlock();
  }, 30_000);
  return fx;
}

/** Evaluates an expression on the page's test handle, e.g. vils(page, 'stats()'). */
export async function vils<T>(page: Page, expr: string): Promise<T> {
  return (await page.evaluate(`window.__vils.${expr}`)) as T;
}

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path });
  return path;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` until it returns a truthy value or `timeoutMs` passes. */
/** Polls f until it gives a truthy value; the timeout (at least 30 s) only guards against a hang. */
export async function until<T>(f: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  timeoutMs = Math.max(timeoutMs, 30_000);
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export function mkTemp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
