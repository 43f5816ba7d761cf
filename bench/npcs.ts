/**
 * NPC quality benchmark: `npm run bench:npcs [-- --json] [-- --minutes 10] [-- --seeds 1,2,3,4,5] [-- --jobs 2]
 * [-- --npcs 30,63] [-- --maps "demo track,K-City,FMTC"] [-- --actuated] [-- --route-choice queues] [-- --no-right-on-red] [-- --pedestrians 20] [-- --ngii DIR[=LABEL],…]`. Runs `vils drive` (traffic rules and signals on) on the
 * demo track, K-City and FMTC (converted from ../shared into a temporary folder; NGII maps are never written into
 * the project) and any NGII release named by --ngii (a folder of shapefiles: how a map nobody here has seen is
 * checked) with 30 and 63 NPCs, for each seed, in child processes, and prints the quality figures next to their
 * goals (✓ when the worst seed meets it). Without ../shared only the demo track and the --ngii maps run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { convertNgii } from '../src/map/ngii/convert.js';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

const run = promisify(execFile);
const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, actuated: { type: 'boolean' }, 'no-right-on-red': { type: 'boolean' }, 'route-choice': { type: 'string' }, minutes: { type: 'string' }, seeds: { type: 'string' }, jobs: { type: 'string' }, maps: { type: 'string' }, npcs: { type: 'string' }, ngii: { type: 'string' }, pedestrians: { type: 'string' } },
});
const minutes = Number(values.minutes ?? 10);
const seeds = (values.seeds ?? '1,2,3,4,5').split(',').map(Number);
const counts = (values.npcs ?? '30,63').split(',').map(Number);
const jobs = Math.max(1, Number(values.jobs ?? 2));
const root = projectRoot();
const shared = resolve(root, '..', 'shared', 'data', 'ngii');

async function ngiiMap(name: string, folder: string): Promise<string | null> {
  if (!existsSync(folder)) return null;
  // the shapefiles may sit one folder down
  const withLinks = existsSync(join(folder, 'A2_LINK.shp')) ? folder : readdirSync(folder).map((d) => join(folder, d)).find((d) => existsSync(join(d, 'A2_LINK.shp')));
  if (!withLinks) return null;
  const { map } = await convertNgii(withLinks);
  const out = join(mkdtempSync(join(tmpdir(), 'vils-bench-npcs-')), `${name}.json`);
  writeFileSync(out, JSON.stringify(map));
  return out;
}

const kcity = await ngiiMap('kcity', join(shared, 'kcity'));
const fmtc = await ngiiMap('fmtc', join(shared, 'fmtc'));
const mapFiles: Array<{ label: string; path: string }> = [{ label: 'demo track', path: join(root, 'maps', 'demo-track.json') }];
if (kcity) mapFiles.push({ label: 'K-City', path: kcity });
if (fmtc) mapFiles.push({ label: 'FMTC', path: fmtc });
for (const spec of values.ngii?.split(',') ?? []) {
  const [dir, label = basename(resolve(dir))] = spec.split('=');
  const path = await ngiiMap(label, resolve(dir));
  if (!path) throw new Error(`bench:npcs: --ngii ${dir}: no A2_LINK.shp there or one folder down`);
  mapFiles.push({ label, path });
}
const maps = mapFiles.flatMap((m) => counts.map((npcs) => ({ ...m, npcs })));
if (!kcity) console.error('bench:npcs: ../shared/data/ngii not found: only the demo track runs');
const only = values.maps?.split(',');

interface Drive { [k: string]: number | string }
const tasks = maps.filter((m) => !only || only.includes(m.label)).flatMap((m) => seeds.map((seed) => ({ ...m, seed })));
const results: Array<{ label: string; npcs: number; seed: number; r: Drive }> = [];
const vils = join(root, 'dist', 'src', 'cli', 'vils.js');
let next = 0;
await Promise.all(Array.from({ length: jobs }, async () => {
  while (next < tasks.length) {
    const t = tasks[next++];
    const { stdout } = await run(process.execPath, [vils, 'drive', '--map', t.path, '--npcs', String(t.npcs), '--seconds', String(minutes * 60), '--seed', String(t.seed), '--json', ...(values.actuated ? ['--actuated'] : []), ...(values['no-right-on-red'] ? ['--no-right-on-red'] : []), ...(values['route-choice'] ? ['--route-choice', values['route-choice']] : []), ...(values.pedestrians !== undefined ? ['--pedestrians', values.pedestrians] : [])], { maxBuffer: 1 << 24 });
    results.push({ label: t.label, npcs: t.npcs, seed: t.seed, r: JSON.parse(stdout) as Drive });
    if (!values.json) console.error(`  ${t.label}, ${t.npcs} NPCs, seed ${t.seed}: done`);
  }
}));

/** The figures and their goals (issue "Intersections done right", item 5; the earlier ones stay). */
const SUMS = new Set(['wrong_way_steps', 'red_light_violations', 'right_turns_on_red_without_stop', 'red_light_violations_ungoverned', 'line_crossings', 'stop_sign_violations', 'vehicle_contact_steps', 'junction_stands_over_10s', 'gridlock_recycles', 'stuck_npcs', 'ego_red_light_runs', 'people_crossings', 'people_struck', 'npc_crosswalk_entries_with_person', 'people_started_on_dont_walk', 'npc_s_held_for_people']);
const ROWS: Array<[string, string, (v: number) => string, (v: number, npcs: number) => boolean]> = [
  ['line_crossings', 'stop lines crossed (sum over seeds)', (v) => String(v), () => true],
  ['red_light_violations', 'red-light violations (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['right_turns_on_red_without_stop', '… right turns on red without a full stop', (v) => String(v), (v) => v === 0],
  ['red_light_violations_ungoverned', '… by movements no group names', (v) => String(v), (v) => v === 0],
  ['stop_sign_violations', 'stop-sign violations (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['vehicle_contact_steps', 'NPC-steps touching a vehicle (sum)', (v) => String(v), (v) => v === 0],
  ['junction_stand_max_s', 'longest stand inside a junction (s)', (v) => v.toFixed(1), (v, npcs) => npcs > 30 || v <= 10],
  ['junction_stands_over_10s', 'stands inside a junction > 10 s (sum; goal at 30)', (v) => String(v), (v, npcs) => npcs > 30 || v === 0],
  ['box_blocking_npc_s', 'box blocking (NPC-s)', (v) => v.toFixed(1), () => true],
  ['people_crossings', 'people who started to cross (sum)', (v) => String(v), () => true],
  ['people_struck', 'people struck by an NPC (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['npc_crosswalk_entries_with_person', 'NPCs onto an occupied crosswalk (sum)', (v) => String(v), (v) => v === 0],
  ['people_started_on_dont_walk', "people who started on don't-walk (sum)", (v) => String(v), (v) => v === 0],
  ['npc_s_held_for_people', 'NPC-s held for people (sum)', (v) => v.toFixed(1), () => true],
  ['gridlock_recycles', 'gridlocks broken up (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['stuck_npcs', 'NPCs stuck (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['throughput_veh_per_h_per_lane', 'throughput, vehicles/h per approach lane', (v) => v.toFixed(0), () => true],
  ['throughput_veh_per_green_h_per_lane', '… at signals, per hour of green', (v) => v.toFixed(0), () => true],
  ['throughput_veh_per_green_h_max', 'saturation flow, busiest approach lane (veh/h of green)', (v) => v.toFixed(0), () => true],
  ['held_red_share', 'NPC-steps held at a red light', pct, () => true],
  ['held_give_way_share', 'NPC-steps giving way', pct, () => true],
  ['vehicle_contact_step_share', 'NPC-steps touching a vehicle', pct, (v) => v <= 0.001],
  ['road_edge_step_share', 'NPC-steps touching a road edge', pct, (v) => v <= 0.003],
  ['npcs_ever_collided', 'NPCs that ever touched a vehicle', pct, (v) => v <= 0.02],
  ['npcs_ever_offroad', 'NPCs that ever touched a road edge', pct, () => true],
  ['contacts_per_npc_hour', 'vehicle contacts per NPC-hour', (v) => v.toFixed(2), () => true],
  ['offroad_events_per_npc_hour', 'road-edge events per NPC-hour', (v) => v.toFixed(2), () => true],
  ['heading_jitter_step_share', 'heading change > 10° in a step', pct, (v) => v <= 0.02],
  ['wrong_way_steps', 'wrong-way NPC-steps (sum over seeds)', (v) => String(v), (v) => v === 0],
  ['mean_speed_mps', 'mean speed (m/s)', (v) => v.toFixed(2), () => true],
  ['speed_share_of_limit', 'mean speed / lane limit', pct, () => true],
  ['shield_override_share', 'shield overrides', pct, (v) => v <= 0.05],
  ['shield_emergency_share', '… of which emergency braking', pct, () => true],
  ['mean_lane_offset_m', 'mean offset from the lane centre (m)', (v) => v.toFixed(2), () => true],
  ['mean_trip_length_m', 'mean trip length (m)', (v) => v.toFixed(0), () => true],
  ['goal_rate', 'trips that reached their end', pct, () => true],
  ['agent_steps_per_s', 'agent-steps per second (one process)', (v) => v.toFixed(0), () => true],
];
function pct(v: number): string {
  return `${(100 * v).toFixed(2)} %`;
}

const groups = [...new Set(results.map((r) => `${r.label} × ${r.npcs}`))];
const table = groups.map((g) => {
  const rs = results.filter((r) => `${r.label} × ${r.npcs}` === g);
  const row: Record<string, number> = {};
  for (const [key] of ROWS) row[key] = SUMS.has(key) ? rs.reduce((a, r) => a + Number(r.r[key]), 0) : rs.reduce((a, r) => a + Number(r.r[key]), 0) / rs.length;
  // worst seed for the goals that must hold in every run
  const worst: Record<string, number> = {};
  for (const [key] of ROWS) worst[key] = Math.max(...rs.map((r) => Number(r.r[key])));
  worst.speed_share_of_limit = Math.min(...rs.map((r) => Number(r.r.speed_share_of_limit)));
  for (const key of SUMS) worst[key] = row[key];
  return { group: g, npcs: rs[0].npcs, seeds: rs.map((r) => r.seed).sort(), mean: row, worst };
});

if (values.json) {
  console.log(JSON.stringify({ benchmark: 'npcs', minutes, seeds, table, runs: results }));
} else {
  console.log(`NPC quality: ${minutes} simulated minutes per run, seeds ${seeds.join(', ')} (mean over seeds; ✓/✗: the worst seed against the goal)`);
  const w = 46;
  console.log(`${''.padEnd(w)}${groups.map((g) => g.padStart(18)).join('')}`);
  for (const [key, name, fmt, ok] of ROWS) {
    console.log(`${name.padEnd(w)}${table.map((t) => `${fmt(t.mean[key])} ${ok(t.worst[key], t.npcs) ? '✓' : '✗'}`.padStart(18)).join('')}`);
  }
}
