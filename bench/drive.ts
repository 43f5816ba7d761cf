/**
 * Headless throughput: `npm run bench:drive [-- --json] [-- --seconds 60] [-- --runs 3]`.
 *  - `vils drive` on the demo track (shield on, as served) at 63 and at 30 NPCs, each in a process of its
 *    own, the model file's full graph (VILS_POLICY_GRAPH=full)
 *    and the rows path (the default) alternately, `--runs` times each: agent-steps per second of one process
 *    (one core: the policy runs on one intra-op thread) and the real-time factor. Goals: ≥ 25,000
 *    agent-steps/s at 63 NPCs, ≥ 100× real time at 30 NPCs.
 *  - several scenes in one process (one model, a fork per scene: its own buffers), stepped in turn on
 *    simulation time: agent-steps per second of the process, and that the scenes' NPCs are those of the same
 *    scenes run alone (bit for bit).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PolicySession, resolvePolicyModel } from '../src/policy/index.js';
import { defaultMapPath, setupScene } from '../src/scene/index.js';
import { POLICY_DT } from '../src/traffic/engine.js';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

export const DRIVE_GOAL_AGENT_STEPS = 25_000;
export const DRIVE_GOAL_REAL_TIME_30 = 100;

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, seconds: { type: 'string' }, runs: { type: 'string' }, scenes: { type: 'string' } } });
const seconds = Number(values.seconds ?? 60);
const runs = Number(values.runs ?? 3);
const sceneCount = Number(values.scenes ?? 3);
const vils = join(projectRoot(), 'dist', 'src', 'cli', 'vils.js');

interface DriveRun {
  agent_steps_per_s: number;
  real_time_factor: number;
  wall_seconds: number;
}

function drive(npcs: number, path: 'today' | 'rows'): DriveRun {
  const env = { ...process.env, ...(path === 'today' ? { VILS_POLICY_GRAPH: 'full' } : { VILS_POLICY_GRAPH: 'rows' }) };
  const out = execFileSync(process.execPath, [vils, 'drive', '--npcs', String(npcs), '--seconds', String(seconds), '--seed', '1', '--json'], { encoding: 'utf8', env });
  const r = JSON.parse(out) as DriveRun;
  return { agent_steps_per_s: r.agent_steps_per_s, real_time_factor: r.real_time_factor, wall_seconds: r.wall_seconds };
}

const range = (xs: number[]) => ({ min: Math.min(...xs), median: [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)], max: Math.max(...xs) });
const single: Record<string, { today: DriveRun[]; rows: DriveRun[] }> = { '63': { today: [], rows: [] }, '30': { today: [], rows: [] } };
for (let r = 0; r < runs; r++) {
  for (const npcs of [63, 30]) {
    for (const path of (r % 2 === 0 ? ['today', 'rows'] : ['rows', 'today']) as Array<'today' | 'rows'>) {
      const d = drive(npcs, path);
      single[String(npcs)][path].push(d);
      if (!values.json) console.error(`vils drive, ${npcs} NPCs, ${path.padEnd(5)}: ${Math.round(d.agent_steps_per_s)} agent-steps/s, ×${d.real_time_factor.toFixed(0)} real time`);
    }
  }
}

// several scenes in one process: one loaded model, a fork (own buffers) per scene, stepped in turn
async function multiScene(k: number, npcs: number): Promise<{ scenes: number; agent_steps_per_s: number; identical_to_alone: boolean }> {
  const model = await PolicySession.load(resolvePolicyModel({}));
  const mapPath = defaultMapPath();
  const setups = [];
  for (let i = 0; i < k; i++) setups.push(await setupScene({ mapPath, policy: model, config: { npc_target: npcs, seed: 1 + i } }));
  for (const s of setups) s.scene.reset();
  const steps = Math.round(Math.min(seconds, 30) / POLICY_DT);
  const t0 = performance.now();
  for (let t = 0; t < steps; t++) for (const s of setups) await s.scene.advanceTo(t * POLICY_DT);
  const wall = (performance.now() - t0) / 1000;
  const agentSteps = setups.reduce((a, s) => a + s.scene.quality.summary().npc_steps, 0);
  // the last scene alone, on a model of its own: the same NPCs
  const alone = await setupScene({ mapPath, config: { npc_target: npcs, seed: k } });
  alone.scene.reset();
  for (let t = 0; t < steps; t++) await alone.scene.advanceTo(t * POLICY_DT);
  const identical = JSON.stringify(alone.scene.snapshot().npcs) === JSON.stringify(setups[k - 1].scene.snapshot().npcs);
  await alone.release();
  for (const s of setups) await s.release();
  await model.release();
  return { scenes: k, agent_steps_per_s: agentSteps / wall, identical_to_alone: identical };
}
const multi = await multiScene(sceneCount, 63);

const summary = (npcs: string, path: 'today' | 'rows') => ({
  agent_steps_per_s: range(single[npcs][path].map((d) => d.agent_steps_per_s)),
  real_time_factor: range(single[npcs][path].map((d) => d.real_time_factor)),
});
const result = {
  benchmark: 'drive', map: 'demo-track', seconds, runs,
  goal: { agent_steps_per_s_63: DRIVE_GOAL_AGENT_STEPS, real_time_factor_30: DRIVE_GOAL_REAL_TIME_30 },
  npcs_63: { today: summary('63', 'today'), rows: summary('63', 'rows') },
  npcs_30: { today: summary('30', 'today'), rows: summary('30', 'rows') },
  multi_scene: multi,
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  const f = (r: { min: number; median: number; max: number }, d = 0) => `${r.median.toFixed(d)} (${r.min.toFixed(d)}–${r.max.toFixed(d)})`;
  console.log(`vils drive on the demo track, ${seconds} s of simulated time, ${runs} runs per path (median, range)`);
  console.log(`  63 NPCs: today ${f(result.npcs_63.today.agent_steps_per_s)}, rows ${f(result.npcs_63.rows.agent_steps_per_s)} agent-steps/s (goal ≥ ${DRIVE_GOAL_AGENT_STEPS})`);
  console.log(`  30 NPCs: today ×${f(result.npcs_30.today.real_time_factor)}, rows ×${f(result.npcs_30.rows.real_time_factor)} real time (goal ≥ ×${DRIVE_GOAL_REAL_TIME_30})`);
  console.log(`  ${multi.scenes} scenes of 63 NPCs in one process, one model: ${Math.round(multi.agent_steps_per_s)} agent-steps/s; each scene's NPCs as when run alone: ${multi.identical_to_alone ? 'yes' : 'NO'}`);
}
