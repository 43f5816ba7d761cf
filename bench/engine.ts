/**
 * Engine benchmark: `npm run bench:engine [-- --json] [-- --steps 600] [-- --map <scene.json>]`.
 * 63 NPCs on a real map (default: the Waymo scene womd_00000-of-01000_402 from ../shared, the largest
 * shipped road graph), one inference thread, through the live scene (src/scene) on simulation time.
 * Per-step p50/p99 of observation building, inference, the safety shield, dynamics + collisions, the engine step and the whole
 * scene step (population and metrics included), and (engine − inference) / inference.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setupScene } from '../src/scene/index.js';
import { POLICY_DT } from '../src/traffic/engine.js';
import { projectRoot } from '../src/util/project-root.js';
import { summarise } from './stats.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { json: { type: 'boolean' }, steps: { type: 'string' }, map: { type: 'string' }, npcs: { type: 'string' }, model: { type: 'string' }, 'no-shield': { type: 'boolean' } },
});
const mapPath = values.map ?? resolve(projectRoot(), '..', 'shared', 'data', 'gpudrive', 'scenes', 'womd_00000-of-01000_402.json');
if (!existsSync(mapPath)) {
  console.error(`bench:engine: map ${mapPath} not found; pass --map <scene or road JSON>`);
  process.exit(1);
}
const steps = Number(values.steps ?? 600);
const npcCount = Number(values.npcs ?? 63);
// the live scene as served (shield on unless --no-shield), kept full
const shield = !values['no-shield'];
const { scene, release } = await setupScene({ mapPath, modelPath: values.model, intraOpThreads: 1, config: { npc_target: npcCount, seed: 7, shield } });
scene.reset();
let k = 0;
for (; k < 30; k++) await scene.advanceTo(k * POLICY_DT);
const obs: number[] = [], inf: number[] = [], shi: number[] = [], dyn: number[] = [], eng: number[] = [], tot: number[] = [], active: number[] = [];
const q0 = scene.quality.summary();
for (let i = 0; i < steps; i++, k++) {
  await scene.advanceTo(k * POLICY_DT);
  const t = scene.timings!;
  obs.push(t.obs_ms); inf.push(t.inference_ms); shi.push(t.shield_ms); dyn.push(t.dynamics_ms); eng.push(t.total_ms); tot.push(t.scene_ms); active.push(t.npcs);
}
const q = scene.quality.summary();
await release();
const s = { obs: summarise(obs), inference: summarise(inf), shield: summarise(shi), dynamics: summarise(dyn), engine: summarise(eng), scene: summarise(tot) };
const ratio = (s.engine.p50 - s.inference.p50) / s.inference.p50;
const meanActive = active.reduce((a, b) => a + b, 0) / active.length;
const result = {
  benchmark: 'engine', map: mapPath, steps, npcs_mean: meanActive, intra_op_threads: 1, shield,
  obs_ms: { p50: s.obs.p50, p99: s.obs.p99 },
  inference_ms: { p50: s.inference.p50, p99: s.inference.p99 },
  shield_ms: { p50: s.shield.p50, p99: s.shield.p99 },
  dynamics_collisions_ms: { p50: s.dynamics.p50, p99: s.dynamics.p99 },
  total_ms: { p50: s.engine.p50, p99: s.engine.p99 },
  scene_ms: { p50: s.scene.p50, p99: s.scene.p99 },
  non_inference_over_inference: ratio,
  goals_reached: q.reached_goal - q0.reached_goal,
  collision_agent_steps: Math.round(q.vehicle_contact_step_share * q.npc_steps - q0.vehicle_contact_step_share * q0.npc_steps),
  shield_override_share: q.shield_override_share,
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`engine step, ${meanActive.toFixed(1)} NPCs on ${mapPath}, ${steps} steps, 1 inference thread, shield ${shield ? 'on' : 'off'}`);
  console.log('                          p50 ms    p99 ms');
  const row = (name: string, v: { p50: number; p99: number }) => console.log(`${name.padEnd(24)}${v.p50.toFixed(3).padStart(8)}${v.p99.toFixed(3).padStart(10)}`);
  row('observations', s.obs);
  row('inference', s.inference);
  row(shield ? 'shield (action choice)' : 'action choice', s.shield);
  row('dynamics + collisions', s.dynamics);
  row('engine total', s.engine);
  row('scene step (all)', s.scene);
  console.log(`(engine − inference) / inference = ${(100 * ratio).toFixed(1)} %`);
  console.log(`goals reached ${result.goals_reached}, NPC-steps in collision ${result.collision_agent_steps}`);
}
