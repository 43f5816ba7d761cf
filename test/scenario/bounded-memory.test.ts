/**
 * Bounded memory of a long run (issue 26, item 4): what a run keeps does not grow with its length. A run's trace
 * holds at most `keepRows` rows (vils run: none; its CSV streams to the file), its metrics are running figures
 * (RunningMetrics: sums, maxima, the lap detector, the ISO post-step window of at most ISO_KEEP_ROWS samples), and
 * every result stays what it was: the streamed CSV is byte for byte `csv()`, the running metrics are the
 * whole-series formulas' to the bit. Decided by counting elements (array lengths, typed-array lengths, map and set
 * sizes) reachable from the Simulation after N and after 10 N simulated seconds.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stepSteerMetrics } from '../../src/plant/validation/iso7401.js';
import {
  ISO_KEEP_ROWS, RunningMetrics, Simulation, TRACE_COLUMNS, TRACE_WIDTH, Trace, computeMetrics, lapTimes, listMetrics, loadScenario, project,
  type DrivingLine, type LineProjection,
} from '../../src/scenario/index.js';
import { runCommand } from '../../src/cli/run.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-bounded-mem-'));
const OVAL = join(PROJECT_ROOT, 'configs', 'experiments', 'oval_lap.yaml');
const STEP = join(PROJECT_ROOT, 'configs', 'experiments', 'step_steer.yaml');
const DEMO = join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml');
const ALL = listMetrics().map((m) => m.name).filter((n) => !['npc_contacts', 'red_runs', 'ego_steps'].includes(n));

/** Elements reachable from `root`: array and typed-array lengths, Map and Set sizes (own properties walked). */
function reachableElements(root: unknown): number {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let n = 0;
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      n += v instanceof DataView ? v.byteLength : (v as unknown as { length: number }).length;
      continue;
    }
    if (v instanceof ArrayBuffer) {
      n += v.byteLength / 8;
      continue;
    }
    if (Array.isArray(v)) n += v.length;
    if (v instanceof Map) {
      n += v.size;
      for (const [k, x] of v) stack.push(k, x);
    }
    if (v instanceof Set) {
      n += v.size;
      for (const x of v) stack.push(x);
    }
    for (const k of Object.getOwnPropertyNames(v)) {
      try {
        stack.push((v as Record<string, unknown>)[k]);
      } catch {
        /* a getter that throws */
      }
    }
  }
  return n;
}

/** The old whole-series formulas (before the running figures), for the bit-for-bit comparison. */
function wholeSeries(tr: Trace, line: DrivingLine | null): Record<string, number> {
  const c = Object.fromEntries(TRACE_COLUMNS.map((k) => [k, tr.column(k)])) as Record<(typeof TRACE_COLUMNS)[number], Float64Array>;
  const rms = (a: ArrayLike<number>) => {
    if (a.length === 0) return NaN;
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i] * a[i];
    return Math.sqrt(s / a.length);
  };
  const maxAbs = (a: ArrayLike<number>) => {
    if (a.length === 0) return NaN;
    let m = 0;
    for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
    return m;
  };
  const wrap = (a: number) => a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));
  const cte: number[] = [], he: number[] = [];
  if (line && line.xs.length >= 2) {
    const p: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
    let hint = -1;
    for (let i = 0; i < c.x.length; i++) {
      project(line, c.x[i], c.y[i], p, hint);
      hint = p.seg;
      cte.push(p.cte);
      he.push(wrap(c.yaw[i] - p.heading));
    }
  }
  const worst = (keep: (i: number) => boolean) => {
    const out: number[] = [];
    for (let i = 0; i < c.a0.length; i++) if (keep(i)) out.push(Math.max(Math.abs(c.a0[i]), Math.abs(c.a1[i]), Math.abs(c.a2[i]), Math.abs(c.a3[i])));
    return out;
  };
  const laps = lapTimes(c.t, c.x, c.y, c.yaw);
  let vmax = c.vx.length ? 0 : NaN, dist = 0;
  for (let i = 0; i < c.vx.length; i++) vmax = Math.max(vmax, Math.hypot(c.vx[i], c.vy[i]));
  for (let i = 1; i < c.x.length; i++) dist += Math.hypot(c.x[i] - c.x[i - 1], c.y[i] - c.y[i - 1]);
  const out: Record<string, number> = {
    cte_rms: rms(cte), cte_max: maxAbs(cte), heading_error_rms: rms(he), heading_error_max: maxAbs(he), lap_time: laps[0] ?? NaN, laps: laps.length,
    peak_ay: maxAbs(c.ay), max_fz: Math.max(maxAbs(c.Fz0), maxAbs(c.Fz1), maxAbs(c.Fz2), maxAbs(c.Fz3)), vmax, dist,
    rms_slip: rms(worst(() => true)), rms_slip_moving: rms(worst((i) => Math.abs(c.vx[i]) > 0.5)), peak_lat_g: maxAbs(c.ay) / 9.80665,
  };
  const peak = maxAbs(c.steer);
  const isoNames = ['yaw_rate_ss', 'yaw_rate_peak', 'overshoot', 'time_to_peak', 'response_time', 'settling_time', 'ay_ss', 'ay_per_steer', 'yaw_rate_gain', 'understeer_k'];
  if (!(peak > 1e-9)) for (const k of isoNames) out[k] = NaN;
  else {
    let s0 = 0;
    while (s0 < c.steer.length && Math.abs(c.steer[s0]) < 0.5 * peak) s0++;
    const tAfter = c.t.subarray(s0).map((v) => v - c.t[s0]);
    const m = stepSteerMetrics(c.r.subarray(s0), c.ay.subarray(s0), tAfter);
    const nTail = Math.max(1, Math.trunc((c.r.length - s0) / 5));
    const tail = (a: Float64Array) => a.subarray(a.length - nTail).reduce((p, q) => p + q, 0) / nTail;
    const steer = tail(c.steer.subarray(s0)), vx = tail(c.vx.subarray(s0));
    Object.assign(out, {
      yaw_rate_ss: m.yawRateSs, yaw_rate_peak: m.yawRatePeak, overshoot: m.overshoot, time_to_peak: m.timeToPeakS, response_time: m.responseTimeS,
      settling_time: m.settlingTime5pctS, ay_ss: m.lateralAccelSs, ay_per_steer: m.lateralAccelSs / steer, yaw_rate_gain: m.yawRateSs / steer,
      understeer_k: (steer - (2.7 * m.yawRateSs) / Math.max(vx, 1e-3)) / m.lateralAccelSs,
    });
  }
  return out;
}

describe('bounded memory of a long run', () => {
  it.each([['oval lap', OVAL], ['step steer', STEP], ['demo lap among 30 NPCs, 40 s', DEMO]])('%s: the streamed CSV is csv() byte for byte, the running metrics the whole-series formulas to the bit', async (_n, file) => {
    const overrides = file === DEMO ? { duration: 40 } : {};
    const full = await Simulation.load(file, { overrides });
    const csvPath = join(dir, `${_n.replace(/\W+/g, '_')}.csv`);
    const lean = await Simulation.load(file, { overrides, keepRows: 0, csvFile: () => csvPath });
    try {
      await full.run();
      await lean.run();
      const names = ALL.filter((n) => n !== 'understeer_k'); // understeer_k uses the vehicle's wheelbase: compared separately
      const a = full.metrics(names), b = lean.metrics(names);
      expect(b).toEqual(a);
      const ref = wholeSeries(full.egos[0].trace, full.scenario.map.line);
      for (const k of names) expect(Object.is(a[k], ref[k]) || a[k] === ref[k], `${k}: ${a[k]} vs ${ref[k]}`).toBe(true);
      expect(Object.is(full.metrics(['understeer_k']).understeer_k, lean.metrics(['understeer_k']).understeer_k)).toBe(true);
      lean.flush();
      const text = full.csv();
      expect(readFileSync(csvPath, 'utf8')).toBe(text);
      expect(lean.egos[0].trace.retained).toBe(0);
      expect(lean.egos[0].trace.rows).toBe(full.egos[0].trace.rows);
      expect(() => lean.csv()).toThrow(/streamed to .*\.csv/);
    } finally {
      await full.close();
      await lean.close();
    }
  }, 120_000);

  it('vils run streams <out>/<ego>.csv: the same bytes and metrics.json figures as the Simulation API holding every row', async () => {
    const out = join(dir, 'run-step');
    const log = console.log;
    console.log = () => {};
    try {
      expect(await runCommand.run([STEP, '--out', out, '--json'])).toBe(0);
    } finally {
      console.log = log;
    }
    const sim = await Simulation.load(STEP);
    try {
      await sim.run();
      expect(readFileSync(join(out, 'ego.csv'), 'utf8')).toBe(sim.csv());
      const json = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) as { metrics: Record<string, number | null> };
      expect(json.metrics).toEqual(Object.fromEntries(Object.entries(sim.allMetrics()).map(([k, v]) => [k, Number.isFinite(v) ? v : null])));
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a run 10× longer keeps no more elements: oval lap 30 s vs 300 s (6,000 vs 60,000 plant ticks), trace bounded to 256 rows', async () => {
    const counts: number[] = [];
    for (const duration of [30, 300]) {
      const sim = await Simulation.load(OVAL, { overrides: { duration }, keepRows: 256, csvFile: () => join(dir, `oval-${duration}.csv`) });
      try {
        await sim.run();
        const tr = sim.egos[0].trace;
        expect(tr.rows).toBe(duration * 200);
        expect(tr.retained).toBe(256);
        expect(tr.capacityRows).toBe(256);
        // everything but the ISO post-step window, which fills up to its own bound (5 columns × ISO_KEEP_ROWS)
        const w = sim.runningMetrics().stepWindow;
        expect(w.capacity).toBeLessThanOrEqual(ISO_KEEP_ROWS);
        counts.push(reachableElements(sim) - 5 * w.capacity);
        sim.flush();
        expect(readFileSync(join(dir, `oval-${duration}.csv`), 'utf8').split('\n')).toHaveLength(duration * 200 + 2);
      } finally {
        await sim.close();
      }
    }
    // measured 8,640 → 8,558; the unbounded trace alone held 30 × 54,000 = 1.6 M elements more after 300 s
    expect(Math.abs(counts[1] - counts[0]), `reachable elements ${counts.join(' → ')}`).toBeLessThanOrEqual(256);
  }, 120_000);

  it('among 30 NPCs: demo lap 20 s vs 200 s, the elements reachable from the Simulation do not grow with the run', async () => {
    const counts: number[] = [];
    for (const duration of [20, 200]) {
      const sim = await Simulation.load(await loadScenario(DEMO, { overrides: { duration } }), { keepRows: 0 });
      try {
        await sim.run();
        const w = sim.runningMetrics().stepWindow;
        expect(w.capacity).toBeLessThanOrEqual(ISO_KEEP_ROWS);
        counts.push(reachableElements(sim) - 5 * w.capacity);
      } finally {
        await sim.close();
      }
    }
    // measured 362,784 → 363,334 (the NPCs on the road vary); 36,000 more plant ticks were 1.08 M trace elements
    // more before, 1,800 more NPC steps add nothing
    expect(counts[1] - counts[0], `reachable elements ${counts.join(' → ')}`).toBeLessThanOrEqual(counts[0] * 0.01);
  }, 180_000);

  it('the ISO post-step window stays within its bound, thinning beyond it; the trace ring keeps the latest rows', () => {
    const m = new RunningMetrics(null, { isoKeepRows: 1000 });
    const tr = new Trace({ keepRows: 100 });
    tr.observe(m);
    const row = new Float64Array(TRACE_WIDTH);
    const feed = (n: number) => {
      for (let i = tr.rows, end = tr.rows + n; i < end; i++) {
        row[0] = i * 0.01; // t
        row[6] = 0.25; // r
        row[9] = i >= 10 ? 0.05 : 0; // steer: a step at sample 10
        tr.pushRow(row);
      }
    };
    feed(999);
    expect(m.stepWindow).toEqual({ len: 989, capacity: 1000, stride: 1 });
    feed(9_001);
    const at10k = m.stepWindow;
    feed(90_000);
    expect(at10k.capacity).toBe(1000);
    expect(m.stepWindow.capacity).toBe(1000);
    expect(m.stepWindow.len).toBeLessThanOrEqual(1000);
    expect(m.stepWindow.stride).toBeGreaterThan(at10k.stride);
    // the figures still come from the window: the steady yaw rate, the step at sample 10
    expect(computeMetrics(['yaw_rate_ss', 'time_to_peak'], { trace: tr, line: null, vehicle: {} as never, running: m })).toEqual({ yaw_rate_ss: 0.25, time_to_peak: 0 });
    expect(tr.capacityRows).toBe(100);
    expect(tr.retained).toBe(100);
    expect(tr.firstRetained).toBe(99_900);
    expect(tr.column('t')[0]).toBeCloseTo(999, 9);
    expect(tr.value(99_999, 't')).toBeCloseTo(999.99, 9);
    expect(() => tr.value(5, 't')).toThrow(/holds rows 99900–99999/);
    expect(() => tr.toCsv()).toThrow(/100000 rows, more than the 100/);
    expect(() => computeMetrics(['dist'], { trace: tr, line: null, vehicle: {} as never })).toThrow(/holds 100 of its 100000 rows/);
    expect(ISO_KEEP_ROWS).toBe(65_536);
  });
});
