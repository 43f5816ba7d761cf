/**
 * Engine benchmark: `npm run bench:engine [-- --json] [-- --steps 600] [-- --map <scene.json>]`.
 * 63 NPCs on a real map (default: the Waymo scene womd_00000-of-01000_402 from ../shared, the largest
 * shipped road graph), one inference thread. Per-step p50/p99 of observation building, inference,
 * dynamics + collisions and the total, and (total − inference) / inference. NPCs that finish are
 * respawned between steps (not timed: the session loop does that).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadMapFile } from '../src/map/scene-json.js';
import { PolicySession, projectRoot, resolvePolicyModel } from '../src/policy/index.js';
import { SeededRandom } from '../src/policy/sampling.js';
import { TrafficEngine } from '../src/traffic/engine.js';
import { LaneNetwork } from '../src/traffic/lanes.js';
import { summarise } from './stats.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { json: { type: 'boolean' }, steps: { type: 'string' }, map: { type: 'string' }, npcs: { type: 'string' }, model: { type: 'string' } },
});
const mapPath = values.map ?? resolve(projectRoot(), '..', 'shared', 'data', 'gpudrive', 'scenes', 'womd_00000-of-01000_402.json');
if (!existsSync(mapPath)) {
  console.error(`bench:engine: map ${mapPath} not found; pass --map <scene or road JSON>`);
  process.exit(1);
}
const steps = Number(values.steps ?? 600);
const npcCount = Number(values.npcs ?? 63);
const policy = await PolicySession.load(resolvePolicyModel({ model: values.model }), { intraOpThreads: 1 });
const { scene } = loadMapFile(mapPath);
const engine = new TrafficEngine(scene, policy);
const lanes = new LaneNetwork(engine.roads.entities);
const rng = new SeededRandom(7);

// Lane positions are in the engine's internal (world-mean) frame; the engine API takes map coordinates.
const occupied = () => engine.npcs().map((n) => ({ x: n.x - engine.mean.x, y: n.y - engine.mean.y, r: 0 }));
function fill(): void {
  const occ = occupied();
  while (engine.npcCount < npcCount) {
    const p = lanes.randomStart(rng, 60, occ, 8);
    if (!p) break;
    occ.push({ x: p.start.x, y: p.start.y, r: 0 });
    const m = engine.mean;
    engine.addNpc({ x: p.start.x + m.x, y: p.start.y + m.y, yaw: p.start.yaw, speed: 5, goalX: p.goal.x + m.x, goalY: p.goal.y + m.y });
  }
}

fill();
for (let i = 0; i < 30; i++) {
  await engine.step();
  fill();
}
const obs: number[] = [], inf: number[] = [], dyn: number[] = [], tot: number[] = [], active: number[] = [];
let goals = 0;
let collisions = 0;
for (let i = 0; i < steps; i++) {
  const t = await engine.step();
  obs.push(t.obs_ms); inf.push(t.inference_ms); dyn.push(t.dynamics_ms); tot.push(t.total_ms); active.push(t.npcs);
  for (const n of engine.npcs()) {
    if (n.reachedGoal) goals++;
    if (n.collided) collisions++;
  }
  fill();
}
await policy.release();
const s = { obs: summarise(obs), inference: summarise(inf), dynamics: summarise(dyn), total: summarise(tot) };
const ratio = (s.total.p50 - s.inference.p50) / s.inference.p50;
const meanActive = active.reduce((a, b) => a + b, 0) / active.length;
const result = {
  benchmark: 'engine', map: mapPath, steps, npcs_mean: meanActive, intra_op_threads: 1,
  obs_ms: { p50: s.obs.p50, p99: s.obs.p99 },
  inference_ms: { p50: s.inference.p50, p99: s.inference.p99 },
  dynamics_collisions_ms: { p50: s.dynamics.p50, p99: s.dynamics.p99 },
  total_ms: { p50: s.total.p50, p99: s.total.p99 },
  non_inference_over_inference: ratio,
  goals_reached: goals, collision_agent_steps: collisions,
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`engine step, ${meanActive.toFixed(1)} NPCs on ${mapPath}, ${steps} steps, 1 inference thread`);
  console.log('                          p50 ms    p99 ms');
  const row = (name: string, v: { p50: number; p99: number }) => console.log(`${name.padEnd(24)}${v.p50.toFixed(3).padStart(8)}${v.p99.toFixed(3).padStart(10)}`);
  row('observations', s.obs);
  row('inference', s.inference);
  row('dynamics + collisions', s.dynamics);
  row('total', s.total);
  console.log(`(total − inference) / inference = ${(100 * ratio).toFixed(1)} %`);
  console.log(`goals reached ${goals}, NPC-steps in collision ${collisions}`);
}
