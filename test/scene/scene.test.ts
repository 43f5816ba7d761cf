import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile } from '../../src/map/scene-json.js';
import { PolicySession } from '../../src/policy/session.js';
import { InputError, LiveScene, type SceneEvent } from '../../src/scene/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

const scene = (config = {}) => {
  const s = new LiveScene(TRACK, policy.fork(), { npc_target: 8, ...config });
  s.reset();
  return s;
};

describe('the live scene on simulation time (no clock, no sockets)', () => {
  it('runs every 0.1 s policy step due by t, and only those', async () => {
    const s = scene();
    expect(await s.advanceTo(0)).toBe(1); // the step at t = 0 commits the motion to 0.1
    expect(await s.advanceTo(0.05)).toBe(0);
    expect(await s.advanceTo(0.3)).toBe(3); // 0.1, 0.2, 0.3 (3·0.1 ≠ 0.3 in floating point: still due)
    expect(s.steps).toBe(4);
    expect(s.nextStepTime).toBeCloseTo(0.4, 12);
    expect(await s.advanceTo(2.0)).toBe(17);
    expect(s.time).toBe(2.0);
  });

  it('between steps, NPCs move along the motion the last step committed: displacement = reported speed × time', async () => {
    for (const hz of [10, 20, 50]) {
      const s = scene({ seed: hz });
      let path = 0, expected = 0;
      let prev = s.snapshot(0);
      for (let k = 1; k <= 10 * hz; k++) {
        const t = k / hz;
        await s.advanceTo(t);
        const snap = s.snapshot(t);
        for (const n of snap.npcs) {
          const p = prev.npcs.find((q) => q.id === n.id);
          if (!p) continue;
          path += Math.hypot(n.x - p.x, n.y - p.y);
          expected += p.speed / hz;
          // velocity components agree with the speed
          expect(Math.hypot(n.vx, n.vy)).toBeCloseTo(n.speed, 9);
        }
        prev = snap;
      }
      expect(expected).toBeGreaterThan(100);
      expect(Math.abs(path / expected - 1)).toBeLessThan(0.02);
    }
  });

  it('reports the time it shows and the step it is on', async () => {
    const s = scene();
    await s.advanceTo(0.25);
    const snap = s.snapshot(0.25);
    expect(snap).toMatchObject({ time: 0.25, step: 3 });
    expect(snap.npcs.length).toBe(8);
    expect(snap.timings?.scene_ms).toBeGreaterThan(0);
  });
});

describe('egos: injected, extrapolated on simulation time, with a life cycle', () => {
  const reportAt = (s: LiveScene, id: string, t: number, x = 0, y = -300) => s.updateEgo({ egoId: id, x, y, yaw: 0, speed: 10 }, t);

  it('moves an ego along its heading to the time asked, from the time its report arrived', async () => {
    const s = scene();
    reportAt(s, 'car', 0.05, 10, -300);
    await s.advanceTo(0.35);
    const e = s.snapshot(0.35).egos[0];
    expect(e.x).toBeCloseTo(10 + 10 * 0.3, 9);
    expect(e.stale).toBe(false);
  });

  it('goes stale after ego_timeout_s and is forgotten after ego_forget_s, with events in order', async () => {
    const s = scene({ ego_timeout_s: 0.5, ego_forget_s: 3 });
    const events: SceneEvent[] = [];
    s.on((e) => events.push(e));
    reportAt(s, 'car', 0);
    await s.advanceTo(0.5);
    expect(s.snapshot().egos[0].stale).toBe(false);
    await s.advanceTo(0.6);
    expect(s.snapshot().egos[0].stale).toBe(true);
    reportAt(s, 'car', 0.65);
    await s.advanceTo(0.7);
    expect(s.snapshot().egos[0].stale).toBe(false);
    await s.advanceTo(3.6); // 2.95 s since the last report
    expect(s.egoCount).toBe(1);
    await s.advanceTo(3.7); // 3.05 s
    expect(s.egoCount).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['ego_connected', 'ego_stale', 'ego_resumed', 'ego_stale', 'ego_forgotten']);
    expect(events.at(-1)).toMatchObject({ egoId: 'car', reason: 'timeout' });
  });

  it('ego slots never run out: silent egos are forgotten and their slots reused (max_egos 3, 60 cars over time)', async () => {
    const s = scene({ max_egos: 3, ego_forget_s: 1 });
    let t = 0;
    for (let k = 0; k < 20; k++) {
      for (let j = 0; j < 3; j++) reportAt(s, `car-${k}-${j}`, t, 30 * j, -300);
      expect(() => reportAt(s, `extra-${k}`, t)).toThrow(InputError);
      expect(() => reportAt(s, `extra-${k}`, t)).toThrow(/already tracks 3 egos/);
      t += 1.5;
      await s.advanceTo(t);
      expect(s.egoCount).toBe(0);
    }
  });

  it('reset and removal forget egos at once', async () => {
    const s = scene();
    reportAt(s, 'a', 0);
    reportAt(s, 'b', 0);
    await s.advanceTo(0.2);
    expect(s.removeEgo('a')).toBe(true);
    expect(s.removeEgo('a')).toBe(false);
    expect(s.egoCount).toBe(1);
    s.reset();
    expect(s.egoCount).toBe(0);
    expect(s.steps).toBe(0);
    expect(s.time).toBe(0);
  });

  it('refuses ego positions far outside the map, and settings that only take effect on restart', () => {
    const s = scene();
    expect(() => s.updateEgo({ egoId: 'x', x: 90000, y: 0, yaw: 0, speed: 0 })).toThrow(/outside the map area/);
    expect(() => s.updateEgo({ egoId: 'x', x: NaN, y: 0, yaw: 0, speed: 0 })).toThrow(/outside the map area/);
    expect(() => s.configure({ max_egos: 4, npc_target: 2 })).toThrow(/max_egos .* only takes effect when the server restarts/);
    expect(s.config.npc_target).toBe(8);
    s.configure({ npc_target: 2, max_egos: s.config.max_egos });
    expect(s.config.npc_target).toBe(2);
  });
});

describe('population', () => {
  it('keeps npc_target auto NPCs, spawns on request, and keeps ids stable', async () => {
    const s = scene({ npc_target: 5 });
    expect(s.npcCount).toBe(5);
    const id = s.spawnNpc({ x: 40, y: 41, speed: 4 });
    expect(s.snapshot().npcs.find((n) => n.id === id)).toMatchObject({ auto: false });
    await s.advanceTo(1);
    expect(s.npcCount).toBe(6);
    expect(s.removeAllNpcs()).toBe(6);
    expect(s.npcCount).toBe(0);
    await s.advanceTo(1.1);
    expect(s.npcCount).toBe(5); // auto-spawn refills to npc_target
  });

  it('counts quality figures once per policy step', async () => {
    const s = scene({ npc_target: 4 });
    await s.advanceTo(0.95);
    const q = s.quality.summary();
    expect(q.npc_steps).toBe(4 * 10);
    expect(q.trips).toBeGreaterThanOrEqual(4);
  });
});

describe('policy sessions per scene', () => {
  it('two forks of one model keep their own buffers: interleaved runs give each its own results', async () => {
    const { OBS_SIZE, ACTION_COUNT } = await import('../../src/policy/layout.js');
    const a = policy.fork();
    const b = policy.fork();
    const obsA = new Float32Array(3 * OBS_SIZE).map((_, i) => Math.sin(i) * 0.3);
    const obsB = new Float32Array(5 * OBS_SIZE).map((_, i) => Math.cos(i * 1.7) * 0.3);
    const [ra, rb] = await Promise.all([a.run(obsA, 3), b.run(obsB, 5)]);
    const copyA = Float32Array.from(ra.logits);
    const aloneB = Float32Array.from((await policy.fork().run(obsB, 5)).logits);
    expect(Array.from(rb.logits)).toEqual(Array.from(aloneB));
    expect(ra.logits.length).toBe(3 * ACTION_COUNT);
    expect(Array.from(ra.logits)).toEqual(Array.from(copyA)); // b's run did not overwrite a's results
    await a.release();
    await b.release();
    expect((await policy.run(obsA, 3)).logits.length).toBe(3 * ACTION_COUNT); // the model lives while a session uses it
  });
});
