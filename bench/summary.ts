/**
 * `npm run bench`: every benchmark in turn (each a process of its own, with --json), then one table of the
 * figures that have goals, each next to its goal. Kept out of `npm test`.
 *   npm run bench [-- --only policy,engine,viewers,drive,server,plant,cosim,npcs] [-- --quick] [-- --json]
 * `--quick` shortens the long runs (fewer seconds per configuration; figures get noisier). bench:npcs
 * (NPC quality on three maps, long) runs only when named in --only.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { only: { type: 'string' }, quick: { type: 'boolean' }, json: { type: 'boolean' } } });
const quick = values.quick === true;
const ALL = ['policy', 'engine', 'viewers', 'drive', 'server', 'plant', 'cosim'];
const only = values.only ? values.only.split(',') : ALL;

const args: Record<string, string[]> = {
  policy: quick ? ['--seconds', '1'] : [],
  engine: quick ? ['--steps', '300'] : [],
  viewers: quick ? ['--seconds', '8', '--share-window', '3'] : [],
  drive: quick ? ['--seconds', '30', '--runs', '1'] : [],
  server: quick ? ['--seconds', '20'] : [],
  plant: quick ? ['--ticks', '20000'] : [],
  cosim: quick ? ['--seconds', '10'] : [],
  npcs: [],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const results: Record<string, Json> = {};
for (const name of only) {
  if (!(name in args)) {
    console.error(`bench: unknown benchmark ${name} (${Object.keys(args).join(', ')})`);
    process.exit(2);
  }
  const t0 = performance.now();
  console.error(`bench: ${name} …`);
  const r = spawnSync(process.execPath, [join(projectRoot(), 'dist', 'bench', `${name}.js`), '--json', ...args[name]], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (r.status !== 0 || !line) {
    console.error(`bench: ${name} failed (exit ${r.status})`);
    results[name] = { error: `exit ${r.status}` };
    continue;
  }
  results[name] = JSON.parse(line);
  console.error(`bench: ${name} done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

interface Row {
  bench: string;
  figure: string;
  measured: string;
  goal: string;
  met: boolean | null;
}
const rows: Row[] = [];
const ms = (v: number) => `${v.toFixed(2)} ms`;
const add = (bench: string, figure: string, measured: string, goal = '—', met: boolean | null = null) => rows.push({ bench, figure, measured, goal, met });

const p = results.policy;
if (p?.real) {
  add('policy', `inference, ${p.real.npcs} NPCs on the demo track: rows graph p50 (the model file's full graph)`, `${ms(p.real.rows_ms.p50)} (${ms(p.real.full_sync_ms.p50)})`,
    `< GEMM floor of the full net, ${ms(p.real.gemm_floor_full_net_ms)}`, p.real.rows_ms.p50 < p.real.gemm_floor_full_net_ms);
  add('policy', 'inference / GEMM floor of the full net (rows graph p50, same run)', (p.real.rows_ms.p50 / p.real.gemm_floor_full_net_ms).toFixed(2), '≤ 1.0', p.real.rows_ms.p50 <= p.real.gemm_floor_full_net_ms);
  add('policy', 'rows vs full graph: logits differing in any bit, actions differing', `${p.real.logits_differing_bits}, ${p.real.actions_differing}`, '0, 0', p.real.logits_differing_bits === 0 && p.real.actions_differing === 0);
}
const e = results.engine;
if (e?.rows) {
  const served = e.thread ?? e.rows;
  add('engine', `engine step p50, ${e.npcs_mean.toFixed(0)} NPCs, shield on (today's path in the same run)`, `${ms(served.total_ms.p50)} (${ms(e.today.total_ms.p50)})`);
  if (e.non_inference_over_inference_p50 !== undefined) {
    const inThread = e.non_inference_over_inference_in_thread_p50;
    add('engine', '(engine step − inference) / inference, p50 of the per-step ratio, inference thread (in this thread)', `${e.non_inference_over_inference_p50.toFixed(2)}${inThread === undefined ? '' : ` (${inThread.toFixed(2)})`}`, `≤ ${e.goal_non_inference_over_inference}`, e.non_inference_over_inference_p50 <= e.goal_non_inference_over_inference);
  }
  const pi = e.parts_over_inference_p50;
  if (pi) add('engine', '… of which / inference: observations / shield (its prediction, while inferring) / dynamics (traffic rules, before the step)', `${pi.obs.toFixed(2)} / ${pi.shield.toFixed(2)} (${pi.predict?.toFixed(2) ?? '—'}) / ${pi.dynamics.toFixed(2)} (${pi.rules.toFixed(2)})`);
  add('engine', 'inference p50 / shield p50 / scene step p50', `${ms(served.inference_ms.p50)} / ${ms(served.shield_ms.p50)} / ${ms(served.scene_ms.p50)}`);
  add('engine', 'steps whose NPC states differ between the two paths', String(e.steps_with_differing_npc_states), '0', e.steps_with_differing_npc_states === 0);
}
const v = results.viewers;
if (v?.runs) {
  const find = (inf: string, fmt: string, n: number) => v.runs.find((r: Json) => r.inference === inf && r.format === fmt && r.viewers === n);
  const hi = Math.max(...v.viewers), lo = Math.min(...v.viewers);
  for (const [inf, fmt] of [['sync', 'json'], ['sync', 'binary']]) {
    const a = find(inf, fmt, lo), b = find(inf, fmt, hi);
    if (!a || !b) continue;
    const ratio = b.inference_ms.p99 / a.inference_ms.p99;
    const goal = inf === 'sync' ? `≤ ${v.goal_p99_ratio}× (${lo} viewer${lo === 1 ? '' : 's'})` : inf === 'async' ? '— (today)' : '— (the alternative)';
    add('viewers', `inference p99 at ${lo} → ${hi} viewers, ${inf} inference, ${fmt}`, `${ms(a.inference_ms.p99)} → ${ms(b.inference_ms.p99)} (×${ratio.toFixed(2)})`, goal, inf === 'sync' ? ratio <= v.goal_p99_ratio : null);
  }
  for (const ps of v.publish ?? []) {
    add('viewers', `publishing ${ps.npcs} NPCs at ${ps.publish_hz} Hz to ${ps.viewers} viewers (${ps.format}): server CPU with them − without, share of a core`, `${(100 * ps.publish_share).toFixed(1)} %`, `≤ ${100 * ps.goal} %`, ps.publish_share <= ps.goal);
  }
  for (const fmt of ['json', 'binary']) {
    const bytes = find('sync', fmt, hi)?.bytes_per_frame;
    const cpu = v.viewers.filter((n: number) => n > 1).map((n: number) => `${n}: ${(100 * (find('sync', fmt, n)?.server_cpu_share ?? NaN)).toFixed(0)} %`).join(', ');
    if (bytes !== undefined) add('viewers', `${fmt} frames: bytes per frame; server CPU (share of a core) by viewers`, `${Math.round(bytes)} B; ${cpu}`);
  }
}
const d = results.drive;
if (d?.npcs_63) {
  add('drive', 'vils drive, 63 NPCs: agent-steps/s, median (range); today in brackets', `${Math.round(d.npcs_63.rows.agent_steps_per_s.median)} (${Math.round(d.npcs_63.rows.agent_steps_per_s.min)}–${Math.round(d.npcs_63.rows.agent_steps_per_s.max)}) (${Math.round(d.npcs_63.today.agent_steps_per_s.median)})`,
    `≥ ${d.goal.agent_steps_per_s_63}`, d.npcs_63.rows.agent_steps_per_s.median >= d.goal.agent_steps_per_s_63);
  add('drive', 'vils drive, 30 NPCs: × real time, median (today)', `×${d.npcs_30.rows.real_time_factor.median.toFixed(0)} (×${d.npcs_30.today.real_time_factor.median.toFixed(0)})`, `≥ ×${d.goal.real_time_factor_30}`, d.npcs_30.rows.real_time_factor.median >= d.goal.real_time_factor_30);
  add('drive', `${d.multi_scene.scenes} scenes in one process (one model): agent-steps/s; NPCs as alone`, `${Math.round(d.multi_scene.agent_steps_per_s)}; ${d.multi_scene.identical_to_alone ? 'yes' : 'NO'}`, 'as alone', d.multi_scene.identical_to_alone);
}
const s = results.server;
if (s?.latency_minus_period_ms) {
  add('server', `ego_state → npc_states latency − step period, p99 (${s.clients} clients, ${s.npcs} NPCs)`, ms(s.latency_minus_period_ms.p99), '≤ 2 ms', s.latency_minus_period_ms.p99 <= 2);
  add('server', 'loop overruns; RSS max', `${s.overruns}; ${s.rss_mb_max} MB`);
}
const pl = results.plant;
if (pl?.levels) add('plant', 'L2 plant ticks per second (dt 5 ms)', String(Math.round(pl.levels.L2.ticks_per_s)), `≥ ${pl.goal.L2_ticks_per_s}`, pl.goal.met);
const c = results.cosim;
if (c?.rate_1000) {
  add('cosim', 'vils realtime at 1 kHz: STATE jitter p99; loss', `${c.rate_1000.jitter_ms.p99} ms; ${c.rate_1000.loss.seq_gaps}`, '≤ 1 ms; 0', c.goal_1khz?.met ?? null);
  if (c.rate_200) add('cosim', 'vils realtime at 200 Hz: STATE jitter p99; CMD→STATE p99', `${c.rate_200.jitter_ms.p99} ms; ${c.rate_200.cmd_to_state_latency_ms.p99} ms`);
}
const n = results.npcs;
if (n && !n.error) add('npcs', 'NPC quality (see bench:npcs for the figures and goals)', 'run', '—');
for (const [name, r] of Object.entries(results)) if (r.error) add(name, 'benchmark failed', r.error, '—', false);

// the goals are absolute figures, set on the machine the performance work was measured on; the sgemm rate
// (bench:policy) says how this machine compares with it
const REFERENCE_SGEMM_GFLOPS = [75, 89];
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown', cpus: cpus().length, node: process.version, load_average_at_end: loadavg()[0],
  sgemm_gflops: typeof p?.real?.sgemm_gflops === 'number' ? p.real.sgemm_gflops : null, reference_sgemm_gflops: REFERENCE_SGEMM_GFLOPS,
};
const machineLine = `machine: ${machine.cpu}, ${machine.cpus} CPUs, Node ${machine.node}` +
  (machine.sgemm_gflops === null ? '' : `; a 12600×64×64 sgemm at ${machine.sgemm_gflops.toFixed(1)} GFLOP/s here, ${REFERENCE_SGEMM_GFLOPS.join('–')} on the machine the goals were set on`);

if (values.json) {
  console.log(JSON.stringify({ benchmark: 'summary', quick, machine, rows, results }));
} else {
  const w = [8, Math.max(...rows.map((r) => r.figure.length)), Math.max(10, ...rows.map((r) => r.measured.length)), Math.max(6, ...rows.map((r) => r.goal.length))];
  const line = (a: string[]) => a.map((x, i) => x.padEnd(w[i] ?? 0)).join('  ');
  console.log(line(['bench', 'figure', 'measured', 'goal', 'met']));
  console.log(line(w.map((k) => '-'.repeat(k)).concat(['---'])));
  for (const r of rows) console.log(line([r.bench, r.figure, r.measured, r.goal, r.met === null ? '' : r.met ? 'yes' : 'NO']));
  console.log(machineLine);
  console.log(`(one machine, ${quick ? 'quick runs' : 'full runs'}; the machine's other load moves every figure: compare the side-by-side ones)`);
}
