/**
 * The plant isolated (issue 24, item 6): `vils serve --scenario` in realtime runs its simulated egos' plants and
 * their UDP I/O in a thread of their own (src/session/sim-ego-thread.ts), served in-process through startServe as
 * the CLI starts it, on the system clock. What it decides, never how fast this machine is:
 *  - the main thread's event loop blocked for 0.5 s (a busy loop standing for a long NPC step): STATE keeps
 *    arriving at a UDP listener in another thread during the block, where the in-process plant sends none;
 *  - the thread's reports are scene inputs: in the scene, in the recording, and the recording replays with 0
 *    differences;
 *  - pause stops the plant and its STATE, start resumes it, reset puts the ego back at its start;
 *  - a thread that throws is reported (status, log) and the server goes on without its ego; one that cannot open
 *    its command port stops the start-up with the reason, as the in-process link does.
 * Counts have generous bounds: a loaded 2-core machine delays threads, it does not make them send nothing.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processCpus } from '../../src/server/cpu-affinity.js';
import { parse as parseYaml, stringify } from 'yaml';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { decodeJson, describeDifference, readRecording, replayRecording } from '../../src/record/index.js';
import { readSpecState, specCmd } from '../cosim/helpers/spec-vectors.js';
import { UdpPeer, freePort } from '../cosim/helpers/udp.js';
import { testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { until } from '../helpers/until.js';

const CONFIGS = join(PROJECT_ROOT, 'configs');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const hrUs = () => Number(process.hrtime.bigint() / 1000n);

/** A UDP listener in a thread of its own: it timestamps STATE while this thread is blocked. */
class ThreadListener {
  private constructor(private readonly w: Worker, readonly port: number) {}

  static async open(): Promise<ThreadListener> {
    const w = new Worker(`
      const { parentPort } = require('node:worker_threads');
      const s = require('node:dgram').createSocket('udp4');
      const at = [];
      s.on('message', () => at.push(Number(process.hrtime.bigint() / 1000n)));
      s.bind(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));
      parentPort.on('message', (m) => {
        if (m === 'arrivals') parentPort.postMessage(at);
        else { s.close(); parentPort.close(); }
      });`, { eval: true });
    const port = await new Promise<number>((resolve) => w.once('message', resolve));
    return new ThreadListener(w, port);
  }

  /** arrival times [µs, process.hrtime] */
  arrivals(): Promise<number[]> {
    return new Promise((resolve) => {
      this.w.once('message', resolve);
      this.w.postMessage('arrivals');
    });
  }

  async close(): Promise<void> {
    this.w.postMessage('close');
    await this.w.terminate();
  }
}

describe('vils serve --scenario: the simulated ego in a thread of its own', () => {
  let dir: string;
  const running: ServeHandle[] = [];
  const closers: Array<{ close(): Promise<void> }> = [];

  /** demo_lap_comms with 3 NPCs, STATE to `statePort`, CMD on a free port; the scenario file. */
  const scenario = async (statePort: number) => {
    const cmdPort = await freePort();
    const comms = parseYaml(readFileSync(join(CONFIGS, 'comms', 'sim_ego.yaml'), 'utf8')) as { channels: Array<Record<string, unknown>> };
    comms.channels = comms.channels.filter((ch) => ch.template !== 'nmea_gga');
    for (const ch of comms.channels) {
      if (ch.direction === 'in') ch.listen = { port: cmdPort };
      else ch.to = [{ ip: '127.0.0.1', port: statePort }];
    }
    const n = running.length + closers.length;
    writeFileSync(join(dir, `comms-${n}.yaml`), stringify(comms));
    const doc = parseYaml(readFileSync(join(CONFIGS, 'scenarios', 'demo_lap_comms.yaml'), 'utf8')) as Record<string, any>;
    doc.npcs = 3;
    doc.run.comms = join(dir, `comms-${n}.yaml`);
    const file = join(dir, `scenario-${n}.yaml`);
    writeFileSync(file, stringify(doc));
    return { file, cmdPort };
  };
  const serve = async (file: string, extra: string[] = ['--no-record']) => {
    const s = await startServe(['--scenario', file, '--port', '0', '--host', '127.0.0.1', '--model', testModel(), '--log-level', 'silent', ...extra]);
    running.push(s);
    return s;
  };
  const status = async (s: ServeHandle) => (await (await fetch(`${s.address}/api/status`)).json()) as Record<string, any>;
  const post = (s: ServeHandle, path: string) => fetch(`${s.address}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vils-sim-ego-thread-'));
  });
  afterEach(async () => {
    delete process.env.VILS_SIM_EGO_THREAD;
    for (const s of running.splice(0)) await s.server.close();
    for (const c of closers.splice(0)) await c.close();
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Blocks this thread for `ms`; returns how many STATE datagrams reached the listener inside the block. */
  async function duringBlock(rx: ThreadListener, ms: number): Promise<number> {
    const t0 = hrUs();
    const end = t0 + ms * 1000;
    while (hrUs() < end) {
      // busy: no timer, no socket, no message runs on this thread
    }
    await sleep(50);
    // inside the block, 50 ms clear of its edges (datagrams sent just before it may still be arriving)
    return (await rx.arrivals()).filter((t) => t > t0 + 50_000 && t < end - 50_000).length;
  }

  it('the main thread blocked for 0.5 s: STATE keeps arriving from the thread; in-process none does', async () => {
    const rx = await ThreadListener.open();
    closers.push(rx);
    const s = await serve((await scenario(rx.port)).file);
    expect(s.sim?.thread?.state).toBe('running');
    await until('STATE flowing', async () => (await rx.arrivals()).length > 100);
    const inThread = await duringBlock(rx, 500);
    // 200 Hz for the 0.4 s inside the block is 80; a loaded machine delays the thread, it does not stop it
    expect(inThread).toBeGreaterThan(10);
    // the scene ran the steps it missed at once (max_catch_up_s): neither it nor the plant gave the time up, and
    // the ego was never stale
    await until('the scene caught up after the block', async () => (await status(s)).loop.catchUps >= 1);
    expect(s.server.host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')?.stale).toBe(false);
    await s.server.close();
    running.splice(0);

    process.env.VILS_SIM_EGO_THREAD = 'off';
    const rx2 = await ThreadListener.open();
    closers.push(rx2);
    const s2 = await serve((await scenario(rx2.port)).file);
    expect(s2.sim?.thread).toBeNull();
    await until('STATE flowing (in-process)', async () => (await rx2.arrivals()).length > 100);
    expect(await duringBlock(rx2, 500)).toBe(0);
  }, 120_000);

  it('its reports are scene inputs: in the scene, in the recording, which replays with 0 differences', async () => {
    const stateRx = await UdpPeer.open();
    closers.push(stateRx);
    const { file, cmdPort } = await scenario(stateRx.port);
    const recDir = join(dir, 'rec');
    const s = await serve(file, ['--record-dir', recDir]);
    const host = s.server.host;
    // driven over VDS1 from this test: it moves, and the scene follows it
    const start = host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    let seq = 0;
    const drive = setInterval(() => void stateRx.send(specCmd({ seq: ++seq, vehicleId: 0, timestamp: Date.now() / 1000 }, { steer: 0, throttle: 0.5, brake: 0 }), cmdPort), 20);
    try {
      await until('the ego 5 m from its start in the scene', () => {
        const e = host.scene.snapshot().egos.find((x) => x.egoId === 'sim1');
        return e && Math.hypot(e.x - start.x, e.y - start.y) > 5;
      });
    } finally {
      clearInterval(drive);
    }
    const me = host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    expect(me.stale).toBe(false);
    const last = readSpecState(stateRx.messages[stateRx.messages.length - 1].buf).fields;
    expect(Math.hypot(me.x - last.x, me.y - last.y)).toBeLessThan(3); // the scene's ego is the plant's
    const st = await status(s);
    expect(st.sim_egos.thread.reports).toBeGreaterThan(10);
    await s.server.close();
    running.splice(0);

    const rec = join(recDir, readdirSync(recDir).find((n) => n.endsWith('.mcap'))!);
    let egoCalls = 0;
    for await (const i of readRecording(rec)) {
      if (i.type !== 'message' || i.message.topic !== '/vils/calls') continue;
      const c = decodeJson(i.message.data) as { kind: string; args: { ego_id?: string } };
      if (c.kind === 'ego' && c.args.ego_id === 'sim1') egoCalls++;
    }
    expect(egoCalls).toBeGreaterThan(10);
    const r = await replayRecording(rec, { onNote: () => {} });
    if (r.first) throw new Error(describeDifference(r.first));
    expect(r.differences).toBe(0);
  }, 120_000);

  it('pause stops the plant and its STATE, start resumes it, reset puts the ego back at its start', async () => {
    const rx = await ThreadListener.open();
    closers.push(rx);
    const s = await serve((await scenario(rx.port)).file);
    const host = s.server.host;
    const start = host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    await until('the plant past 1 s', async () => (await status(s)).sim_egos.egos[0].t > 1);
    expect((await post(s, '/api/pause')).status).toBe(200);
    await until('the thread idle', async () => (await status(s)).sim_egos.thread && host.runner.state === 'paused' && s.sim!.thread!.stats!.running === false);
    await sleep(100);
    const n0 = (await rx.arrivals()).length;
    const t0 = (await status(s)).sim_egos.egos[0].t;
    await sleep(300);
    expect((await rx.arrivals()).length).toBe(n0); // no STATE while paused
    expect((await status(s)).sim_egos.egos[0].t).toBe(t0);
    expect((await post(s, '/api/start')).status).toBe(200);
    await until('STATE again', async () => (await rx.arrivals()).length > n0 + 20);
    // reset: the scene at 0, the ego at its start, the plant's time back near 0
    expect((await post(s, '/api/reset')).status).toBe(200);
    await until('the plant restarted', async () => (await status(s)).sim_egos.egos[0].t < t0);
    const e = host.scene.snapshot().egos.find((x) => x.egoId === 'sim1')!;
    expect(Math.hypot(e.x - start.x, e.y - start.y)).toBeLessThan(1);
  }, 120_000);

  it('a thread that throws is reported and the server goes on without its ego', async () => {
    const rx = await ThreadListener.open();
    closers.push(rx);
    const s = await serve((await scenario(rx.port)).file);
    const host = s.server.host;
    await until('STATE flowing', async () => (await rx.arrivals()).length > 20);
    s.sim!.thread!.fault('a plant bug');
    const st = await until('the thread failed in the status', async () => {
      const v = await status(s);
      return v.sim_egos.thread.state === 'failed' && v;
    });
    expect(st.sim_egos.thread.error).toMatch(/a plant bug/);
    expect(st.sim_egos.thread.lagging).toContain('thread (failed)');
    // the scene runs on, without the ego; the data port says why it cannot answer
    await until('the ego gone from the scene', () => !host.scene.snapshot().egos.some((e) => e.egoId === 'sim1'));
    const time = host.scene.time;
    await until('the scene running on', () => host.scene.time > time + 0.3);
    const io = await fetch(`${s.address}/api/io`);
    expect(io.status).toBe(500);
    expect(((await io.json()) as { message: string }).message).toMatch(/thread is failed \(it threw: a plant bug\)/);
  }, 120_000);

  it('a command port already in use: the start-up fails with the reason, as in-process', async () => {
    const taken = await UdpPeer.open();
    closers.push(taken);
    const rx = await UdpPeer.open();
    closers.push(rx);
    const { file } = await scenario(rx.port);
    const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, any>;
    const comms = parseYaml(readFileSync(doc.run.comms, 'utf8')) as { channels: Array<Record<string, unknown>> };
    for (const ch of comms.channels) if (ch.direction === 'in') ch.listen = { port: taken.port };
    writeFileSync(doc.run.comms, stringify(comms));
    await expect(startServe(['--scenario', file, '--port', '0', '--host', '127.0.0.1', '--model', testModel(), '--log-level', 'silent', '--no-record'])).rejects.toThrow(/EADDRINUSE/);
  }, 120_000);

  it('--ego-priority: the thread on the real-time scheduler by default when allowed, else as it is, saying why; normal leaves it; nonsense refused', async () => {
    const rx = await UdpPeer.open();
    closers.push(rx);
    const { file } = await scenario(rx.port);
    await expect(startServe(['--scenario', file, '--ego-priority', 'fast', '--port', '0', '--no-record', '--model', testModel(), '--log-level', 'silent'])).rejects.toThrow(/--ego-priority must be fifo, normal or a niceness -20\.\.19, got fast/);
    const s = await serve(file);
    expect((await status(s)).sim_egos.thread.priority).toMatch(/^(fifo 10|normal \(fifo refused: .+\))$/);
    await s.server.close();
    running.splice(0);
    const s2 = await serve(file, ['--no-record', '--ego-priority', 'normal']);
    expect((await status(s2)).sim_egos.thread.priority).toBe('normal');
  }, 120_000);

  it('--cpus: auto keeps the server on its last CPU beside a real-time egos\' thread and gives the CPUs back on close; all leaves them; a list it may not use is refused', async () => {
    const rx = await UdpPeer.open();
    closers.push(rx);
    const { file } = await scenario(rx.port);
    const allowed = processCpus();
    await expect(startServe(['--scenario', file, '--cpus', 'most', '--port', '0', '--no-record', '--model', testModel(), '--log-level', 'silent'])).rejects.toThrow(/--cpus must be auto, all or a list of CPU numbers/);
    const s = await serve(file);
    const st = await status(s);
    const fifo = (st.sim_egos.thread.priority as string).startsWith('fifo');
    expect(st.cpus.setting).toBe('auto');
    if (allowed && allowed.length >= 2 && fifo) {
      const last = allowed[allowed.length - 1];
      expect(st.cpus.cpus).toBe(String(last));
      expect(processCpus()).toEqual([last]);
    } else expect(st.cpus.cpus).toBe('all');
    await s.server.close();
    running.splice(0);
    expect(processCpus()).toEqual(allowed);
    const s2 = await serve(file, ['--no-record', '--cpus', 'all']);
    expect((await status(s2)).cpus).toMatchObject({ setting: 'all', cpus: 'all' });
    expect(processCpus()).toEqual(allowed);
    await s2.server.close();
    running.splice(0);
    if (allowed) await expect(startServe(['--scenario', file, '--cpus', String(allowed[allowed.length - 1] + 1), '--port', '0', '--no-record', '--model', testModel(), '--log-level', 'silent'])).rejects.toThrow(/this process may only run on CPUs/);
    expect(processCpus()).toEqual(allowed);
  }, 120_000);
});
