/**
 * A co-simulated ego served among NPCs and viewers: `npm run bench:serve-cosim [-- --json] [-- --seconds 30]
 * [-- --viewers 20] [-- --npcs 63] [-- --hz 50] [-- --rate 1000] [-- --runs 1] [-- --thread on|off] [-- --priority=-10|fifo]
 * [-- --ego-priority=fifo|normal|<nice>] [-- --cpus=auto|all|<list>]`.
 * Starts `vils serve --scenario <configs/scenarios/demo_lap_comms.yaml with its ego at --rate Hz, --npcs NPCs>`
 * (publish_hz --hz, not recording) as a child process, connects --viewers listen-only WebSocket viewers from this
 * process, and runs bench/cosim-controller.ts as the control stack: VDS1 CMDs at 100 Hz to the scenario's command
 * port, every STATE read by a plain UDP listener. Per run:
 *  - STATE period jitter at the listener (|arrival interval − ego step|), p50/p99/max, and loss (seq gaps);
 *  - whether the ego ever went stale: in any frame one viewer read (egos[].stale), in GET /api/status (polled
 *    every second: the ego's stale flag and the time conductor's lagging assets), in the server's log;
 *  - what the server says lags (GET /api/status sim_egos.thread, loop) and the server's CPU share.
 * Goal (issue 24 item 6): STATE jitter p99 ≤ 1 ms at 1 kHz, the ego never stale. The machine's load shows in the
 * figures: its load average is printed with every run. `--thread off` runs the ego in the main thread
 * (VILS_SIM_EGO_THREAD=off), for a comparison on the same build. The listener's own wake-ups count in the jitter
 * it measures: on a machine busy with other work `--priority=-10` runs the listener at that niceness (as
 * bench:cosim's), `--priority=fifo` on the real-time scheduler (chrt -f 10), so that the figure is the server's.
 * `--ego-priority` and `--cpus` are passed to vils serve (the egos' thread's scheduling, the CPUs it keeps to).
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parse as parseYaml, stringify } from 'yaml';
import { projectRoot } from '../src/util/project-root.js';
import { startServe, stopServe } from './serve-child.js';
import { benchArgs } from './args.js';

export const JITTER_P99_GOAL_MS = 1;

const { values } = benchArgs(import.meta.url, {
  options: {
    json: { type: 'boolean' }, seconds: { type: 'string' }, viewers: { type: 'string' }, npcs: { type: 'string' }, hz: { type: 'string' },
    rate: { type: 'string' }, runs: { type: 'string' }, thread: { type: 'string' }, priority: { type: 'string' }, 'ego-priority': { type: 'string' }, cpus: { type: 'string' },
  },
});
const seconds = Number(values.seconds ?? 30);
const viewerCount = Number(values.viewers ?? 20);
const npcs = Number(values.npcs ?? 63);
const publishHz = Number(values.hz ?? 50);
const rate = Number(values.rate ?? 1000);
const runs = Number(values.runs ?? 1);
const root = projectRoot();
const CONTROLLER = join(root, 'dist', 'bench', 'cosim-controller.js');
const dir = mkdtempSync(join(tmpdir(), 'vils-serve-cosim-'));
const la = () => loadavg().map((x) => Math.round(x * 100) / 100);

async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const p = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

/** demo_lap_comms with the ego at `rate` Hz and `npcs` NPCs, its comms file on these ports (no GGA listener). */
function writeScenario(cmdPort: number, statePort: number): string {
  const comms = parseYaml(readFileSync(join(root, 'configs', 'comms', 'sim_ego.yaml'), 'utf8')) as { channels: Array<Record<string, unknown>> };
  comms.channels = comms.channels.filter((ch) => ch.template !== 'nmea_gga');
  for (const ch of comms.channels) {
    if (ch.direction === 'in') ch.listen = { port: cmdPort };
    else ch.to = [{ ip: '127.0.0.1', port: statePort }];
  }
  writeFileSync(join(dir, 'comms.yaml'), stringify(comms));
  const doc = parseYaml(readFileSync(join(root, 'configs', 'scenarios', 'demo_lap_comms.yaml'), 'utf8')) as { npcs: number; egos: Array<Record<string, unknown>>; run: Record<string, unknown> };
  doc.npcs = npcs;
  doc.egos[0].dt = 1 / rate;
  doc.run.comms = join(dir, 'comms.yaml');
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, stringify(doc));
  return file;
}

interface Stats {
  p50: number;
  p99: number;
  max: number;
  n: number;
}
interface ControllerResult {
  sent: number;
  receivers: Array<{ received: number; lost: number; reordered: number; bad: number; jitter_ms: Stats; tick_jitter_ms: Stats; jitter_over: Array<{ ms: number; share: number }> }>;
  latency_ms: Stats;
}
// the server's JSON, read field by field
type Status = Record<string, any>;

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 0.01; // utime + stime in USER_HZ ticks
}

async function run(index: number) {
  const loadStart = la();
  const [cmdPort, statePort] = [await freePort(), await freePort()];
  const scenario = writeScenario(cmdPort, statePort);
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ publish_hz: publishHz }));
  const env = { ...process.env, ...(values.thread !== undefined ? { VILS_SIM_EGO_THREAD: values.thread } : {}) };
  const egoPriority = values['ego-priority'] !== undefined ? ['--ego-priority', values['ego-priority']] : [];
  const cpus = values.cpus !== undefined ? ['--cpus', values.cpus] : [];
  const { child, base } = await startServe(['--scenario', scenario, '--config', cfg, '--no-record', '--log-format', 'json', ...egoPriority, ...cpus], env, 60000);
  const log: string[] = [];
  child.stdout!.on('data', (d: Buffer) => log.push(...d.toString().split('\n').filter((l) => /stale|lagging|lags|overrun|worker|thread/i.test(l))));
  try {
    const status = async (): Promise<Status> => (await (await fetch(`${base}/api/status`)).json()) as Status;
    // the viewers: one reads every frame for the ego's stale flag, the others only count
    const sockets: WebSocket[] = [];
    let frames = 0;
    let measuring = false;
    let staleFrames = 0;
    let egoFrames = 0;
    for (let i = 0; i < viewerCount; i++) {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/vils/stream`, { perMessageDeflate: false });
      sockets.push(ws);
      const probe = i === 0;
      ws.on('message', (data: Buffer) => {
        if (measuring) frames++;
        if (!probe) return;
        const m = /"ego_id":"sim1"[^}]*"stale":(true|false)/.exec(data.toString());
        if (!m) return;
        egoFrames++;
        if (m[1] === 'true') staleFrames++;
      });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
    }
    // the NPCs spawned up to the target (the scene fills up over a few seconds), then 2 s more
    for (let i = 0; i < 300 && ((await status()).npcs as number) < npcs; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    const st0 = await status();
    const cpu0 = cpuSeconds(child.pid!);
    const t0 = performance.now();
    measuring = true;
    const args = [CONTROLLER, '--cmd-port', String(cmdPort), '--state-ports', String(statePort), '--rate', '100', '--seconds', String(seconds + 1), '--period-ms', String(1000 / rate), '--warmup', '1'];
    const fifo = values.priority === 'fifo';
    if (values.priority !== undefined && !fifo) args.push(`--priority=${values.priority}`);
    const controller = fifo ? spawn('chrt', ['-f', '10', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    controller.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const done = new Promise<number | null>((r) => controller.on('exit', r));
    // the status every second: is the ego stale, does the conductor say it lags, what the thread says
    let staleStatus = 0;
    const lagging = new Set<string>();
    let polls = 0;
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      await Promise.race([done, new Promise((r) => setTimeout(r, 1000))]);
      const s = await status();
      polls++;
      if ((s.egos as Array<{ ego_id: string; stale: boolean }>).some((e) => e.ego_id === 'sim1' && e.stale)) staleStatus++;
      for (const a of (s.time?.lagging as string[] | undefined) ?? []) lagging.add(a);
    }
    const wall = (performance.now() - t0) / 1000;
    measuring = false;
    const cpu = (cpuSeconds(child.pid!) - cpu0) / wall;
    const st1 = await status();
    for (const s of sockets) s.terminate();
    const c = JSON.parse(out.trim().split('\n').pop()!) as ControllerResult;
    const r = c.receivers[0];
    const thread = st1.sim_egos?.thread ?? null;
    const stale = staleFrames > 0 || staleStatus > 0 || log.some((l) => /is stale/.test(l));
    return {
      run: index + 1,
      load_average: { start: loadStart, end: la() },
      ego_thread: thread !== null,
      state_jitter_ms: { p50: r.jitter_ms.p50, p99: r.jitter_ms.p99, max: r.jitter_ms.max, n: r.jitter_ms.n },
      state_jitter_over: r.jitter_over,
      state_received: r.received,
      seq_gaps: r.lost,
      reordered: r.reordered,
      cmd_to_state_ms: c.latency_ms,
      stale: { ever: stale, frames_read: egoFrames, stale_frames: staleFrames, stale_polls: staleStatus, polls, lagging_assets: [...lagging] },
      frames_per_viewer_per_s: frames / viewerCount / wall,
      server_cpu_share: Math.round(cpu * 100) / 100,
      runner: { overruns: st1.loop.overruns - st0.loop.overruns, skipped_ticks: st1.loop.skippedTicks - st0.loop.skippedTicks, slipped_s: st1.loop.slippedS - st0.loop.slippedS },
      thread,
      log_lines: log.slice(-5),
      goal: { p99_le_1ms: r.jitter_ms.p99 <= JITTER_P99_GOAL_MS, never_stale: !stale },
    };
  } finally {
    await stopServe(child);
  }
}

const results = [];
for (let i = 0; i < runs; i++) {
  const r = await run(i);
  results.push(r);
  if (!values.json) {
    const j = r.state_jitter_ms;
    console.log(`run ${r.run} (load average ${r.load_average.start.join(' ')} → ${r.load_average.end.join(' ')}; ego ${r.ego_thread ? 'in its worker thread' : 'in the main thread'}): ` +
      `STATE jitter p50 ${j.p50.toFixed(3)} / p99 ${j.p99.toFixed(3)} / max ${j.max.toFixed(3)} ms (goal p99 ≤ ${JITTER_P99_GOAL_MS} ms: ${r.goal.p99_le_1ms ? 'met' : 'NOT met'}; ` +
      `over ${r.state_jitter_over.map((o) => `${o.ms} ms: ${(100 * o.share).toFixed(2)} %`).join(', ')}); ` +
      `${r.state_received} STATE, ${r.seq_gaps} lost; stale: ${r.stale.ever ? 'YES' : 'never'} (goal never: ${r.goal.never_stale ? 'met' : 'NOT met'}); ` +
      `server CPU ${(100 * r.server_cpu_share).toFixed(0)} % of a core, ${r.runner.overruns} loop overruns, ${r.frames_per_viewer_per_s.toFixed(1)} frames/s per viewer`);
    if (r.thread) console.log(`  thread: ${JSON.stringify(r.thread)}`);
    for (const l of r.log_lines) console.log(`  log: ${l.slice(0, 300)}`);
  }
}
const summary = {
  benchmark: 'serve-cosim', node: process.version, seconds, viewers: viewerCount, npcs, publish_hz: publishHz, ego_hz: rate, listener_priority: values.priority ?? null, ego_priority: values['ego-priority'] ?? null, cpus: values.cpus ?? null,
  goal: { state_jitter_p99_ms: JITTER_P99_GOAL_MS, stale: 'never' }, runs: results,
};
if (values.json) console.log(JSON.stringify(summary));
else console.log(`serve-cosim: ${npcs} NPCs at ${publishHz} Hz, ${viewerCount} viewers, the ego at ${rate} Hz, ${seconds} s per run (${process.version}${values.priority !== undefined ? `, the listener at ${values.priority === 'fifo' ? 'SCHED_FIFO 10' : `niceness ${values.priority}`}` : ''}${values['ego-priority'] !== undefined ? `, --ego-priority ${values['ego-priority']}` : ''}${values.cpus !== undefined ? `, --cpus ${values.cpus}` : ''})`);
process.exit(0);
