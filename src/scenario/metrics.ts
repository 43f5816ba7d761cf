/**
 * The one metrics registry (seed 001 §3, spec §9.4), used by the Simulation API, `vils run` and the batch
 * runner. A metric is a function of a run's context: the vehicle's trace (trace.ts), the driving line, the
 * vehicle, and the scene's counts. Definitions:
 *
 * - cte_rms, cte_max: RMS and maximum of the distance from the CG to the driving line (point to polyline
 *   segment; the projection is searched near the previous one, so a figure of eight's crossing never jumps).
 * - heading_error_rms, heading_error_max: RMS and maximum of |yaw − heading of the nearest line segment|
 *   (wrapped to ±π) [rad] — designed by VDSim, never built there.
 * - lap_time, laps: the time of the first lap / the number of laps: a lap ends at the first return within 8 m
 *   of the start after having been more than 15 m away (VDSim's rule), heading within 60° of the start heading
 *   (VILS's addition: on a figure of eight the other lobe passes the start the other way) [s]; NaN without.
 * - peak_ay (max |a_y| [m/s²]), max_fz (max wheel load [N]), vmax (max horizontal speed [m/s]), dist (path
 *   length [m]), rms_slip (RMS over time of the largest |slip angle| of the four wheels [rad], VDSim's figure:
 *   every sample counts, standstill too, where the slip angle atan2(vy, vx) of a wheel is meaningless — near
 *   vx = 0 it is anything up to π, so a run that stands for a while reads about 1 rad), rms_slip_moving (the
 *   same over the samples with |vx| > SLIP_MOVING_MIN_VX_MPS only: the figure to compare runs by; NaN if the
 *   vehicle never moved).
 * - The ISO 7401 step-steer figures (apps/doe/metrics.py; the post-step trace begins at the first sample whose
 *   steer is at least half the largest): yaw_rate_ss, yaw_rate_peak, overshoot, time_to_peak, response_time,
 *   settling_time (5 %), ay_ss, peak_lat_g, ay_per_steer, yaw_rate_gain, understeer_k ((δ − L·r/vx)/a_y at
 *   steady state [rad/(m/s²)]).
 * - npc_contacts: ego–NPC contacts of this vehicle, counted per NPC step (0.1 s); ego_steps: NPC steps it
 *   took part in; red_runs: times it crossed a stop line while its signal showed red.
 */
import { type StepSteerMetrics, stepSteerMetrics } from '../plant/validation/iso7401.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { type DrivingLine, type LineProjection, project } from './line.js';
import type { Trace } from './trace.js';

const G = 9.80665;
/** rms_slip_moving counts only the samples where the vehicle moves faster than this (|vx| [m/s]). */
export const SLIP_MOVING_MIN_VX_MPS = 0.5;

/** The largest |slip angle| of the four wheels at each sample (those where `keep(i)`). */
function worstSlip(c: MetricContext, keep: (i: number) => boolean = () => true): Float64Array {
  const a = (['a0', 'a1', 'a2', 'a3'] as const).map((n) => c.trace.column(n));
  const out: number[] = [];
  for (let i = 0; i < a[0].length; i++) if (keep(i)) out.push(Math.max(Math.abs(a[0][i]), Math.abs(a[1][i]), Math.abs(a[2][i]), Math.abs(a[3][i])));
  return Float64Array.from(out);
}

export interface MetricContext {
  trace: Trace;
  line: DrivingLine | null;
  vehicle: Readonly<VehicleParams>;
  /** scene figures of this vehicle (absent without an NPC world) */
  scene?: { npcContacts: number; steps: number; redRuns: number };
}

export interface MetricDefinition {
  name: string;
  unit: string;
  description: string;
  fn: (ctx: MetricContext, cache: Map<string, unknown>) => number;
}

const REGISTRY = new Map<string, MetricDefinition>();

export function registerMetric(def: MetricDefinition): void {
  REGISTRY.set(def.name, def);
}

export function listMetrics(): MetricDefinition[] {
  return [...REGISTRY.values()];
}

export function hasMetric(name: string): boolean {
  return REGISTRY.has(name);
}

/** The named metrics of one run (unknown names throw, listing the known ones). */
export function computeMetrics(names: readonly string[], ctx: MetricContext): Record<string, number> {
  const cache = new Map<string, unknown>();
  const out: Record<string, number> = {};
  for (const n of names) {
    const def = REGISTRY.get(n);
    if (!def) throw new RangeError(`unknown metric '${n}' (known: ${[...REGISTRY.keys()].join(', ')})`);
    out[n] = def.fn(ctx, cache);
  }
  return out;
}

function cached<T>(cache: Map<string, unknown>, key: string, make: () => T): T {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

const wrap = (a: number) => a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));

/** Cross-track and heading errors at every sample. */
function lineErrors(ctx: MetricContext, cache: Map<string, unknown>): { cte: Float64Array; he: Float64Array } | null {
  return cached(cache, 'line', () => {
    const line = ctx.line;
    if (!line || line.xs.length < 2) return null;
    const x = ctx.trace.column('x'), y = ctx.trace.column('y'), yaw = ctx.trace.column('yaw');
    const cte = new Float64Array(x.length), he = new Float64Array(x.length);
    const p: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
    let hint = -1;
    for (let i = 0; i < x.length; i++) {
      project(line, x[i], y[i], p, hint);
      hint = p.seg;
      cte[i] = p.cte;
      he[i] = wrap(yaw[i] - p.heading);
    }
    return { cte, he };
  });
}

function rms(a: ArrayLike<number>): number {
  if (a.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s / a.length);
}

function maxAbs(a: ArrayLike<number>): number {
  if (a.length === 0) return NaN;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/** End times of the laps (see the header). */
export function lapTimes(t: ArrayLike<number>, x: ArrayLike<number>, y: ArrayLike<number>, yaw: ArrayLike<number>, near = 8, away = 15): number[] {
  const laps: number[] = [];
  if (t.length === 0) return laps;
  const x0 = x[0], y0 = y[0], h0 = yaw[0];
  let t0 = t[0];
  let left = false;
  for (let i = 1; i < t.length; i++) {
    const d = Math.hypot(x[i] - x0, y[i] - y0);
    if (d > away) left = true;
    else if (left && d < near && Math.cos(yaw[i] - h0) > 0.5) {
      laps.push(t[i] - t0);
      t0 = t[i];
      left = false;
    }
  }
  return laps;
}

/** The post-step part of a step-steer trace and its ISO 7401 figures (null when the steer never moves). */
function stepSteer(ctx: MetricContext, cache: Map<string, unknown>): (StepSteerMetrics & { steer: number; vx: number }) | null {
  return cached(cache, 'iso', () => {
    const steer = ctx.trace.column('steer');
    const peak = maxAbs(steer);
    if (!(peak > 1e-9)) return null;
    let s0 = 0;
    while (s0 < steer.length && Math.abs(steer[s0]) < 0.5 * peak) s0++;
    const t = ctx.trace.column('t');
    const r = ctx.trace.column('r').subarray(s0);
    const ay = ctx.trace.column('ay').subarray(s0);
    const tAfter = t.subarray(s0).map((v) => v - t[s0]);
    const m = stepSteerMetrics(r, ay, tAfter);
    const nTail = Math.max(1, Math.trunc(r.length / 5));
    const tail = (a: Float64Array) => a.subarray(a.length - nTail).reduce((p, c) => p + c, 0) / nTail;
    return { ...m, steer: tail(steer.subarray(s0)), vx: tail(ctx.trace.column('vx').subarray(s0)) };
  });
}

const iso = (pick: (m: StepSteerMetrics & { steer: number; vx: number }, ctx: MetricContext) => number) => (ctx: MetricContext, cache: Map<string, unknown>) => {
  const m = stepSteer(ctx, cache);
  return m ? pick(m, ctx) : NaN;
};

const DEFS: MetricDefinition[] = [
  { name: 'cte_rms', unit: 'm', description: 'RMS cross-track error to the driving line', fn: (c, k) => rms(lineErrors(c, k)?.cte ?? []) },
  { name: 'cte_max', unit: 'm', description: 'largest cross-track error to the driving line', fn: (c, k) => maxAbs(lineErrors(c, k)?.cte ?? []) },
  { name: 'heading_error_rms', unit: 'rad', description: 'RMS of yaw minus the heading of the nearest line segment', fn: (c, k) => rms(lineErrors(c, k)?.he ?? []) },
  { name: 'heading_error_max', unit: 'rad', description: 'largest |yaw − line heading|', fn: (c, k) => maxAbs(lineErrors(c, k)?.he ?? []) },
  {
    name: 'lap_time', unit: 's', description: 'time of the first lap (back within 8 m of the start, same heading, after > 15 m away)',
    fn: (c, k) => cached(k, 'laps', () => lapTimes(c.trace.column('t'), c.trace.column('x'), c.trace.column('y'), c.trace.column('yaw')))[0] ?? NaN,
  },
  {
    name: 'laps', unit: '', description: 'laps completed',
    fn: (c, k) => cached(k, 'laps', () => lapTimes(c.trace.column('t'), c.trace.column('x'), c.trace.column('y'), c.trace.column('yaw'))).length,
  },
  { name: 'peak_ay', unit: 'm/s²', description: 'largest |lateral acceleration|', fn: (c) => maxAbs(c.trace.column('ay')) },
  {
    name: 'max_fz', unit: 'N', description: 'largest wheel load',
    fn: (c) => Math.max(...(['Fz0', 'Fz1', 'Fz2', 'Fz3'] as const).map((n) => maxAbs(c.trace.column(n)))),
  },
  {
    name: 'vmax', unit: 'm/s', description: 'largest horizontal speed',
    fn: (c) => {
      const vx = c.trace.column('vx'), vy = c.trace.column('vy');
      let m = vx.length ? 0 : NaN;
      for (let i = 0; i < vx.length; i++) m = Math.max(m, Math.hypot(vx[i], vy[i]));
      return m;
    },
  },
  {
    name: 'dist', unit: 'm', description: 'path length',
    fn: (c) => {
      const x = c.trace.column('x'), y = c.trace.column('y');
      let d = 0;
      for (let i = 1; i < x.length; i++) d += Math.hypot(x[i] - x[i - 1], y[i] - y[i - 1]);
      return d;
    },
  },
  {
    name: 'rms_slip', unit: 'rad',
    description: `RMS over time of the largest |slip angle| of the four wheels, every sample (VDSim's figure: standstill counts too, where the slip angle means nothing and reads up to π; see rms_slip_moving)`,
    fn: (c) => rms(worstSlip(c)),
  },
  {
    name: 'rms_slip_moving', unit: 'rad',
    description: `RMS of the largest |slip angle| of the four wheels over the samples with |vx| > ${SLIP_MOVING_MIN_VX_MPS} m/s only (standstill left out; rms_slip is VDSim's figure with it); NaN if it never moved`,
    fn: (c) => {
      const vx = c.trace.column('vx');
      return rms(worstSlip(c, (i) => Math.abs(vx[i]) > SLIP_MOVING_MIN_VX_MPS));
    },
  },
  { name: 'yaw_rate_ss', unit: 'rad/s', description: 'step steer: steady yaw rate (mean of the last 20 %)', fn: iso((m) => m.yawRateSs) },
  { name: 'yaw_rate_peak', unit: 'rad/s', description: 'step steer: peak yaw rate', fn: iso((m) => m.yawRatePeak) },
  { name: 'overshoot', unit: '', description: 'step steer: peak / steady yaw rate', fn: iso((m) => m.overshoot) },
  { name: 'time_to_peak', unit: 's', description: 'step steer: time from the step to the yaw-rate peak', fn: iso((m) => m.timeToPeakS) },
  { name: 'response_time', unit: 's', description: 'step steer: time to 90 % of the steady yaw rate', fn: iso((m) => m.responseTimeS) },
  { name: 'settling_time', unit: 's', description: 'step steer: end of the last sample outside ±5 % of the steady yaw rate', fn: iso((m) => m.settlingTime5pctS) },
  { name: 'ay_ss', unit: 'm/s²', description: 'step steer: steady lateral acceleration', fn: iso((m) => m.lateralAccelSs) },
  { name: 'peak_lat_g', unit: 'g', description: 'peak |a_y| in g', fn: (c) => maxAbs(c.trace.column('ay')) / G },
  { name: 'ay_per_steer', unit: '(m/s²)/rad', description: 'step steer: lateral acceleration gain a_y,ss / δ_ss', fn: iso((m) => m.lateralAccelSs / m.steer) },
  { name: 'yaw_rate_gain', unit: '1/s', description: 'step steer: yaw-rate gain r_ss / δ_ss', fn: iso((m) => m.yawRateSs / m.steer) },
  { name: 'understeer_k', unit: 'rad/(m/s²)', description: 'step steer: (δ − L·r/vx) / a_y at steady state', fn: iso((m, c) => (m.steer - (c.vehicle.wheelbase * m.yawRateSs) / Math.max(m.vx, 1e-3)) / m.lateralAccelSs) },
  { name: 'npc_contacts', unit: '', description: 'ego–NPC contacts of this vehicle, per NPC step', fn: (c) => c.scene?.npcContacts ?? NaN },
  { name: 'red_runs', unit: '', description: 'times this vehicle crossed a stop line on red', fn: (c) => c.scene?.redRuns ?? NaN },
  { name: 'ego_steps', unit: '', description: 'NPC steps this vehicle took part in', fn: (c) => c.scene?.steps ?? NaN },
];
for (const d of DEFS) registerMetric(d);
