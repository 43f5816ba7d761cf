/**
 * Stalls under a REST fuzz: `npm run bench:stall [-- --seconds 60] [-- --rate 20] [-- --seed 1] [-- --json]
 * [-- --no-record]`.
 *
 * Starts `vils serve` as a child process on its defaults (the demo track, 20 NPCs, 10 Hz, no token, recording into a
 * temporary folder, deleted at the end; `--no-record` leaves the recorder out), connects a viewer that times every
 * npc_states frame as it arrives, and for `--seconds` sends `--rate` REST commands a second (in turn, each when the
 * last is answered; keep it under the 50 commands a second a client may send), drawn from
 * a seeded random mix of what an operator or a fuzzer sends while the scene runs: POST /api/init (a random NPC count
 * and seed, always started), POST /api/reset, PUT /api/config (a random valid patch), POST /api/npcs (a random spawn,
 * often refused), DELETE /api/npcs, and bodies the edge refuses (too deep, unknown keys, out of range). A poller asks
 * GET /api/status five times a second.
 *
 * Reports the longest gap between two frames (the stall: at 10 Hz a frame is due every 100 ms; goal ≤ 200 ms), its
 * p99 and where the longest fell (after which command), the slowest GET /api/status, the commands' latencies, and
 * the server's loop overruns, slips and catch-ups from its own counters. The control: a process of its own that
 * does nothing but time a 10 ms timer through the run — how long the machine held a process that had nothing to do
 * (on a shared machine it can be a second: a gap no longer than the control's is the machine's, not the server's).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { benchArgs } from './args.js';
import { startServe, stopServe } from './serve-child.js';
import { summarise } from './stats.js';
import { SeededRandom } from '../src/util/random.js';

const { values } = benchArgs(import.meta.url, {
  options: { seconds: { type: 'string' }, rate: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' }, 'no-record': { type: 'boolean' } },
});
const seconds = Number(values.seconds ?? 60);
const rate = Number(values.rate ?? 20);
const seed = Number(values.seed ?? 1);
for (const [k, v] of Object.entries({ seconds, rate, seed })) if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`--${k}: expected a number > 0, got ${String(v)}`);
const log = (s: string) => {
  if (!values.json) console.error(s);
};

interface Command { method: 'POST' | 'PUT' | 'DELETE'; path: string; body?: string }

/** One command of the mix (seeded). */
function command(r: () => number): Command {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)];
  const json = (o: unknown) => JSON.stringify(o);
  switch (pick(['init', 'init', 'reset', 'reset', 'config', 'spawn', 'clear', 'refused'] as const)) {
    case 'init':
      return { method: 'POST', path: '/api/init', body: json({ npc_count: int(64), seed: int(1000), start: true }) };
    case 'reset':
      return { method: 'POST', path: '/api/reset' };
    case 'config':
      return { method: 'PUT', path: '/api/config', body: json(pick([{ npc_target: int(64) }, { seed: int(1e6) }, { trip_length_m: 30 + int(2000) }, { route_choice: pick(['random', 'queues']) }, { traffic_rules: r() < 0.5 }, { shield: true }, { goal_update: pick(['continuous', 'renew']) }])) };
    case 'spawn':
      return { method: 'POST', path: '/api/npcs', body: json({ x: -150 + int(300), y: -50 + int(250), yaw: r() * 6.28 - 3.14, speed: int(15) }) };
    case 'clear':
      return { method: 'DELETE', path: '/api/npcs' };
    case 'refused':
      return pick([
        { method: 'PUT', path: '/api/config', body: `{"npc_target":${'['.repeat(5000)}${']'.repeat(5000)}}` },
        { method: 'POST', path: '/api/init', body: json({ npc_count: 3, extra: 1 }) },
        { method: 'POST', path: '/api/init', body: json({ seed: 1e12 }) },
        { method: 'PUT', path: '/api/config', body: json({ publish_hz: 1000 }) },
      ] as Command[]);
  }
}

const work = mkdtempSync(join(tmpdir(), 'vils-stall-'));
const recordArgs = values['no-record'] ? ['--no-record'] : ['--record-dir', join(work, 'recordings')];
const env = { ...process.env, VILS_OPERATOR_TOKENS: '', VILS_DRIVER_TOKENS: '', VILS_VIEWER_TOKENS: '', VILS_ACCESS_FILE: '' };
const { child, base } = await startServe(['--log-format', 'json', ...recordArgs], env);
const load_before = loadavg().map((x) => Math.round(x * 100) / 100);
try {
  interface Status { loop: { overruns: number; ticks: number; frames: number; slips: number; catchUps: number } }
  const status = async (): Promise<Status> => (await (await fetch(`${base}/api/status`)).json()) as Status;
  // the viewer: every frame's arrival (wall clock here) and step
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws/vils/stream`, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const arrivals: Array<{ at: number; step: number; state: string }> = [];
  let fuzzing = false;
  ws.on('message', (d: Buffer) => {
    if (!fuzzing) return;
    const head = d.toString('latin1', 0, 200);
    if (!head.startsWith('{"type":"npc_states"')) return;
    const step = Number(/"step":(\d+)/.exec(head)?.[1] ?? NaN);
    const state = /"state":"(\w+)"/.exec(head)?.[1] ?? '?';
    arrivals.push({ at: performance.now(), step, state });
  });
  await new Promise((r) => setTimeout(r, 3000)); // warm-up
  const before = await status();
  const statusMs: number[] = [];
  const commands: Array<{ at: number; ms: number; cmd: string; status: number }> = [];
  // the control: a process that only times a 10 ms timer, for as long as the fuzz runs
  const control = spawn(process.execPath, ['-e', `let l=performance.now(),w=0,n=0;setInterval(()=>{const t=performance.now(),g=t-l-10;if(g>w)w=g;if(g>100)n++;l=t},10);setTimeout(()=>{console.log(JSON.stringify({max:w,over100:n}));process.exit(0)},${Math.round(seconds * 1000)})`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const controlLag = new Promise<{ max: number; over100: number } | null>((resolve) => {
    let out = '';
    control.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    control.once('exit', () => {
      try {
        resolve(JSON.parse(out) as { max: number; over100: number });
      } catch {
        resolve(null);
      }
    });
  });
  fuzzing = true;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const poller = (async () => {
    while (performance.now() < end) {
      const a = performance.now();
      await status();
      statusMs.push(performance.now() - a);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const rng = new SeededRandom(seed);
  const random = () => rng.next();
  let n = 0;
  while (performance.now() < end) {
    const c = command(random);
    const a = performance.now();
    const r = await fetch(`${base}${c.path}`, { method: c.method, headers: c.body ? { 'content-type': 'application/json' } : {}, body: c.body }).catch(() => null);
    commands.push({ at: a, ms: performance.now() - a, cmd: `${c.method} ${c.path}`, status: r?.status ?? 0 });
    await r?.arrayBuffer().catch(() => undefined);
    n++;
    const due = t0 + (n * 1000) / rate;
    if (due > performance.now()) await new Promise((res) => setTimeout(res, due - performance.now()));
  }
  await poller;
  fuzzing = false;
  const machine = await controlLag;
  const after = await status();
  ws.close();
  // gaps between consecutive frames (both arrived during the fuzz)
  const gaps = arrivals.slice(1).map((f, i) => ({ ms: f.at - arrivals[i].at, at: f.at, from: arrivals[i], to: f }));
  const longest = gaps.reduce((m, g) => (g.ms > m.ms ? g : m), { ms: 0, at: t0, from: arrivals[0], to: arrivals[0] });
  const lastBefore = [...commands].reverse().find((c) => c.at <= longest.at - longest.ms);
  const byKind = new Map<string, number[]>();
  for (const c of commands) byKind.set(c.cmd, [...(byKind.get(c.cmd) ?? []), c.ms]);
  const round = (x: number) => Math.round(x * 10) / 10;
  const result = {
    benchmark: 'stall', seconds, rate, seed, recording: !values['no-record'], load_before,
    frames: arrivals.length,
    stall_ms: { longest: round(longest.ms), p99: round(summarise(gaps.map((g) => g.ms)).p99), p50: round(summarise(gaps.map((g) => g.ms)).p50), frames_over_200ms: gaps.filter((g) => g.ms > 200).length },
    longest_at: { after_command: lastBefore?.cmd ?? null, command_ms: lastBefore ? round(lastBefore.ms) : null, steps: [longest.from?.step, longest.to?.step], states: [longest.from?.state, longest.to?.state] },
    status_ms: { max: round(Math.max(...statusMs)), p99: round(summarise(statusMs).p99), n: statusMs.length },
    control_lag_ms: machine ? { max: round(machine.max), over_100ms: machine.over100 } : null,
    commands: Object.fromEntries([...byKind].map(([k, v]) => [k, { n: v.length, max_ms: round(Math.max(...v)), p50_ms: round(summarise(v).p50) }])),
    refused: commands.filter((c) => c.status >= 400 && c.status < 500).length,
    server_errors: commands.filter((c) => c.status >= 500 || c.status === 0).length,
    loop: {
      overruns: after.loop.overruns - before.loop.overruns, ticks: after.loop.ticks - before.loop.ticks,
      slips: after.loop.slips - before.loop.slips, catch_ups: after.loop.catchUps - before.loop.catchUps,
    },
    goals: { stall_ms_max: 200 },
    pass: longest.ms <= 200,
  };
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    log(`stall: ${seconds} s of ${rate} REST commands a second (seed ${seed}) against vils serve${values['no-record'] ? ' --no-record' : ' (recording)'}; load average before ${load_before.join(' ')}`);
    console.log(`longest gap between frames: ${result.stall_ms.longest} ms (p99 ${result.stall_ms.p99}, p50 ${result.stall_ms.p50}; ${result.stall_ms.frames_over_200ms} over 200 ms) in ${result.frames} frames; the longest after ${result.longest_at.after_command} (answered in ${result.longest_at.command_ms} ms), steps ${result.longest_at.steps.join(' → ')}`);
    console.log(`GET /api/status: slowest ${result.status_ms.max} ms (p99 ${result.status_ms.p99}); commands: ${Object.entries(result.commands).map(([k, v]) => `${k} ${v.n}× max ${v.max_ms} ms`).join(', ')}; ${result.refused} refused, ${result.server_errors} server errors`);
    console.log(`loop: ${result.loop.overruns} overruns, ${result.loop.slips} slips, ${result.loop.catch_ups} catch-ups in ${result.loop.ticks} ticks; goal: longest gap ≤ 200 ms: ${result.pass ? 'PASS' : 'FAIL'}`);
    if (machine) console.log(`the control (an idle process timing a 10 ms timer): held up to ${result.control_lag_ms!.max} ms, ${machine.over100} times over 100 ms — the machine's own stalls`);
  }
  process.exitCode = result.pass ? 0 : 1;
} finally {
  await stopServe(child);
  rmSync(work, { recursive: true, force: true });
}
