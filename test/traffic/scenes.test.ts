import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildRoadEntities, loadMapFile, RoadIndex } from '../../src/map/index.js';
import { OBS_SIZE, PolicySession, writeModelFromCheckpoint } from '../../src/policy/index.js';
import { initSceneWorld, objectCreationOrder } from '../../src/traffic/scene-init.js';
import { Sim } from '../../src/traffic/sim.js';
import { evaluateScene } from '../../src/traffic/evaluate.js';
import { AgentKind } from '../../src/traffic/world.js';
import { evalCommand } from '../../src/cli/eval.js';
import { S75_CHECKPOINT, SCENES_DIR } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const scenePath = (name: string) => join(SCENES_DIR, name);
const WOMD = ['womd_00000-of-01000_222.json', 'womd_00000-of-01000_325.json', 'womd_00000-of-01000_402.json'];

/** Independent check of box overlap: sample points of box A and test them against box B's rectangle. */
function boxesIntersectBySampling(a: number[], b: number[]): boolean {
  const [ax, ay, ayaw, ahl, ahw] = a;
  const [bx, by, byaw, bhl, bhw] = b;
  for (let i = 0; i <= 40; i++) {
    for (let j = 0; j <= 40; j++) {
      const u = -ahl + (2 * ahl * i) / 40;
      const v = -ahw + (2 * ahw * j) / 40;
      const px = ax + u * Math.cos(ayaw) - v * Math.sin(ayaw) - bx;
      const py = ay + u * Math.sin(ayaw) + v * Math.cos(ayaw) - by;
      const lu = px * Math.cos(byaw) + py * Math.sin(byaw);
      const lv = -px * Math.sin(byaw) + py * Math.cos(byaw);
      if (Math.abs(lu) <= bhl && Math.abs(lv) <= bhw) return true;
    }
  }
  return false;
}

describe.skipIf(!have('shared'))('collision fixtures (../shared/data/gpudrive/scenes/test_*.json)', () => {
  it('agent vs road edge: the 0.7-scaled box on the edge is flagged at reset and after a step, as off-road only', () => {
    const { scene } = loadMapFile(scenePath('test_agent_road_edge_collision.json'));
    const { world, mean } = initSceneWorld(scene);
    expect(world.count).toBe(1);
    expect(world.kind[0]).toBe(AgentKind.Controlled);
    const sim = new Sim(world, new RoadIndex(buildRoadEntities(scene.roads, mean)), { episodeSteps: 1 });
    sim.reset();
    expect([world.collided[0], world.hitRoad[0], world.hitVehicle[0]]).toEqual([1, 1, 0]);
    const obs = new Float32Array(OBS_SIZE);
    sim.observe([0], 1, obs, 0.7);
    expect(obs[5]).toBe(1);
    sim.step([45]);
    expect([world.collided[0], world.hitRoad[0], world.hitVehicle[0]]).toEqual([1, 1, 0]);
    expect(world.x[0]).toBeCloseTo(-mean.x + 0.1, 3); // keeps driving ("ignore" behaviour)
    expect(world.done[0]).toBe(1); // one-step episode
  });

  it('agent vs agent: both flagged on the step their boxes first meet, cleared once apart, both keep driving', () => {
    const { scene } = loadMapFile(scenePath('test_agent_agent_collision.json'));
    const { world } = initSceneWorld(scene);
    expect(world.count).toBe(2);
    expect([world.kind[0], world.kind[1]]).toEqual([AgentKind.Controlled, AgentKind.Controlled]);
    const sim = new Sim(world, null, {});
    sim.reset();
    expect([world.hitVehicle[0], world.hitVehicle[1]]).toEqual([0, 0]); // 5 m apart
    const box = (i: number) => [world.x[i], world.y[i], world.yaw[i], 0.35 * world.length[i], 0.35 * world.width[i]];
    let first = -1;
    let cleared = -1;
    for (let t = 1; t <= 40; t++) {
      sim.step([84, 82]); // agent 0: accel 4, straight; agent 1: accel 4, steer −1.047
      const overlap = boxesIntersectBySampling(box(0), box(1)) || boxesIntersectBySampling(box(1), box(0));
      expect(world.hitVehicle[0], `step ${t}`).toBe(overlap ? 1 : world.hitVehicle[0]);
      if (world.hitVehicle[0] && first < 0) first = t;
      if (first > 0 && !world.hitVehicle[0] && cleared < 0) cleared = t;
      expect(world.hitVehicle[1]).toBe(world.hitVehicle[0]);
      expect(world.hitRoad[0]).toBe(0);
    }
    expect(first).toBe(12);
    expect(cleared).toBeGreaterThan(12);
  });
});

describe.skipIf(!have('shared'))('scene initialisation on real Waymo scenes (spec §7.1–7.5)', () => {
  it('orders SDC first, then tracks_to_predict and objects of interest, then file order', () => {
    const { scene } = loadMapFile(scenePath(WOMD[0]));
    const order = objectCreationOrder(scene);
    expect(order.slice(0, 2)).toEqual([24, 7]); // sdc 24, then track 7 (24 already taken)
    // the objects of interest (ids 1847, 1415) are those two already; the rest follow in file order
    expect([1847, 1415].map((id) => scene.objects.findIndex((o) => o.id === id)).sort((a, b) => a - b)).toEqual([7, 24]);
    expect(order.slice(2, 6)).toEqual([0, 1, 2, 3]);
    const s325 = loadMapFile(scenePath(WOMD[1])).scene;
    expect(objectCreationOrder(s325).slice(0, 5)).toEqual([61, 1, 3, 32, 0]); // sdc 61, tracks 3, 32, 1 in file order
    expect(new Set(order).size).toBe(scene.objects.length);
  });
  it('creates only vehicles valid at t = 0 and splits them into controlled, static and experts', () => {
    for (const name of WOMD) {
      const { scene } = loadMapFile(scenePath(name));
      const { world, objectIndex } = initSceneWorld(scene);
      const created = scene.objects.filter((o) => o.type === 'vehicle' && o.valid[0]).length;
      expect(world.count).toBe(Math.min(64, created));
      for (let s = 0; s < world.count; s++) {
        const o = scene.objects[objectIndex[s]];
        const still = Math.hypot(o.goalPosition.x - o.position[0].x, o.goalPosition.y - o.position[0].y) < 0.2;
        const expected = still ? AgentKind.Static : o.mark_as_expert ? AgentKind.Expert : AgentKind.Controlled;
        expect(world.kind[s], `${name} slot ${s}`).toBe(expected);
        if (still) expect([world.vx[s], world.vy[s]]).toEqual([0, 0]);
      }
    }
  });
});

describe.skipIf(!have('shared'))('acceptance: S75, deterministic, the three 91-step scenes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vils-accept-'));
  const model = join(dir, 's75.onnx');
  let policy: PolicySession;
  beforeAll(async () => {
    writeModelFromCheckpoint(S75_CHECKPOINT, model);
    policy = await PolicySession.load(model);
  });
  afterAll(async () => policy?.release());

  it('every controlled agent reaches its goal with no collision and no off-road', async () => {
    let agents = 0;
    for (const name of WOMD) {
      const r = await evaluateScene(loadMapFile(scenePath(name)).scene, policy, { label: name });
      agents += r.agents;
      expect(r, name).toMatchObject({ goal: r.agents, collided: 0, offroad: 0 });
    }
    expect(agents).toBe(53);
  });

  it('vils eval --json prints the documented shape and --trace writes every controlled agent per step', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((m: string) => void lines.push(m));
    const trace = join(dir, 'trace.json');
    try {
      expect(await evalCommand.run(['--scenes', ...WOMD.slice(0, 2).map(scenePath), '--model', model, '--deterministic', '--json', '--trace', trace])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const out = JSON.parse(lines.join('\n'));
    expect(out.scenes).toEqual([
      { scene: WOMD[0], agents: 2, goal: 2, collided: 0, offroad: 0 },
      { scene: WOMD[1], agents: 5, goal: 5, collided: 0, offroad: 0 },
    ]);
    expect(out.total).toEqual({ agents: 7, goal_rate: 1, collision_rate: 0, offroad_rate: 0 });
    const t = JSON.parse(readFileSync(trace, 'utf8'));
    expect(t.scenes).toHaveLength(2);
    expect(t.scenes[0].steps).toHaveLength(91);
    expect(Object.keys(t.scenes[0].steps[0][0]).sort()).toEqual(['action', 'id', 'speed', 'x', 'y', 'yaw']);
    expect(t.scenes[1].steps[0]).toHaveLength(5);
  });

  it('rejects bad arguments with a usage message', async () => {
    await expect(evalCommand.run(['--model', model])).rejects.toThrow(/--scenes needs at least one scene file/);
    await expect(evalCommand.run(['--scenes', 'x.json', '--seed', '1', '--deterministic'])).rejects.toThrow(/either --deterministic or --seed/);
  });
});
