/**
 * Policy inference benchmark: `npm run bench:policy [-- --json] [-- --threads 1] [-- --model <onnx>]`.
 * For N = 1, 10, 63, 256 agents: p50/p99 per batched run of the full graph, µs per agent and achieved GFLOP/s
 * (2 × multiply-adds of the net, LayerNorm/tanh/max not counted). `-- --compare` also times the textbook
 * graph of the same checkpoint, alternating run for run.
 * Then real observations (63 NPCs on the demo track, as the live scene builds them): the rows graph (real
 * rows and the padding row) against the full graph, run for run alternating, their logits compared bit for
 * bit, and the GEMM floor of the full net: its multiply-adds at the rate a 12600×64×64 sgemm runs here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { OBS_SIZE, ObservationRows, PolicySession, buildLateFusionOnnx, defaultCheckpointPath, loadPolicyCheckpoint, multiplyAddsPerAgent, resolvePolicyModel } from '../src/policy/index.js';
import { defaultMapPath, setupScene } from '../src/scene/index.js';
import { POLICY_DT, type TrafficEngine } from '../src/traffic/engine.js';
import { SeededRandom } from '../src/util/random.js';
import { summarise } from './stats.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, threads: { type: 'string' }, model: { type: 'string' }, seconds: { type: 'string' }, compare: { type: 'boolean' }, checkpoint: { type: 'string' } },
});
const threads = Number(values.threads ?? 1);
const modelPath = resolvePolicyModel({ model: values.model });
const session = await PolicySession.load(modelPath, { intraOpThreads: threads });
// --compare: the textbook graph of the same checkpoint (3-D MatMul + Add per Linear), timed in the same
// run, run for run alternating with ours, so machine load affects both alike.
let plain: PolicySession | null = null;
if (values.compare) {
  const { weights } = loadPolicyCheckpoint(values.checkpoint ?? defaultCheckpointPath());
  const path = join(mkdtempSync(join(tmpdir(), 'vils-bench-')), 'plain.onnx');
  writeFileSync(path, buildLateFusionOnnx(weights, {}, { layout: 'plain' }));
  plain = await PolicySession.load(path, { intraOpThreads: threads });
}
const flopsPerAgent = 2 * multiplyAddsPerAgent();
const budgetMs = 1000 * Number(values.seconds ?? 2);

// Observations with the structure of real ones: padding rows where an agent sees fewer partners/roads.
function observations(n: number): Float32Array {
  const rng = new SeededRandom(n);
  const obs = new Float32Array(n * OBS_SIZE);
  for (let i = 0; i < obs.length; i++) obs[i] = 0.1 * (rng.next() - 0.5);
  return obs;
}

const rows: Array<{ n: number; p50_ms: number; p99_ms: number; us_per_agent: number; gflops: number; runs: number; plain_p50_ms?: number }> = [];
for (const n of [1, 10, 63, 256]) {
  const obs = observations(n);
  for (let i = 0; i < 30; i++) {
    await session.run(obs, n);
    await plain?.run(obs, n);
  }
  const samples: number[] = [];
  const plainSamples: number[] = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || samples.length < 50) {
    const t0 = performance.now();
    await session.run(obs, n);
    samples.push(performance.now() - t0);
    if (plain) {
      const t1 = performance.now();
      await plain.run(obs, n);
      plainSamples.push(performance.now() - t1);
    }
  }
  const s = summarise(samples);
  rows.push({ n, p50_ms: s.p50, p99_ms: s.p99, us_per_agent: (1000 * s.p50) / n, gflops: (flopsPerAgent * n) / (s.p50 * 1e6), runs: s.n, ...(plain ? { plain_p50_ms: summarise(plainSamples).p50 } : {}) });
}
await session.release();
await plain?.release();

/** Observations of 63 NPCs on the demo track, every 5th step of 60 after 30 steps of warm-up. */
async function realObservations(): Promise<Float32Array[]> {
  const { scene, policy, release } = await setupScene({ mapPath: defaultMapPath(), config: { npc_target: 63, seed: 7 } });
  scene.reset();
  const engine = (scene as unknown as { engine: TrafficEngine }).engine;
  const out: Float32Array[] = [];
  for (let k = 0; k < 90; k++) {
    await scene.advanceTo(k * POLICY_DT);
    if (k >= 30 && k % 5 === 0) {
      const active = new Int32Array(engine.world.capacity);
      const n = engine.sim.activeControlled(active);
      const obs = new Float32Array(n * OBS_SIZE);
      engine.sim.observe(active, n, obs, policy.sizeScale);
      out.push(obs);
    }
  }
  await release();
  return out;
}

/** Seconds per run of a [m,64]×[64,64] MatMul in onnxruntime (one thread): the sgemm rate of this machine. */
async function sgemmRate(m: number): Promise<number> {
  const { onnx } = onnxProto;
  const f = onnx.TensorProto.DataType.FLOAT;
  const vi = (name: string, dims: number[]) => onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType: f, shape: onnx.TensorShapeProto.create({ dim: dims.map((d) => ({ dimValue: d })) }) }) }) });
  const w = new Float32Array(64 * 64).map((_, i) => Math.sin(i));
  const model = onnx.ModelProto.create({
    irVersion: 8, opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 })],
    graph: onnx.GraphProto.create({
      name: 'sgemm', node: [onnx.NodeProto.create({ opType: 'MatMul', input: ['a', 'w'], output: ['c'] })],
      initializer: [onnx.TensorProto.create({ name: 'w', dims: [64, 64], dataType: f, rawData: new Uint8Array(w.buffer) })],
      input: [vi('a', [m, 64])], output: [vi('c', [m, 64])],
    }),
  });
  const s = await ort.InferenceSession.create(onnx.ModelProto.encode(model).finish(), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const feeds = { a: new ort.Tensor('float32', new Float32Array(m * 64).map((_, i) => Math.cos(i)), [m, 64]) };
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await s.run(feeds);
    if (i >= 50) times.push(performance.now() - t0);
  }
  await s.release();
  return summarise(times).p50 / 1000;
}

const real = await realObservations();
// the rows as the engine has them (the observation builder writes them directly): packed once, not timed
const realRows = real.map((obs) => {
  const rows = new ObservationRows(obs.length / OBS_SIZE);
  rows.packObservations(obs, obs.length / OBS_SIZE);
  return rows;
});
const rowsSession = await PolicySession.load(modelPath, { intraOpThreads: threads, graph: 'rows' });
const fullSession = await PolicySession.load(modelPath, { intraOpThreads: threads, graph: 'full' });
const tRows: number[] = [], tFull: number[] = [];
let bitDiffs = 0, actionDiffs = 0, agents = 0;
const realEnd = performance.now() + 2 * budgetMs;
for (let rep = 0; performance.now() < realEnd || rep < 3; rep++) {
  for (const [k, obs] of real.entries()) {
    const n = obs.length / OBS_SIZE;
    let t0 = performance.now();
    const a = rowsSession.runRows(realRows[k]);
    tRows.push(performance.now() - t0);
    const la = a.logits.slice(), aa = a.actions.slice();
    t0 = performance.now();
    const b = fullSession.run(obs, n);
    tFull.push(performance.now() - t0);
    for (let i = 0; i < la.length; i++) if (!Object.is(la[i], b.logits[i])) bitDiffs++;
    for (let i = 0; i < n; i++) if (aa[i] !== b.actions[i]) actionDiffs++;
    agents += n;
  }
}
await rowsSession.release();
await fullSession.release();
const sgemmM = 12600;
const sgemmS = await sgemmRate(sgemmM);
const sgemmGflops = (2 * sgemmM * 64 * 64) / sgemmS / 1e9;
const npcs = real[0].length / OBS_SIZE;
const floorMs = (1000 * 2 * multiplyAddsPerAgent() * npcs) / (sgemmGflops * 1e9);
const realResult = {
  npcs,
  rows_ms: summarise(tRows), full_sync_ms: summarise(tFull),
  sgemm_gflops: sgemmGflops, gemm_floor_full_net_ms: floorMs,
  logits_differing_bits: bitDiffs, actions_differing: actionDiffs, agent_runs_compared: agents,
  real_rows_per_npc: {
    partners: realRows.reduce((a, r) => a + r.realPartnerRows, 0) / realRows.reduce((a, r) => a + r.n, 0),
    roads: realRows.reduce((a, r) => a + r.realRoadRows, 0) / realRows.reduce((a, r) => a + r.n, 0),
  },
};

if (values.json) {
  console.log(JSON.stringify({ benchmark: 'policy', model: modelPath, threads, flops_per_agent: flopsPerAgent, results: rows, real: realResult }));
} else {
  console.log(`policy inference, ${modelPath}, ${threads} intra-op thread(s), ${(flopsPerAgent / 1e6).toFixed(2)} MFLOP per agent`);
  console.log(`     N    p50 ms    p99 ms   µs/agent   GFLOP/s     runs${plain ? '  plain graph p50 ms' : ''}`);
  for (const r of rows) {
    console.log(
      `${String(r.n).padStart(6)}${r.p50_ms.toFixed(3).padStart(10)}${r.p99_ms.toFixed(3).padStart(10)}${r.us_per_agent.toFixed(1).padStart(11)}${r.gflops.toFixed(1).padStart(10)}${String(r.runs).padStart(9)}` +
        (r.plain_p50_ms !== undefined ? r.plain_p50_ms.toFixed(3).padStart(20) : ''),
    );
  }
  const r = realResult;
  const f = (x: { p50: number; p99: number }) => `p50 ${x.p50.toFixed(3)} / p99 ${x.p99.toFixed(3)} ms`;
  console.log(`real observations, ${r.npcs} NPCs on the demo track (${r.rows_ms.n} runs each, alternating):`);
  console.log(`  rows graph (sync)        ${f(r.rows_ms)}  (real rows: ${r.real_rows_per_npc.partners.toFixed(1)} partners, ${r.real_rows_per_npc.roads.toFixed(0)} roads per NPC)`);
  console.log(`  full graph (sync)        ${f(r.full_sync_ms)}`);
  console.log(`  GEMM floor of the full net: ${r.gemm_floor_full_net_ms.toFixed(3)} ms (a ${sgemmM}×64×64 sgemm at ${r.sgemm_gflops.toFixed(1)} GFLOP/s)`);
  console.log(`  rows vs full: ${r.logits_differing_bits} logits differ in any bit, ${r.actions_differing} actions differ (${r.agent_runs_compared} agent-runs)`);
}
