/**
 * Co-simulation benchmark: `npm run bench:cosim [-- --json] [-- --seconds 60] [-- --only 200,1000,failsafe,fanout]`.
 * Real processes on loopback: `vils realtime` (the seed form, VDSim's default sedan, L2) and a controller
 * process (bench/cosim-controller.ts) sending VDS1 CMDs at 100 Hz.
 *  - 200 Hz and 1 kHz runs of --seconds each: STATE period jitter at the controller (|arrival interval − period|)
 *    and of the server's tick timestamps, p50/p99/max; CMD→STATE latency; loss (seq gaps, and frames the
 *    server sent vs received); the runner's CPU share (process CPU time / wall time) and overruns.
 *    Goal at 1 kHz: p99 jitter ≤ 1 ms, 0 loss. Each is preceded by 10 s of an empty loop on the same Pacer and
 *    clock (the machine's floor: how late it wakes a paced Node process at all).
 *  - fail-safe: 10 cycles of 0.5 s commands then silence at 200 Hz: time from the last CMD sent to the first
 *    STATE with the fail-safe brake (client side) and on the server's clock; bound cmd_timeout + one tick.
 *  - fan-out: a comms world sending vehicle 0's STATE to 3 receivers at 200 Hz for --seconds: every receiver
 *    must get every frame.
 * The first second of each run is warm-up and not measured. The machine's other load shows in the figures
 * (its load average is reported); `-- --priority=-10` runs both processes at that niceness.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocket } from 'node:dgram';
import { projectRoot } from '../src/util/project-root.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, seconds: { type: 'string' }, only: { type: 'string' }, priority: { type: 'string' } } });
const seconds = Number(values.seconds ?? 60);
const only = new Set((values.only ?? '200,1000,failsafe,fanout').split(','));
const root = projectRoot();
const RUNNER = join(root, 'dist', 'bench', 'cosim-runner.js'); // = vils realtime
const CONTROLLER = join(root, 'dist', 'bench', 'cosim-controller.js');
const dir = mkdtempSync(join(tmpdir(), 'vils-bench-cosim-'));
const shared = join(root, '..', 'shared', 'data', 'vdsim');
let vehicle = join(shared, 'generic_sedan.yaml');
let tire = join(shared, 'generic_pacejka.yaml');
if (!existsSync(vehicle) || !existsSync(tire)) {
  // VDSim's defaults written out (generic_sedan = the C++ defaults; an empty tire file = the default MF96 + LuGre)
  vehicle = join(dir, 'vehicle.yaml');
  tire = join(dir, 'tire.yaml');
  writeFileSync(vehicle, 'mass: 1500.0\n');
  writeFileSync(tire, 'mu_nominal: 1.0\n');
}

async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const p = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

function collect(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

interface RunnerSummary {
  ticks: number;
  overruns: number;
  skippedTicks: number;
  maxLateS: number;
  txFrames: number;
  accepted: number;
  rx: number;
  cpu_share: number;
  wall_s: number;
  vehicles: { failsafeEntries: number; maxEntryDelayS: number | null }[];
}

interface ReceiverStats {
  port: number;
  received: number;
  bad: number;
  seq_first: number | null;
  seq_last: number | null;
  lost: number;
  reordered: number;
  interval_ms: Stats;
  jitter_ms: Stats;
  tick_jitter_ms: Stats;
}
interface Stats {
  p50: number;
  p99: number;
  max: number;
  n: number;
}
interface ControllerResult {
  sent: number;
  receivers: ReceiverStats[];
  latency_ms: Stats;
  failsafe_entry_ms: Stats;
}

/** Starts the runner, waits for its banner, runs the controller, stops the runner with SIGINT. */
async function session(runnerArgs: string[], controllerArgs: string[]): Promise<{ runner: RunnerSummary; controller: ControllerResult }> {
  const prio = values.priority !== undefined ? [`--priority=${values.priority}`] : [];
  const runner = spawn(process.execPath, [RUNNER, ...runnerArgs, ...prio, '--quiet', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const runnerDone = collect(runner);
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const onData = (d: Buffer) => {
      err += d.toString();
      if (err.includes('[vils realtime]')) {
        runner.stderr?.off('data', onData);
        resolve();
      }
    };
    runner.stderr?.on('data', onData);
    runner.once('exit', (code) => reject(new Error(`vils realtime exited with ${code}: ${err}`)));
  });
  const controller = spawn(process.execPath, [CONTROLLER, ...controllerArgs, ...(values.priority !== undefined ? [`--priority=${values.priority}`] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const c = await collect(controller);
  runner.kill('SIGINT');
  const r = await runnerDone;
  if (c.code !== 0) throw new Error(`controller failed (${c.code})`);
  if (r.code !== 0) throw new Error(`vils realtime failed (${r.code}): ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  return { runner: JSON.parse(lines[lines.length - 1]) as RunnerSummary, controller: JSON.parse(c.stdout.trim().split('\n').pop()!) as ControllerResult };
}

const round = (x: number, d = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);
const pick = (s: Stats) => ({ p50: round(s.p50), p99: round(s.p99), max: round(s.max), n: s.n });

/** The floor: an empty loop on the runner's Pacer and clock, 10 s, same niceness. */
async function baseline(rate: number): Promise<{ late_ms: Stats; overruns: number }> {
  const child = spawn(process.execPath, [CONTROLLER, '--mode', 'baseline', '--period-ms', String(1000 / rate), '--seconds', '10', ...(values.priority !== undefined ? [`--priority=${values.priority}`] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const r = await collect(child);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { late_ms: Stats; overruns: number };
}

async function rateRun(rate: number) {
  const floor = await baseline(rate);
  const [cmdPort, statePort] = [await freePort(), await freePort()];
  const { runner, controller } = await session(
    [vehicle, tire, `--rate=${rate}`, `--cmd-port=${cmdPort}`, `--state-port=${statePort}`],
    ['--cmd-port', String(cmdPort), '--state-ports', String(statePort), '--rate', '100', '--seconds', String(seconds + 1), '--period-ms', String(1000 / rate), '--warmup', '1'],
  );
  const r = controller.receivers[0];
  return {
    rate_hz: rate,
    seconds,
    states_received: r.received,
    cmds_sent: controller.sent,
    cmds_accepted: runner.accepted,
    loss: { seq_gaps: r.lost, reordered: r.reordered, bad: r.bad, server_frames: runner.txFrames },
    jitter_ms: pick(r.jitter_ms),
    interval_ms: pick(r.interval_ms),
    tick_jitter_ms: pick(r.tick_jitter_ms),
    cmd_to_state_latency_ms: pick(controller.latency_ms),
    runner: { cpu_share: round(runner.cpu_share), overruns: runner.overruns, skipped_ticks: runner.skippedTicks, max_late_ms: round(runner.maxLateS * 1000), ticks: runner.ticks },
    empty_loop_floor: { late_ms: pick(floor.late_ms), overruns: floor.overruns, seconds: 10 },
  };
}

async function failsafeRun() {
  const [cmdPort, statePort] = [await freePort(), await freePort()];
  const { runner, controller } = await session(
    [vehicle, tire, '--rate=200', `--cmd-port=${cmdPort}`, `--state-port=${statePort}`],
    ['--cmd-port', String(cmdPort), '--state-ports', String(statePort), '--rate', '100', '--mode', 'failsafe', '--cycles', '10', '--period-ms', '5', '--warmup', '0'],
  );
  return {
    cmd_timeout_ms: 100,
    tick_ms: 5,
    bound_ms: 105,
    entries: controller.failsafe_entry_ms.n,
    client_entry_ms: pick(controller.failsafe_entry_ms),
    server_entry_max_ms: round((runner.vehicles[0].maxEntryDelayS ?? NaN) * 1000),
    server_entries: runner.vehicles[0].failsafeEntries,
  };
}

async function fanoutRun() {
  const ports = [await freePort(), await freePort(), await freePort()];
  const cmdPort = await freePort();
  const world = join(dir, 'fanout.yaml');
  writeFileSync(world, [
    'rate: 200',
    'vehicles:',
    `  - {id: 0, vehicle: ${vehicle}, tire: ${tire}}`,
    'comms:',
    '  name: fanout',
    '  channels:',
    `    - {source: 0.state, template: vds1, to: [${ports.map((p) => `{ip: 127.0.0.1, port: ${p}}`).join(', ')}]}`,
    `    - {direction: in, template: vds1_cmd, listen: {port: ${cmdPort}}}`,
    '',
  ].join('\n'));
  const { runner, controller } = await session([`--scene=${world}`], ['--cmd-port', String(cmdPort), '--state-ports', ports.join(','), '--rate', '100', '--seconds', String(seconds + 1), '--period-ms', '5', '--warmup', '1']);
  const rs = controller.receivers;
  const firsts = rs.map((r) => r.seq_first ?? -1);
  const lasts = rs.map((r) => r.seq_last ?? -1);
  const common = Math.min(...lasts) - Math.max(...firsts) + 1;
  return {
    rate_hz: 200,
    receivers: rs.map((r) => ({ received: r.received, seq_gaps: r.lost, reordered: r.reordered, bad: r.bad, jitter_ms: pick(r.jitter_ms) })),
    every_receiver_every_frame: rs.every((r) => r.lost === 0 && r.reordered === 0 && r.bad === 0 && r.received > 0),
    frames_in_common_window: common,
    server_frames: runner.txFrames,
    runner: { cpu_share: round(runner.cpu_share), overruns: runner.overruns },
  };
}

const result: Record<string, unknown> = { benchmark: 'cosim', node: process.version, seconds_per_run: seconds, priority: values.priority ?? null, load_average_at_start: loadavg().map((x) => Math.round(x * 100) / 100) };
if (only.has('200')) result.rate_200 = await rateRun(200);
if (only.has('1000')) result.rate_1000 = await rateRun(1000);
if (only.has('failsafe')) result.failsafe = await failsafeRun();
if (only.has('fanout')) result.fanout = await fanoutRun();
const r1k = result.rate_1000 as Awaited<ReturnType<typeof rateRun>> | undefined;
if (r1k) result.goal_1khz = { p99_jitter_le_1ms: (r1k.jitter_ms.p99 ?? Infinity) <= 1, zero_loss: r1k.loss.seq_gaps === 0, met: (r1k.jitter_ms.p99 ?? Infinity) <= 1 && r1k.loss.seq_gaps === 0 };

if (values.json) {
  console.log(JSON.stringify(result));
} else {
  const fmt = (s: { p50: number | null; p99: number | null; max: number | null }) => `p50 ${s.p50} / p99 ${s.p99} / max ${s.max} ms`;
  console.log(`cosim bench: vils realtime + a 100 Hz controller on loopback, ${seconds} s per run (${process.version}, load average ${(result.load_average_at_start as number[]).join(' ')}${values.priority !== undefined ? `, niceness ${values.priority}` : ''})`);
  for (const key of ['rate_200', 'rate_1000'] as const) {
    const r = result[key] as Awaited<ReturnType<typeof rateRun>> | undefined;
    if (!r) continue;
    console.log(`  ${r.rate_hz} Hz: STATE jitter ${fmt(r.jitter_ms)} (server ticks ${fmt(r.tick_jitter_ms)})`);
    console.log(`          CMD→STATE ${fmt(r.cmd_to_state_latency_ms)}; ${r.states_received} STATE received, ${r.loss.seq_gaps} lost, ${r.loss.reordered} reordered; ${r.cmds_accepted}/${r.cmds_sent} CMD accepted`);
    console.log(`          runner CPU ${(100 * (r.runner.cpu_share ?? 0)).toFixed(0)} % of a core, ${r.runner.overruns} overruns (${r.runner.skipped_ticks} ticks skipped, max late ${r.runner.max_late_ms} ms)`);
    console.log(`          floor: an empty paced loop here is late by ${fmt(r.empty_loop_floor.late_ms)} (10 s)`);
  }
  const f = result.failsafe as Awaited<ReturnType<typeof failsafeRun>> | undefined;
  if (f) console.log(`  fail-safe (200 Hz, cmd_timeout 100 ms): ${f.entries} entries, from the last CMD ${fmt(f.client_entry_ms)} (client), server max ${f.server_entry_max_ms} ms; bound ${f.bound_ms} ms`);
  const o = result.fanout as Awaited<ReturnType<typeof fanoutRun>> | undefined;
  if (o) console.log(`  fan-out to 3 at 200 Hz: ${o.receivers.map((r) => `${r.received} (${r.seq_gaps} lost)`).join(', ')} → every receiver every frame: ${o.every_receiver_every_frame ? 'yes' : 'NO'}`);
  const g = result.goal_1khz as { met: boolean } | undefined;
  if (g) console.log(`  goal at 1 kHz (p99 jitter ≤ 1 ms, 0 loss): ${g.met ? 'met' : 'NOT met'}`);
}
