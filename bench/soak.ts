/**
 * Soak: `npm run bench:soak -- --minutes 30 [--clients 20] [--egos 20] [--npcs 63] [--warmup 5] [--every 10]
 * [--json] [--out results/soak.svg | results/soak.csv] [--heap-snapshots]`.
 *
 * Starts `vils serve` as a child process on the demo track with `--npcs` NPCs and recording on (into a temporary
 * folder, deleted at the end), connects `--clients` WebSocket clients to /ws/vils/stream — the first `--egos` of
 * them egos driving along the track's lanes and sending ego_state at 10 Hz (as `bench:server`), the others
 * viewers — and every `--every` seconds samples the server's RSS (/proc/<pid>/status VmRSS), its V8 heap and
 * external memory (/metrics, prom-client's process metrics), the loop's ticks and overruns and the recording's
 * bytes (/api/status), and the machine's load average. Reports, over the samples after the warm-up: the RSS growth
 * per minute (least-squares line; also over the second half alone, which tells a curve levelling off from a steady
 * leak), the main thread's heap growth (the recorder's thread has its own heap, inside RSS only), the overruns, and
 * the curve (CSV and an SVG plot; both are written, `--out` names one, the other sits beside it).
 *
 * `--smaps`: where the RSS grew after the warm-up, by kind of memory mapping (/proc/<pid>/smaps), and the mappings
 * that grew most. The recording writer's thread has a V8 heap of its own (inside RSS, outside the main thread's
 * figures): its size is sampled too (/api/status recording.thread_heap_mb).
 * `--heap-snapshots`: the server runs with `--heapsnapshot-signal=SIGUSR2` and is sent the signal at the end
 * of the warm-up and at the end, writing two `.heapsnapshot` files into its working folder (printed) to compare
 * in Chrome DevTools (Memory → Comparison) when the heap grows. Writing a snapshot raises the server's RSS by about
 * 100 MB for good (the memory it took stays with the process), so the RSS growth is then measured from the first
 * sample after the warm-up's snapshot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { GeoFrame, FMTC_ORIGIN } from '../src/geo/frame.js';
import { buildRoadEntities } from '../src/map/road-entities.js';
import { loadMapFile } from '../src/map/scene-json.js';
import { LaneNetwork } from '../src/traffic/lanes.js';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    minutes: { type: 'string' }, clients: { type: 'string' }, egos: { type: 'string' }, npcs: { type: 'string' }, warmup: { type: 'string' },
    every: { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string' }, 'heap-snapshots': { type: 'boolean' }, smaps: { type: 'boolean' },
  },
});
const minutes = Number(values.minutes ?? 30);
const clientCount = Number(values.clients ?? 20);
const egoCount = Math.min(clientCount, Number(values.egos ?? clientCount));
const npcs = Number(values.npcs ?? 63);
/** warm-up [min]: 5 for runs of 15 minutes and more, a third of the run below */
const warmupMin = Number(values.warmup ?? (minutes >= 15 ? 5 : minutes / 3));
const everyS = Number(values.every ?? 10);
for (const [k, v] of Object.entries({ minutes, clients: clientCount, egos: egoCount, npcs, warmup: warmupMin, every: everyS })) {
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`--${k}: expected a number ≥ 0, got ${String(v)}`);
}
if (!(warmupMin < minutes)) throw new RangeError(`--warmup ${warmupMin} must be shorter than --minutes ${minutes}`);
const log = (s: string) => {
  if (!values.json) console.error(s);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(join(tmpdir(), 'vils-soak-'));
const recDir = join(work, 'recordings');
const cfg = join(work, 'config.json');
writeFileSync(cfg, JSON.stringify({ npc_target: npcs, max_egos: Math.max(32, egoCount + 4), spawn_clearance_m: 10 }));

/** `vils serve` with recording into `recDir`; resolves once it says it is ready. */
async function serve(): Promise<{ child: ChildProcess; base: string }> {
  const nodeArgs = values['heap-snapshots'] ? ['--heapsnapshot-signal=SIGUSR2'] : [];
  const args = [...nodeArgs, join(projectRoot(), 'dist', 'src', 'cli', 'vils.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--config', cfg, '--record-dir', recDir];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: work });
  // never leave it running: a failed start or a thrown error ends this process
  process.on('exit', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const warnings: string[] = [];
  const keep = (line: string) => {
    if (warnings.length < 200) warnings.push(line);
  };
  createInterface({ input: child.stderr! }).on('line', keep);
  const base: string = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /VILS ready in [0-9.]+ s on (http:\/\/[0-9.]+:[0-9]+)/.exec(line);
      if (m) resolve(m[1]);
      else if (/"level":(40|50|60)/.test(line)) keep(line);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${warnings.slice(-5).join('\n')}`)));
    setTimeout(() => reject(new Error('server did not start within 60 s')), 60000).unref();
  });
  serverWarnings = warnings;
  return { child, base };
}
let serverWarnings: string[] = [];

interface Status {
  loop: { overruns: number; ticks: number; skippedTicks: number }; npcs: number; clients: number; dropped_frames: number;
  recording?: { bytes_written?: number; dropped?: number; segments?: number; pending_bytes?: number; thread_heap_mb?: { used: number; total: number; external: number } | null };
}
interface Sample { t_min: number; rss_mb: number; heap_used_mb: number; heap_total_mb: number; external_mb: number; rec_heap_mb: number; overruns: number; ticks: number; npcs: number; clients: number; rec_mb: number; load1: number }

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function promMetrics(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(nodejs_heap_size_used_bytes|nodejs_heap_size_total_bytes|nodejs_external_memory_bytes) (\S+)/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** The server's memory mappings: start address → {size, rss, name} [kB] (/proc/<pid>/smaps). */
function smaps(p: number): Map<string, { sizeKb: number; rssKb: number; name: string }> {
  const out = new Map<string, { sizeKb: number; rssKb: number; name: string }>();
  let cur: { sizeKb: number; rssKb: number; name: string } | null = null;
  for (const line of readFileSync(`/proc/${p}/smaps`, 'utf8').split('\n')) {
    const h = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (h) {
      cur = { sizeKb: Number((BigInt('0x' + h[2]) - BigInt('0x' + h[1])) / 1024n), rssKb: 0, name: h[3] || '' };
      out.set(h[1], cur);
    } else if (cur && line.startsWith('Rss:')) cur.rssKb = Number(/(\d+)/.exec(line)![1]);
  }
  return out;
}

/** The mappings whose RSS grew most between two smaps readings [MB]. */
function topGrowth(a: ReturnType<typeof smaps>, b: ReturnType<typeof smaps>, n = 8): Array<{ at: string; size_mb: number; grew_mb: number; name: string }> {
  return [...b].map(([at, m]) => ({ at, size_mb: Math.round(m.sizeKb / 102.4) / 10, grew_mb: Math.round((m.rssKb - (a.get(at)?.rssKb ?? 0)) / 102.4) / 10, name: m.name }))
    .sort((x, y) => y.grew_mb - x.grew_mb).slice(0, n).filter((x) => x.grew_mb > 0);
}

/** Where RSS grew between two smaps readings, by kind of mapping [MB]. */
function smapsGrowth(a: ReturnType<typeof smaps>, b: ReturnType<typeof smaps>): Record<string, number> {
  const kind = (m: { sizeKb: number; name: string }) => {
    if (m.name) return m.name.startsWith('/') ? `file ${m.name.split('/').pop()}` : m.name;
    if (m.sizeKb >= 1 << 20) return 'anonymous ≥ 1 GB reserved (WebAssembly memory, V8 cage)';
    if (m.sizeKb >= 60 << 10 && m.sizeKb <= 132 << 10) return 'anonymous 64–128 MB (malloc arenas of threads)';
    return 'anonymous < 60 MB (V8 pages, mmap-ed malloc blocks)';
  };
  const out: Record<string, number> = {};
  for (const [k, m] of b) {
    const d = m.rssKb - (a.get(k)?.rssKb ?? 0);
    out[kind(m)] = (out[kind(m)] ?? 0) + d / 1024;
  }
  for (const [k, m] of a) if (!b.has(k)) out[kind(m)] = (out[kind(m)] ?? 0) - m.rssKb / 1024;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => Math.abs(v) >= 0.05).sort((x, y) => y[1] - x[1]).map(([k, v]) => [k, Math.round(v * 100) / 100]));
}

/** Least-squares slope and intercept of y over x. */
export function linearFit(x: readonly number[], y: readonly number[]): { slope: number; intercept: number } {
  const n = x.length;
  if (n < 2) return { slope: NaN, intercept: NaN };
  const mx = x.reduce((a, b) => a + b, 0) / n, my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
  }
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

function dirBytes(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir)) n += statSync(join(dir, f)).size;
  } catch {
    /* not there yet */
  }
  return n;
}

const { child, base } = await serve();
const pid = child.pid!;
log(`soak: vils serve pid ${pid} at ${base}, ${npcs} NPCs, recording into ${recDir}; ${clientCount} clients (${egoCount} egos at 10 Hz); ${minutes} min, warm-up ${warmupMin} min, a sample every ${everyS} s`);
const status = async () => (await (await fetch(`${base}/api/status`)).json()) as Status;

// clients: egos drive along the demo track's lanes at 8 m/s, spread out (as bench:server); viewers only read
const { scene, mapMetadata } = loadMapFile(join(projectRoot(), 'maps', 'demo-track.json'));
const lanes = new LaneNetwork(buildRoadEntities(scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), mapMetadata?.lane_graph);
const geo = new GeoFrame(mapMetadata?.origin ?? FMTC_ORIGIN);
const sockets: WebSocket[] = [];
const timers: NodeJS.Timeout[] = [];
let frames = 0;
let closedEarly = 0;
let stopping = false;
for (let c = 0; c < clientCount; c++) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/vils/stream`);
  sockets.push(ws);
  ws.on('message', (data: Buffer) => {
    // count frames without parsing them (20 clients share this process)
    if (data.length > 20 && data.toString('latin1', 0, 20).startsWith('{"type":"npc_states"')) frames++;
  });
  ws.on('close', () => {
    if (!stopping) closedEarly++;
  });
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  if (c >= egoCount) continue;
  const id = `soak-${c}`;
  const lane = c % lanes.lanes.length;
  let s = (c * 37) % 50;
  timers.push(setInterval(() => {
    s += 0.8;
    const p = lanes.ahead(lane, 0, s);
    const m = geo.toLatLon(p.x, p.y);
    ws.send(JSON.stringify({ type: 'ego_state', ego_id: id, timestamp: Date.now() / 1000, data: { lat: m.lat, lon: m.lon, heading: geo.yawToHeading(p.yaw, p.x, p.y), speed: 8 } }));
  }, 100));
}

const samples: Sample[] = [];
const t0 = performance.now();
const nowMin = () => (performance.now() - t0) / 60000;
async function sample(): Promise<Sample> {
  const [st, pm] = await Promise.all([status(), promMetrics(base)]);
  const s: Sample = {
    t_min: nowMin(), rss_mb: rssMb(pid), heap_used_mb: (pm.nodejs_heap_size_used_bytes ?? NaN) / 1048576, heap_total_mb: (pm.nodejs_heap_size_total_bytes ?? NaN) / 1048576,
    external_mb: (pm.nodejs_external_memory_bytes ?? NaN) / 1048576, rec_heap_mb: st.recording?.thread_heap_mb?.total ?? NaN, overruns: st.loop.overruns, ticks: st.loop.ticks, npcs: st.npcs, clients: st.clients,
    rec_mb: (st.recording?.bytes_written ?? dirBytes(recDir)) / 1048576, load1: loadavg()[0],
  };
  samples.push(s);
  return s;
}

let snapshotsAt: string[] = [];
async function heapSnapshot(label: string): Promise<void> {
  if (!values['heap-snapshots']) return;
  const before = new Set(readdirSync(work).filter((f) => f.endsWith('.heapsnapshot')));
  child.kill('SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await sleep(1000);
    const made = readdirSync(work).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    // written when its size stops changing
    if (made.length && statSync(join(work, made[0])).size > 0) {
      const a = statSync(join(work, made[0])).size;
      await sleep(2000);
      if (statSync(join(work, made[0])).size === a) {
        snapshotsAt.push(`${label}: ${join(work, made[0])}`);
        return;
      }
    }
  }
}

await sample();
const endMin = minutes;
let snapped = false;
/** when the warm-up's heap snapshot was written [min] (the RSS it took is not growth) */
let snapshotAt: number | null = null;
let smapsAtWarm: ReturnType<typeof smaps> | null = null;
while (nowMin() < endMin) {
  await sleep(Math.max(0, Math.min(everyS * 1000, (endMin - nowMin()) * 60000)));
  if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) at ${nowMin().toFixed(1)} min: ${serverWarnings.slice(-5).join('\n')}`);
  const s = await sample();
  if (!snapped && s.t_min >= warmupMin) {
    snapped = true;
    await heapSnapshot('end of warm-up');
    if (values['heap-snapshots']) snapshotAt = nowMin();
    if (values.smaps) smapsAtWarm = smaps(pid);
  }
  if (samples.length % Math.max(1, Math.round(60 / everyS)) === 0) {
    log(`  ${s.t_min.toFixed(1)} min: RSS ${s.rss_mb.toFixed(1)} MB, heap ${s.heap_used_mb.toFixed(1)} MB, external ${s.external_mb.toFixed(1)} MB, overruns ${s.overruns}, ${s.npcs} NPCs, ${s.clients} clients, recorded ${s.rec_mb.toFixed(0)} MB, load ${s.load1.toFixed(2)}`);
  }
}
await heapSnapshot('end');
const smapsAtEnd = values.smaps && smapsAtWarm ? smaps(pid) : null;
const rssGrowthByMapping = smapsAtWarm && smapsAtEnd ? smapsGrowth(smapsAtWarm, smapsAtEnd) : undefined;
const rssGrowthTop = smapsAtWarm && smapsAtEnd ? topGrowth(smapsAtWarm, smapsAtEnd) : undefined;
stopping = true;
for (const t of timers) clearInterval(t);
for (const s of sockets) s.close();
const finalStatus = await status();
const child2 = child;
const exited = new Promise((r) => child2.once('exit', r));
child2.kill('SIGTERM');
await Promise.race([exited, sleep(10000)]);
if (child2.exitCode === null) child2.kill('SIGKILL');

const post = samples.filter((s) => s.t_min >= (snapshotAt ?? warmupMin));
const atWarm = post[0];
const last = samples[samples.length - 1];
const fit = (k: keyof Sample) => linearFit(post.map((s) => s.t_min), post.map((s) => s[k]));
const rssFit = fit('rss_mb'), heapFit = fit('heap_used_mb'), extFit = fit('external_mb'), recHeapFit = fit('rec_heap_mb');
// the second half of the post-warm-up samples alone: a staircase that levels off (heaps growing to their
// working size) has a lower slope there than a steady leak, which keeps it
const lastHalf = post.filter((s) => s.t_min >= (post[0].t_min + last.t_min) / 2);
const rssFitLate = linearFit(lastHalf.map((s) => s.t_min), lastHalf.map((s) => s.rss_mb));
const loads = samples.map((s) => s.load1);
const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;
const result = {
  benchmark: 'soak', minutes, warmup_min: warmupMin, clients: clientCount, egos: egoCount, npcs_asked: npcs, npcs: finalStatus.npcs, every_s: everyS,
  rss_mb: { start: round(samples[0].rss_mb, 1), warmup_end: round(atWarm.rss_mb, 1), end: round(last.rss_mb, 1), max: round(Math.max(...samples.map((s) => s.rss_mb)), 1) },
  rss_slope_mb_per_min: round(rssFit.slope), rss_slope_second_half_mb_per_min: round(rssFitLate.slope), heap_used_slope_mb_per_min: round(heapFit.slope), external_slope_mb_per_min: round(extFit.slope), recorder_thread_heap_slope_mb_per_min: round(recHeapFit.slope),
  recorder_thread_heap_mb: { warmup_end: round(atWarm.rec_heap_mb, 1), end: round(last.rec_heap_mb, 1) },
  heap_used_mb: { warmup_end: round(atWarm.heap_used_mb, 1), end: round(last.heap_used_mb, 1) },
  overruns_after_warmup: last.overruns - atWarm.overruns, overruns_total: last.overruns, ticks_after_warmup: last.ticks - atWarm.ticks,
  recorded_mb: round(last.rec_mb, 1), frames_received: frames, clients_closed_early: closedEarly, dropped_frames: finalStatus.dropped_frames,
  load_average: { mean: round(loads.reduce((a, b) => a + b, 0) / loads.length, 2), min: round(Math.min(...loads), 2), max: round(Math.max(...loads), 2) },
  goals: { rss_slope_mb_per_min: 0.5, overruns_after_warmup: 0 },
  heap_snapshots: snapshotsAt.length ? snapshotsAt : undefined,
  rss_growth_by_mapping_mb: rssGrowthByMapping,
  rss_growth_top_mappings: rssGrowthTop,
  rss_measured_from_min: round(atWarm.t_min, 2),
  samples: samples.length,
};

if (values.out) {
  const stem = values.out.replace(/\.(svg|csv)$/i, '');
  mkdirSync(dirname(values.out) || '.', { recursive: true });
  writeFileSync(`${stem}.csv`, ['t_min,rss_mb,heap_used_mb,heap_total_mb,external_mb,recorder_heap_mb,overruns,ticks,npcs,clients,recorded_mb,load1',
    ...samples.map((s) => [s.t_min, s.rss_mb, s.heap_used_mb, s.heap_total_mb, s.external_mb, s.rec_heap_mb, s.overruns, s.ticks, s.npcs, s.clients, s.rec_mb, s.load1].map((v) => round(v, 3)).join(','))].join('\n') + '\n');
  writeFileSync(`${stem}.svg`, plot(samples, warmupMin, rssFit, result));
  log(`curve: ${stem}.csv, ${stem}.svg`);
}
if (!values['heap-snapshots']) rmSync(work, { recursive: true, force: true });

if (values.json) console.log(JSON.stringify(result));
else {
  console.log(`soak: ${minutes} min, ${result.npcs} NPCs, ${clientCount} clients (${egoCount} egos at 10 Hz), recording (${result.recorded_mb} MB)`);
  console.log(`RSS: ${result.rss_mb.start} MB at start, ${result.rss_mb.warmup_end} MB at the end of the ${warmupMin}-min warm-up, ${result.rss_mb.end} MB at the end (max ${result.rss_mb.max})`);
  console.log(`RSS growth after warm-up: ${result.rss_slope_mb_per_min} MB/min (goal ≤ 0.5; over the second half of it ${result.rss_slope_second_half_mb_per_min} MB/min); main thread's V8 heap used ${result.heap_used_slope_mb_per_min} MB/min (${result.heap_used_mb.warmup_end} → ${result.heap_used_mb.end} MB), external ${result.external_slope_mb_per_min} MB/min`);
  console.log(`loop overruns after warm-up: ${result.overruns_after_warmup} in ${result.ticks_after_warmup} ticks (goal 0; ${result.overruns_total} in all); dropped frames ${result.dropped_frames}; clients closed early ${closedEarly}`);
  console.log(`load average (1 min): mean ${result.load_average.mean}, ${result.load_average.min}–${result.load_average.max}`);
  for (const s of snapshotsAt) console.log(`heap snapshot, ${s}`);
  console.log(`the recording writer's thread heap: ${result.recorder_thread_heap_mb.warmup_end} → ${result.recorder_thread_heap_mb.end} MB (${result.recorder_thread_heap_slope_mb_per_min} MB/min)`);
  if (rssGrowthByMapping) console.log(`RSS growth after warm-up by mapping (MB): ${JSON.stringify(rssGrowthByMapping)}; the mappings that grew most: ${JSON.stringify(rssGrowthTop)}`);
}
process.exit(0);

/** A small SVG: RSS and V8 heap used over time, the warm-up, the fitted line over the rest. */
function plot(s: readonly Sample[], warm: number, f: { slope: number; intercept: number }, r: typeof result): string {
  const W = 720, H = 360, L = 60, R = 20, T = 40, B = 45;
  const xMax = Math.max(...s.map((p) => p.t_min), 1e-9);
  const yMax = Math.max(...s.map((p) => p.rss_mb)) * 1.1;
  const X = (t: number) => L + (t / xMax) * (W - L - R);
  const Y = (v: number) => H - B - (v / yMax) * (H - T - B);
  const path = (k: 'rss_mb' | 'heap_used_mb') => s.filter((p) => Number.isFinite(p[k])).map((p, i) => `${i ? 'L' : 'M'}${X(p.t_min).toFixed(1)},${Y(p[k]).toFixed(1)}`).join('');
  const ticks: string[] = [];
  const stepY = niceStep(yMax / 5), stepX = niceStep(xMax / 6);
  for (let v = 0; v <= yMax; v += stepY) ticks.push(`<line x1="${L}" x2="${W - R}" y1="${Y(v).toFixed(1)}" y2="${Y(v).toFixed(1)}" stroke="#eee"/><text x="${L - 6}" y="${(Y(v) + 4).toFixed(1)}" text-anchor="end">${round(v, 1)}</text>`);
  for (let t = 0; t <= xMax + 1e-9; t += stepX) ticks.push(`<text x="${X(t).toFixed(1)}" y="${H - B + 16}" text-anchor="middle">${round(t, 1)}</text>`);
  const fitLine = Number.isFinite(f.slope) ? `<line x1="${X(warm).toFixed(1)}" y1="${Y(f.intercept + f.slope * warm).toFixed(1)}" x2="${X(xMax).toFixed(1)}" y2="${Y(f.intercept + f.slope * xMax).toFixed(1)}" stroke="#d62728" stroke-dasharray="6 4"/>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
<text x="${L}" y="18" font-size="13">vils serve soak: ${r.npcs} NPCs, ${r.clients} clients, recording; RSS ${r.rss_slope_mb_per_min} MB/min after warm-up, ${r.overruns_after_warmup} overruns</text>
<text x="${L}" y="32" fill="#666">load average ${r.load_average.mean} (${r.load_average.min}–${r.load_average.max}); dashed: least-squares fit after the ${warm}-min warm-up</text>
${ticks.join('\n')}
<rect x="${L}" y="${T}" width="${(X(warm) - L).toFixed(1)}" height="${H - T - B}" fill="#f4f4f4"/>
<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#333"/><line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#333"/>
<path d="${path('rss_mb')}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>
<path d="${path('heap_used_mb')}" fill="none" stroke="#2ca02c" stroke-width="1.5"/>
${fitLine}
<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">minutes</text>
<text x="14" y="${(T + H - B) / 2}" transform="rotate(-90 14 ${(T + H - B) / 2})" text-anchor="middle">MB</text>
<text x="${W - R - 160}" y="${T + 14}" fill="#1f77b4">RSS</text><text x="${W - R - 110}" y="${T + 14}" fill="#2ca02c">V8 heap used</text>
</svg>
`;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}
