/**
 * No silent hangs on the batch queue (issue 27): `vils batch --queue` with a wrong Redis address fails with the
 * address, the cause and how to start Redis; with Redis up but no worker it says "waiting for a worker" with the
 * command that starts one, keeps waiting, and finishes once a worker comes. The CLI runs compiled (npm run build)
 * as a child process; the timeouts are hang guards, the assertions are on what the CLI says and its exit status.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { findRedis } from '../support/prerequisites.mjs';

const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'vils.js');
const HANG_GUARD_MS = 60_000;

/** a campaign file and a fresh --out in a temporary folder: `batch` arguments */
function campaign(runs = 1): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'vils-queue-hints-'));
  const iso = join(PROJECT_ROOT, 'configs', 'experiments', 'iso7401.yaml');
  const file = join(dir, 'campaign.yaml');
  writeFileSync(file, `name: hints\nduration: 0.5\nruns:\n${`  - scenario: ${iso}\n`.repeat(runs)}`);
  return [file, '--out', join(dir, 'out')];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

interface Run {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
  /** resolves once stderr matches (rejects when the process exits first) */
  stderrMatches(re: RegExp): Promise<void>;
}

const started: ChildProcess[] = [];

function vils(args: string[]): Run {
  const proc = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: PROJECT_ROOT });
  started.push(proc);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return {
    proc, out: () => out, err: () => err, exit,
    stderrMatches: (re) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (re.test(err)) resolve();
        };
        proc.stderr!.on('data', check);
        check();
        void exit.then((code) => (re.test(err) ? resolve() : reject(new Error(`exited (${code}) without ${re}: ${err}`))));
      }),
  };
}

afterEach(async () => {
  for (const p of started.splice(0)) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill('SIGTERM');
      await new Promise((r) => p.once('exit', r));
    }
  }
});

describe('vils batch --queue with no Redis at the address', () => {
  it('nothing listens on the port: exits non-zero naming the address, ECONNREFUSED and how to start Redis', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const r = vils(['batch', ...campaign(), '--queue', url]);
    const code = await r.exit;
    expect(code).not.toBe(0);
    expect(r.err()).toContain(`cannot reach Redis at ${url}`);
    expect(r.err()).toContain('ECONNREFUSED');
    expect(r.err()).toMatch(/redis-server/);
    expect(r.err()).toMatch(/apt-get install redis-server/);
  }, HANG_GUARD_MS);

  it('something accepts but never answers: gives up after its connect timeout and says so', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((sock) => void sockets.push(sock)); // reads nothing, answers nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `redis://127.0.0.1:${(silent.address() as { port: number }).port}`;
      const r = vils(['batch', ...campaign(), '--queue', url]);
      expect(await r.exit).not.toBe(0);
      expect(r.err()).toContain(`no answer from Redis at ${url}`);
      expect(r.err()).toMatch(/within 5 s\. Start Redis with `redis-server`/);
    } finally {
      for (const sock of sockets) sock.destroy();
      await new Promise((r) => silent.close(r));
    }
  }, HANG_GUARD_MS);

  it('vils worker on a wrong address: the same message, non-zero', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const r = vils(['worker', '--queue', url, '--concurrency', '1']);
    expect(await r.exit).not.toBe(0);
    expect(r.err()).toContain(`vils worker: cannot reach Redis at ${url}`);
  }, HANG_GUARD_MS);
});

const REDIS = have('redis') ? findRedis() : null;

describe.skipIf(!REDIS)('vils batch --queue on a real redis-server with no worker', () => {
  let redis: ChildProcess | null = null;
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn(REDIS!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('redis-server did not start')), 20_000);
      redis!.stdout!.on('data', (d: Buffer) => {
        if (/Ready to accept connections/.test(d.toString())) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    url = `redis://127.0.0.1:${port}`;
  }, HANG_GUARD_MS);

  afterAll(() => {
    redis?.kill('SIGTERM');
  });

  it('prints "waiting for a worker" with the command that starts one, keeps waiting, and finishes when a worker comes', async () => {
    const batch = vils(['batch', ...campaign(2), '--queue', url, '--queue-name', 'hints', '--json']);
    await batch.stderrMatches(/waiting for a worker/);
    expect(batch.err()).toContain(`no run taken from queue hints on ${url}`);
    expect(batch.err()).toContain('(no worker is connected)');
    expect(batch.err()).toContain(`npx vils worker --queue ${url} --queue-name hints`);
    expect(batch.proc.exitCode).toBeNull(); // still waiting
    // the worker the hint names: the campaign completes
    const worker = vils(['worker', '--queue', url, '--queue-name', 'hints', '--concurrency', '1']);
    expect(await batch.exit).toBe(0);
    expect(JSON.parse(batch.out().trim())).toMatchObject({ executor: 'queue', runs: 2, ran: 2, failed: 0 });
    expect(batch.err().match(/waiting for a worker/g)).toHaveLength(1);
    worker.proc.kill('SIGTERM');
    expect(await worker.exit).toBe(0);
  }, HANG_GUARD_MS);
});
