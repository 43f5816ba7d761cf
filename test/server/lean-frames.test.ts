/**
 * The lean frame path (issue 24 item 5) changes no value:
 *  - a snapshot is made from the scene's NPC table (typed arrays filled once per change, not engine views per
 *    frame): every NPC state equals the one the code before made from engine.npcs() (its formula, kept below),
 *    number for number, frame after frame, at 50 Hz between steps, with spawns, removals, a shield toggle, an
 *    ego removed and a reset between steps, and snapshots taken twice;
 *  - the host's frames (NpcFrameBuilder: entries reused, projections once per NPC and position) are
 *    buildNpcStatesFrame's, JSON text and binary bytes alike;
 *  - proj4 is called three times per NPC whose position changed (the inverse for latitude and longitude, two
 *    forward for the meridian convergence) and never for one that did not, where npcEntry calls it four times;
 *  - the route and plan helpers that write into reused objects give what the allocating ones give.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** proj4 transforms by direction, counted in the converters proj4(from, to) makes (GeoFrame makes one) */
const calls = vi.hoisted(() => ({ forward: 0, inverse: 0 }));
vi.mock('proj4', async (importOriginal) => {
  const mod = await importOriginal<{ default: (...a: unknown[]) => unknown }>();
  const real = mod.default;
  const counted = (...args: unknown[]) => {
    const c = real(...args) as { forward?: (p: unknown) => unknown; inverse?: (p: unknown) => unknown };
    if (args.length !== 2 || typeof c?.forward !== 'function' || typeof c.inverse !== 'function') return c;
    const { forward, inverse } = c as Required<typeof c>;
    return { ...c, forward: (p: unknown) => (calls.forward++, forward(p)), inverse: (p: unknown) => (calls.inverse++, inverse(p)) };
  };
  Object.assign(counted, real);
  return { ...mod, default: counted };
});

const { setupScene } = await import('../../src/scene/index.js');
const { buildNpcStatesFrame, NpcFrameBuilder } = await import('../../src/server/wire.js');
const { encodeNpcStatesBinary } = await import('../../src/server/wire-binary.js');
const { POLICY_DT } = await import('../../src/traffic/engine.js');
const { wrapPi } = await import('../../src/geo/frame.js');
const { Route, GoalPoint, LaneAtProgress } = await import('../../src/traffic/route.js');
const { committedLanes, committedLanesInto, LaneScratch } = await import('../../src/scene/next-route.js');
const { SeededRandom } = await import('../../src/util/random.js');
const { PROJECT_ROOT } = await import('../helpers/shared.js');
const { testModel } = await import('../helpers/server-fixture.js');
type LiveScene = import('../../src/scene/index.js').LiveScene;
type NpcView = import('../../src/traffic/engine.js').NpcView;
type TrafficEngine = import('../../src/traffic/engine.js').TrafficEngine;
type StopConstraints = import('../../src/traffic/stops.js').StopConstraints;

const DEMO = join(PROJECT_ROOT, 'maps', 'demo-track.json');

/** LiveScene.snapshot's NPCs as the code before made them: from engine.npcs(), per frame. */
function snapshotBefore(scene: LiveScene, t: number) {
  const inner = scene as unknown as { engine: TrafficEngine; stops: StopConstraints; population: { isAuto(id: number): boolean } };
  const engine = inner.engine;
  const holdOf = (n: NpcView) => {
    if ((n.hold === 'red' || n.hold === 'yellow' || n.hold === 'stop_sign') && n.waitingFor !== -1) return 'queue';
    if (n.hold !== 'none') return n.hold;
    return n.speed < 1 && n.waitingFor !== -1 ? 'queue' : 'none';
  };
  const base = (scene.steps - 1) * POLICY_DT;
  const alpha = scene.steps === 0 ? 0 : Math.min(1, Math.max(0, (t - base) / POLICY_DT));
  return engine.npcs(inner.stops).map((n) => {
    const fresh = engine.isFresh(n.id);
    const dx = n.x - n.prevX;
    const dy = n.y - n.prevY;
    const vx = fresh ? n.speed * Math.cos(n.yaw) : dx / POLICY_DT;
    const vy = fresh ? n.speed * Math.sin(n.yaw) : dy / POLICY_DT;
    return {
      id: n.id, x: n.prevX + alpha * dx, y: n.prevY + alpha * dy, yaw: wrapPi(n.prevYaw + alpha * wrapPi(n.yaw - n.prevYaw)),
      vx, vy, speed: Math.hypot(vx, vy), length: n.length, width: n.width, goalX: n.goalX, goalY: n.goalY,
      collided: n.collided, offroad: n.offroad, auto: inner.population.isAuto(n.id), hold: holdOf(n),
    };
  });
}

/** JSON with −0, NaN and ±Infinity told apart: equal strings mean equal numbers (Object.is). */
const exact = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'number' && (Object.is(x, -0) || !Number.isFinite(x)) ? `#${Object.is(x, -0) ? '-0' : String(x)}` : x));

describe('the lean frame path', () => {
  it('snapshots and frames as before, bit for bit and byte for byte, at 50 Hz with changes between steps', async () => {
    const { scene, geo, release } = await setupScene({ mapPath: DEMO, modelPath: testModel(), config: { npc_target: 63, seed: 5 } });
    scene.reset();
    const builder = new NpcFrameBuilder();
    const lanes = scene.lanes;
    let frames = 0, states = 0, differing = 0, changes = 0, waiting = 0;
    for (let i = 1; i <= 600; i++) {
      const t = i / 50;
      // an ego moving along a lane (its removal below is an NPC-side change too)
      if (i < 400) {
        const p = lanes.pose(3, (t * 8) % lanes.lanes[3].length);
        scene.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed: 8, clientTimestamp: t }, t);
      }
      if (i % 37 === 0) {
        const npcs = scene.snapshot(t).npcs;
        scene.removeNpc(npcs[(i * 7) % npcs.length].id);
        changes++;
      }
      if (i % 53 === 0) {
        const L = lanes.lanes[(i * 3) % lanes.lanes.length];
        const p = lanes.pose((i * 3) % lanes.lanes.length, L.length / 2);
        try {
          scene.spawnNpc({ x: p.x, y: p.y, speed: 2 });
        } catch {
          // (a spot taken: refused, nothing changed)
        }
        changes++;
      }
      if (i % 71 === 0) {
        scene.configure({ shield: !scene.config.shield });
        changes++;
      }
      if (i === 400) scene.removeEgo('car');
      if (i === 450) scene.reset();
      await scene.advanceTo(t);
      for (const at of [t, t]) {
        const s = scene.snapshot(at);
        const before = snapshotBefore(scene, at);
        if (exact(s.npcs) !== exact(before)) differing++;
        states += s.npcs.length;
        waiting += s.npcs.filter((n) => n.hold === 'queue').length;
        const reference = buildNpcStatesFrame(geo, s, 'running', 1.7e9 + at);
        const lean = builder.build(geo, s, 'running', 1.7e9 + at);
        if (JSON.stringify(lean) !== JSON.stringify(reference)) differing++;
        if (!encodeNpcStatesBinary(lean).equals(encodeNpcStatesBinary(reference))) differing++;
        frames++;
      }
    }
    await release();
    expect(frames).toBe(1200);
    expect(states).toBeGreaterThan(60_000);
    expect(changes).toBeGreaterThan(25);
    expect(waiting).toBeGreaterThan(0);
    expect(differing).toBe(0);
  });

  it('three proj4 calls per NPC whose position changed, none for one that did not (npcEntry: four)', async () => {
    const { scene, geo, release } = await setupScene({ mapPath: DEMO, modelPath: testModel(), config: { npc_target: 63, seed: 5 } });
    scene.reset();
    await scene.advanceTo(30);
    const builder = new NpcFrameBuilder();
    const count = (f: () => void) => {
      calls.forward = 0;
      calls.inverse = 0;
      f();
      return { forward: calls.forward, inverse: calls.inverse };
    };
    const t0 = scene.steps * POLICY_DT - 0.08;
    const s0 = scene.snapshot(t0);
    const n = s0.npcs.length;
    expect(n).toBe(63);
    // the code before: four per NPC in every frame
    expect(count(() => buildNpcStatesFrame(geo, s0, 'running', 1))).toEqual({ forward: 2 * n, inverse: 2 * n });
    // the first frame: three per NPC
    expect(count(() => builder.build(geo, s0, 'running', 1))).toEqual({ forward: 2 * n, inverse: n });
    // the same instant again (a paused scene, the REST list): none
    expect(count(() => builder.build(geo, scene.snapshot(t0), 'paused', 2))).toEqual({ forward: 0, inverse: 0 });
    // 20 ms later between the same two steps: three for each NPC that moves, none for those standing
    const s1 = scene.snapshot(t0 + 0.02);
    const moved = s1.npcs.filter((m, k) => m.x !== s0.npcs[k].x || m.y !== s0.npcs[k].y).length;
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThan(n); // some stand (at a line, in a queue): the case the cache is for
    expect(count(() => builder.build(geo, s1, 'running', 3))).toEqual({ forward: 2 * moved, inverse: moved });
    await release();
  });

  it('the route and plan helpers that write into reused objects give what the allocating ones give', async () => {
    const { scene, release } = await setupScene({ mapPath: DEMO, modelPath: testModel(), config: { npc_target: 1 } });
    const lanes = scene.lanes;
    const rng = new SeededRandom(9);
    const goalOut = new GoalPoint();
    const here = new LaneAtProgress();
    const scratch = new LaneScratch();
    const pose = { x: 0, y: 0, yaw: 0 };
    let checks = 0, mismatches = 0;
    const same = (p: object, q: object) => exact(p) === exact(q);
    for (let li = 0; li < lanes.lanes.length; li++) {
      for (let r = 0; r < 10; r++) {
        const route = new Route(lanes, li, rng.next() * lanes.lanes[li].length, 50 + rng.next() * 600, rng);
        for (const d of [-1, 0, route.length, route.length + 1, ...Array.from({ length: 20 }, () => rng.next() * route.length)]) {
          route.progress = Math.min(Math.max(d, 0), route.length);
          route.lateral = (rng.next() - 0.5) * 2;
          const args: [number, number, number, number] = [6, 5 + rng.next() * 40, rng.next() * 1.5, rng.next() * 5];
          if (!same(route.goal(...args, undefined, goalOut), route.goal(...args))) mismatches++;
          if (!same(route.poseInto(d, pose), route.poseAt(d))) mismatches++;
          if (!same(route.laneAtProgress(here), route.laneAtProgress())) mismatches++;
          const at = route.laneAtProgress();
          const plan = Array.from(committedLanesInto(lanes, route.lanes, at.index, at.s, scratch));
          if (!same(plan, committedLanes(lanes, route.lanes.slice(at.index), at.s))) mismatches++;
          // update's lateral: the heading error against poseAt's direction at the new progress
          const x = route.poseAt(d).x + (rng.next() - 0.5) * 3, y = route.poseAt(d).y + (rng.next() - 0.5) * 3, yaw = rng.next() * 6, speed = rng.next() * 10;
          const p0 = route.progress;
          route.update(x, y);
          const plain = { progress: route.progress, lateral: route.lateral };
          route.progress = p0;
          route.update(x, y, yaw, speed, 0.5);
          let err = yaw - route.poseAt(plain.progress).yaw;
          err -= 2 * Math.PI * Math.round(err / (2 * Math.PI));
          if (!same({ progress: route.progress, lateral: route.lateral }, { progress: plain.progress, lateral: plain.lateral + speed * Math.sin(err) * 0.5 })) mismatches++;
          checks++;
        }
      }
    }
    await release();
    expect(checks).toBeGreaterThan(2000);
    expect(mismatches).toBe(0);
  });
});
