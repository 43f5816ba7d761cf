/**
 * Scenarios under the time conductor (src/scenario/assets.ts, src/time/session.ts): the NPC world and each
 * plant are assets of one TimeSession. The results are bit for bit those of the sequential rule (advanceEgos)
 * in every mode, and `vils run` with an external simulator over UDP keeps every asset within dmax of every
 * other (afap) or within one step (lockstep, where a slow asset slows the run down).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { Simulation, advanceEgos, loadScenario } from '../../src/scenario/index.js';
import type { TimeJson } from '../../src/time/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const SCENARIO = join(PROJECT_ROOT, 'configs', 'scenarios', 'sil_two_egos.yaml');
const FIXTURE = fileURLToPath(new URL('../time/fixtures/udp-asset.mjs', import.meta.url));

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const p = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

interface Outcome {
  csv: string[];
  npcs: number[][];
  time?: TimeJson;
}

const outcome = (sim: Simulation): Outcome => ({
  csv: sim.egos.map((e) => sim.csv(e.id)),
  npcs: sim.world.scene!.snapshot().npcs.map((n) => [n.id, n.x, n.y, n.yaw]),
});

describe('a scenario under the time conductor', () => {
  it('two egos (5 and 10 ms) among 20 NPCs: afap (dmax 100 and 400 ms) and lockstep give bit for bit the results of the sequential rule', async () => {
    const overrides = { duration: 6 };
    // the reference: the sequential rule on a world of its own, bypassing the conductor
    const ref = await Simulation.load(SCENARIO, { overrides });
    const w = ref.world;
    await advanceEgos(w.scene, w.egos, 0, 6_000_000, (r, ts) => w.scene!.updateEgo(r, ts));
    const expected = outcome(ref);
    await ref.close();
    expect(expected.csv[0].split('\n').length).toBeGreaterThan(1000);
    for (const time of [{ mode: 'afap' }, { mode: 'afap', dmax_ms: 400 }, { mode: 'lockstep' }]) {
      const sim = await Simulation.load(SCENARIO, { overrides: { ...overrides, time } });
      await sim.run();
      const got = outcome(sim);
      const st = sim.world.timeStatus();
      await sim.close();
      expect(got.csv, JSON.stringify(time)).toEqual(expected.csv);
      expect(got.npcs, JSON.stringify(time)).toEqual(expected.npcs);
      expect(st.violations).toBe(0);
      expect(st.checks).toBeGreaterThan(1000);
      expect(st.assets.map((a) => [a.name, a.timeUs])).toEqual([['ego:sim1', 6_000_000], ['ego:sim2', 6_000_000], ['world', 6_000_000]]);
      expect(Math.max(...st.assets.map((a) => a.skewMaxUs))).toBeLessThanOrEqual(st.dmaxUs);
    }
  }, 60_000);
});

describe('the time: block', () => {
  it('defaults by run mode; refusals name the key and say why', async () => {
    expect((await loadScenario(SCENARIO)).time).toMatchObject({ mode: 'afap', dmax_ms: 100, step_ms: 1, asset_port: null });
    expect((await loadScenario(SCENARIO, { overrides: { 'time.mode': 'lockstep' } })).time).toMatchObject({ mode: 'lockstep', dmax_ms: 10, step_ms: 10 });
    const refused = async (o: Record<string, unknown>) => loadScenario(SCENARIO, { overrides: o }).then(() => 'loaded', (e: Error) => e.message);
    expect(await refused({ 'time.dmax_ms': 50 })).toMatch(/time\.dmax_ms.*at least every asset's step: world steps by 100 ms/);
    expect(await refused({ 'time.mode': 'lockstep', 'time.step_ms': 7 })).toMatch(/time\.step_ms.*must divide world's step 100 ms/);
    expect(await refused({ 'time.mode': 'lockstep', 'time.step_ms': 4 })).toMatch(/time\.step_ms.*multiple of ego:sim1's own step 5 ms/);
    expect(await refused({ 'time.mode': 'realtime', 'time.asset_port': 47800, 'time.expect_assets': ['x'] })).toMatch(/time\.expect_assets.*realtime never waits/);
    expect(await refused({ 'time.modus': 'afap' })).toMatch(/time\.modus.*unknown key/);
  });
});

describe('vils run with an external asset over UDP', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children) c.kill('SIGKILL');
    children.length = 0;
    vi.restoreAllMocks();
  });

  /** Runs `vils run` in this process with an external asset (the protocol's Node fixture) in a child process. */
  async function runWithAsset(sets: string[], asset: { stepUs: number; untilUs: number; workMs: number }) {
    const port = await freeUdpPort();
    const child = spawn(process.execPath, [FIXTURE, String(port), 'ext', String(asset.stepUs), String(asset.untilUs), String(asset.workMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const lines: { t_us: number; tc_us: number }[] = [];
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) lines.push(JSON.parse(buf.slice(0, i)));
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const code = await runCommand.run([SCENARIO, '--json', '--set', 'npcs=10', ...sets, '--set', `time.asset_port=${port}`, '--set', 'time.expect_assets=[ext]', '--set', 'time.expect_timeout_s=20']);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const summary = JSON.parse(out[out.length - 1]) as { wall_s: number; metrics: Record<string, number>; time: TimeJson };
    // an asset still waiting for a Tc the finished run will never send is killed after the test
    const exit = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 500))]);
    return { summary, lines, exit };
  }

  it('afap: the run waits for the asset to register; every check after a count-up finds |Ti − Tj| ≤ dmax; the results do not change', async () => {
    // the asset simulates 2.5 s and leaves; the run goes on alone to 3 s
    const { summary, lines, exit } = await runWithAsset(['--set', 'duration=3', '--set', 'time.dmax_ms=100'], { stepUs: 10_000, untilUs: 2_500_000, workMs: 0.2 });
    const t = summary.time;
    expect(exit).toBe(0);
    expect(t.mode).toBe('afap');
    expect(t.violations).toBe(0);
    expect(t.checks).toBeGreaterThan(3000);
    // the asset took part to its end, then left; on its side too every step was within the rule (a.2)
    expect(lines.length).toBe(250);
    expect(lines.every((l) => l.t_us <= l.tc_us)).toBe(true);
    expect(t.departed).toContainEqual(expect.objectContaining({ name: 'ext', reason: 'left' }));
    for (const a of t.assets) expect(a.skew_max_ms).toBeLessThanOrEqual(100);
    // the external asset only times the run: the scenario's results are those of a run without it
    const plain = await Simulation.load(SCENARIO, { overrides: { npcs: 10, duration: 3 } });
    await plain.run();
    expect(JSON.stringify(plain.allMetrics())).toBe(JSON.stringify(summary.metrics));
    await plain.close();
  }, 60_000);

  it('lockstep: a slow asset (5 ms of work per 10 ms step) holds the run at every step: every asset within one step of every other', async () => {
    const { summary, lines } = await runWithAsset(['--set', 'duration=1', '--set', 'time.mode=lockstep'], { stepUs: 10_000, untilUs: 1_000_000, workMs: 5 });
    const ext = summary.time.assets.find((a) => a.name === 'ext')!;
    const t = summary.time;
    expect(t.mode).toBe('lockstep');
    expect(t.dmax_ms).toBe(10);
    expect(t.violations).toBe(0);
    // it saw every step but perhaps the last (the run ends once Tc reaches 1 s and closes the port)
    expect(lines.map((l) => l.t_us).slice(0, 99)).toEqual(Array.from({ length: 99 }, (_, k) => (k + 1) * 10_000));
    expect(ext.t_s).toBeGreaterThanOrEqual(0.99);
    expect(summary.wall_s).toBeGreaterThan(0.45); // 100 steps × 5 ms of its work: the run waited for it
    for (const a of t.assets) expect(a.skew_max_ms).toBeLessThanOrEqual(10);
    const world = t.assets.find((a) => a.name === 'world')!;
    expect(world.held_core).toBeGreaterThan(0);
  }, 60_000);
});
