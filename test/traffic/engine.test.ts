import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBS_SIZE, PARTNER_OFFSET, PolicySession, buildLateFusionOnnx, checkLateFusionWeights, readTorchCheckpoint, writeModelFromCheckpoint } from '../../src/policy/index.js';
import { buildRoadEntities, loadMapFile, RoadIndex } from '../../src/map/index.js';
import type { SceneJson } from '../../src/map/types.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { PolicyInput } from '../../src/policy/input.js';
import { stepPolicy } from '../../src/traffic/policy-step.js';
import { Sim } from '../../src/traffic/sim.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { SeededRandom } from '../../src/util/random.js';
import { AgentKind } from '../../src/traffic/world.js';
import { HAVE_SHARED, S75_CHECKPOINT, SCENES_DIR } from '../helpers/shared.js';
import { randomLateFusionTensors } from '../helpers/policy-fixtures.js';
import { writeTorchZip } from '../helpers/torch-writer.js';
import { makeWorld } from '../helpers/world-builder.js';
import { have } from '../helpers/prerequisites.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-engine-'));
// A straight two-way road along +x: edges at y = ±7, a lane each way, a centre line.
const straightRoad: SceneJson = {
  objects: [],
  roads: [
    { type: 'road_edge', geometry: [{ x: -200, y: -7 }, { x: 400, y: -7 }] },
    { type: 'road_edge', geometry: [{ x: -200, y: 7 }, { x: 400, y: 7 }] },
    { type: 'lane', geometry: [{ x: -200, y: -3.5 }, { x: 400, y: -3.5 }] },
    { type: 'lane', geometry: [{ x: 400, y: 3.5 }, { x: -200, y: 3.5 }] },
    { type: 'road_line', geometry: [{ x: -200, y: 0 }, { x: 400, y: 0 }] },
  ],
};

let policy: PolicySession;
beforeAll(async () => {
  const model = join(dir, 'policy.onnx');
  if (HAVE_SHARED) writeModelFromCheckpoint(S75_CHECKPOINT, model);
  else writeFileSync(model, buildLateFusionOnnx(checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(4))))));
  policy = await PolicySession.load(model);
});
afterAll(async () => policy?.release());

function newEngine(map: SceneJson): TrafficEngine {
  return new TrafficEngine(map, { sizeScale: policy.sizeScale });
}
const inputs = new WeakMap<TrafficEngine, PolicyInput>();
/** One policy step as the live scene takes it: observe, the one inference call, apply. */
function step(engine: TrafficEngine) {
  let input = inputs.get(engine);
  if (!input) inputs.set(engine, (input = new PolicyInput(policy, engine.maxNpcs)));
  stepPolicy(engine, policy, input);
  return engine.timings;
}

describe('live engine', () => {
  it('adds and removes NPCs between steps, up to 63', async () => {
    const engine = newEngine(straightRoad);
    const ids: number[] = [];
    for (let i = 0; i < 63; i++) ids.push(engine.addNpc({ x: -150 + 8 * i, y: -3.5, yaw: 0, speed: 5, goalX: 380, goalY: -3.5 }));
    expect(() => engine.addNpc({ x: 0, y: 0, yaw: 0, speed: 0, goalX: 1, goalY: 1 })).toThrow(/at most 63 NPCs/);
    const t = step(engine);
    expect(t.npcs).toBe(63);
    expect(engine.removeNpc(ids[5])).toBe(true);
    expect(engine.removeNpc(ids[5])).toBe(false);
    expect(engine.npcCount).toBe(62);
    const id = engine.addNpc({ x: 300, y: 3.5, yaw: Math.PI, speed: 5, goalX: -100, goalY: 3.5 });
    expect(engine.npcs().map((n) => n.id)).toContain(id);
    expect((step(engine)).npcs).toBe(63);
    engine.removeAllNpcs();
    expect(engine.npcCount).toBe(0);
    expect((step(engine)).npcs).toBe(0);
  });

  it('never moves an injected external agent; NPCs observe it first and collisions with it are reported', async () => {
    const engine = newEngine(straightRoad);
    engine.setExternal('ego', { x: 20, y: -3.5, yaw: 0, speed: 0, length: 4.5, width: 2 });
    const id = engine.addNpc({ x: 0, y: -3.5, yaw: 0, speed: 15, goalX: 200, goalY: -3.5 });
    let hit = false;
    for (let k = 0; k < 30 && !hit; k++) {
      step(engine);
      hit = engine.externalCollided('ego');
      const w = engine.world;
      const ego = [...Array(w.count).keys()].find((s) => w.kind[s] === AgentKind.External)!;
      expect(w.x[ego]).toBeCloseTo(20, 3);
    }
    // The policy may brake or swerve; whichever it does, its partner row 0 is the ego while within 50 m.
    const npc = engine.npcs().find((n) => n.id === id);
    if (hit) expect(npc?.collided).toBe(true);
    const obs = new Float32Array(OBS_SIZE);
    const slot = [...Array(engine.world.count).keys()].find((s) => engine.world.kind[s] === AgentKind.Controlled && engine.world.present[s])!;
    engine.sim.observe([slot], 1, obs, 0.7);
    expect(obs[PARTNER_OFFSET + 4]).toBeCloseTo((4.5 * 0.7) / 30, 6);
  });

  it('an NPC driving into a parked external car is flagged, and so is the car', async () => {
    const engine = newEngine(straightRoad);
    engine.setExternal('ego', { x: 3, y: -3.5, yaw: 0, speed: 0, length: 4.5, width: 2 });
    engine.addNpc({ x: 0, y: -3.5, yaw: 0, speed: 1, goalX: 200, goalY: -3.5 }); // overlapping already
    step(engine);
    expect(engine.externalCollided('ego')).toBe(true);
    expect(engine.npcs()[0].collided).toBe(true);
  });

  it('an injected ego appears in an NPC\'s partner block exactly as an identical NPC in its place would', () => {
    const observe = (withEgo: boolean): Float32Array => {
      const engine = newEngine(straightRoad);
      const other = { x: 25, y: -2.9, yaw: 0.12, speed: 6.5, length: 4.7, width: 1.9 };
      if (withEgo) engine.setExternal('ego', { ...other, collisionScale: 1 });
      engine.addNpc({ x: 0, y: -3.5, yaw: 0.03, speed: 9, goalX: 200, goalY: -3.5 });
      if (!withEgo) engine.addNpc({ ...other, goalX: 300, goalY: -3.5 });
      const w = engine.world;
      const slot = [...Array(w.count).keys()].find((k) => w.kind[k] === AgentKind.Controlled && w.x[k] === 0)!;
      const obs = new Float32Array(OBS_SIZE);
      engine.sim.observe([slot], 1, obs, policy.sizeScale);
      return obs;
    };
    const a = observe(true), b = observe(false);
    // position, speed, heading, size (with the policy's 0.7 scale) of partner row 0, and every other row
    expect(Array.from(a.subarray(PARTNER_OFFSET, PARTNER_OFFSET + 6))).toEqual(Array.from(b.subarray(PARTNER_OFFSET, PARTNER_OFFSET + 6)));
    expect(a[PARTNER_OFFSET + 4]).toBeCloseTo((4.7 * 0.7) / 30, 6);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('keeps injected egos when more than 63 agents are within 50 m', () => {
    const agents = [{ x: 0, y: 0 }];
    for (let i = 0; i < 70; i++) agents.push({ x: (i % 10) * 3, y: 3 + Math.floor(i / 10) * 3 });
    const w = makeWorld([...agents, { x: 10, y: -10, kind: AgentKind.External } as never, { x: -10, y: -10, kind: AgentKind.External } as never]);
    const sim = new Sim(w, null);
    const obs = new Float32Array(OBS_SIZE);
    sim.observe([0], 1, obs, 0.7);
    expect(obs[PARTNER_OFFSET + 1]).toBeCloseTo(0.01, 6);
    expect(obs[PARTNER_OFFSET + 6 + 1]).toBeCloseTo(-0.01, 6);
    expect(obs[PARTNER_OFFSET + 62 * 6 + 4]).toBeGreaterThan(0); // all 63 slots used
  });
});

describe('hot path allocation', () => {
  it.skipIf(!have('shared') || typeof globalThis.gc !== 'function')('observation building and the world step allocate nothing per step', () => {
    const { scene } = loadMapFile(join(SCENES_DIR, 'womd_00000-of-01000_402.json'));
    const engine = newEngine(scene);
    const lanes = new LaneNetwork(engine.roads.entities);
    const rng = new SeededRandom(3);
    for (let i = 0; i < 63; i++) {
      const p = lanes.randomStart(rng, 60, [], 8)!;
      engine.addNpc({ x: p.start.x, y: p.start.y, yaw: p.start.yaw, speed: 5, goalX: p.goal.x, goalY: p.goal.y });
    }
    const sim = engine.sim;
    const active = new Int32Array(engine.world.capacity);
    const obs = new Float32Array(63 * OBS_SIZE);
    const actions = new Int32Array(engine.world.capacity).fill(45);
    const run = (steps: number) => {
      for (let k = 0; k < steps; k++) {
        const n = sim.activeControlled(active);
        sim.observe(active, n, obs, 0.7);
        sim.step(actions);
      }
    };
    run(3000); // let the JIT optimise (and inline) the step
    (globalThis.gc as () => void)();
    const before = process.memoryUsage().heapUsed;
    run(500);
    const perStep = (process.memoryUsage().heapUsed - before) / 500;
    // No buffers or objects per step: what remains is V8 boxing a few doubles at call boundaries
    // (~32 B per road query). One reallocated 200-id array per agent would already be 50 kB a step.
    expect(perStep).toBeLessThan(8 * 1024);
  });
});

describe.skipIf(!have('shared'))('lane network', () => {
  it('places starts on lanes with goals ahead along linked lanes, apart from each other', () => {
    const { scene } = loadMapFile(join(SCENES_DIR, 'womd_00000-of-01000_402.json'));
    const roads = new RoadIndex(buildRoadEntities(scene.roads, { x: 0, y: 0 }));
    const net = new LaneNetwork(roads.entities);
    expect(net.lanes.length).toBeGreaterThan(10);
    expect(net.lanes.filter((l) => l.next.length > 0).length).toBeGreaterThan(net.lanes.length / 2);
    const rng = new SeededRandom(1);
    const occ: Array<{ x: number; y: number; r: number }> = [];
    for (let i = 0; i < 40; i++) {
      const p = net.randomStart(rng, 40, occ, 8)!;
      expect(Math.hypot(p.goal.x - p.start.x, p.goal.y - p.start.y)).toBeGreaterThan(5);
      for (const o of occ) expect(Math.hypot(o.x - p.start.x, o.y - p.start.y)).toBeGreaterThanOrEqual(8);
      occ.push({ ...p.start, r: 0 });
    }
  });
});

describe('speed governor (live traffic only)', () => {
  it('keeps an NPC from accelerating past its limit, without touching its steering', async () => {
    const engine = newEngine(straightRoad);
    const id = engine.addNpc({ x: -150, y: -3.5, yaw: 0, speed: 12, goalX: 380, goalY: -3.5, maxSpeed: 10 });
    let max = 0;
    for (let k = 0; k < 40; k++) {
      step(engine);
      max = Math.max(max, engine.npcs().find((n) => n.id === id)!.speed);
    }
    expect(max).toBeLessThan(12.01); // started above the limit: never faster than that
    expect(engine.npcs().find((n) => n.id === id)!.speed).toBeLessThan(11.6);
    engine.setMaxSpeed(id, Infinity);
    for (let k = 0; k < 40; k++) step(engine);
    if (HAVE_SHARED) expect(engine.npcs().find((n) => n.id === id)?.speed ?? 99).toBeGreaterThan(11.6); // S75 speeds up towards a far goal
  });
});
