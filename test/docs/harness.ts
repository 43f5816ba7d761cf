/**
 * Every command block of README.md and docs/*.md runs as written (issue 27 item 1), in order, page by page, on a
 * copy of the repository as a fresh clone has it after `npm ci` (the tracked files as they are in the working
 * tree, the built dist/ and model, node_modules linked) with no ../shared beside it (VILS_SHARED points at a
 * folder that does not exist). What each block must do is written before it in the page (test/docs/blocks.ts);
 * a block that needs ROS 2 or Docker is skipped with that reason; one that needs ../shared runs with it linked
 * beside the copy for that block alone, and is skipped (CI: fails) where there is none. The JSON and YAML blocks must
 * parse. The waits are hang guards: nothing here depends on the machine's speed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { have } from '../helpers/prerequisites.js';
import { machineLock } from '../helpers/machine-lock.js';
import { PROJECT_ROOT, SHARED } from '../helpers/shared.js';
import { parseDoc, serverPort, type DocStep } from './blocks.js';

/** The pages whose servers listen on port 8000: run one after the other in test/docs/readme.test.ts. */
export const PAGES_WITH_SERVERS = ['README.md', 'docs/recording-and-replay.md', 'docs/ros2.md', 'docs/scenarios.md', 'docs/security.md', 'docs/test-cases.md', 'docs/time-sync.md'];

/**
 * Pages without a server on port 8000 that run in test/docs/pages-2.test.ts, beside pages.test.ts (the two files
 * run in parallel: one chain of two and a half minutes was the suite's longest).
 */
export const PAGES_SECOND = ['docs/performance.md', 'docs/maps.md', 'docs/npcs.md'];

/**
 * Pages whose commands use VDS1's default ports (CMD 7001, STATE 7002), in whichever file they run: each holds a
 * machine-wide lock while its blocks run, so that two of them never run at once (pages.test.ts and readme.test.ts
 * run in parallel, and `vils realtime` once met `vils serve --scenario demo_lap_comms` on 7001: EADDRINUSE).
 */
export const PAGES_ON_VDS1_PORTS = ['docs/co-simulation.md', 'docs/scenarios.md'];

/** README.md and every page under docs/. */
export const PAGES = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const RUN_GUARD_MS = 240_000;
const START_GUARD_MS = 120_000;
const STOP_GUARD_MS = 30_000;
/** how long a block waits for a port another checkout's tests hold (a hang guard) */
const PORT_GUARD_MS = 300_000;

let work = '';
let clone = '';
let env: NodeJS.ProcessEnv = {};

/** The repository as a fresh clone has it after `npm ci`, without ../shared beside it. */
function makeClone(): void {
  work = mkdtempSync(join(tmpdir(), 'vils-docs-'));
  clone = join(work, 'vils');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const f of listed.stdout.split('\0')) {
    if (f === '' || !existsSync(join(PROJECT_ROOT, f))) continue;
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(PROJECT_ROOT, f), join(clone, f));
  }
  // what npm ci makes: the build and the default model (copied, so that the project root is the copy)
  cpSync(join(PROJECT_ROOT, 'dist'), join(clone, 'dist'), { recursive: true });
  for (const f of readdirSync(join(PROJECT_ROOT, 'models')).filter((n) => n.endsWith('.onnx'))) cpSync(join(PROJECT_ROOT, 'models', f), join(clone, 'models', f));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  env = { ...process.env, VILS_SHARED: join(work, 'no-shared'), FORCE_COLOR: '0', PATH: `${join(clone, 'node_modules', '.bin')}:${process.env.PATH}` };
  delete env.CI;
  delete env.VITEST;
  delete env.NODE_OPTIONS;
}

/**
 * The copy's first `npx vils`, run to its end before any block: npm links the project into its npx cache
 * (~/.npm/_npx, one folder per project path) and runs its `prepare` there — a whole build, as on a user's first
 * `npx vils` after `npm ci`. Left to the first block, a block that keeps running (a server) was stopped by its
 * Ctrl-C in the middle of that build, and the half-made cache folder failed every later `npx` of the copy (ENOENT
 * on its package.json).
 */
const NPX_GUARD_MS = 300_000;
async function firstNpx(): Promise<void> {
  const proc = startShell('npx vils --version');
  const timer = setTimeout(() => process.kill(-proc.child.pid!, 'SIGKILL'), NPX_GUARD_MS);
  const { code, signal } = await proc.exit;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the copy's first npx vils --version ended with ${code ?? signal}:\n${proc.out}`);
}

interface Proc {
  child: ChildProcess;
  out: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startShell(script: string): Proc {
  const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { child, out: '', exit: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))) };
  child.stdout!.on('data', (d: Buffer) => void (proc.out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (proc.out += d.toString()));
  return proc;
}

const tail = (s: string) => s.split('\n').slice(-40).join('\n');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const where = (s: DocStep) => `${s.file}:${s.line}`;

function signalGroup(p: Proc, sig: NodeJS.Signals): void {
  try {
    process.kill(-p.child.pid!, sig);
  } catch {
    /* gone */
  }
}

async function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let t: NodeJS.Timeout | undefined;
  const r = await Promise.race([p, new Promise<'timeout'>((res) => (t = setTimeout(() => res('timeout'), ms)))]);
  clearTimeout(t);
  return r;
}

/** Runs a block to its end; returns its exit status. */
async function runToEnd(step: Extract<DocStep, { type: 'block' }>): Promise<{ code: number | null; out: string }> {
  const p = startShell(step.body);
  const r = await within(p.exit, RUN_GUARD_MS);
  if (r === 'timeout') {
    signalGroup(p, 'SIGKILL');
    throw new Error(`${where(step)}: still running after ${RUN_GUARD_MS / 1000} s (a hang guard):\n${tail(p.out)}`);
  }
  return { code: r.code, out: p.out };
}

/** Is a process of p's group still there? (npx can exit on Ctrl-C before the server under it has.) */
function groupAlive(p: Proc): boolean {
  try {
    process.kill(-p.child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a server or background process as Ctrl-C does; it must stop cleanly, the whole process group within the
 * guard (a server still shutting down after its shell had gone would answer the next block's health check).
 */
async function stop(p: Proc, label: string): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    signalGroup(p, 'SIGINT');
    const r = await within(p.exit, STOP_GUARD_MS);
    if (r === 'timeout') {
      signalGroup(p, 'SIGKILL');
      throw new Error(`${label}: did not stop within ${STOP_GUARD_MS / 1000} s of Ctrl-C:\n${tail(p.out)}`);
    }
    const clean = r.code === 0 || r.code === 130 || r.signal === 'SIGINT';
    expect(clean, `${label}: stopped by Ctrl-C with code ${r.code} signal ${r.signal}:\n${tail(p.out)}`).toBe(true);
  }
  const deadline = Date.now() + STOP_GUARD_MS;
  while (groupAlive(p) && Date.now() < deadline) await sleep(50);
  if (groupAlive(p)) {
    signalGroup(p, 'SIGKILL');
    throw new Error(`${label}: processes of it still running ${STOP_GUARD_MS / 1000} s after Ctrl-C:\n${tail(p.out)}`);
  }
}

/**
 * Waits until nothing answers HTTP on the port a server block is about to listen on: a server this page left would
 * answer for the new one (a stray `npm start` on 8000 once made a block fail with a message about something else),
 * and on a machine shared with other checkouts their docs tests serve on 8000 too — their turn ends, this one waits
 * (the guard says whose it was). A server of this page's own is stopped before (stopRunning).
 */
async function waitForPortFree(port: number, label: string): Promise<void> {
  const deadline = Date.now() + PORT_GUARD_MS;
  for (;;) {
    let answered = false;
    try {
      await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2000) });
      answered = true;
    } catch {
      /* nothing there: good */
    }
    if (!answered) return;
    if (Date.now() > deadline) throw new Error(`${label}: port ${port} was still taken by a server this test did not start after ${PORT_GUARD_MS / 1000} s; stop it first`);
    await sleep(1000);
  }
}

/** Waits until this machine's UDP ports can be bound (VDS1's 7001 and 7002, which another checkout's tests may hold). */
async function waitForUdpFree(ports: readonly number[], label: string): Promise<void> {
  const free = (port: number) => new Promise<boolean>((resolve) => {
    const sock = createSocket('udp4');
    sock.once('error', () => resolve(false));
    sock.bind(port, '127.0.0.1', () => sock.close(() => resolve(true)));
  });
  const deadline = Date.now() + PORT_GUARD_MS;
  for (;;) {
    const taken: number[] = [];
    for (const p of ports) if (!(await free(p))) taken.push(p);
    if (taken.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${label}: UDP ${taken.join(', ')} still taken by another process after ${PORT_GUARD_MS / 1000} s`);
    await sleep(1000);
  }
}

async function waitForHealth(p: Proc, port: number, label: string): Promise<void> {
  const deadline = Date.now() + START_GUARD_MS;
  while (Date.now() < deadline) {
    if (p.child.exitCode !== null) throw new Error(`${label}: exited with ${p.child.exitCode} before it served:\n${tail(p.out)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok && (await hasRunAWhile(port))) return;
    } catch {
      /* not yet */
    }
    await sleep(250);
  }
  throw new Error(`${label}: no /api/health on port ${port} within ${START_GUARD_MS / 1000} s:\n${tail(p.out)}`);
}

/**
 * A served scene that runs has stepped a second (and recorded it) before the next block, as a reader who watches it
 * for a moment: Ctrl-C right after the health check on a loaded machine left a recording with no frame, and the
 * next block found none to export. Paused, or a status it may not read (tokens): ready as it is.
 */
async function hasRunAWhile(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/api/status`);
  if (!res.ok) return true;
  const st = (await res.json()) as { state?: string; step?: number; recording?: { enabled?: boolean; frames?: number } };
  if (st.state !== 'running') return true;
  return (st.recording?.enabled ? st.recording.frames ?? 0 : st.step ?? 0) >= 10;
}

async function waitForText(p: Proc, text: string, label: string): Promise<void> {
  const deadline = Date.now() + START_GUARD_MS;
  const re = new RegExp(text);
  while (Date.now() < deadline) {
    if (re.test(p.out)) return;
    if (p.child.exitCode !== null) throw new Error(`${label}: exited with ${p.child.exitCode} before saying /${text}/:\n${tail(p.out)}`);
    await sleep(100);
  }
  throw new Error(`${label}: did not say /${text}/ within ${START_GUARD_MS / 1000} s:\n${tail(p.out)}`);
}

const CI_RUN = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');

/** The checks of the pages as text: languages, instructions, the README's length, relative links. */
export function checkPages(): void {
  describe('the pages', () => {
    it('every fenced block has a language and every instruction is known', () => {
      for (const page of PAGES) expect(() => parseDoc(page, readFileSync(join(PROJECT_ROOT, page), 'utf8'))).not.toThrow();
      const blocks = PAGES.flatMap((p) => parseDoc(p, readFileSync(join(PROJECT_ROOT, p), 'utf8'))).filter((s) => s.type === 'block');
      expect(blocks.filter((b) => b.type === 'block' && b.lang === 'sh').length).toBeGreaterThanOrEqual(20);
    });
    it('README.md fits on a screen or two: at most 250 lines', () => {
      expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
    });
    it('every relative link of the pages points at a file of the repository', () => {
      for (const page of PAGES) {
        const text = readFileSync(join(PROJECT_ROOT, page), 'utf8');
        for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
          if (/^[a-z]+:/.test(m[1])) continue;
          expect(existsSync(join(PROJECT_ROOT, dirname(page), m[1])), `${page}: link to ${m[1]}`).toBe(true);
        }
      }
    });
  });
}

/** Runs the command blocks of `pages`, in order, on a copy of the repository made for this file. */
export function runPages(pages: string[]): void {
  beforeAll(makeClone, 120_000);
  beforeAll(firstNpx, NPX_GUARD_MS + 10_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });
  for (const page of pages) {
    const steps = parseDoc(page, readFileSync(join(PROJECT_ROOT, page), 'utf8'));
    if (steps.length === 0) continue;
    describe(page, () => {
      // what server and background blocks started, newest last: a new server stops the servers before it (they
      // would share its port); a background process (Redis, a worker, vils realtime) runs beside the rest
      let running: Array<{ proc: Proc; label: string; server: boolean }> = [];
      const stopRunning = async (onlyServers = false) => {
        const stopping = running.filter((r) => !onlyServers || r.server).reverse();
        running = running.filter((r) => !stopping.includes(r));
        for (const r of stopping) await stop(r.proc, r.label);
      };
      afterAll(() => stopRunning(), 3 * STOP_GUARD_MS);
      if (PAGES_ON_VDS1_PORTS.includes(page)) {
        let unlock = () => {};
        beforeAll(async () => {
          unlock = await machineLock('vils-docs-vds1-ports', 600_000);
          await waitForUdpFree([7001, 7002], page); // held by a checkout whose tests take no lock
        }, 610_000 + PORT_GUARD_MS);
        afterAll(() => unlock());
      }

      for (const step of steps) {
        if (step.type === 'stop') {
          it(`${where(step)}: stop the server (Ctrl-C)`, () => stopRunning(), 3 * STOP_GUARD_MS);
          continue;
        }
        const first = step.body.split('\n').find((l) => l.trim() !== '') ?? '';
        const title = `${where(step)} ${step.lang}: ${first.slice(0, 80)}`;
        if (step.lang === 'json') {
          it(title, () => expect(() => JSON.parse(step.body)).not.toThrow());
          continue;
        }
        if (step.lang === 'yaml') {
          it(title, () => expect(() => parseYaml(step.body)).not.toThrow());
          continue;
        }
        if (step.lang !== 'sh') continue;
        const mode = step.mode;
        if (mode.kind === 'skip' && mode.reason.startsWith('needs ../shared')) {
          // run where ../shared is (CI always has it: there a missing one fails), with it beside the copy only for
          // this block: every other block runs as on a clone without it
          if (!have('shared')) {
            it.skip(`${title} — ${mode.reason}`, () => {});
            continue;
          }
          it(`${title} — with ../shared beside the copy`, async () => {
            const link = join(work, 'shared');
            symlinkSync(SHARED, link, 'dir');
            const before = env.VILS_SHARED;
            env.VILS_SHARED = link;
            try {
              const r = await runToEnd(step);
              expect(r.code, `${where(step)} exit status:\n${tail(r.out)}`).toBe(0);
            } finally {
              env.VILS_SHARED = before;
              rmSync(link);
            }
          }, RUN_GUARD_MS + 10_000);
          continue;
        }
        if (mode.kind === 'skip') {
          it.skip(`${title} — ${mode.reason}`, () => {});
          continue;
        }
        if (mode.kind === 'suite') {
          it(`${title} — what .ci/run runs`, () => {
            const cmd = step.body.trim();
            if (cmd === './.ci/run') accessSync(join(PROJECT_ROOT, '.ci', 'run'), constants.X_OK);
            else if (cmd.startsWith('npm test -- ')) {
              // a part of the suite: the files and folders it names exist
              for (const arg of cmd.slice('npm test -- '.length).split(/\s+/).filter((a) => a !== '' && !a.startsWith('-'))) {
                expect(existsSync(join(PROJECT_ROOT, arg)), `${where(step)}: ${arg}`).toBe(true);
              }
            } else expect(CI_RUN).toContain(cmd);
          });
          continue;
        }
        if (mode.kind === 'run' || mode.kind === 'exits') {
          const status = mode.kind === 'exits' ? mode.status : 0;
          it(title, async () => {
            const r = await runToEnd(step);
            expect(r.code, `${where(step)} exit status:\n${tail(r.out)}`).toBe(status);
          }, RUN_GUARD_MS + 10_000);
          continue;
        }
        if (mode.kind === 'server' || mode.kind === 'background') {
          it(`${title} — keeps running`, async () => {
            if (mode.kind === 'server') await stopRunning(true);
            let script = step.body.trim();
            // `npm ci` is what .ci/run does first on its fresh clone; the copy is already installed
            if (script.startsWith('npm ci && ')) {
              expect(CI_RUN).toMatch(/^(npm|npx -y npm@10) ci\b/m);
              script = script.slice('npm ci && '.length);
            }
            // a server already on the port would answer for this one (a stray `npm start` left on 8000 once made a
            // block fail with a message about something else)
            if (mode.kind === 'server') await waitForPortFree(serverPort(script), where(step));
            const proc = startShell(script);
            running.push({ proc, label: where(step), server: mode.kind === 'server' });
            if (mode.kind === 'server') await waitForHealth(proc, serverPort(script), where(step));
            else await waitForText(proc, mode.ready, where(step));
          }, START_GUARD_MS + STOP_GUARD_MS + PORT_GUARD_MS + 10_000);
          continue;
        }
        if (mode.kind === 'briefly') {
          it(`${title} — starts and runs for ${mode.seconds} s`, async () => {
            for (const line of step.body.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))) {
              const p = startShell(line);
              const r = await within(p.exit, mode.seconds * 1000);
              if (r === 'timeout') {
                signalGroup(p, 'SIGKILL');
                await p.exit;
              } else expect(r.code, `${where(step)} \`${line}\` exited early:\n${tail(p.out)}`).toBe(0);
            }
          }, RUN_GUARD_MS);
        }
      }
    });
}
}
