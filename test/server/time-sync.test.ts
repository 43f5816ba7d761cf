/**
 * The live scene under the time conductor (src/session/scene-time.ts): in realtime a slow external simulator
 * (over the UDP protocol, in a child process) or a slow in-process asset is reported lagging and never holds
 * the frames; in lockstep the runner waits for every asset at every step; GET /api/status shows each asset's
 * time, skew to Tc and held counts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultTimeSettings, type AssetJson, type TimeJson, type TimeSettings } from '../../src/time/index.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';
import type { VilsServer } from '../../src/server/app.js';

const FIXTURE = fileURLToPath(new URL('../time/fixtures/udp-asset.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const running: { server?: VilsServer; child?: ChildProcess; client?: TestClient }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.client?.close();
    r.child?.kill('SIGKILL');
    await r.server?.close();
  }
});

async function session(time: Partial<TimeSettings>, asset?: { stepUs: number; workMs: number }) {
  const settings: TimeSettings = { ...defaultTimeSettings(time.mode ?? 'realtime'), asset_port: 0, asset_timeout_s: 5, ...time };
  const { server, url, wsUrl } = await startServer({ config: { npc_target: 8 }, time: settings });
  const r: (typeof running)[number] = { server };
  running.push(r);
  const port = server.host.time.assetPort!;
  if (asset) r.child = spawn(process.execPath, [FIXTURE, String(port), 'ext', String(asset.stepUs), '1000000000', String(asset.workMs)], { stdio: 'ignore' });
  const status = async () => (await (await fetch(`${url}/api/status`)).json()) as { sim_time_s: number; loop: { heldS: number; heldTicks: number; overruns: number; slippedS: number }; time: TimeJson & { asset_port: number } };
  const joined = async () => {
    for (let i = 0; i < 100 && !(await status()).time.assets.some((a) => a.name === 'ext'); i++) await sleep(50);
  };
  return { server, url, wsUrl, status, joined, r };
}

const find = (t: TimeJson, name: string): AssetJson => {
  const a = t.assets.find((x) => x.name === name);
  if (!a) throw new Error(`no asset ${name} in ${t.assets.map((x) => x.name).join(', ')}`);
  return a;
};

describe('the live scene under the time conductor', () => {
  it('realtime: a slow external simulator (30 ms of work per 10 ms step) is reported lagging; frames keep their rate and sim time keeps the wall clock', async () => {
    const s = await session({ mode: 'realtime', dmax_ms: 100 }, { stepUs: 10_000, workMs: 30 });
    await s.joined();
    const c = new TestClient(s.wsUrl);
    s.r.client = c;
    await c.opened();
    const before = await s.status();
    const w0 = performance.now();
    await sleep(2000);
    const after = await s.status();
    const wallS = (performance.now() - w0) / 1000;
    const frames = c.messages.filter((m) => m.type === 'npc_states' && m.__received >= w0 && m.__received <= w0 + 2000);
    // frames never held by the asset (heldS 0) and simulation time kept the wall clock: what it did not run after a
    // stall of the whole process (a loaded machine) it gave up and counted (slipped), it never waited for the asset
    expect(frames.length).toBeGreaterThan(0);
    expect(after.sim_time_s - before.sim_time_s + (after.loop.slippedS - before.loop.slippedS)).toBeGreaterThan(0.85 * wallS);
    expect(after.loop.heldS).toBe(0);
    const ext = find(after.time, 'ext');
    expect(ext).toMatchObject({ external: true, kind: 'simulated', step_ms: 10, lagging: true });
    expect(ext.skew_ms).toBeGreaterThan(100);
    expect(after.time.lagging).toContain('ext');
    // the wall clock, the world: in sync
    expect(find(after.time, 'wall-clock')).toMatchObject({ kind: 'wallclock', skew_ms: 0 });
    expect(find(after.time, 'world').lagging).toBe(false);
    expect(find(after.time, 'world').skew_ms).toBeLessThan(100);
    expect(after.time.violations).toBe(0);
  }, 20_000);

  it('realtime: a slow in-process asset (4× slower than real time) is left behind within the tick budget; the frames are not held', async () => {
    const s = await session({ mode: 'realtime', dmax_ms: 100, asset_port: null });
    let t = 0;
    s.server.host.time.session.add({
      name: 'slow-plant', stepUs: 5000,
      step: (_f, to) => {
        const end = performance.now() + 20;
        while (performance.now() < end);
        t = to;
      },
    });
    const c = new TestClient(s.wsUrl);
    s.r.client = c;
    await c.opened();
    const w0 = performance.now();
    await sleep(2000);
    const st = await s.status();
    const frames = c.messages.filter((m) => m.type === 'npc_states' && m.__received >= w0 && m.__received <= w0 + 2000);
    expect(frames.length).toBeGreaterThan(0); // the frames go on (how many a loaded machine manages is not the point)
    expect(st.loop.heldS).toBe(0);
    const slow = find(st.time, 'slow-plant');
    expect(slow.lagging).toBe(true);
    expect(slow.skew_ms).toBeGreaterThan(500);
    expect(t).toBeGreaterThan(0); // it does step, within the budget
    expect(find(st.time, 'world').lagging).toBe(false);
  }, 20_000);

  it('lockstep: the runner waits for a slow external simulator at every 10 ms step; every asset within one step', async () => {
    const s = await session({ mode: 'lockstep', step_ms: 10 }, { stepUs: 10_000, workMs: 20 });
    await s.joined();
    const before = await s.status();
    const w0 = performance.now();
    await sleep(2000);
    const after = await s.status();
    const wallS = (performance.now() - w0) / 1000;
    const simS = after.sim_time_s - before.sim_time_s;
    // 20 ms of the asset's work per 10 ms step: never faster than the asset (half real time at best), held while
    // it works; how much slower a loaded machine makes it is not the point
    expect(simS).toBeLessThan(0.7 * wallS);
    expect(simS).toBeGreaterThan(0);
    expect(after.loop.heldS).toBeGreaterThan(simS * 0.5);
    expect(after.time).toMatchObject({ mode: 'lockstep', dmax_ms: 10, core_step_ms: 10, violations: 0 });
    for (const a of after.time.assets) expect(a.skew_max_ms).toBeLessThanOrEqual(10);
    expect(find(after.time, 'world').held_core).toBeGreaterThan(0);
    expect(find(after.time, 'ext').held_core).toBeGreaterThan(0);
  }, 20_000);

  it('GET /api/status: time shows mode, Tc, dmax, the port, and each asset with its time, skew to Tc and held counts', async () => {
    const s = await session({ mode: 'realtime' }, { stepUs: 10_000, workMs: 0 });
    await s.joined();
    // Tc runs from the start of the session, a little after joined() returns: 0.5 s leaves it clearly past 0.3
    await sleep(500);
    const st = await s.status();
    expect(st.time).toMatchObject({ mode: 'realtime', dmax_ms: 100, core_step_ms: 1, asset_port: s.server.host.time.assetPort, checks: expect.any(Number), violations: 0 });
    expect(st.time.tc_s).toBeGreaterThan(0.3);
    expect(st.time.assets.map((a) => a.name).sort()).toEqual(['ext', 'wall-clock', 'world']);
    for (const a of st.time.assets) {
      expect(Object.keys(a).sort()).toEqual(['external', 'held', 'held_core', 'kind', 'lagging', 'name', 'refused', 'silent_s', 'skew_max_ms', 'skew_mean_ms', 'skew_ms', 'skew_std_ms', 'step_ms', 't_s'].sort());
      expect(a.t_s).toBeLessThanOrEqual(st.time.tc_s);
    }
    const ext = find(st.time, 'ext');
    expect(ext.lagging).toBe(false);
    expect(ext.held).toBeGreaterThan(0); // a fast asset waits for Tc: held at (nearly) every count-up
    expect(ext.silent_s).toBeLessThan(1);
    expect(find(st.time, 'world').step_ms).toBe(100);
  }, 20_000);
});
