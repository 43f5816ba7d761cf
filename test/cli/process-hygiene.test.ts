/**
 * The server stops with what started it and says why (issue 27): `npm start` runs it as npm → `sh -c` → node, and
 * killing npm by its pid (SIGTERM, or SIGKILL) used to leave the server running and holding its port. Real
 * processes: a real npm running a start script over the transpiled CLI, a plain Node parent, signals sent to the
 * server itself. Hang guards only, no speed assertions.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { testModel } from '../helpers/server-fixture.js';

let tx: Transpiled;
let vils: string;
const serverPids = new Set<number>();

beforeAll(() => {
  tx = transpile(['src/cli/vils.ts']);
  vils = join(tx.dir, 'src', 'cli', 'vils.js');
  // a project whose `npm start` runs the transpiled CLI the way package.json's runs dist/src/cli/vils.js
  writeFileSync(join(tx.dir, 'package.json'), JSON.stringify({ name: 'vils-hygiene-probe', private: true, type: 'module', scripts: { start: 'node src/cli/vils.js start' } }));
}, 60_000);

afterAll(() => {
  // a failed test must not leave a server behind
  for (const pid of serverPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  tx?.remove();
});

interface Run {
  child: ChildProcess;
  lines: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment without the npm_* variables of an enclosing `npm test` (they would steer the inner npm). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  return { ...env, VILS_MODEL: testModel(), npm_config_update_notifier: 'false', ...extra };
}

function launch(cmd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(cmd, args, { cwd: tx.dir, stdio: ['ignore', 'pipe', 'pipe'], env });
  const lines: string[] = [];
  const take = (d: Buffer) => {
    for (const l of d.toString().split(/\r?\n/).filter(Boolean)) {
      lines.push(l);
      const pid = /"pid":(\d+)/.exec(l);
      if (pid) serverPids.add(Number(pid[1]));
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exit };
}

async function waitFor(run: Run, re: RegExp, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const line = run.lines.find((l) => re.test(l));
    if (line) return line;
    if (Date.now() > end) throw new Error(`no line matching ${re} within ${ms} ms:\n${run.lines.join('\n')}`);
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

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createTcpServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Waits (at most 30 s) until the port can be listened on again. */
async function portReleased(port: number): Promise<boolean> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (await canListen(port)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const serveArgs = (port: number) => ['--port', String(port), '--host', '127.0.0.1', '--no-record', '--log-format', 'json'];

/** The server's pid, from its JSON ready line. */
async function ready(run: Run): Promise<number> {
  const line = await waitFor(run, /VILS ready/);
  return (JSON.parse(line) as { pid: number }).pid;
}

describe.skipIf(process.platform !== 'linux')('npm start, its npm killed by pid', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`${signal} to npm: the server stops, says its parent exited, and the port is free`, async () => {
      const port = await freePort();
      const run = launch('npm', ['start', '--', ...serveArgs(port)], cleanEnv());
      const guard = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
      try {
        const server = await ready(run);
        expect(server).not.toBe(run.child.pid); // npm → sh → node
        run.child.kill(signal);
        await run.exit;
        expect(await portReleased(port)).toBe(true);
        expect(await gone(server)).toBe(true);
        const why = JSON.parse(await waitFor(run, /parent process \d+ exited: stopping/)) as { msg: string };
        // SIGKILL leaves the shell npm ran the script in: the server names npm itself
        if (signal === 'SIGKILL') expect(why.msg).toBe(`parent process ${run.child.pid} exited: stopping`);
      } finally {
        clearTimeout(guard);
      }
    }, 90_000);
  }
});

describe('a plain parent process', () => {
  /** A Node parent that starts the CLI (no npm) and waits forever. */
  function parentOf(port: number, env: Record<string, string> = {}): Run {
    const code = `const c = require('child_process').spawn(process.execPath, ${JSON.stringify([vils, 'start', ...serveArgs(port)])}, { stdio: 'inherit' }); setInterval(() => {}, 1e9);`;
    return launch(process.execPath, ['-e', code], cleanEnv(env));
  }

  it('SIGKILL to the parent: the server stops, names the parent, and the port is free', async () => {
    const port = await freePort();
    const run = parentOf(port);
    const guard = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
    try {
      const server = await ready(run);
      run.child.kill('SIGKILL');
      expect(await portReleased(port)).toBe(true);
      expect(await gone(server)).toBe(true);
      // the server's stdout outlives the parent (the pipe is ours)
      await waitFor(run, new RegExp(`parent process ${run.child.pid} exited: stopping`));
    } finally {
      clearTimeout(guard);
    }
  }, 90_000);

  it('VILS_PARENT_WATCH=off: the server outlives its parent (detached use)', async () => {
    const port = await freePort();
    const run = parentOf(port, { VILS_PARENT_WATCH: 'off' });
    const guard = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
    let server = 0;
    try {
      server = await ready(run);
      run.child.kill('SIGKILL');
      await run.exit;
      await new Promise((r) => setTimeout(r, 2500)); // several watch periods
      expect(alive(server)).toBe(true);
      expect(run.lines.some((l) => /parent process/.test(l))).toBe(false);
    } finally {
      clearTimeout(guard);
      if (server) process.kill(server, 'SIGTERM');
    }
    expect(await gone(server)).toBe(true);
    expect(await portReleased(port)).toBe(true);
  }, 90_000);
});

describe('signals sent to the server', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: logs it, closes and exits 0, the port is free`, async () => {
      const port = await freePort();
      const run = launch(process.execPath, [vils, 'start', ...serveArgs(port)], cleanEnv());
      const guard = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
      try {
        await ready(run);
        run.child.kill(signal);
        expect(await run.exit).toEqual({ code: 0, signal: null });
        expect(run.lines.some((l) => l.includes(`received ${signal}: stopping`))).toBe(true);
        expect(run.lines.some((l) => /"msg":"stopped"/.test(l))).toBe(true);
        expect(await portReleased(port)).toBe(true);
      } finally {
        clearTimeout(guard);
      }
    }, 60_000);
  }
});
