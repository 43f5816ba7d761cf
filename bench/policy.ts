/**
 * Policy inference benchmark: `npm run bench:policy [-- --json] [-- --threads 1] [-- --model <onnx>]`.
 * For N = 1, 10, 63, 256 agents: p50/p99 per batched run, µs per agent and achieved GFLOP/s
 * (2 × multiply-adds of the net, LayerNorm/tanh/max not counted). `-- --compare` also times the textbook
 * graph of the same checkpoint, alternating run for run.
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OBS_SIZE, PolicySession, buildLateFusionOnnx, defaultCheckpointPath, loadPolicyCheckpoint, multiplyAddsPerAgent, resolvePolicyModel } from '../src/policy/index.js';
import { SeededRandom } from '../src/util/random.js';
import { summarise } from './stats.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
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

if (values.json) {
  console.log(JSON.stringify({ benchmark: 'policy', model: modelPath, threads, flops_per_agent: flopsPerAgent, results: rows }));
} else {
  console.log(`policy inference, ${modelPath}, ${threads} intra-op thread(s), ${(flopsPerAgent / 1e6).toFixed(2)} MFLOP per agent`);
  console.log(`     N    p50 ms    p99 ms   µs/agent   GFLOP/s     runs${plain ? '  plain graph p50 ms' : ''}`);
  for (const r of rows) {
    console.log(
      `${String(r.n).padStart(6)}${r.p50_ms.toFixed(3).padStart(10)}${r.p99_ms.toFixed(3).padStart(10)}${r.us_per_agent.toFixed(1).padStart(11)}${r.gflops.toFixed(1).padStart(10)}${String(r.runs).padStart(9)}` +
        (r.plain_p50_ms !== undefined ? r.plain_p50_ms.toFixed(3).padStart(20) : ''),
    );
  }
}
