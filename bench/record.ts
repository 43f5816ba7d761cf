/**
 * Recording, Foxglove and replay benchmark: `npm run bench:record [-- --json] [-- --seconds 30] [-- --replay-minutes 10]
 * [-- --kills 5] [-- --only flush]`.
 *  1. MCAP bytes per minute and the CPU cost of recording: `vils serve` (child process) with 63 NPCs at
 *     publish_hz 50 and one ego at 10 Hz, run without and with recording; CPU from the server's own
 *     process_cpu_seconds_total (/metrics, all threads), bytes from vils_recording_bytes_total.
 *  2. Foxglove egress with 10 viewers subscribed to every channel: bytes per second received, the server's
 *     CPU over the run without viewers.
 *  3. Replay speed: a recording of `--replay-minutes` of simulation time (63 NPCs, 50 Hz, an ego) made on a
 *     virtual clock, then `replayRecording` on it: simulation seconds per wall-clock second.
 *  4. Recording under a flood (8 ego clients, 5 MB/s of bulk data into the recorder), with and without:
 *     frame period, lateness of frames without a step (p50/p99), overruns, what the recorder took in.
 *  5. The flush policy (issue 26 item 5), the old one and the new one side by side in the same run: chunks closed
 *     at 1 MB only (VILS_RECORD_FLUSH_S=0) against also after 0.25 s of wall-clock or simulation time (the
 *     default), on the default scene of `vils serve` (20 NPCs at 10 Hz) and on 63 NPCs at 50 Hz, an ego at 10 Hz.
 *     What a SIGKILL loses: `--kills` servers per policy and scene killed at a random simulation time between 8
 *     and 14 s, each printing the simulation time of every frame its recorder has taken (a sink after the
 *     recorder's), against the last frame in the file. The cost, over `--seconds` with each policy: the server's
 *     CPU (all threads), MB per minute, chunks per minute and the writer thread's write(2) calls per second (from
 *     /api/status), the chunks' size and zstd ratio. `--only flush` runs this section alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { McapStreamReader, type McapTypes } from '@mcap/core';
import zstd from '@foxglove/wasm-zstd';
import wsProtocol from '@foxglove/ws-protocol';
import WebSocket from 'ws';
import { readRecording, decodeJson, fromExactNum, type FrameRecord } from '../src/record/index.js';
import { replayRecording } from '../src/record/replay.js';
import { createServer } from '../src/server/app.js';
import type { Clock } from '../src/time/clock.js';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

const { FoxgloveClient } = wsProtocol;
const { values } = benchArgs(import.meta.url, {
  options: {
    json: { type: 'boolean' }, seconds: { type: 'string' }, 'replay-minutes': { type: 'string' }, viewers: { type: 'string' }, kills: { type: 'string' },
    only: { type: 'string' },
  },
});
if (values.only !== undefined && values.only !== 'flush') throw new Error(`--only ${values.only}: the one section that runs alone is flush`);
const kills = Number(values.kills ?? 5);
const seconds = Number(values.seconds ?? 30);
const replayMinutes = Number(values['replay-minutes'] ?? 10);
const viewers = Number(values.viewers ?? 10);
const log = (s: string) => { if (!values.json) console.error(s); };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const work = mkdtempSync(join(tmpdir(), 'vils-bench-rec-'));

interface Server { base: string; child: ChildProcess }

const HEAVY = { npc_target: 63, publish_hz: 50, spawn_clearance_m: 10 };

async function serve(args: string[], env: NodeJS.ProcessEnv = {}, config: Record<string, unknown> = HEAVY): Promise<Server> {
  const cfg = join(work, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(cfg, JSON.stringify(config));
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'src', 'cli', 'vils.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--config', cfg, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const base: string = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /VILS ready in [0-9.]+ s on (http:\/\/[0-9.]+:[0-9]+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    setTimeout(() => reject(new Error('server did not start within 30 s')), 30000);
  });
  return { base, child };
}

async function stop(s: Server): Promise<void> {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}

async function metrics(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(process_cpu_seconds_total|vils_recording_bytes_total|vils_frames_published_total|vils_loop_overruns_total|vils_dropped_frames_total\{[^}]*kind="foxglove"[^}]*\}|vils_step_duration_seconds_sum|vils_step_duration_seconds_count)(?:\{[^}]*\})? (\S+)/.exec(line);
    if (m) out[m[1].replace(/\{.*/, '')] = Number(m[2]);
  }
  return out;
}

/** An ego driving near the origin at 10 Hz, as a car would. */
async function ego(base: string): Promise<() => void> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws/vils/stream`);
  await new Promise((r) => ws.once('open', r));
  const st = (await (await fetch(`${base}/api/status`)).json()) as { origin: { lat: number; lon: number } };
  let k = 0;
  const timer = setInterval(() => {
    ws.send(JSON.stringify({ type: 'ego_state', timestamp: Date.now() / 1000, data: { lat: st.origin.lat + 1e-6 * (k++ % 100), lon: st.origin.lon, heading: 0, speed: 1 } }));
  }, 100);
  return () => { clearInterval(timer); ws.close(); };
}

/** The recorder's chunks and file writes so far (/api/status), zeros when not recording. */
async function recorderWrites(base: string): Promise<{ chunks: number; writes: number }> {
  const st = (await (await fetch(`${base}/api/status`)).json()) as { recording?: { chunks?: number; write_calls?: number } };
  return { chunks: st.recording?.chunks ?? 0, writes: st.recording?.write_calls ?? 0 };
}

async function measure(s: Server, extra?: () => Promise<() => Promise<number>>) {
  const stopEgo = await ego(s.base);
  await sleep(3000); // warm up
  const finishExtra = extra ? await extra() : null;
  const a = await metrics(s.base);
  const wa = await recorderWrites(s.base);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const b = await metrics(s.base);
  const wb = await recorderWrites(s.base);
  const wall = (performance.now() - t0) / 1000;
  const received = finishExtra ? await finishExtra() : 0;
  stopEgo();
  return {
    cpu_share: (b.process_cpu_seconds_total - a.process_cpu_seconds_total) / wall,
    bytes_per_min: ((b.vils_recording_bytes_total - a.vils_recording_bytes_total) / wall) * 60,
    frames_per_s: (b.vils_frames_published_total - a.vils_frames_published_total) / wall,
    overruns: b.vils_loop_overruns_total - a.vils_loop_overruns_total,
    step_mean_ms: ((b.vils_step_duration_seconds_sum - a.vils_step_duration_seconds_sum) / Math.max(1, b.vils_step_duration_seconds_count - a.vils_step_duration_seconds_count)) * 1000,
    foxglove_dropped: (b.vils_dropped_frames_total ?? 0) - (a.vils_dropped_frames_total ?? 0),
    received_bytes_per_s: received / wall,
    chunks_per_min: ((wb.chunks - wa.chunks) / wall) * 60,
    file_writes_per_s: (wb.writes - wa.writes) / wall,
  };
}

if (values.only === 'flush') {
  const flushOnly = await flushPolicy();
  rmSync(work, { recursive: true, force: true });
  console.log(JSON.stringify({ flush: flushOnly }, null, values.json ? undefined : 2));
  process.exit(0);
}

// ---- 1. recording cost ----
log(`1/5 recording: 63 NPCs at 50 Hz, ${seconds} s without, then with recording…`);
let s = await serve(['--no-record']);
const off = await measure(s);
await stop(s);
const recDir = join(work, 'rec');
s = await serve(['--record-dir', recDir]);
const on = await measure(s);
await stop(s);
const recFiles = readdirSync(recDir).map((n) => statSync(join(recDir, n)).size);

// ---- 2. Foxglove egress ----
log(`2/5 Foxglove: ${viewers} viewers on every channel, ${seconds} s…`);
s = await serve(['--no-record']);
const fox = await measure(s, async () => {
  let bytes = 0;
  const clients: Array<InstanceType<typeof FoxgloveClient>> = [];
  for (let i = 0; i < viewers; i++) {
    const ws = new WebSocket(`${s.base.replace(/^http/, 'ws')}/foxglove`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    const c = new FoxgloveClient({ ws: ws as never });
    c.on('advertise', (chs) => { for (const ch of chs) c.subscribe(ch.id); });
    c.on('message', ({ data }) => { bytes += data.byteLength; });
    clients.push(c);
  }
  await sleep(1000);
  const start = bytes;
  return async () => {
    const got = bytes - start;
    for (const c of clients) c.close();
    return got;
  };
});
await stop(s);

// ---- 3. replay speed ----
log(`3/5 replay: recording ${replayMinutes} min of simulation time on a virtual clock, then replaying it…`);
class FastClock implements Clock {
  private t = 0;
  now() { return this.t; }
  async sleepUntil(t: number) { if (t > this.t) this.t = t; await new Promise<void>((r) => setImmediate(r)); }
}
const clock = new FastClock();
const longDir = join(work, 'long');
const server = await createServer({ logLevel: false, config: { npc_target: 63, publish_hz: 50 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir: longDir, maxTotalMb: 0 } });
const t0 = performance.now();
const host = server.host;
const p = host.geo.origin;
let k = 0;
host.runner.addSink({
  publish(f) {
    // an ego report every 0.1 s of simulation time
    if (Math.round(f.snapshot.time * 50) % 5 === 0) void host.inputs.updateEgo({ egoId: 'ego', x: (k++ % 100) * 0.1, y: 0, yaw: 0, speed: 1 }, host.runner.simNow()).catch(() => {});
  },
});
while (host.runner.simNow() < replayMinutes * 60) await sleep(50);
const recordWall = (performance.now() - t0) / 1000;
await server.close();
void p;
const longFiles = readdirSync(longDir).filter((n) => n.endsWith('.mcap')).sort();
const longBytes = longFiles.reduce((a, n) => a + statSync(join(longDir, n)).size, 0);
const replay = await replayRecording(join(longDir, longFiles[0]));

// ---- 4. recording under a flood ----
log('4/5 flood: 8 ego clients at 400 messages/s each and 5 MB/s of bulk data, without and then with recording…');
const floodOff = await flood(false);
const floodOn = await flood(true);
log(`  without recording: ${floodOff.line}\n  with recording:    ${floodOn.line}`);

// ---- 5. the flush policy: old against new ----
const flushResult = await flushPolicy();

const result = {
  flood: {
    ego_messages_without: floodOff.received, ego_messages_with: floodOn.received,
    frame_period_ms_without: floodOff.mean, frame_period_ms_with: floodOn.mean,
    late_p99_ms_without: floodOff.lateP99, late_p99_ms_with: floodOn.lateP99,
    overruns_without: floodOff.overruns, overruns_with: floodOn.overruns,
    recorder_mb_in: floodOn.bytesIn / 1e6, recorder_dropped: floodOn.dropped,
    recorded_inputs: floodOn.inputs, recorded_ego_calls: floodOn.egoCalls,
  },
  recording: {
    npcs: 63, publish_hz: 50, seconds,
    mcap_mb_per_min: on.bytes_per_min / 1e6,
    cpu_share_without: off.cpu_share, cpu_share_with: on.cpu_share, cpu_cost_share_of_a_core: on.cpu_share - off.cpu_share,
    frames_per_s_without: off.frames_per_s, frames_per_s_with: on.frames_per_s, overruns_without: off.overruns, overruns_with: on.overruns,
    step_mean_ms_without: off.step_mean_ms, step_mean_ms_with: on.step_mean_ms, files: recFiles.length,
  },
  foxglove: {
    viewers, npcs: 63, publish_hz: 50, egress_mb_per_s: fox.received_bytes_per_s / 1e6, egress_mb_per_s_per_viewer: fox.received_bytes_per_s / 1e6 / viewers,
    cpu_share: fox.cpu_share, cpu_share_over_no_viewers: fox.cpu_share - off.cpu_share, frames_per_s: fox.frames_per_s, overruns: fox.overruns, dropped: fox.foxglove_dropped,
  },
  replay: {
    sim_minutes: replayMinutes, recorded_in_s: recordWall, file_mb: longBytes / 1e6, mb_per_sim_min: longBytes / 1e6 / replayMinutes,
    frames: replay.frames, npc_states: replay.npcStates, differences: replay.differences, wall_s: replay.wallS, speed_x_real_time: replay.speed,
  },
  flush: flushResult,
};
rmSync(work, { recursive: true, force: true });
if (values.json) console.log(JSON.stringify(result));
else console.log(JSON.stringify(result, null, 2));

/**
 * Recording never blocks the loop: 8 clients send 4 ego messages every 10 ms (~3,200 a second, each recorded
 * twice) and 100 kB of poorly compressible bulk data goes into the recorder per frame (5 MB/s at 50 Hz), with 63
 * NPCs; the same flood unrecorded just before, side by side. Frame period, how late the frames without a policy
 * step go out (p50/p99), overruns; with recording, what the recorder took in and dropped.
 */
async function flood(record: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'vils-flood-'));
  const server = await createServer({ logLevel: false, config: { npc_target: 63, publish_hz: 50, max_egos: 32, ego_timeout_s: 60 }, recording: record ? { dir, foxgloveHz: 50 } : undefined });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const wsUrl = `ws://127.0.0.1:${(server.app.server.address() as { port: number }).port}/ws/vils/stream`;
  const host = server.host;
  await new Promise((r) => setTimeout(r, 500));
  const walls: number[] = [];
  /** how late each frame went out after its scheduled time [ms], for ticks that ran no policy step */
  const late: number[] = [];
  let lastStep = -1;
  const writer = record ? (host.attachments.get('recording') as unknown as { writer: { channel(topic: string): number; write(ch: number, t: bigint, data: string): void; stats: { dropped: number; bytesIn: number } } }).writer : null;
  const bulk = writer?.channel('/vils/events') ?? 0;
  let n = 0;
  // 100 kB of poorly compressible text per frame: 5 MB/s for the writer thread to compress and write
  const pool = Array.from({ length: 16 }, () => {
    const parts: string[] = [];
    for (let k = 0; k < 2500; k++) parts.push((Math.random() * 1e9).toString(36));
    return JSON.stringify({ type: 'bulk', data: parts.join('').slice(0, 100_000) });
  });
  host.runner.addSink({
    publish: (f) => {
      walls.push(performance.now());
      if (f.snapshot.step === lastStep) late.push(performance.timeOrigin + performance.now() - f.wallTimeS * 1000);
      lastStep = f.snapshot.step;
      writer?.write(bulk, BigInt(Date.now()) * 1_000_000n, pool[n++ % pool.length]);
    },
  });
  const sockets = await Promise.all(Array.from({ length: 8 }, async () => {
    const ws = new WebSocket(wsUrl);
    await new Promise((r) => ws.once('open', r));
    return ws;
  }));
  const p = host.geo.toLatLon(0, 0);
  const stats0 = host.runner.stats;
  const until = performance.now() + 4000;
  // 8 clients, each sending 4 messages every 10 ms: ~3,200 ego messages a second, each recorded twice
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (performance.now() > until) {
        clearInterval(timer);
        resolve();
        return;
      }
      for (const [i, ws] of sockets.entries()) {
        for (let k = 0; k < 4; k++) ws.send(JSON.stringify({ type: 'ego_state', ego_id: `car${i}`, timestamp: Date.now() / 1000, data: { lat: p.lat + k * 1e-7, lon: p.lon, heading: 0, speed: 1 } }));
      }
    }, 10);
  });
  for (const ws of sockets) ws.close();
  await new Promise((r) => setTimeout(r, 300));
  const overruns = host.runner.stats.overruns - stats0.overruns;
  const received = host.counters.messages;
  const dropped = writer?.stats.dropped ?? 0;
  const bytesIn = writer?.stats.bytesIn ?? 0;
  await server.close();
  const mean = (walls[walls.length - 1] - walls[0]) / (walls.length - 1);
  late.sort((a, b) => a - b);
  const lateP99 = late[Math.floor(late.length * 0.99)];
  let inputs = 0;
  let egoCalls = 0;
  if (record) {
    for await (const item of readRecording(readdirSync(dir).map((f) => join(dir, f))[0], { topics: new Set(['/vils/inputs/stream', '/vils/calls']) })) {
      if (item.type !== 'message') continue;
      if (item.message.topic === '/vils/inputs/stream') inputs++;
      else if (decodeJson<{ kind: string }>(item.message.data).kind === 'ego') egoCalls++;
    }
  }
  const line = `${received} ego messages, frame period mean ${mean.toFixed(2)} ms, frames without a step late by p50 ${late[late.length >> 1].toFixed(2)} / p99 ${lateP99.toFixed(2)} ms, overruns ${overruns}${record ? `; recorder ${(bytesIn / 1e6).toFixed(1)} MB in, ${dropped} dropped` : ''}`;
  return { received, mean, lateP99, overruns, dropped, bytesIn, inputs, egoCalls, line };
}

/** The chunks of an MCAP file (cut short or not): how many, and their compressed and uncompressed bytes. */
async function chunksOf(path: string): Promise<{ chunks: number; compressed: number; uncompressed: number }> {
  await zstd.isLoaded;
  const reader = new McapStreamReader({ includeChunks: true, decompressHandlers: { zstd: (buf, size) => zstd.decompress(buf, Number(size)) } });
  reader.append(readFileSync(path));
  let chunks = 0;
  let compressed = 0;
  let uncompressed = 0;
  for (let r: McapTypes.TypedMcapRecord | undefined; (r = reader.nextRecord()); ) {
    if (r.type !== 'Chunk') continue;
    chunks++;
    compressed += r.records.byteLength;
    uncompressed += Number(r.uncompressedSize);
  }
  return { chunks, compressed, uncompressed };
}

/**
 * `vils serve` as startServe runs it (dist/), with a sink after the recorder's that prints the simulation time of
 * every frame the recorder has taken (stdout to a pipe is synchronous on Linux: what it printed before the kill
 * is read after it), SIGKILLed once it has handed `killAt` s over; the loss is that time minus the file's last frame.
 */
async function killedRecording(env: NodeJS.ProcessEnv, config: Record<string, unknown>, killAt: number): Promise<{ handed: number; recorded: number; loss: number }> {
  const probe = join(work, 'kill-probe.mjs');
  writeFileSync(probe, `import { startServe } from ${JSON.stringify(pathToFileURL(join(projectRoot(), 'dist', 'src', 'cli', 'serve.js')).href)};
const h = await startServe(process.argv.slice(2));
h.server.host.runner.addSink({ publish(f) { process.stdout.write('SIM ' + f.snapshot.time + '\\n'); } });
`);
  const cfg = join(work, `kill-config.json`);
  writeFileSync(cfg, JSON.stringify(config));
  const dir = mkdtempSync(join(work, 'kill-'));
  const child = spawn(process.execPath, [probe, '--port', '0', '--host', '127.0.0.1', '--config', cfg, '--record-dir', dir, '--log-format', 'json', '--log-level', 'info'], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, VILS_PARENT_WATCH: 'off', ...env },
  });
  let handed = -Infinity;
  let killed = false;
  let stopEgo: (() => void) | null = null;
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = /^SIM (\S+)$/.exec(line);
    if (m) {
      handed = Math.max(handed, Number(m[1]));
      if (!killed && handed >= killAt) {
        killed = true;
        child.kill('SIGKILL');
      }
      return;
    }
    // the ready line: an ego at 10 Hz, as in the other runs
    const ready = /VILS ready in [0-9.]+ s on (http:\/\/[0-9.]+:[0-9]+)/.exec(line);
    if (ready) void ego(ready[1]).then((stop) => (killed ? stop() : (stopEgo = stop)), () => {});
  });
  await closed;
  clearTimeout(guard);
  (stopEgo as (() => void) | null)?.();
  if (!killed) throw new Error(`the kill probe ended before ${killAt} s of simulation time`);
  let recorded = 0;
  for (const name of readdirSync(dir)) {
    for await (const item of readRecording(join(dir, name), { topics: new Set(['/vils/frame']) })) {
      if (item.type === 'message') recorded = fromExactNum(decodeJson<FrameRecord>(item.message.data).t);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return { handed, recorded, loss: handed - recorded };
}

/**
 * Section 5: the old flush policy (chunks at 1 MB only) against the new (0.25 s), in the same run, on the default
 * scene of `vils serve` (20 NPCs at 10 Hz: the fewest bytes, so the longest chunks) and on 63 NPCs at 50 Hz.
 */
async function flushPolicy() {
  const policies = [{ name: 'old', env: { VILS_RECORD_FLUSH_S: '0' } }, { name: 'new', env: { VILS_RECORD_FLUSH_S: '' } }] as const;
  const scenes = [{ name: 'default_20_npcs_10_hz', config: {} }, { name: '63_npcs_50_hz', config: HEAVY }];
  const out: Record<string, unknown> = {
    old: 'a chunk is written when it passes 1 MB of records (VILS_RECORD_FLUSH_S=0)',
    new: 'and once it holds 0.25 s of wall-clock or simulation time (the default)',
    seconds, kills_per_policy: kills, kill_at: 'a random simulation time between 8 and 14 s; an ego at 10 Hz',
  };
  const stats = (xs: number[]) => ({ mean: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length), max: Math.max(...xs), samples: xs.map((x) => Math.round(x * 1000) / 1000) });
  for (const scene of scenes) {
    // the cost: CPU, bytes, write syscalls and chunks over `seconds`, one policy after the other
    const cost: Record<string, Awaited<ReturnType<typeof measure>> & { chunk_kb: number; zstd_ratio: number }> = {};
    for (const p of policies) {
      log(`5/5 flush policy ${p.name}, ${scene.name}: ${seconds} s recording…`);
      const dir = join(work, `flush-${scene.name}-${p.name}`);
      const srv = await serve(['--record-dir', dir], p.env, scene.config);
      const m = await measure(srv);
      await stop(srv);
      const c = { chunks: 0, compressed: 0, uncompressed: 0 };
      for (const name of readdirSync(dir)) {
        const f = await chunksOf(join(dir, name));
        c.chunks += f.chunks;
        c.compressed += f.compressed;
        c.uncompressed += f.uncompressed;
      }
      cost[p.name] = { ...m, chunk_kb: c.compressed / Math.max(1, c.chunks) / 1024, zstd_ratio: c.uncompressed / Math.max(1, c.compressed) };
    }
    // what a SIGKILL loses: the policies alternate
    const losses: Record<string, number[]> = { old: [], new: [] };
    for (let k = 0; k < kills; k++) {
      for (const p of policies) {
        const r = await killedRecording(p.env, scene.config, 8 + Math.random() * 6);
        losses[p.name].push(r.loss);
        log(`  kill ${k + 1}/${kills}, ${p.name}, ${scene.name}: killed at ${r.handed.toFixed(2)} s, the file's last frame ${r.recorded.toFixed(2)} s: lost ${r.loss.toFixed(2)} s`);
      }
    }
    const row: Record<string, unknown> = {};
    for (const p of policies) {
      const c = cost[p.name];
      Object.assign(row, {
        [`sigkill_loss_s_${p.name}`]: stats(losses[p.name]),
        [`cpu_share_${p.name}`]: c.cpu_share, [`mb_per_min_${p.name}`]: c.bytes_per_min / 1e6, [`file_writes_per_s_${p.name}`]: c.file_writes_per_s,
        [`chunks_per_min_${p.name}`]: c.chunks_per_min, [`mean_chunk_kb_${p.name}`]: c.chunk_kb, [`zstd_ratio_${p.name}`]: c.zstd_ratio,
        [`frames_per_s_${p.name}`]: c.frames_per_s, [`overruns_${p.name}`]: c.overruns,
      });
    }
    row.cpu_cost_of_flushing_share_of_a_core = cost.new.cpu_share - cost.old.cpu_share;
    row.mb_per_min_change = cost.new.bytes_per_min / cost.old.bytes_per_min - 1;
    out[scene.name] = row;
  }
  return out;
}
