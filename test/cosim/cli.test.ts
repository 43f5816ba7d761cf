/** `vils realtime`: argument handling, and a real process's health lines and clean stop on SIGINT / SIGTERM. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/commands.js';
import { parseRealtimeArgs, realtimeCommand, startRealtime } from '../../src/cli/realtime.js';
import { specCmd } from './helpers/spec-vectors.js';
import { transpile } from './helpers/transpile.js';
import { UdpPeer, freePort, sleep } from './helpers/udp.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-realtime-cli-'));
const code = transpile(['src/cli/realtime.ts']);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  code.remove();
});
const car = join(dir, 'car.yaml');
const tire = join(dir, 'tire.yaml');
writeFileSync(car, 'mass: 1500.0\n');
writeFileSync(tire, 'B_lat: 8.0\n');
const PROBE = code.probe('realtime.mjs', "import { realtimeCommand } from './src/cli/realtime.js';\nprocess.exitCode = await realtimeCommand.run(process.argv.slice(2));\n");

describe('vils realtime: arguments', () => {
  it('usage names both forms; errors are UsageErrors with a reason', async () => {
    expect(realtimeCommand.usage).toMatch(/^vils realtime <vehicle.yaml> <tire.yaml> \[--level=L1\|L2\|L3\] \[--cmd-port=7001\]/);
    expect(realtimeCommand.usage).toMatch(/vils realtime --scene=<world\|scene.yaml>/);
    await expect(realtimeCommand.run([])).rejects.toThrow(UsageError);
    await expect(realtimeCommand.run([car])).rejects.toThrow(/give <vehicle.yaml> <tire.yaml>, or --scene=<yaml>/);
    await expect(realtimeCommand.run([car, tire, '--level=L5'])).rejects.toThrow(/--level must be one of L1, L2, L3/);
    await expect(realtimeCommand.run([car, tire, '--rate=fast'])).rejects.toThrow(/--rate must be a number/);
    await expect(realtimeCommand.run([car, tire, '--protocol=6'])).rejects.toThrow(/--protocol must be an integer in \[1, 5\]/);
    await expect(realtimeCommand.run([car, tire, '--failsafe=coast'])).rejects.toThrow(/--failsafe must be straight .* or hold-steer/);
    await expect(realtimeCommand.run([car, tire, '--lugre=maybe'])).rejects.toThrow(/--lugre takes on\|off/);
    await expect(realtimeCommand.run([`--scene=${car}`, car, tire])).rejects.toThrow(/not both/);
    await expect(realtimeCommand.run([car, tire, '--state-ip=localhost'])).rejects.toThrow(/--state-ip must be an IPv4 address/);
  });
  it("VDSim defaults (cmd 7001, state 127.0.0.1:7002, 200 Hz, 0.1 s) and both '--name=value' and '--name value'", async () => {
    // the defaults as parsed (binding 7001 would fail on a machine where another server holds it)
    const d = (await parseRealtimeArgs([car, tire, '--quiet'])).config;
    expect([d.cmdPort, d.dt, d.cmdTimeoutS, `${d.stateIp}:${d.statePort}`]).toEqual([7001, 0.005, 0.1, '127.0.0.1:7002']);
    const p = await freePort();
    const h2 = await startRealtime([car, tire, '--cmd-port', String(p), '--rate', '1000', '--vx0', '3', '--level', 'L1', '--quiet'], { log: () => undefined, err: () => undefined });
    try {
      expect([h2.cmdPorts, h2.server.dt, h2.server.vehicles[0].level]).toEqual([[p], 0.001, 'L1']);
      expect(h2.server.vehicles[0].session.truth.vx).toBeCloseTo(3, 0); // --vx0 (it has been ticking since)
    } finally {
      await h2.stop();
    }
  });
});

function launch(args: string[]): { child: ChildProcess; out: string[]; err: string[]; exit: Promise<{ code: number | null; signal: string | null; at: number }> } {
  const child = spawn(process.execPath, [PROBE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout!.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  child.stderr!.on('data', (d: Buffer) => err.push(...d.toString().split('\n').filter(Boolean)));
  const exit = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })));
  return { child, out, err, exit };
}

describe('vils realtime: a real process', () => {
  it('prints a health line per second (rates, drops by reason, fail-safe) and stops cleanly on SIGINT and SIGTERM', async () => {
    const [c1, s1, c2, s2] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const a = launch([car, tire, `--cmd-port=${c1}`, `--state-port=${s1}`]);
    const b = launch([car, tire, `--cmd-port=${c2}`, `--state-port=${s2}`, '--json']);
    const client = await UdpPeer.open();
    try {
      const t0 = Date.now();
      while (!a.err.some((l) => l.includes('VDS1 v5')) && Date.now() - t0 < 60_000) await sleep(20);
      for (let seq = 1; seq <= 50; seq++) {
        await client.send(specCmd({ seq }, { steer: 0, throttle: 0.2, brake: 0 }), c1);
        if (seq % 10 === 0) await client.send(Buffer.from('not a VDS1 datagram at all, but long enough to be looked at: 0123456789012345678'), c1);
        await sleep(10);
      }
      await sleep(2300);
      a.child.kill('SIGINT');
      b.child.kill('SIGTERM');
      const sent = performance.now();
      const [ea, eb] = await Promise.all([a.exit, b.exit]);
      expect([ea.code, ea.signal, eb.code, eb.signal]).toEqual([0, null, 0, null]);
      expect(Math.max(ea.at, eb.at) - sent).toBeLessThan(20_000); // a hang guard
      const health = a.out.filter((l) => l.startsWith('[vils realtime]'));
      expect(health.length).toBeGreaterThanOrEqual(2);
      expect(health.join('\n')).toMatch(/rx \d+\/s \(ok \d+\/s\) \| tx \d+\/s \| drops magic 5 \| overruns \d+ \(late max [\d.]+ ms\) \| cpu \d+% \| v0 (ok|FAILSAFE)/);
      // the client stopped: the fail-safe latched (more than once when a busy machine delayed a command by 0.1 s)
      expect(health[health.length - 1]).toMatch(/v0 FAILSAFE \([1-9]\d*×\)$/);
      expect(a.err.join('\n')).toMatch(/stopped after [\d.]+ s: \d+ ticks, \d+ overruns, 50 cmds accepted, 5 dropped/);
      const summary = JSON.parse(b.out[b.out.length - 1]) as { ticks: number; mode: string; protocol: number; cpu_share: number };
      expect([summary.mode, summary.protocol]).toEqual(['legacy', 5]);
      expect(summary.ticks).toBeGreaterThan(0);
    } finally {
      await client.close();
      a.child.kill('SIGKILL');
      b.child.kill('SIGKILL');
    }
  });
});
