/**
 * Four assets in child processes (three Node, one the Python example) through the real UDP protocol: the
 * invariants are checked at every change of Tc (server side) and at every step (asset side, Ti ≤ the Tc it
 * read); one asset is killed mid-run, removed after the timeout, and the others go on to the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../../src/time/clock.js';
import { runSession } from '../../src/time/run-session.js';
import { TimeSession, type RunnerEvent } from '../../src/time/session.js';
import { AssetServer } from '../../src/time/asset-server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/udp-asset.mjs', import.meta.url));
const PY_ASSET = fileURLToPath(new URL('../../examples/time_asset.py', import.meta.url));

interface Child {
  name: string;
  proc: ChildProcess;
  lines: { t_us: number; tc_us: number }[];
  exit: Promise<number | null>;
  stderr: string;
}

function start(name: string, cmd: string, args: string[]): Child {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const c: Child = { name, proc, lines: [], exit: new Promise((r) => proc.on('exit', (code) => r(code))), stderr: '' };
  let buf = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      c.lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  proc.stderr!.on('data', (d: Buffer) => (c.stderr += d.toString()));
  return c;
}

describe('external assets in child processes over UDP', () => {
  it('4 assets (3 Node, 1 Python): invariants hold throughout; a killed asset is removed after the timeout and the rest finish', async () => {
    const END_US = 2_000_000;
    const KILL_AT_US = 700_000;
    const TIMEOUT_S = 1; // generous: a survivor starved by a loaded machine must not be taken for dead
    const session = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 40_000, assetTimeoutS: TIMEOUT_S, clock: createSystemClock({ spinS: 0 }) });
    const conductor = session.conductor;
    const server = new AssetServer({ hub: session, port: 0, timeoutMs: TIMEOUT_S * 1000 });
    const { port } = await server.start();
    const events: RunnerEvent[] = [];
    session.onEvent((e) => events.push(e));
    const breaches: string[] = [];
    let tcChanges = 0;
    session.onTc((tc) => {
      tcChanges++;
      const st = conductor.status();
      const times = st.assets.map((a) => a.timeUs);
      if (times.length === 0) return;
      if (Math.max(...times) > tc) breaches.push(`a.2 at ${tc}`);
      if (tc > Math.min(...times) + st.dmaxUs) breaches.push(`c.2 at ${tc}`);
      if (Math.max(...times) - Math.min(...times) > st.dmaxUs) breaches.push(`a.5 at ${tc}`);
    });

    const node = (name: string, stepUs: number, workMs: number) => start(name, process.execPath, [FIXTURE, String(port), name, String(stepUs), String(END_US), String(workMs)]);
    const children = [
      node('node-a', 10_000, 0.5),
      node('node-b', 20_000, 1),
      node('victim', 10_000, 0.5),
      start('python', 'python3', [PY_ASSET, '--port', String(port), '--name', 'python', '--step-ms', '10', '--until-s', String(END_US / 1e6), '--work-ms', '0.5', '--log']),
    ];
    const victim = children[2];
    try {
      // start the core once all four have registered (so that all start at 0)
      const t0 = performance.now();
      while (conductor.size < 4) {
        if (performance.now() - t0 > 20_000) throw new Error(`only ${conductor.names().join(', ')} registered: ${children.map((c) => c.stderr).join(' ')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      let killedAtS = NaN;
      session.onTc((tc) => {
        if (tc >= KILL_AT_US && Number.isNaN(killedAtS)) {
          killedAtS = performance.now() / 1000;
          victim.proc.kill('SIGKILL');
        }
      });
      const sum = await runSession(session, { endUs: END_US });
      const codes = await Promise.all(children.map((c) => c.exit));

      expect(breaches).toEqual([]);
      expect(sum.violations).toBe(0);
      expect(sum.checks).toBeGreaterThan(400);
      expect(tcChanges).toBeGreaterThan(100);
      expect(sum.coreTimeUs).toBe(END_US);
      // the victim was removed for its silence, once, after about the timeout; nobody else was
      const left = events.filter((e) => e.type === 'left').map((e) => (e as { name: string; reason: string }).name + ':' + (e as { reason: string }).reason);
      expect(left.sort()).toEqual(['node-a:left', 'node-b:left', 'python:left', 'victim:timeout']);
      const removal = sum.status.departed.find((d) => d.name === 'victim')!;
      expect(removal.final.timeUs).toBeGreaterThanOrEqual(KILL_AT_US - 40_000);
      expect(removal.final.timeUs).toBeLessThanOrEqual(KILL_AT_US + 40_000);
      expect(server.stats.removed).toEqual({ timeout: 1 });
      expect(server.stats.dropped).toEqual({});
      // the survivors ran to the end and left cleanly, every step within the Tc they had read
      expect(codes).toEqual([0, 0, null, 0]);
      for (const c of [children[0], children[1], children[3]]) {
        const step = c.name === 'node-b' ? 20_000 : 10_000;
        expect(c.lines.length, c.name).toBe(END_US / step);
        c.lines.forEach((l, k) => {
          expect(l.t_us).toBe((k + 1) * step);
          expect(l.t_us).toBeLessThanOrEqual(l.tc_us);
        });
      }
      expect(victim.lines.every((l) => l.t_us <= l.tc_us)).toBe(true);
      // the survivors report their own held count-ups
      expect(sum.status.departed.filter((d) => d.reason === 'left').every((d) => d.final.progressed > 0)).toBe(true);
    } finally {
      for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
      await server.close();
    }
  });

  it('lockstep over UDP (2 Node, 1 Python): Tc advances only when every asset has reported the step', async () => {
    const END_US = 1_500_000;
    const session = new TimeSession({ mode: 'lockstep', coreStepUs: 10_000, assetTimeoutS: 2, clock: createSystemClock({ spinS: 0 }) });
    const conductor = session.conductor;
    const server = new AssetServer({ hub: session, port: 0, timeoutMs: 2000 });
    const { port } = await server.start();
    const notInStep: string[] = [];
    let advances = 0;
    session.onTc((tc) => {
      advances++;
      // after each advance every asset is exactly one step behind: all of them reported the previous step
      for (const a of conductor.status().assets) if (a.timeUs !== tc - 10_000) notInStep.push(`${a.name} ${a.timeUs} at Tc ${tc}`);
    });
    const children = [
      start('n1', process.execPath, [FIXTURE, String(port), 'n1', '10000', String(END_US), '0']),
      start('n2', process.execPath, [FIXTURE, String(port), 'n2', '10000', String(END_US), '0.3']),
      start('py', 'python3', [PY_ASSET, '--port', String(port), '--name', 'py', '--step-ms', '10', '--until-s', String(END_US / 1e6), '--log']),
    ];
    try {
      const t0 = performance.now();
      while (conductor.size < 3) {
        if (performance.now() - t0 > 20_000) throw new Error(`only ${conductor.names().join(', ')} registered`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const sum = await runSession(session, { endUs: END_US });
      expect(await Promise.all(children.map((c) => c.exit))).toEqual([0, 0, 0]);
      expect(sum.violations).toBe(0);
      expect(advances).toBe(END_US / 10_000);
      expect(notInStep).toEqual([]);
      for (const c of children) expect(c.lines.map((l) => l.t_us)).toEqual(Array.from({ length: END_US / 10_000 }, (_, k) => (k + 1) * 10_000));
    } finally {
      for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
      await server.close();
    }
  });
});
