/**
 * Flood benchmark: `npm run bench:flood [-- --json] [-- --seconds 30] [-- --npcs 20] [-- --baseline 10]`.
 *
 * Starts `vils serve` as a child process on its defaults (the demo track, 20 NPCs, 10 Hz, no token) and a
 * real car: one ego_state at 10 Hz from 127.0.0.1. Measures the loop (frames per second from the server's
 * own counters, overruns) and the server's RSS for `--baseline` seconds, then for `--seconds` under the
 * floods of issue 16, each in its own thread and from its own loopback address, each sending as fast as
 * its socket takes it and reconnecting at once whenever the server closes it:
 *   - malformed JSON (`{"type": "ego_state", …` cut short);
 *   - valid ego_state messages for an ego of its own.
 * Prints the loop rate, overruns and RSS growth under the flood against the goals (≥ 9.9 Hz, 0 overruns,
 * ≤ 20 MB), what the floods sent and what the server did with it, and whether the car stayed live.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { projectRoot } from '../src/util/project-root.js';
import { join } from 'node:path';

interface FloodJob {
  url: string;
  /** malformed / valid: as fast as the socket takes it; paced: valid ego_states at `rate` per second on `connections` connections */
  kind: 'malformed' | 'valid' | 'paced';
  rate?: number;
  connections?: number;
  localAddress: string;
  seconds: number;
}

interface FloodResult {
  sent: number;
  bytes: number;
  connections: number;
  closes: Record<string, number>;
  errorsReceived: number;
}

const FIX = { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5 };

/** A client that stays just within the limits: `rate` valid messages a second spread over `connections` connections. */
async function paced(job: FloodJob): Promise<FloodResult> {
  const r: FloodResult = { sent: 0, bytes: 0, connections: 0, closes: {}, errorsReceived: 0 };
  const n = job.connections ?? 8;
  const sockets = await Promise.all(Array.from({ length: n }, async () => {
    const ws = new WebSocket(job.url, { localAddress: job.localAddress });
    r.connections++;
    ws.on('close', (code) => (r.closes[code] = (r.closes[code] ?? 0) + 1));
    ws.on('message', (d) => {
      if (d.toString().startsWith('{"type":"error"')) r.errorsReceived++;
    });
    await new Promise((resolve) => ws.once('open', resolve));
    return ws;
  }));
  const t0 = performance.now();
  let due = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - t0) / 1000;
      if (elapsed >= job.seconds) {
        clearInterval(timer);
        resolve();
        return;
      }
      // as many as are due by now (timers run late under load; the rate stays)
      const target = Math.floor(elapsed * (job.rate ?? 4000) / n);
      for (const [i, ws] of sockets.entries()) {
        for (let k = due; k < target && ws.readyState === WebSocket.OPEN; k++) {
          const text = JSON.stringify({ type: 'ego_state', ego_id: `paced-${i}`, timestamp: Date.now() / 1000, data: { ...FIX, speed: (k % 100) / 10 } });
          ws.send(text);
          r.sent++;
          r.bytes += text.length;
        }
      }
      due = Math.max(due, target);
    }, 10);
  });
  for (const ws of sockets) ws.close();
  return r;
}

/** One flooding client: as fast as the socket takes it (never more than 1 MB waiting in its own buffer). */
async function flood(job: FloodJob): Promise<FloodResult> {
  if (job.kind === 'paced') return paced(job);
  const r: FloodResult = { sent: 0, bytes: 0, connections: 0, closes: {}, errorsReceived: 0 };
  const end = performance.now() + job.seconds * 1000;
  const malformed = '{"type": "ego_state", "data": {"lat": 37.3645, "lon": 126.72';
  while (performance.now() < end) {
    const ws = new WebSocket(job.url, { localAddress: job.localAddress });
    r.connections++;
    const closed = new Promise<void>((resolve) => {
      ws.on('close', (code) => {
        r.closes[code] = (r.closes[code] ?? 0) + 1;
        resolve();
      });
      ws.on('error', () => resolve());
    });
    ws.on('message', (d) => {
      if (d.toString().startsWith('{"type":"error"')) r.errorsReceived++;
    });
    const opened = await new Promise<boolean>((resolve) => {
      ws.once('open', () => resolve(true));
      ws.once('error', () => resolve(false));
      ws.once('unexpected-response', (_req, res) => {
        r.closes[`http ${res.statusCode}`] = (r.closes[`http ${res.statusCode}`] ?? 0) + 1;
        resolve(false);
      });
    });
    if (!opened) {
      await new Promise((res) => setTimeout(res, 10));
      continue;
    }
    let n = 0;
    await new Promise<void>((resolve) => {
      const pump = () => {
        if (ws.readyState !== WebSocket.OPEN || performance.now() >= end) return resolve();
        while (ws.bufferedAmount < 1_000_000 && n % 1000 !== 999) {
          const text = job.kind === 'malformed' ? malformed : JSON.stringify({ type: 'ego_state', ego_id: 'flooder', timestamp: Date.now() / 1000, data: { ...FIX, speed: (n % 100) / 10 } });
          ws.send(text);
          r.sent++;
          r.bytes += text.length;
          n++;
        }
        n++;
        setImmediate(pump);
      };
      pump();
      void closed.then(resolve);
    });
    if (ws.readyState === WebSocket.OPEN) ws.terminate();
    await Promise.race([closed, new Promise((res) => setTimeout(res, 100))]);
  }
  return r;
}

if (!isMainThread) {
  parentPort!.postMessage(await flood(workerData as FloodJob));
} else {
  await main();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { json: { type: 'boolean' }, seconds: { type: 'string' }, npcs: { type: 'string' }, baseline: { type: 'string' } },
  });
  const seconds = Number(values.seconds ?? 30);
  const baselineS = Number(values.baseline ?? 10);
  const npcs = values.npcs;
  const args = ['serve', '--port', '0', '--host', '127.0.0.1', '--no-record', '--log-format', 'json'];
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'src', 'cli', 'vils.js'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, VILS_OPERATOR_TOKENS: '', VILS_DRIVER_TOKENS: '', VILS_VIEWER_TOKENS: '' },
  });
  const warnings: string[] = [];
  const base: string = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /"msg":"VILS ready in [0-9.]+ s on (http:\/\/[0-9.]+:[0-9]+)/.exec(line);
      if (m) resolve(m[1]);
      else if (line.includes('"level":40') || line.includes('"level":50')) warnings.push(line);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    setTimeout(() => reject(new Error('server did not start within 30 s')), 30_000);
  });
  const wsUrl = `${base.replace(/^http/, 'ws')}/ws/vils/stream`;
  type Status = { loop: { overruns: number; frames: number }; rss_mb: number; ws_messages: number; ws_errors: number; egos: Array<{ ego_id: string; stale: boolean }>; access: { refused: Record<string, number> } };
  const status = async () => (await (await fetch(`${base}/api/status`)).json()) as Status;
  if (npcs !== undefined) await fetch(`${base}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ npc_target: Number(npcs) }) });

  // the real car: 10 Hz from 127.0.0.1
  const car = new WebSocket(wsUrl);
  await new Promise((r) => car.once('open', r));
  let carFrames = 0;
  let carErrors = 0;
  car.on('message', (d) => {
    const s = d.toString();
    if (s.startsWith('{"type":"npc_states"')) carFrames++;
    else if (s.startsWith('{"type":"error"')) carErrors++;
  });
  let fixes = 0;
  const carTimer = setInterval(() => {
    car.send(JSON.stringify({ type: 'ego_state', ego_id: 'car', timestamp: Date.now() / 1000, data: FIX }));
    fixes++;
  }, 100);

  const window = async (s: number, during?: () => void) => {
    const a = await status();
    const t0 = performance.now();
    const frames0 = carFrames;
    let rssMax = a.rss_mb;
    const poll = setInterval(() => void status().then((x) => (rssMax = Math.max(rssMax, x.rss_mb))), 1000);
    during?.();
    await new Promise((r) => setTimeout(r, s * 1000));
    clearInterval(poll);
    const b = await status();
    const dt = (performance.now() - t0) / 1000;
    return {
      seconds: Math.round(dt * 10) / 10,
      loop_hz: Math.round(((b.loop.frames - a.loop.frames) / dt) * 100) / 100,
      car_frames_hz: Math.round(((carFrames - frames0) / dt) * 100) / 100,
      overruns: b.loop.overruns - a.loop.overruns,
      rss_start_mb: a.rss_mb,
      rss_end_mb: b.rss_mb,
      rss_max_mb: Math.max(rssMax, b.rss_mb),
      rss_growth_mb: Math.round((Math.max(rssMax, b.rss_mb) - a.rss_mb) * 10) / 10,
      ws_messages: b.ws_messages - a.ws_messages,
      ws_errors: b.ws_errors - a.ws_errors,
      refused: Object.fromEntries(Object.entries(b.access.refused).map(([k, v]) => [k, v - (a.access.refused[k] ?? 0)])),
      car_live_at_end: b.egos.some((e) => e.ego_id === 'car' && !e.stale),
    };
  };

  await new Promise((r) => setTimeout(r, 2000)); // warm-up
  const baseline = await window(baselineS);
  const jobs: FloodJob[] = [
    { url: wsUrl, kind: 'malformed', localAddress: '127.0.0.2', seconds },
    { url: wsUrl, kind: 'valid', localAddress: '127.0.0.3', seconds },
    // the most a client may send without being cut off: the per-client limit (4000 messages/s) on 8 connections
    { url: wsUrl, kind: 'paced', localAddress: '127.0.0.4', seconds, rate: 3900, connections: 8 },
  ];
  let results: Promise<FloodResult[]> = Promise.resolve([]);
  const under = await window(seconds, () => {
    results = Promise.all(jobs.map((job) => new Promise<FloodResult>((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: job });
      w.once('message', resolve);
      w.once('error', reject);
    })));
  });
  const floods = await results;
  clearInterval(carTimer);
  car.close();
  child.kill('SIGTERM');

  const goals = { loop_hz_min: 9.9, overruns_max: 0, rss_growth_mb_max: 20 };
  const report = {
    server: `vils serve defaults${npcs !== undefined ? `, ${npcs} NPCs` : ''} (publish_hz 10, no token), one car at 10 Hz`,
    baseline,
    flood: { ...under, clients: jobs.map((j, i) => ({ kind: j.kind, from: j.localAddress, ...floods[i], sent_per_s: Math.round(floods[i].sent / seconds) })) },
    car: { fixes_sent: fixes, errors_received: carErrors },
    goals,
    pass: under.loop_hz >= goals.loop_hz_min && under.overruns <= goals.overruns_max && under.rss_growth_mb <= goals.rss_growth_mb_max && under.car_live_at_end,
    server_warnings: warnings.length,
  };
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const f = report.flood;
    console.log(`baseline ${baseline.seconds} s: loop ${baseline.loop_hz} Hz, ${baseline.overruns} overruns, RSS ${baseline.rss_start_mb} → ${baseline.rss_end_mb} MB`);
    for (const c of f.clients) console.log(`flood ${c.kind} from ${c.from}: ${c.sent} messages (${c.sent_per_s}/s, ${(c.bytes / 1e6).toFixed(1)} MB) on ${c.connections} connections; closes ${JSON.stringify(c.closes)}; ${c.errorsReceived} error replies`);
    console.log(`server under the flood (${f.seconds} s): loop ${f.loop_hz} Hz, ${f.overruns} overruns, RSS ${f.rss_start_mb} → max ${f.rss_max_mb} MB (+${f.rss_growth_mb}); ${f.ws_messages} messages received, refused ${JSON.stringify(f.refused)}; the car ${f.car_live_at_end ? 'live' : 'STALE'} at the end, ${f.car_frames_hz} frames/s to it`);
    console.log(`goals: loop ≥ ${goals.loop_hz_min} Hz, ${goals.overruns_max} overruns, RSS growth ≤ ${goals.rss_growth_mb_max} MB: ${report.pass ? 'PASS' : 'FAIL'}`);
  }
  process.exitCode = report.pass ? 0 : 1;
}
