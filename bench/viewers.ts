/**
 * Big audiences: `npm run bench:viewers [-- --json] [-- --seconds 15] [-- --viewers 1,200,800] [-- --hz 10]`.
 * Starts `vils serve` (63 NPCs on the demo track, publish_hz 10 or --hz, not recording) for each configuration and
 * connects that many listen-only WebSocket viewers from this process:
 *  - inference: `sync` (the only mode: each step's inference is one synchronous call, so steps are atomic;
 *    the asynchronous and worker-thread modes measured here before were removed, issue 24);
 *  - format: `json` (the default) or `binary` (?format=binary, src/server/wire-binary.ts).
 * Per configuration: the inference time each step reports in its frame (metrics.policy_time_ms, read by one
 * of the viewers), p50/p99 over the measured seconds; bytes per frame; the server process's CPU (all its
 * threads, from /proc) as a share of one core, and what handing a frame to every socket takes on the loop
 * (broadcast_ms in /api/status). Goal: with 800 viewers the inference p99 within 20 % of the 1-viewer one.
 * The viewers run on the same 2-core machine as the server, so the server shares it with them (`--pin`: the
 * server on CPU 1 and the viewers on CPU 0).
 * Then what publishing costs (bench/publish-share.ts): 63 NPCs at 50 Hz to 20 viewers, the server's CPU with
 * them minus without them, windows alternated in one server, as a share of one core (goal ≤ 10 %), JSON and
 * binary frames. `--only publish` runs that alone, `--only sync-json` the rest for JSON frames alone;
 * `--share-window 6` sets its window [s] (4 pairs of windows).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { measurePublishShare, PUBLISH_SHARE_GOAL, type PublishShare } from './publish-share.js';
import { startServe, stopServe } from './serve-child.js';
import { summarise } from './stats.js';
import { benchArgs } from './args.js';

export const VIEWERS_P99_GOAL = 1.2; // p99 with 800 viewers ≤ 1.2 × p99 with 1

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, seconds: { type: 'string' }, viewers: { type: 'string' }, npcs: { type: 'string' }, only: { type: 'string' }, hz: { type: 'string' }, pin: { type: 'boolean' }, 'share-window': { type: 'string' } },
});
const seconds = Number(values.seconds ?? 15);
const viewerCounts = (values.viewers ?? '1,200,800').split(',').map(Number);
const npcs = Number(values.npcs ?? 63);
const publishHz = Number(values.hz ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'vils-viewers-'));
const cfg = join(dir, 'config.json');
writeFileSync(cfg, JSON.stringify({ npc_target: npcs, publish_hz: publishHz }));
const accessFile = join(dir, 'access.json');
// every viewer connects from 127.0.0.1: room for them all (connections, and upgrade requests per second)
writeFileSync(accessFile, JSON.stringify({ limits: { max_connections_per_client: 5000, rest_reads_per_s: 100000 } }));
const TICK_S = 0.01; // /proc clock ticks (USER_HZ 100)
// --pin: the server on CPU 1, these viewers on CPU 0 (taskset), so that the viewers do not take the server's CPU
if (values.pin) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_S; // utime, stime
}

interface Run {
  inference: string;
  format: 'json' | 'binary';
  viewers: number;
  inference_ms: { p50: number; p99: number; steps: number };
  bytes_per_frame: number;
  server_cpu_share: number;
  broadcast_ms: { p50: number; p99: number };
  frames_per_viewer_per_s: number;
  dropped_frames: number;
}

async function run(inference: string, format: 'json' | 'binary', viewers: number): Promise<Run> {
  const { child, base } = await startServe(['--config', cfg, '--access', accessFile, '--no-record', '--log-format', 'json'], process.env, 30000, values.pin ? '1' : undefined);
  try {
    return await measure(child, base, inference, format, viewers);
  } finally {
    await stopServe(child);
  }
}

async function measure(child: ChildProcess, base: string, inference: string, format: 'json' | 'binary', viewers: number): Promise<Run> {
  const url = `${base.replace('http', 'ws')}/ws/vils/stream${format === 'binary' ? '?format=binary' : ''}`;
  const sockets: WebSocket[] = [];
  let measuring = false;
  let probeBytes = 0, probeFrames = 0, allFrames = 0;
  const policyMs = new Map<number, number>();
  for (let i = 0; i < viewers; i += 50) {
    const batch: Array<Promise<unknown>> = [];
    for (let k = i; k < Math.min(viewers, i + 50); k++) {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      sockets.push(ws);
      const probe = k === 0;
      ws.on('message', (data: Buffer, isBinary) => {
        if (!measuring) return;
        allFrames++;
        if (!probe) return;
        probeBytes += data.length;
        probeFrames++;
        // the step and the inference time it reports, without decoding the whole frame
        if (isBinary) policyMs.set(data.readUInt32LE(12), data.readInt32LE(36) / 1000);
        else {
          const text = data.toString();
          const step = /"step":(\d+)/.exec(text);
          const ms = /"policy_time_ms":([0-9.]+)/.exec(text);
          if (step && ms) policyMs.set(Number(step[1]), Number(ms[1]));
        }
      });
      batch.push(new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      }));
    }
    await Promise.all(batch);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const status = async () => (await (await fetch(`${base}/api/status`)).json()) as { broadcast_ms: { p50: number; p99: number }; dropped_frames: number; clients: number };
  const cpu0 = cpuSeconds(child.pid!);
  const t0 = performance.now();
  measuring = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(child.pid!);
  const st = await status();
  for (const s of sockets) s.terminate();
  const inf = summarise([...policyMs.values()]);
  return {
    inference, format, viewers,
    inference_ms: { p50: inf.p50, p99: inf.p99, steps: inf.n },
    bytes_per_frame: probeFrames ? probeBytes / probeFrames : 0,
    server_cpu_share: (cpu1 - cpu0) / wall,
    broadcast_ms: { p50: st.broadcast_ms.p50, p99: st.broadcast_ms.p99 },
    frames_per_viewer_per_s: allFrames / viewers / wall,
    dropped_frames: st.dropped_frames,
  };
}

const configs: Array<[string, 'json' | 'binary']> = [['sync', 'json'], ['sync', 'binary']];
const runs: Run[] = [];
for (const [inference, format] of configs) {
  if (values.only && values.only !== `${inference}-${format}`) continue;
  for (const v of viewerCounts) {
    const r = await run(inference, format, v);
    runs.push(r);
    if (!values.json) {
      console.error(`${inference.padEnd(5)} ${format.padEnd(6)} ${String(v).padStart(4)} viewers: inference p50 ${r.inference_ms.p50.toFixed(2)} p99 ${r.inference_ms.p99.toFixed(2)} ms (${r.inference_ms.steps} steps), ${Math.round(r.bytes_per_frame)} B/frame, server CPU ${(100 * r.server_cpu_share).toFixed(1)} % of a core, broadcast p50 ${r.broadcast_ms.p50} p99 ${r.broadcast_ms.p99} ms, ${r.frames_per_viewer_per_s.toFixed(1)} frames/s per viewer, dropped ${r.dropped_frames}`);
    }
  }
}

// publishing at 50 Hz to 20 viewers, as a share of one core (issue 24 item 7)
const publish: PublishShare[] = [];
if (!values.only || values.only === 'publish') {
  for (const format of ['json', 'binary'] as const) {
    const r = await measurePublishShare(dir, accessFile, { npcs, format, windowS: Number(values['share-window'] ?? 6), cpus: values.pin ? '1' : undefined });
    publish.push(r);
    if (!values.json) {
      const pct = (a: number[]) => a.map((x) => (100 * x).toFixed(1)).join(', ');
      console.error(`publishing ${r.npcs} NPCs at ${r.publish_hz} Hz to ${r.viewers} viewers, ${format}: server CPU without them ${pct(r.without_viewers)} %, with them ${pct(r.with_viewers)} % of a core → ${(100 * r.publish_share).toFixed(1)} % (goal ≤ ${100 * PUBLISH_SHARE_GOAL} %); ${r.frames_per_viewer_per_s.toFixed(1)} frames/s per viewer, ${Math.round(r.bytes_per_frame)} B/frame`);
    }
  }
}

const ratio = (inference: string, format: string) => {
  const one = runs.find((r) => r.inference === inference && r.format === format && r.viewers === Math.min(...viewerCounts));
  const many = runs.find((r) => r.inference === inference && r.format === format && r.viewers === Math.max(...viewerCounts));
  return one && many ? many.inference_ms.p99 / one.inference_ms.p99 : NaN;
};
const result = {
  benchmark: 'viewers', seconds, npcs, publish_hz: publishHz, viewers: viewerCounts, goal_p99_ratio: VIEWERS_P99_GOAL,
  p99_ratio: Object.fromEntries(configs.map(([i, f]) => [`${i}-${f}`, ratio(i, f)])),
  runs,
  publish_goal_share: PUBLISH_SHARE_GOAL,
  publish,
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`viewers: ${npcs} NPCs on the demo track, publish_hz ${publishHz}, ${seconds} s per configuration`);
  console.log('inference  format  viewers  infer p50  infer p99   B/frame  server CPU  broadcast p50/p99 ms');
  for (const r of runs) {
    console.log(`${r.inference.padEnd(11)}${r.format.padEnd(8)}${String(r.viewers).padStart(7)}${r.inference_ms.p50.toFixed(2).padStart(11)}${r.inference_ms.p99.toFixed(2).padStart(11)}${Math.round(r.bytes_per_frame).toString().padStart(10)}${(100 * r.server_cpu_share).toFixed(1).padStart(10)} %${`${r.broadcast_ms.p50}/${r.broadcast_ms.p99}`.padStart(18)}`);
  }
  for (const [k, v] of Object.entries(result.p99_ratio)) console.log(`${k}: inference p99 at ${Math.max(...viewerCounts)} viewers / at ${Math.min(...viewerCounts)} = ${v.toFixed(2)} (goal ≤ ${VIEWERS_P99_GOAL})`);
  for (const r of publish) console.log(`publishing ${r.npcs} NPCs at ${r.publish_hz} Hz to ${r.viewers} viewers (${r.format}): ${(100 * r.publish_share).toFixed(1)} % of a core (with them − without, ${r.pairs} pairs of ${r.window_s} s windows; goal ≤ ${100 * PUBLISH_SHARE_GOAL} %)`);
}
process.exit(0);
