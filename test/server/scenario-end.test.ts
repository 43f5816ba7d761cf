/**
 * What a served scenario says is what it does (issue 27 item 6): `vils serve --scenario` ends at the scenario's
 * `duration` as `at_end` says — paused at exactly the duration (the default; the frames say `paused`,
 * /api/status `sim_egos.end` says why), reset and run again (`loop`), or the server stops (`exit`) — and
 * `duration: 0` runs until stopped. Its simulated ego, driven by the server itself, is never made stale for the
 * age of its report, even when its plant falls far behind (a cold start, a busy machine): the conductor says
 * it lags, the scene extrapolates it. Served in-process through startServe (as the CLI starts it) on a virtual
 * clock, so simulated seconds pass in moments and nothing depends on the machine's speed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { ConfigError } from '../../src/plant/config/errors.js';
import { loadScenario } from '../../src/scenario/config.js';
import { EgoRegistry } from '../../src/scene/egos.js';
import { DEFAULT_SCENE_CONFIG } from '../../src/scene/config.js';
import type { SceneEvent } from '../../src/scene/index.js';
import type { Clock } from '../../src/time/clock.js';
import type { TrafficEngine } from '../../src/traffic/engine.js';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { TestClient, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { until } from '../helpers/until.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A virtual clock that jumps to whatever is slept until, yielding to I/O on every sleep; `advance` makes work "take" time. */
class TestClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  advance(s: number): void {
    this.t += s;
  }
  async sleepUntil(t: number): Promise<void> {
    if (t > this.t) this.t = t;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

async function get(url: string): Promise<any> {
  const r = await fetch(url);
  expect(r.status).toBe(200);
  return r.json();
}

describe('vils serve --scenario: the scenario\'s duration and at_end', () => {
  let dir: string;
  const base = parseYaml(readFileSync(join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml'), 'utf8')) as Record<string, unknown>;
  const running: ServeHandle[] = [];
  const clients: TestClient[] = [];

  /** demo_lap with a few NPCs and these keys changed (at_end left out unless given), written to a file. */
  const scenario = (name: string, patch: Record<string, unknown>) => {
    const file = join(dir, `${name}.yaml`);
    const doc: Record<string, unknown> = { ...base, npcs: 3, ...patch };
    if (!('at_end' in patch)) delete doc.at_end;
    writeFileSync(file, stringify(doc));
    return file;
  };
  const serve = async (file: string, clock = new TestClock()) => {
    const s = await startServe(['--scenario', file, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'], { clock, epochNow: () => 1.8e9 + clock.now() });
    running.push(s);
    return s;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vils-scenario-end-'));
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const s of running.splice(0)) await s.server.close();
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('at_end is checked: pause by default, loop and exit taken, anything else refused naming the key', async () => {
    expect((await loadScenario(scenario('default', {}))).atEnd).toBe('pause');
    expect((await loadScenario(scenario('loop', { at_end: 'loop' }))).atEnd).toBe('loop');
    expect((await loadScenario(scenario('exit', { at_end: 'exit' }))).atEnd).toBe('exit');
    const bad = scenario('bad', { at_end: 'stop' });
    await expect(loadScenario(bad)).rejects.toThrow(ConfigError);
    await expect(loadScenario(bad)).rejects.toThrow(/at_end.*expected one of pause, loop, exit/);
  });

  it('pause (the default): the scene stops at exactly the duration, paused; status and frames say so; started again it runs on', async () => {
    const s = await serve(scenario('pause', { duration: 2 }));
    const host = s.server.host;
    const st = await until('the scene paused at the end', async () => {
      const v = await get(`${s.address}/api/status`);
      return v.state === 'paused' && v;
    });
    expect(st.sim_time_s).toBe(2);
    expect(st.sim_egos).toMatchObject({ duration_s: 2, at_end: 'pause', loops: 0, end: { at_s: 2, action: 'pause', message: 'scenario duration 2 s reached: paused' } });
    expect(host.runner.ended).toBe(true);
    // the plant stopped with the scene, at the duration
    expect(s.sim!.inProcess!.egos[0].time).toBeCloseTo(2, 9);
    // the frames: paused, at the duration, the ego live
    const c = new TestClient(`${s.address.replace(/^http/, 'ws')}/ws/vils/stream`);
    clients.push(c);
    await c.opened();
    const f = await c.next((m) => m.type === 'npc_states');
    expect(f.state).toBe('paused');
    expect(f.sim_time_s).toBe(2);
    expect(f.egos.find((e: { ego_id: string }) => e.ego_id === 'sim1')).toMatchObject({ stale: false });
    // it stays there
    await sleep(200);
    expect(host.scene.time).toBe(2);
    // an operator may run on past the end (the end is reached once per reset)
    expect((await fetch(`${s.address}/api/start`, { method: 'POST' })).status).toBe(200);
    await until('the scene past the duration', () => host.scene.time > 2.5, () => host.scene.time);
    expect(host.runner.state).toBe('running');
    // a reset starts the scenario over, its end armed again
    expect((await fetch(`${s.address}/api/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    await until('the end reached again after the reset', () => host.runner.ended && host.runner.state === 'paused', () => [host.scene.time, host.runner.state]);
    expect(host.scene.time).toBe(2);
  });

  it('loop: at the duration the scene is reset to 0 and runs again', async () => {
    const s = await serve(scenario('loop', { duration: 1, at_end: 'loop' }));
    const st = await until('two loops', async () => {
      const v = await get(`${s.address}/api/status`);
      return v.sim_egos.loops >= 2 && v;
    });
    expect(st.sim_egos).toMatchObject({ at_end: 'loop', end: { at_s: 1, action: 'loop' } });
    expect(st.sim_egos.end.message).toMatch(/^scenario duration 1 s reached: looping/);
    // never past the duration, and running again after each end
    const host = s.server.host;
    for (let i = 0; i < 20; i++) {
      expect(host.scene.time).toBeLessThanOrEqual(1 + 1e-9);
      await sleep(5);
    }
    await until('running again', () => host.runner.state === 'running');
  });

  it('exit: at the duration the server says it is done (the CLI then closes it)', async () => {
    const s = await serve(scenario('exit', { duration: 1, at_end: 'exit' }));
    await Promise.race([s.exited, sleep(30_000).then(() => { throw new Error('no exit within 30 s'); })]);
    expect(s.server.host.scene.time).toBe(1);
    expect(s.server.host.runner.state).toBe('paused');
  });

  it('duration 0: until stopped', async () => {
    const s = await serve(scenario('forever', { duration: 0 }));
    const host = s.server.host;
    await until('3 s of simulation', () => host.scene.time > 3, () => host.scene.time);
    expect(host.runner.state).toBe('running');
    expect(host.runner.ended).toBe(false);
    expect((await get(`${s.address}/api/status`)).sim_egos).toMatchObject({ duration_s: 0, at_end: null, end: null });
  });

  it('the simulated ego is never made stale when its plant lags far behind (the conductor reports it lagging)', async () => {
    const clock = new TestClock();
    const s = await serve(scenario('slow', { duration: 0 }), clock);
    const host = s.server.host;
    const events: SceneEvent[] = [];
    host.scene.on((e) => events.push(e));
    const ego = s.sim!.inProcess!.egos[0]; // (a virtual clock keeps the plants in-process)
    // each plant step now "takes" 20 ms of the clock: 2–3 steps of 5 ms in a tick's 50 ms budget, so it falls behind
    const step = ego.advanceTo.bind(ego);
    ego.advanceTo = ((...a: Parameters<typeof ego.advanceTo>) => {
      clock.advance(0.02);
      return step(...a);
    }) as typeof ego.advanceTo;
    const timeout = host.scene.config.ego_timeout_s;
    await until(`the plant more than ego_timeout_s (${timeout} s) + 1 s behind the scene`, () => host.scene.time - ego.time > timeout + 1, () => [host.scene.time, ego.time]);
    expect(host.time.session.lagging()).toContain('ego:sim1');
    const me = host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    expect(me.stale).toBe(false);
    expect(events.filter((e) => e.type === 'ego_stale' || e.type === 'ego_forgotten')).toEqual([]);
  });
});

describe('EgoRegistry: a simulated ego\'s report never goes stale', () => {
  const engine = { setExternal: () => undefined, removeExternal: () => undefined, externalCollided: () => false } as unknown as TrafficEngine;

  it('a real car silent for longer than ego_timeout_s is stale; a simulated ego reported as long ago is extrapolated', () => {
    const events: SceneEvent[] = [];
    const reg = new EgoRegistry({ ...DEFAULT_SCENE_CONFIG }, (e) => events.push(e));
    reg.update({ egoId: 'car', x: 0, y: 0, yaw: 0, speed: 5 }, 0);
    reg.update({ egoId: 'sim', x: 0, y: 10, yaw: 0, speed: 5, simulated: true }, 0);
    const t = DEFAULT_SCENE_CONFIG.ego_forget_s + 1;
    reg.place(engine, DEFAULT_SCENE_CONFIG.ego_timeout_s + 0.1);
    reg.place(engine, t);
    const egos = new Map(reg.list(t).map((e) => [e.egoId, e]));
    expect(egos.has('car')).toBe(false); // stale, then forgotten
    expect(events.map((e) => `${e.type} ${'egoId' in e ? e.egoId : ''}`)).toEqual(['ego_connected car', 'ego_connected sim', 'ego_stale car', 'ego_forgotten car']);
    expect(egos.get('sim')).toMatchObject({ stale: false, x: expect.closeTo(5 * t, 6), y: 10 });
  });
});

describe('vils serve --scenario in a real process: at_end exit', () => {
  let tx: Transpiled;
  let dir: string;
  beforeAll(() => {
    tx = transpile(['src/cli/vils.ts']);
    dir = mkdtempSync(join(tmpdir(), 'vils-scenario-end-cli-'));
  }, 60_000);
  afterAll(() => {
    tx?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('recording as the CLI does by default: the ego is never stale, and at the duration the server logs it and exits 0', async () => {
    const doc = parseYaml(readFileSync(join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'short.yaml'), stringify({ ...doc, duration: 2, at_end: 'exit' }));
    const lines: string[] = [];
    const child: ChildProcess = spawn(process.execPath, [join(tx.dir, 'src', 'cli', 'vils.js'), 'serve', '--scenario', join(dir, 'short.yaml'), '--port', '0', '--host', '127.0.0.1', '--record-dir', join(dir, 'rec'), '--log-format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VILS_MODEL: testModel(), VILS_PARENT_WATCH: 'off' },
    });
    child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c))),
      sleep(60_000).then(() => {
        child.kill('SIGKILL');
        throw new Error(`no exit within 60 s:\n${lines.join('\n')}`);
      }),
    ]);
    const log = lines.join('\n');
    expect(code, log).toBe(0);
    expect(log).toMatch(/duration 2 s, then exit \(at_end\)/);
    expect(log).toMatch(/scenario duration 2 s reached: exiting/);
    expect(log).not.toMatch(/ego sim1 is stale/);
    expect(readdirSync(join(dir, 'rec')).length).toBeGreaterThan(0);
  }, 90_000);
});
