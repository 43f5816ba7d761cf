/**
 * Assets as worker threads that share their times with the conductor through shared memory, as Hakoniwa's
 * assets do on one host: each worker counts up by the asset rule against Tc in a SharedArrayBuffer (blocking
 * on Atomics.wait while it is retained) and publishes Ti there; the main thread feeds the published times to a
 * TimeSession as an external asset's reports, runs it with runSession (greedy or paced) and writes Tc back on
 * every change. This is what `vils time-grid` measures.
 *
 * Layout (Int32Array over the buffer, times in µs, so a run is limited to 2^31 µs ≈ 35 min):
 *   [TC] Tc   [REPORTS] count of reports (the main thread waits on it)   [GEN] sample generation (workers
 *   wait on it between samples)   [QUIT]   then n slots each of Ti, asset-side (a.2) breaches, held count-ups.
 */
import { Worker } from 'node:worker_threads';
import { createSystemClock } from './clock.js';
import { runSession } from './run-session.js';
import { TimeSession } from './session.js';

/** Atomics.waitAsync (V8, Node ≥ 16; typed only from lib ES2024). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

const TC = 0;
const REPORTS = 1;
const GEN = 2;
const QUIT = 3;
const HEADER = 4;

export interface ShmCellOptions {
  readonly assets: number;
  readonly dmaxUs: number;
  /** ΔT of every asset and of the core [µs]. */
  readonly stepUs: number;
  /** Core steps per run. */
  readonly steps: number;
  readonly samples: number;
  /** Busy work per asset step [µs], uniform in [0.5, 1.5]× this. */
  readonly workUs: number;
  /** Core pacing (simulated s per wall s); Infinity: greedy, Hakoniwa's as-fast-as-possible conductor. */
  readonly speed: number;
}

export interface ShmSample {
  readonly wallS: number;
  /** Violations: the session's checks after every report and count-up, an independent recomputation at every change of Tc, and the workers' own (a.2) checks. */
  readonly violations: number;
  readonly checks: number;
  /** Tc − Ti over every asset at every progressing core count-up [µs]. */
  readonly skewN: number;
  readonly skewMeanUs: number;
  readonly skewStdUs: number;
  readonly skewMaxUs: number;
  readonly coreRetained: number;
  readonly assetRetained: number;
}

/**
 * The worker's body. It is sent to the worker as source text (Function.prototype.toString), so it must not
 * refer to anything outside itself; the asset rule is the one of conductor.ts (assetMayProgress).
 */
function assetWorkerMain(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const d = workerData as { sab: SharedArrayBuffer; index: number; n: number; stepUs: number; endUs: number; workUs: number; seed: number };
  const a = new Int32Array(d.sab);
  const [TC_, REPORTS_, GEN_, QUIT_, HEADER_] = [0, 1, 2, 3, 4];
  const ti = HEADER_ + d.index;
  const breach = HEADER_ + d.n + d.index;
  const heldSlot = HEADER_ + 2 * d.n + d.index;
  let s = d.seed >>> 0;
  const rand = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let gen = 0;
  for (;;) {
    while (Atomics.load(a, GEN_) === gen && Atomics.load(a, QUIT_) === 0) Atomics.wait(a, GEN_, gen, 1000);
    if (Atomics.load(a, QUIT_) !== 0) return;
    gen = Atomics.load(a, GEN_);
    let t = Atomics.load(a, ti);
    let held = 0;
    while (t + d.stepUs <= d.endUs && Atomics.load(a, QUIT_) === 0) {
      const tc = Atomics.load(a, TC_);
      if (t + d.stepUs <= tc) {
        const end = performance.now() + (d.workUs * (0.5 + rand())) / 1000;
        while (performance.now() < end);
        t += d.stepUs;
        Atomics.store(a, ti, t);
        if (t > Atomics.load(a, TC_)) Atomics.add(a, breach, 1);
        Atomics.add(a, REPORTS_, 1);
        Atomics.notify(a, REPORTS_);
      } else {
        Atomics.store(a, heldSlot, ++held);
        Atomics.wait(a, TC_, tc, 100);
      }
    }
  }
}

/** Runs `samples` runs of one grid cell with `assets` worker threads (started once for the cell). */
export async function runShmCell(o: ShmCellOptions): Promise<ShmSample[]> {
  const endUs = o.steps * o.stepUs;
  if (endUs >= 2 ** 31) throw new RangeError(`a shared-memory run is limited to 2^31 µs, got ${endUs}`);
  const n = o.assets;
  const sab = new SharedArrayBuffer(4 * (HEADER + 3 * n));
  const a = new Int32Array(sab);
  const source = `(${assetWorkerMain.toString()})()`;
  const workers = Array.from({ length: n }, (_, index) => new Worker(source, { eval: true, workerData: { sab, index, n, stepUs: o.stepUs, endUs, workUs: o.workUs, seed: 1000 + index } }));
  const exits = workers.map((w) => new Promise<void>((resolve, reject) => {
    w.once('error', reject);
    w.once('exit', () => resolve());
  }));
  await Promise.all(workers.map((w) => new Promise((r) => w.once('online', r))));
  const out: ShmSample[] = [];
  try {
    for (let k = 0; k < o.samples; k++) out.push(await runSample(o, a, n, endUs));
  } finally {
    Atomics.store(a, QUIT, 1);
    Atomics.notify(a, GEN);
    Atomics.notify(a, TC);
    await Promise.all(exits);
  }
  return out;
}

async function runSample(o: ShmCellOptions, a: Int32Array, n: number, endUs: number): Promise<ShmSample> {
  // no timeout: a worker is never silent for long, and the grid must not lose one to a starved main thread
  const session = new TimeSession({ mode: 'afap', coreStepUs: o.stepUs, dmaxUs: o.dmaxUs, assetTimeoutS: Infinity, clock: createSystemClock({ spinS: 0 }) });
  const c = session.conductor;
  Atomics.store(a, TC, 0);
  for (let i = 0; i < 3 * n; i++) Atomics.store(a, HEADER + i, 0);
  const names = Array.from({ length: n }, (_, i) => `w${i}`);
  for (const name of names) session.attach(name, { stepUs: o.stepUs });
  let independent = 0;
  session.onTc((tc) => {
    Atomics.store(a, TC, tc);
    Atomics.notify(a, TC);
    let lo = Infinity;
    let hi = -Infinity;
    for (const name of names) {
      const t = c.assetTimeUs(name) ?? NaN;
      lo = Math.min(lo, t);
      hi = Math.max(hi, t);
    }
    if (hi > tc || tc > lo + o.dmaxUs || hi - lo > o.dmaxUs) independent++;
  });
  // the pump: feed every newly published Ti to the session as a report
  let pumping = true;
  const last = new Array<number>(n).fill(0);
  const pump = (async () => {
    while (pumping) {
      const seen = Atomics.load(a, REPORTS);
      for (let i = 0; i < n; i++) {
        const t = Atomics.load(a, HEADER + i);
        if (t !== last[i]) {
          last[i] = t;
          session.report(names[i], t, Atomics.load(a, HEADER + 2 * n + i));
        }
      }
      const w = waitAsync(a, REPORTS, seen, 50);
      if (w.async) await w.value;
    }
  })();
  const t0 = performance.now();
  const running = runSession(session, { endUs, speed: o.speed });
  Atomics.add(a, GEN, 1);
  Atomics.notify(a, GEN);
  const sum = await running;
  const wallS = (performance.now() - t0) / 1000;
  pumping = false;
  Atomics.add(a, REPORTS, 1);
  Atomics.notify(a, REPORTS);
  await pump;
  let workerBreaches = 0;
  for (let i = 0; i < n; i++) workerBreaches += Atomics.load(a, HEADER + n + i);
  // pool the per-asset skew statistics
  let N = 0;
  let sum1 = 0;
  let sum2 = 0;
  let max = 0;
  let retained = 0;
  for (const s of sum.status.assets) {
    N += s.skewSamples;
    sum1 += s.skewMeanUs * s.skewSamples;
    sum2 += (s.skewStdUs ** 2 + s.skewMeanUs ** 2) * s.skewSamples;
    max = Math.max(max, s.skewMaxUs);
    retained += s.retained;
  }
  const mean = N > 0 ? sum1 / N : 0;
  return {
    wallS,
    violations: sum.violations + independent + workerBreaches,
    checks: sum.checks,
    skewN: N,
    skewMeanUs: mean,
    skewStdUs: N > 0 ? Math.sqrt(Math.max(0, sum2 / N - mean * mean)) : 0,
    skewMaxUs: max,
    coreRetained: sum.status.core.retained,
    assetRetained: retained,
  };
}
