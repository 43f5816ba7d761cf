/**
 * Server benchmark: `npm run bench:server [-- --json] [-- --seconds 60] [-- --clients 20] [-- --npcs 63]`.
 * Starts `vils serve` as a child process on the demo track with 63 NPCs, connects 20 WebSocket clients,
 * each an ego driving along the track and sending ego_state at 10 Hz, and measures:
 *  - latency: from sending an ego_state to receiving the first npc_states that includes it (the server
 *    echoes each ego's latest client timestamp), p50/p99;
 *  - latency − step period (100 ms): how much later than one step period an ego_state reaches the
 *    clients in the worst case, p50/p99 (goal: p99 ≤ 2 ms);
 *  - delivery: that latency minus the wait for the step and the step's own compute time, i.e. what
 *    serialising and delivering the frame adds, p50/p99;
 *  - loop overruns and the server's RSS.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { GeoFrame, FMTC_ORIGIN } from '../src/geo/frame.js';
import { buildRoadEntities } from '../src/map/road-entities.js';
import { loadMapFile } from '../src/map/scene-json.js';
import { projectRoot } from '../src/util/project-root.js';
import { LaneNetwork } from '../src/traffic/lanes.js';
import { startServe, stopServe } from './serve-child.js';
import { summarise } from './stats.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, seconds: { type: 'string' }, clients: { type: 'string' }, npcs: { type: 'string' } },
});
const seconds = Number(values.seconds ?? 60);
const clientCount = Number(values.clients ?? 20);
const npcs = Number(values.npcs ?? 63);
const wallMs = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), 'vils-bench-'));
const cfg = join(dir, 'config.json');
writeFileSync(cfg, JSON.stringify({ npc_target: npcs, max_egos: 32, spawn_clearance_m: 10 }));
const { child, base } = await startServe(['--config', cfg], process.env, 20000);
const status = async () => (await (await fetch(`${base}/api/status`)).json()) as { loop: { overruns: number; ticks: number }; rss_mb: number; npcs: number; dropped_frames: number; broadcast_ms: { p50: number; p99: number } };

// Egos drive along the demo track's lanes at 8 m/s, spread out.
const { scene, mapMetadata } = loadMapFile(join(projectRoot(), 'maps', 'demo-track.json'));
const lanes = new LaneNetwork(buildRoadEntities(scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), mapMetadata?.lane_graph);
const geo = new GeoFrame(mapMetadata?.origin ?? FMTC_ORIGIN);
const latency: number[] = [];
const overhead: number[] = [];
let frames = 0;
const sockets: WebSocket[] = [];
const timers: NodeJS.Timeout[] = [];
const t0 = wallMs();

for (let c = 0; c < clientCount; c++) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/vils/stream`);
  sockets.push(ws);
  const id = `bench-${c}`;
  const lane = c % lanes.lanes.length;
  const pending = new Map<number, number>(); // client timestamp → send wall ms
  // 20 clients share this process: read only the fields needed (a full JSON.parse of every 20 kB frame
  // would delay the later clients' handlers and be counted as server latency).
  const egoRe = new RegExp(`"ego_id":"${id}"[^}]*"timestamp":([0-9.]+)`);
  ws.on('message', (data) => {
    const recv = wallMs();
    const text = data.toString();
    if (!text.startsWith('{"type":"npc_states"')) return;
    frames++;
    const em = egoRe.exec(text);
    if (!em) return;
    const e = { timestamp: Number(em[1]) };
    // the frame's timestamp is its wall-clock time at publishing, after the step
    const frameWallMs = Number(/"timestamp":([0-9.]+)/.exec(text)![1]) * 1000;
    const sent = pending.get(e.timestamp);
    if (sent === undefined) return;
    for (const k of pending.keys()) if (k <= e.timestamp) pending.delete(k);
    latency.push(recv - sent);
    overhead.push(recv - frameWallMs);
  });
  await new Promise((r) => ws.once('open', r));
  let s = (c * 37) % 50;
  const timer = setInterval(() => {
    s += 0.8;
    const p = lanes.ahead(lane, 0, s);
    const m = geo.toLatLon(p.x, p.y);
    const ts = wallMs() / 1000;
    const heading = geo.yawToHeading(p.yaw, p.x, p.y);
    pending.set(ts, wallMs());
    ws.send(JSON.stringify({ type: 'ego_state', ego_id: id, timestamp: ts, data: { lat: m.lat, lon: m.lon, heading, speed: 8 } }));
  }, 100);
  timers.push(timer);
}

const before = await status();
let rssMax = before.rss_mb;
const warm = 3000;
await new Promise((r) => setTimeout(r, warm));
latency.length = 0;
overhead.length = 0;
const start = await status();
for (let t = 0; t < seconds; t += 5) {
  await new Promise((r) => setTimeout(r, Math.min(5, seconds - t) * 1000));
  rssMax = Math.max(rssMax, (await status()).rss_mb);
}
const end = await status();
for (const t of timers) clearInterval(t);
for (const s of sockets) s.close();
await stopServe(child);

const L = summarise(latency);
const O = summarise(overhead);
const result = {
  benchmark: 'server', seconds, clients: clientCount, npcs: end.npcs, publish_hz: 10,
  latency_ms: { p50: L.p50, p99: L.p99, samples: L.n },
  latency_minus_period_ms: { p50: L.p50 - 100, p99: L.p99 - 100 },
  delivery_ms: { p50: O.p50, p99: O.p99 },
  overruns: end.loop.overruns - start.loop.overruns,
  ticks: end.loop.ticks - start.loop.ticks,
  dropped_frames: end.dropped_frames,
  server_broadcast_ms: end.broadcast_ms,
  rss_mb_max: rssMax,
  frames_received: frames,
  elapsed_s: (wallMs() - t0) / 1000,
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`server: ${result.npcs} NPCs, ${clientCount} clients at 10 Hz, ${seconds} s measured`);
  console.log(`latency ego_state → npc_states including it: p50 ${L.p50.toFixed(2)} ms, p99 ${L.p99.toFixed(2)} ms (${L.n} samples)`);
  console.log(`latency − step period (100 ms): p99 ${(L.p99 - 100).toFixed(2)} ms`);
  console.log(`delivery (frame published → received by the client): p50 ${O.p50.toFixed(3)} ms, p99 ${O.p99.toFixed(3)} ms`);
  console.log(`server side, JSON encoding + handing the frame to 20 sockets: p50 ${end.broadcast_ms.p50} ms, p99 ${end.broadcast_ms.p99} ms`);
  console.log(`loop: ${result.ticks} ticks, ${result.overruns} overruns; dropped frames ${result.dropped_frames}; server RSS max ${rssMax} MB`);
}
process.exit(0);
