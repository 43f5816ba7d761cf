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
 *
 * The figures are kept up to date sample by sample in fixed memory (running-metrics.ts); this module names them.
 */
import type { StepSteerMetrics } from '../plant/validation/iso7401.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import type { DrivingLine } from './line.js';
import { RunningMetrics, SLIP_MOVING_MIN_VX_MPS } from './running-metrics.js';
import type { Trace } from './trace.js';

export { ISO_KEEP_ROWS, lapTimes, RunningMetrics, SLIP_MOVING_MIN_VX_MPS } from './running-metrics.js';

const G = 9.80665;

export interface MetricContext {
  trace: Trace;
  line: DrivingLine | null;
  vehicle: Readonly<VehicleParams>;
  /** scene figures of this vehicle (absent without an NPC world) */
  scene?: { npcContacts: number; steps: number; redRuns: number };
  /**
   * The running figures of every row the trace was pushed (a RunningMetrics observing it on `line`); without
   * them they are computed from the rows the trace holds, which must then be all of them.
   */
  running?: RunningMetrics;
}

export interface MetricDefinition {
  name: string;
  unit: string;
  description: string;
  fn: (ctx: MetricContext & { running: RunningMetrics }, cache: Map<string, unknown>) => number;
  /**
   * Why the figure could not be computed in a run where fn gave NaN, in words a user can act on ('no lap
   * completed in 30.0 s: …'); without it the reports say only that it was not computable.
   */
  whyNot?: (ctx: MetricContext & { running: RunningMetrics }) => string;
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
  for (const n of names) if (!REGISTRY.has(n)) throw new RangeError(`unknown metric '${n}' (known: ${[...REGISTRY.keys()].join(', ')})`);
  let running = ctx.running;
  if (!running) {
    if (ctx.trace.retained < ctx.trace.rows) {
      throw new RangeError(`metrics: the trace holds ${ctx.trace.retained} of its ${ctx.trace.rows} rows; give the RunningMetrics that observed them all (MetricContext.running)`);
    }
    running = RunningMetrics.of(ctx.trace, ctx.line);
  }
  const full = { ...ctx, running };
  const cache = new Map<string, unknown>();
  const out: Record<string, number> = {};
  for (const n of names) out[n] = REGISTRY.get(n)!.fn(full, cache);
  return out;
}

/**
 * Why each figure of `values` that is not a number could not be computed (the metric's whyNot, else a plain
 * 'not computable in this run'): the reports print it beside the '–'.
 */
export function metricReasons(values: Readonly<Record<string, number>>, ctx: MetricContext): Record<string, string> {
  const running = ctx.running ?? RunningMetrics.of(ctx.trace, ctx.line);
  const out: Record<string, string> = {};
  for (const [n, v] of Object.entries(values)) {
    if (Number.isFinite(v)) continue;
    out[n] = REGISTRY.get(n)?.whyNot?.({ ...ctx, running }) ?? 'not computable in this run';
  }
  return out;
}

const s1 = (x: number) => x.toFixed(1);
const noLine = (c: Ctx) => (c.line ? null : 'the map has no driving line to measure it against');
const noScene = 'no NPC world in this run (npcs: 0 and no road map)';
const ran = (c: Ctx) => (Number.isFinite(c.running.lastT) ? c.running.lastT - c.running.firstT : 0);
const noStep = () => 'no steering step in this run: the ISO 7401 figures need one (a maneuver of kind step_steer)';
function noLap(c: Ctx): string {
  const line = c.line ? `; its driving line is ${Math.round(c.line.length)} m long${c.line.closed ? '' : ' and not closed'}` : '';
  return `no lap completed in ${s1(ran(c))} s: the vehicle drove ${Math.round(c.running.dist)} m and never came back within 8 m of its start, heading as it started, after more than 15 m away${line}`;
}

function cached<T>(cache: Map<string, unknown>, key: string, make: () => T): T {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

type Ctx = MetricContext & { running: RunningMetrics };

const iso = (pick: (m: StepSteerMetrics & { steer: number; vx: number }, ctx: Ctx) => number) => (ctx: Ctx, cache: Map<string, unknown>) => {
  const m = cached(cache, 'iso', () => ctx.running.stepSteer());
  return m ? pick(m, ctx) : NaN;
};

const DEFS: MetricDefinition[] = [
  { name: 'cte_rms', unit: 'm', description: 'RMS cross-track error to the driving line', fn: (c) => c.running.cte.rms, whyNot: (c) => noLine(c) ?? 'no sample' },
  { name: 'cte_max', unit: 'm', description: 'largest cross-track error to the driving line', fn: (c) => c.running.cte.maxAbs, whyNot: (c) => noLine(c) ?? 'no sample' },
  { name: 'heading_error_rms', unit: 'rad', description: 'RMS of yaw minus the heading of the nearest line segment', fn: (c) => c.running.headingError.rms, whyNot: (c) => noLine(c) ?? 'no sample' },
  { name: 'heading_error_max', unit: 'rad', description: 'largest |yaw − line heading|', fn: (c) => c.running.headingError.maxAbs, whyNot: (c) => noLine(c) ?? 'no sample' },
  { name: 'lap_time', unit: 's', description: 'time of the first lap (back within 8 m of the start, same heading, after > 15 m away)', fn: (c) => c.running.firstLap, whyNot: noLap },
  { name: 'laps', unit: '', description: 'laps completed', fn: (c) => c.running.laps },
  { name: 'peak_ay', unit: 'm/s²', description: 'largest |lateral acceleration|', fn: (c) => c.running.ay.maxAbs },
  { name: 'max_fz', unit: 'N', description: 'largest wheel load', fn: (c) => Math.max(...c.running.fz.map((m) => m.maxAbs)) },
  { name: 'vmax', unit: 'm/s', description: 'largest horizontal speed', fn: (c) => c.running.vmax },
  { name: 'dist', unit: 'm', description: 'path length', fn: (c) => c.running.dist },
  {
    name: 'rms_slip', unit: 'rad',
    description: `RMS over time of the largest |slip angle| of the four wheels, every sample (VDSim's figure: standstill counts too, where the slip angle means nothing and reads up to π; see rms_slip_moving)`,
    fn: (c) => c.running.slip.rms,
  },
  {
    name: 'rms_slip_moving', unit: 'rad',
    description: `RMS of the largest |slip angle| of the four wheels over the samples with |vx| > ${SLIP_MOVING_MIN_VX_MPS} m/s only (standstill left out; rms_slip is VDSim's figure with it); NaN if it never moved`,
    fn: (c) => c.running.slipMoving.rms,
    whyNot: (c) => `the vehicle never moved faster than ${SLIP_MOVING_MIN_VX_MPS} m/s in ${s1(ran(c))} s`,
  },
  { name: 'yaw_rate_ss', unit: 'rad/s', description: 'step steer: steady yaw rate (mean of the last 20 %)', fn: iso((m) => m.yawRateSs), whyNot: noStep },
  { name: 'yaw_rate_peak', unit: 'rad/s', description: 'step steer: peak yaw rate', fn: iso((m) => m.yawRatePeak), whyNot: noStep },
  { name: 'overshoot', unit: '', description: 'step steer: peak / steady yaw rate', fn: iso((m) => m.overshoot), whyNot: noStep },
  { name: 'time_to_peak', unit: 's', description: 'step steer: time from the step to the yaw-rate peak', fn: iso((m) => m.timeToPeakS), whyNot: noStep },
  { name: 'response_time', unit: 's', description: 'step steer: time to 90 % of the steady yaw rate', fn: iso((m) => m.responseTimeS), whyNot: noStep },
  { name: 'settling_time', unit: 's', description: 'step steer: end of the last sample outside ±5 % of the steady yaw rate', fn: iso((m) => m.settlingTime5pctS), whyNot: noStep },
  { name: 'ay_ss', unit: 'm/s²', description: 'step steer: steady lateral acceleration', fn: iso((m) => m.lateralAccelSs), whyNot: noStep },
  { name: 'peak_lat_g', unit: 'g', description: 'peak |a_y| in g', fn: (c) => c.running.ay.maxAbs / G },
  { name: 'ay_per_steer', unit: '(m/s²)/rad', description: 'step steer: lateral acceleration gain a_y,ss / δ_ss', fn: iso((m) => m.lateralAccelSs / m.steer), whyNot: noStep },
  { name: 'yaw_rate_gain', unit: '1/s', description: 'step steer: yaw-rate gain r_ss / δ_ss', fn: iso((m) => m.yawRateSs / m.steer), whyNot: noStep },
  { name: 'understeer_k', unit: 'rad/(m/s²)', description: 'step steer: (δ − L·r/vx) / a_y at steady state', fn: iso((m, c) => (m.steer - (c.vehicle.wheelbase * m.yawRateSs) / Math.max(m.vx, 1e-3)) / m.lateralAccelSs), whyNot: noStep },
  { name: 'npc_contacts', unit: '', description: 'ego–NPC contacts of this vehicle, per NPC step', fn: (c) => c.scene?.npcContacts ?? NaN, whyNot: () => noScene },
  { name: 'red_runs', unit: '', description: 'times this vehicle crossed a stop line on red', fn: (c) => c.scene?.redRuns ?? NaN, whyNot: () => noScene },
  { name: 'ego_steps', unit: '', description: 'NPC steps this vehicle took part in', fn: (c) => c.scene?.steps ?? NaN, whyNot: () => noScene },
];
for (const d of DEFS) registerMetric(d);
