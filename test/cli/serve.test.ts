/**
 * `vils serve` as a user runs it, in a real process (the sources as Node runs them in production): a fresh
 * clone with no shared data folder builds its model from the shipped checkpoint and drives NPCs; a port in
 * use is said and exits non-zero; logs are JSON when piped and one readable line per event on a terminal,
 * and tell what happened (clients, egos, an oversized frame as a warning without a stack trace).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';

let tx: Transpiled;
let vils: string;
beforeAll(() => {
  tx = transpile(['src/cli/vils.ts', 'converters/ensure-default-model.ts']);
  vils = join(tx.dir, 'src', 'cli', 'vils.js');
}, 60_000);
afterAll(() => tx?.remove());

interface Run {
  child: ChildProcess;
  out: string[];
  err: string[];
  exit: Promise<number | null>;
}

function launch(args: string[], env: Record<string, string> = {}, viaTerminal = false): Run {
  const cmd = [process.execPath, vils, ...args];
  // `script` gives the process a terminal (stdout.isTTY), as when a user starts it by hand
  const child = viaTerminal
    ? spawn('script', ['-qefc', cmd.map((a) => `'${a}'`).join(' '), '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    : spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout!.on('data', (d: Buffer) => out.push(...d.toString().split(/\r?\n/).filter(Boolean)));
  child.stderr!.on('data', (d: Buffer) => err.push(...d.toString().split(/\r?\n/).filter(Boolean)));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, err, exit };
}

async function waitFor(run: Run, re: RegExp, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const line = run.out.find((l) => re.test(l)) ?? run.err.find((l) => re.test(l));
    if (line) return line;
    if (Date.now() > end) throw new Error(`no line matching ${re} within ${ms} ms:\n${[...run.out, ...run.err].join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createTcpServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const common = ['--host', '127.0.0.1', '--no-record'];

describe('a fresh clone', () => {
  it('ships the S75 checkpoint and its licence in git (not ignored)', () => {
    const tracked = execFileSync('git', ['ls-files', 'models/checkpoints'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n');
    expect(tracked).toEqual(expect.arrayContaining(['models/checkpoints/policy_S75_2025-05-21_u4800.pt', 'models/checkpoints/LICENSE-gpudrive.txt']));
  });

  it('npm ci accepts the lock: every optional dependency a package declares has an entry, and none asks for Node 22 only', () => {
    const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optionalDependencies?: Record<string, string>; engines?: { node?: string } }> };
    const missing: string[] = [];
    const node22: string[] = [];
    for (const [key, pkg] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
        // npm resolves a dependency next to its dependant, then up the tree
        const parts = key.split('node_modules/');
        const found = parts.some((_, i) => lock.packages[`${parts.slice(0, parts.length - i).join('node_modules/')}node_modules/${dep}`]) || lock.packages[`node_modules/${dep}`];
        if (!found) missing.push(`${dep} (of ${key})`);
      }
      if (/^>=\s*2[2-9]/.test(pkg.engines?.node ?? '')) node22.push(`${key} (${pkg.engines!.node})`);
    }
    expect(missing).toEqual([]);
    expect(node22).toEqual([]); // EBADENGINE on Node 20
  });

  it('the Docker image (no engine here to build it): node 22, the checkpoint copied in, the model built and checked, not root, a health check', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const lines = text.split('\n').filter((l) => !l.startsWith('#'));
    expect(lines.find((l) => l.startsWith('FROM '))).toBe('FROM node:22-slim');
    expect(text).toMatch(/^COPY models\/checkpoints \.\/models\/checkpoints$/m);
    expect(text).toMatch(/npm ci --include=dev && npm prune --omit=dev[^\n]*\\\n\s*&& test -s models\/gpudrive-policy\.onnx/);
    const user = lines.find((l) => l.startsWith('USER '));
    expect(user).toBeDefined();
    expect(user).not.toMatch(/root|\b0\b/);
    expect(lines.indexOf(user!)).toBeLessThan(lines.findIndex((l) => l.startsWith('CMD ')));
    expect(text).toMatch(/^HEALTHCHECK .*\\\n\s*CMD .*\/api\/health/m);
    // every file the image copies is in the repository (a build gets the repository, not ../shared)
    const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n'));
    for (const m of text.matchAll(/^COPY (.+) \S+$/gm)) {
      for (const src of m[1].split(' ')) expect([...tracked].some((f) => f === src || f.startsWith(`${src}/`)), `${src} is in git`).toBe(true);
    }
  });

  it('with no shared data folder, builds its model from the shipped checkpoint and drives NPCs', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vils-no-shared-'));
    const model = join(mkdtempSync(join(tmpdir(), 'vils-fresh-')), 'gpudrive-policy.onnx');
    const port = await freePort();
    // the install step first (npm ci runs it), then the server
    const env = { VILS_SHARED: empty, VILS_MODEL: model, VILS_CHECKPOINT: '' };
    const install = execFileSync(process.execPath, [join(tx.dir, 'converters', 'ensure-default-model.js')], { env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(install).toMatch(/built .*gpudrive-policy\.onnx from policy_S75_2025-05-21_u4800\.pt/);
    expect(existsSync(model)).toBe(true);
    const run = launch(['serve', '--port', String(port), ...common], env);
    try {
      await waitFor(run, /VILS ready/);
      const npcs = async () => ((await (await fetch(`http://127.0.0.1:${port}/api/npcs`)).json()) as { npcs: Array<{ id: number; x: number; y: number }> }).npcs;
      const a = await npcs();
      expect(a.length).toBe(20);
      await new Promise((r) => setTimeout(r, 1500));
      const b = await npcs();
      const moved = b.filter((n) => {
        const o = a.find((m) => m.id === n.id);
        return o && Math.hypot(o.x - n.x, o.y - n.y) > 1;
      });
      expect(moved.length).toBeGreaterThanOrEqual(10);
      const st = (await (await fetch(`http://127.0.0.1:${port}/api/status`)).json()) as { policy: string; cpus: Record<string, string>; inference_thread: unknown; timings: Record<string, number> };
      expect(st.policy).toBe('policy_S75_2025-05-21_u4800.pt');
      // the policy on its own thread, the shield's prediction done meanwhile (a part of the shield's time)
      expect(st.inference_thread).toEqual({ restarts: 0, last_failure: null });
      expect(st.timings.predict_ms).toBeGreaterThan(0);
      expect(st.timings.predict_ms).toBeLessThanOrEqual(st.timings.shield_ms);
      // no simulated egos in a real-time thread: --cpus auto leaves the server on all its CPUs, and says so
      expect(st.cpus).toMatchObject({ setting: 'auto', cpus: 'all' });
    } finally {
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
    }
  }, 90_000);
});

describe('vils serve operations', () => {
  let blocker: Server;
  afterAll(() => blocker?.close());

  const untilExit = async (run: Run) => {
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
    const code = await run.exit;
    clearTimeout(timer);
    return code;
  };

  it('a port in use: says why and exits 1 before loading anything, and writes no recording (it used to load for a minute and leave one)', async () => {
    blocker = createTcpServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)));
    const records = join(mkdtempSync(join(tmpdir(), 'vils-rec-')), 'recordings');
    // a model that is not there: a server that loaded anything would fail on it instead
    const run = launch(['serve', '--port', String(port), '--host', '127.0.0.1', '--record-dir', records, '--log-format', 'json'], { VILS_MODEL: join(records, 'no-model.onnx') });
    expect(await untilExit(run)).toBe(1);
    expect(run.err.join('\n')).toMatch(new RegExp(`^vils serve: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use \\(EADDRINUSE\\)`));
    expect(run.err.join('\n')).not.toMatch(/no-model|usage:/);
    expect(run.out).toEqual([]); // no log line: nothing was started
    expect(existsSync(records)).toBe(false);
  }, 40_000);

  it('a missing map names where it looked and the maps there are; every problem of a start is said at once', async () => {
    const records = join(mkdtempSync(join(tmpdir(), 'vils-rec-')), 'recordings');
    const run = launch(['serve', '--port', String(await freePort()), '--host', '127.0.0.1', '--map', 'maps/nope.json', '--record-dir', records], { VILS_MODEL: join(records, 'no-model.onnx') });
    expect(await untilExit(run)).toBe(1);
    const err = run.err.join('\n');
    expect(err).toContain(`--map: map maps/nope.json not found: looked for ${join(process.cwd(), 'maps', 'nope.json')}; the maps in maps: demo-track.json`);
    expect(existsSync(records)).toBe(false);
    // a file where the record folder would be made, a taken port and the missing map: all three, one a line
    const file = join(mkdtempSync(join(tmpdir(), 'vils-rec-')), 'a-file');
    writeFileSync(file, '');
    const port = (blocker.address() as { port: number }).port;
    const all = launch(['serve', '--port', String(port), '--host', '127.0.0.1', '--map', 'maps/nope.json', '--record-dir', join(file, 'recordings')], { VILS_MODEL: join(file, 'no-model.onnx') });
    expect(await untilExit(all)).toBe(1);
    const lines = all.err.join('\n');
    expect(lines).toMatch(/^vils serve: cannot start:\n  - cannot listen on 127\.0\.0\.1:\d+: the port is in use[^\n]*\n  - --map: map maps\/nope\.json not found[^\n]*\n  - cannot record into [^\n]*a-file\/recordings: [^\n]*a-file is not a folder/);
  }, 40_000);

  it('a start refused after loading (a CPU list it may not use) leaves no recording either', async () => {
    const records = join(mkdtempSync(join(tmpdir(), 'vils-rec-')), 'recordings');
    const run = launch(['serve', '--port', String(await freePort()), '--host', '127.0.0.1', '--record-dir', records, '--cpus', '4095', '--log-format', 'json'], { VILS_MODEL: testModel() });
    expect(await untilExit(run)).toBe(2);
    expect(run.err.join('\n')).toMatch(/--cpus/);
    expect(existsSync(records) ? readdirSync(records).filter((n) => n.endsWith('.mcap')) : []).toEqual([]);
  }, 60_000);

  it('logs JSON when piped, and what happened: clients, egos, an oversized frame as a warning', async () => {
    const port = await freePort();
    const run = launch(['serve', '--port', String(port), ...common], { VILS_MODEL: testModel() });
    try {
      const ready = JSON.parse(await waitFor(run, /VILS ready/)) as { level: number; msg: string };
      expect(ready.level).toBe(30);
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/vils/stream`);
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'ego_state', ego_id: 'car-7', timestamp: Date.now() / 1000, data: { lat: 37.3645, lon: 126.7239, heading: 0, speed: 1 } }));
      await waitFor(run, /ego car-7 connected/);
      ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(70 * 1024) }));
      const big = JSON.parse(await waitFor(run, /message over 65536 bytes/)) as { level: number; msg: string; err?: unknown; stack?: unknown };
      expect(big.level).toBe(40); // warn
      expect(big.err).toBeUndefined();
      await waitFor(run, /client 1 \(127\.0\.0\.1, operator\) disconnected/);
      expect(run.out.some((l) => /client 1 \(127\.0\.0\.1, operator\) connected to the stream/.test(l))).toBe(true);
      expect(run.out.join('\n')).not.toMatch(/"stack"/);
      for (const l of run.out) expect(() => JSON.parse(l)).not.toThrow();
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  }, 60_000);

  it('logs one readable line per event on a terminal', async () => {
    const port = await freePort();
    const run = launch(['serve', '--port', String(port), ...common], { VILS_MODEL: testModel() }, true);
    try {
      // eslint-disable-next-line no-control-regex
      const ready = (await waitFor(run, /VILS ready/)).replace(/\x1b\[[0-9;]*m/g, '');
      expect(ready).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: VILS ready in [\d.]+ s on http:\/\/127\.0\.0\.1:\d+/);
      expect(() => JSON.parse(ready)).toThrow();
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  }, 60_000);
});
