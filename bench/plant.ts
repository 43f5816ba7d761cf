/**
 * Vehicle plant benchmark: `node dist/bench/plant.js [--json] [--ticks N]`. One core, dt = 5 ms (5 RK4
 * substeps of 1 ms), VDSim's default car (generic sedan + MF96/LuGre tire) on flat ground at 20 m/s with a
 * mild steady command. Reports SimSession.tick() rates (ground → actuator → dynamics → sensors) for L1, L2, L3
 * (median of 5 runs), the dynamics-only rate, and the heap growth per tick (≈ 0 when tick() allocates nothing).
 * Each level runs in its own child process (with --expose-gc), so one model's JIT feedback does not colour the
 * next one's figures.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SimSession, solverParams, substepCount, tireParams, vehicleParams } from '../src/plant/index.js';
import type { Level } from '../src/plant/index.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(import.meta.url, {
  options: { json: { type: 'boolean' }, ticks: { type: 'string' }, only: { type: 'string' } } });
const TICKS = Number(values.ticks ?? 60_000);
const DT = 0.005;
const RUNS = 5;
const GOAL_L2 = 20_000;
const gc = (globalThis as { gc?: () => void }).gc;

function makeSession(level: Level): SimSession {
  const session = SimSession.create({ level, vehicle: vehicleParams(), tires: tireParams(), initial: { vx: 20 } });
  session.setInput({ steer: 0.02, throttle: 0.15 });
  return session;
}

function timeTicks(session: SimSession, n: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) session.tick(DT);
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

interface LevelResult {
  ticks_per_s: number;
  us_per_tick: number;
  real_time_factor: number;
  model_only_ticks_per_s: number;
  heap_growth_bytes_per_tick: number | null;
}

function benchLevel(level: Level): LevelResult {
  const session = makeSession(level);
  timeTicks(session, 20_000); // warm-up (JIT)
  const rates: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    session.reset(session.truth); // keep the run in the same operating point
    session.setInput({ steer: 0.02, throttle: 0.15 });
    rates.push(TICKS / timeTicks(session, TICKS));
  }
  let growth: number | null = null;
  if (gc) {
    const n = 10_000;
    gc();
    const h0 = process.memoryUsage().heapUsed;
    timeTicks(session, n);
    growth = (process.memoryUsage().heapUsed - h0) / n;
  }
  // dynamics alone: the model stepped with the session's realised command and contacts
  const model = session.model;
  const m0 = process.hrtime.bigint();
  for (let i = 0; i < TICKS; i++) model.step(session.applied, session.contacts, DT);
  const modelRate = TICKS / (Number(process.hrtime.bigint() - m0) / 1e9);
  const rate = median(rates);
  return { ticks_per_s: rate, us_per_tick: 1e6 / rate, real_time_factor: rate * DT, model_only_ticks_per_s: modelRate, heap_growth_bytes_per_tick: growth };
}

if (values.only) {
  // child: one level, result on stdout
  console.log(JSON.stringify(benchLevel(values.only as Level)));
  process.exit(0);
}
const levels: Record<string, LevelResult> = {};
for (const level of ['L1', 'L2', 'L3'] as const) {
  const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--only', level, '--ticks', String(TICKS)], { encoding: 'utf8' });
  levels[level] = JSON.parse(out) as LevelResult;
}
const result = {
  benchmark: 'plant',
  dt_s: DT,
  substeps: substepCount(solverParams(), DT),
  ticks_per_run: TICKS,
  runs: RUNS,
  node: process.version,
  levels,
  goal: { L2_ticks_per_s: GOAL_L2, met: levels.L2.ticks_per_s >= GOAL_L2 },
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`plant bench: dt ${DT * 1000} ms, ${result.substeps} RK4 substeps, ${TICKS} ticks × ${RUNS} runs (median), one core`);
  for (const [level, r] of Object.entries(levels)) {
    const heap = r.heap_growth_bytes_per_tick === null ? 'heap growth not measured' : `heap growth ${r.heap_growth_bytes_per_tick.toFixed(2)} B/tick`;
    console.log(`  ${level}: ${r.ticks_per_s.toFixed(0)} ticks/s (${r.us_per_tick.toFixed(1)} µs/tick, ${r.real_time_factor.toFixed(0)}× real time); dynamics only ${r.model_only_ticks_per_s.toFixed(0)} ticks/s; ${heap}`);
  }
  console.log(`  goal L2 ≥ ${GOAL_L2} ticks/s: ${result.goal.met ? 'met' : 'NOT met'}`);
}
