/**
 * The controller process of bench:cosim (a stand-in for a control stack's bridge):
 *
 *   node dist/bench/cosim-controller.js --cmd-port P --state-ports A[,B,C] [--rate 100] [--seconds 10]
 *                                       [--mode drive|failsafe] [--period-ms 5] [--warmup 1]
 *
 * drive: sends VDS1 CMDs at --rate (each with a distinct steer value) and records every STATE on each state
 * port: arrival intervals (jitter = |interval − period|), the server's tick timestamps, seq gaps (loss) and
 * CMD→STATE latency (send → arrival of the first STATE whose steer_applied is that CMD's steer).
 * failsafe: cycles of 0.5 s sending, 0.5 s silence; per cycle, the time from the last CMD sent to the first
 * STATE with the fail-safe brake.
 * baseline: no sockets, an empty loop on the same Pacer and system clock as the runner, for --seconds at
 * --period-ms: how late this machine wakes a paced Node loop at all (the floor under the runner's figures).
 * Prints one JSON object.
 */
import { createSocket } from 'node:dgram';
import { setPriority } from 'node:os';
import { CmdFields, SI, StateFields, decodeState, encodeCmd } from '../src/cosim/vds1.js';
import { createSystemClock } from '../src/time/clock.js';
import { Pacer } from '../src/time/pacer.js';
import { percentile } from './stats.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    'cmd-port': { type: 'string' },
    'state-ports': { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    mode: { type: 'string' },
    'period-ms': { type: 'string' },
    warmup: { type: 'string' },
    cycles: { type: 'string' },
    priority: { type: 'string' },
  },
});
if (values.priority !== undefined) setPriority(Number(values.priority));
const cmdPort = Number(values['cmd-port']);
const statePorts = (values['state-ports'] ?? '').split(',').filter(Boolean).map(Number);
const rate = Number(values.rate ?? 100);
const seconds = Number(values.seconds ?? 10);
const mode = values.mode ?? 'drive';
const periodMs = Number(values['period-ms'] ?? 5);
const warmupS = Number(values.warmup ?? 1);
const cycles = Number(values.cycles ?? 10);
const now = () => performance.now();

function stats(xs: number[]): { p50: number; p99: number; max: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN, n: s.length };
}

if (mode === 'baseline') {
  const clock = createSystemClock();
  const pacer = new Pacer(periodMs / 1000, 1);
  const late: number[] = [];
  pacer.start(clock.now());
  const start = clock.now();
  while (clock.now() - start < seconds) {
    await clock.sleepUntil(pacer.due);
    const t = clock.now();
    late.push((t - pacer.due) * 1000);
    pacer.begin(t);
  }
  console.log(JSON.stringify({ late_ms: stats(late), overruns: pacer.stats.overruns }));
  process.exit(0);
}

interface Receiver {
  port: number;
  arrivals: number[];
  stamps: number[];
  seqs: number[];
  bad: number;
}

const receivers: Receiver[] = [];
const cmd = new CmdFields();
const out = Buffer.alloc(76);
const st = new StateFields();
const tx = createSocket('udp4');
await new Promise<void>((r) => tx.bind(0, '127.0.0.1', () => r()));

// CMD → STATE latency: the steer value of each CMD is unique within the window
const pending = new Map<number, number>();
const latencies: number[] = [];
// fail-safe: the time the silence began, and the entries seen
let silentSince = Number.NaN;
let inFailsafe = false;
const entries: number[] = [];
let t0 = 0;

for (const port of statePorts) {
  const r: Receiver = { port, arrivals: [], stamps: [], seqs: [], bad: 0 };
  receivers.push(r);
  const s = createSocket({ type: 'udp4', recvBufferSize: 1 << 20 });
  s.on('message', (msg) => {
    const t = now();
    if (decodeState(msg, msg.length, 'any', st) !== null) {
      r.bad++;
      return;
    }
    const measuring = t - t0 >= warmupS * 1000;
    if (measuring) {
      r.arrivals.push(t);
      r.stamps.push(st.timestamp);
      r.seqs.push(st.seq);
    }
    if (r !== receivers[0]) return;
    const steer = st.v[SI.steerApplied];
    const sentAt = pending.get(steer);
    if (sentAt !== undefined) {
      pending.delete(steer);
      if (measuring) latencies.push(t - sentAt);
    }
    const fs = st.v[SI.brakeApplied] > 0.29 && st.v[SI.throttleApplied] === 0;
    if (fs && !inFailsafe && !Number.isNaN(silentSince)) entries.push(t - silentSince);
    inFailsafe = fs;
  });
  await new Promise<void>((res) => s.bind(port, '127.0.0.1', () => res()));
}

function send(seq: number): void {
  cmd.seq = seq;
  cmd.steer = 0.0001 * ((seq % 500) + 1);
  cmd.throttle = 0.1;
  cmd.brake = 0;
  cmd.timestamp = now() / 1000;
  encodeCmd(out, cmd, 5);
  const t = now();
  pending.set(cmd.steer, t);
  if (pending.size > 200) pending.delete(pending.keys().next().value as number);
  tx.send(out, cmdPort, '127.0.0.1');
}

t0 = now();
let seq = 0;
const period = 1000 / rate;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
if (mode === 'drive') {
  for (let k = 0; now() - t0 < seconds * 1000; k++) {
    send(++seq);
    await sleep(t0 + (k + 1) * period - now());
  }
} else {
  for (let c = 0; c < cycles; c++) {
    const start = now();
    for (let k = 0; now() - start < 500; k++) {
      send(++seq);
      silentSince = now();
      await sleep(start + (k + 1) * period - now());
    }
    await sleep(500);
  }
}
await sleep(100);

const result = {
  sent: seq,
  receivers: receivers.map((r) => {
    const intervals = r.arrivals.slice(1).map((t, i) => t - r.arrivals[i]);
    const tickIntervals = r.stamps.slice(1).map((t, i) => (t - r.stamps[i]) * 1000);
    let lost = 0;
    let reordered = 0;
    for (let i = 1; i < r.seqs.length; i++) {
      const d = (r.seqs[i] - r.seqs[i - 1]) >>> 0;
      if (d === 0 || d > 0x7fffffff) reordered++;
      else lost += d - 1;
    }
    return {
      port: r.port,
      received: r.seqs.length,
      bad: r.bad,
      seq_first: r.seqs[0] ?? null,
      seq_last: r.seqs[r.seqs.length - 1] ?? null,
      lost,
      reordered,
      interval_ms: stats(intervals),
      jitter_ms: stats(intervals.map((x) => Math.abs(x - periodMs))),
      // the shares of intervals whose jitter is over 0.5, 1 and 2 ms (how near p99 is to the goal's 1 ms)
      jitter_over: [0.5, 1, 2].map((ms) => ({ ms, share: intervals.filter((x) => Math.abs(x - periodMs) > ms).length / Math.max(1, intervals.length) })),
      tick_jitter_ms: stats(tickIntervals.map((x) => Math.abs(x - periodMs))),
    };
  }),
  latency_ms: stats(latencies),
  failsafe_entry_ms: stats(entries),
};
console.log(JSON.stringify(result));
process.exit(0);
