import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile } from '../../src/map/scene-json.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { SceneRunner, type PublishedFrame } from '../../src/session/runner.js';
import { VirtualClock } from '../../src/time/clock.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { TestClient, startServer, testModel } from '../helpers/server-fixture.js';
import { countingScene } from '../helpers/counting-scene.js';

let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));

function collect(runner: SceneRunner, until: (frames: PublishedFrame[]) => boolean): Promise<PublishedFrame[]> {
  const frames: PublishedFrame[] = [];
  return new Promise((resolve) => {
    runner.addSink({
      publish(f) {
        frames.push(f);
        if (until(frames)) resolve(frames);
      },
    });
  });
}

describe('scene runner on a virtual clock', () => {
  it('publishes at publish_hz, each frame stamped with its simulation time; NPCs step every 0.1 s of it', async () => {
    const clock = new VirtualClock(1000);
    const scene = new LiveScene(TRACK, policy.fork(), { npc_target: 4 });
    scene.reset();
    const runner = new SceneRunner(scene, { clock, publishHz: 20, epochNow: () => clock.now() });
    runner.start();
    const frames = await collect(runner, (f) => f.length >= 41);
    await runner.close();
    const times = frames.slice(0, 41).map((f) => f.snapshot.time);
    expect(times[40] - times[0]).toBeCloseTo(2.0, 9);
    for (let i = 1; i < 41; i++) expect(times[i] - times[i - 1]).toBeCloseTo(0.05, 9);
    expect(frames[40].snapshot.step - frames[0].snapshot.step).toBe(20);
    expect(frames.every((f) => f.state === 'running')).toBe(true);
    expect(runner.stats.overruns).toBe(0);
  });

  it('with a faster tick rate asked for (a 200 Hz plant), advances the scene every 5 ms and still publishes at publish_hz on its grid', async () => {
    const clock = new VirtualClock(1000);
    const scene = new LiveScene(TRACK, policy.fork(), { npc_target: 4 });
    scene.reset();
    const runner = new SceneRunner(scene, { clock, publishHz: 10, epochNow: () => clock.now() });
    runner.setMinTickHz(200);
    expect(runner.tickHz).toBe(200);
    const advanced: number[] = [];
    const advanceTo = scene.advanceTo.bind(scene);
    scene.advanceTo = (t: number) => {
      advanced.push(t);
      return advanceTo(t);
    };
    runner.start();
    const frames = await collect(runner, (f) => f.length >= 21);
    await runner.close();
    const times = frames.slice(0, 21).map((f) => f.snapshot.time);
    for (let i = 1; i < 21; i++) expect(times[i] - times[i - 1]).toBeCloseTo(0.1, 9);
    for (const t of times) expect(Math.abs(t * 10 - Math.round(t * 10))).toBeLessThan(1e-6);
    const inside = advanced.filter((t) => t > times[0] && t <= times[20]);
    expect(inside.length).toBe(400);
    for (let i = 1; i < inside.length; i++) expect(inside[i] - inside[i - 1]).toBeCloseTo(0.005, 9);
    runner.setMinTickHz(null);
    expect(runner.tickHz).toBe(10);
  });

  it('while paused simulation time stands still and a frame says so once a second', async () => {
    const clock = new VirtualClock(0);
    const scene = new LiveScene(TRACK, policy.fork(), { npc_target: 2 });
    scene.reset();
    const runner = new SceneRunner(scene, { clock, publishHz: 50, epochNow: () => clock.now() });
    runner.start();
    await collect(runner, (f) => f.length >= 10);
    runner.pause();
    const pausedAt = runner.simNow();
    const start = clock.now();
    const frames = await collect(runner, (f) => f.filter((x) => x.state === 'paused').length >= 4);
    const paused = frames.filter((f) => f.state === 'paused');
    await runner.close();
    expect(paused.length).toBe(4);
    expect(clock.now() - start).toBeGreaterThan(2.9);
    expect(clock.now() - start).toBeLessThan(3.1);
    expect(paused.every((f) => f.snapshot.time === pausedAt)).toBe(true);
    expect(runner.simNow()).toBe(pausedAt);
  });

  it('a setting changed on every tick never starves the loop', async () => {
    const clock = new VirtualClock(0);
    const scene = new LiveScene(TRACK, policy.fork(), { npc_target: 2 });
    scene.reset();
    const runner = new SceneRunner(scene, { clock, publishHz: 10, epochNow: () => clock.now() });
    runner.start();
    let k = 0;
    runner.addSink({ publish: () => runner.setPublishHz(10 + (k++ % 5) * 10) });
    const frames = await collect(runner, (f) => f.length >= 100);
    await runner.close();
    expect(frames.length).toBe(100);
    expect(clock.now()).toBeLessThan(10.1); // 100 frames at ≤ 100 ms each
    expect(() => runner.setPublishHz(5)).toThrow(/publish_hz must be within 10–50/);
  });
});

// How closely the frames keep the wall clock on this machine is measured by npm run bench:server; here, what the
// runner decides: frames stamped on the grid of the publish period, and NPCs moving as their speeds say per
// second of those stamps.
describe('real time: simulation time follows the wall clock', () => {
  it('at 10, 20 and 50 Hz an NPC moves per second of the frames\' wall-clock stamps as fast as its reported speed (within 2 %)', async () => {
    const { server, wsUrl, url } = await startServer({ config: { npc_target: 10 } });
    try {
      for (const hz of [10, 20, 50]) {
        await fetch(`${url}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ publish_hz: hz }) });
        const c = new TestClient(wsUrl);
        await c.opened();
        // two seconds' worth of frames at the new rate (the first two may straddle the change)
        let seen = 0;
        await c.next((m) => m.type === 'npc_states' && m.state === 'running' && ++seen >= 2 * hz + 2, 60_000);
        c.close();
        const frames = c.messages.filter((m) => m.type === 'npc_states' && m.state === 'running').slice(2);
        expect(frames.length).toBeGreaterThanOrEqual(2 * hz);
        // frames are stamped on the grid of the publish period, in simulation and in wall-clock time (a tick a
        // busy machine made the runner skip leaves a gap of whole periods, still on the grid)
        for (let i = 1; i < frames.length; i++) {
          const periods = (frames[i].timestamp - frames[i - 1].timestamp) * hz;
          expect(Math.abs(periods - Math.round(periods))).toBeLessThan(1e-4);
          expect(Math.round(periods)).toBeGreaterThanOrEqual(1);
          expect(frames[i].sim_time_s - frames[i - 1].sim_time_s).toBeCloseTo(Math.round(periods) / hz, 2);
        }
        // an NPC covers per second of the frames' wall-clock stamps the distance its reported speed says
        let path = 0, expected = 0;
        for (let i = 1; i < frames.length; i++) {
          const dt = frames[i].timestamp - frames[i - 1].timestamp;
          for (const n of frames[i].npcs) {
            const p = frames[i - 1].npcs.find((q: { id: number }) => q.id === n.id);
            if (!p) continue;
            path += Math.hypot(n.x - p.x, n.y - p.y);
            expected += p.speed * dt;
          }
        }
        expect(expected).toBeGreaterThan(10);
        expect(Math.abs(path / expected - 1)).toBeLessThan(0.02);
      }
    } finally {
      await server.close();
    }
  }, 30000);
});

describe('several scenes in one process', () => {
  it('hosts two scenes with their own maps, streams and REST under their prefixes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-scenes-'));
    const straight = join(dir, 'straight.json');
    writeFileSync(straight, JSON.stringify({
      name: 'straight',
      roads: [
        { type: 'road_edge', geometry: [{ x: -300, y: -6 }, { x: 300, y: -6 }] },
        { type: 'road_edge', geometry: [{ x: -300, y: 6 }, { x: 300, y: 6 }] },
        { type: 'lane', geometry: [{ x: -300, y: -2 }, { x: 300, y: -2 }] },
        { type: 'lane', geometry: [{ x: -300, y: 2 }, { x: 300, y: 2 }] },
      ],
    }));
    const { server, url, wsUrl } = await startServer({ config: { npc_target: 6 }, scenes: [{ name: 'b', mapPath: straight, config: { npc_target: 3, publish_hz: 20 } }] });
    try {
      const a = await (await fetch(`${url}/api/status`)).json();
      const b = await (await fetch(`${url}/scenes/b/api/status`)).json();
      expect(a).toMatchObject({ scene: 'default', map: 'demo-track.json', npcs: 6, publish_hz: 10 });
      expect(b).toMatchObject({ scene: 'b', map: 'straight.json', npcs: 3, publish_hz: 20 });
      const ca = new TestClient(wsUrl);
      const cb = new TestClient(wsUrl.replace('/ws/', '/scenes/b/ws/'));
      await Promise.all([ca.opened(), cb.opened()]);
      const fa = await ca.next((m) => m.type === 'npc_states' && m.step > 3);
      const fb = await cb.next((m) => m.type === 'npc_states' && m.step > 3);
      expect(fa.npcs.length).toBe(6);
      expect(fb.npcs.length).toBe(3);
      expect(fb.npcs.every((n: { y: number }) => Math.abs(n.y) < 6)).toBe(true);
      expect(((await (await fetch(`${url}/api/health`)).json()) as { scenes: string[] }).scenes).toEqual(['default', 'b']);
      ca.close();
      cb.close();
    } finally {
      await server.close();
    }
  }, 20000);
});

describe('after a stall the scene is where real time puts it', () => {
  async function stallFor(stallS: number, maxCatchUpS: number) {
    const clock = new VirtualClock(50);
    const scene = countingScene();
    const runner = new SceneRunner(scene, { clock, publishHz: 10, epochNow: () => clock.now(), maxCatchUpS: () => maxCatchUpS });
    runner.start();
    let stalled = false;
    const frames = await collect(runner, (f) => {
      // the process blocked once, at 2 s of simulation time
      if (!stalled && f[f.length - 1].snapshot.time >= 2 - 1e-9) {
        stalled = true;
        clock.advance(stallS);
      }
      return f.length >= 40;
    });
    await runner.close();
    return { frames, scene, stats: runner.stats, wallAt: (i: number) => frames[i].wallTimeS };
  }

  it('a 0.6 s freeze: the missed steps run in the next tick, simulation time stays on the wall clock (nothing slipped)', async () => {
    const { frames, scene, stats } = await stallFor(0.6, 1);
    // every frame's simulation time is its wall time less the start: no time given up
    for (const f of frames) expect(f.wallTimeS - f.snapshot.time).toBeCloseTo(frames[0].wallTimeS - frames[0].snapshot.time, 6);
    expect(scene.steps.every((t, i) => Math.abs(t - i / 10) < 1e-9)).toBe(true);
    expect(stats).toMatchObject({ slippedS: 0, slips: 0, catchUps: 1 });
    // the tick due 0.1 s after the frame at 2 s ran 0.5 s late: 0.5 s of steps run late, in one go
    expect(stats.caughtUpS).toBeCloseTo(0.5, 6);
  });

  it('a freeze longer than max_catch_up_s: the time is given up and counted (the figure a test case\'s quality gate reads)', async () => {
    const { frames, stats } = await stallFor(2.5, 1);
    const offsets = frames.map((f) => f.wallTimeS - f.snapshot.time);
    expect(stats.slips).toBe(1);
    expect(offsets[offsets.length - 1] - offsets[0]).toBeCloseTo(stats.slippedS, 6);
    expect(stats.slippedS).toBeGreaterThan(2.1);
    expect(stats.caughtUpS).toBe(0);
  });
});
