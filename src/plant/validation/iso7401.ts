/**
 * ISO 7401 step steer, VDSim's procedure: coast at v (spin v/0.33), straight for t_pre, then a road-wheel step
 * held for t_post, sampled after every step. Metrics on the post-step trace (times as VDSim reports them, from
 * the first post-step sample): ψ̇_ss = mean of the last 20 %, peak = max of the sign-aligned yaw rate,
 * U = peak/ss, T_max, T_ψ̇ (first ≥ 90 % of ss), 5 % settling (end of the last sample outside the band),
 * a_y,ss from the body lateral acceleration.
 */
import { neutralCommand } from '../types.js';
import { type ProcedureVehicle, SCENARIO_SPIN_RADIUS, flatContacts, recordSample, startModel, stepCount, type ManoeuvreTrace } from './setup.js';
import { mean } from './stats.js';

export interface Iso7401Options {
  speedKmh?: number;
  steerDeg?: number;
  preS?: number;
  postS?: number;
  dt?: number;
  mu?: number;
}

/** `t[k]` = k·dt is the state after step k+1, as in VDSim's scenario. */
export type Iso7401Trace = ManoeuvreTrace;

export interface Iso7401Result {
  procedure: 'iso7401';
  speedMps: number;
  steerDeg: number;
  yawRateSs: number;
  yawRatePeak: number;
  overshoot: number;
  timeToPeakS: number;
  responseTimeS: number;
  settlingTime5pctS: number;
  lateralAccelSs: number;
  speedEndMps: number;
  trace: Iso7401Trace;
}

export function runIso7401(car: ProcedureVehicle, opts: Iso7401Options = {}): Iso7401Result {
  const speed = (opts.speedKmh ?? 80) / 3.6;
  const steerDeg = opts.steerDeg ?? 6;
  const pre = opts.preS ?? 0.5;
  const post = opts.postS ?? 6.0;
  const dt = opts.dt ?? 0.002;
  const model = startModel(car, speed, SCENARIO_SPIN_RADIUS);
  const contacts = flatContacts(opts.mu ?? 1);
  const cmd = neutralCommand();
  const nPre = stepCount(pre, dt);
  const nPost = stepCount(post, dt);
  const trace: Iso7401Trace = { t: [], steer: [], yawRate: [], ay: [], vx: [], x: [], y: [] };
  const steer = (steerDeg * Math.PI) / 180;
  for (let k = 0; k < nPre + nPost; k++) {
    cmd.steer = k < nPre ? 0 : steer;
    model.step(cmd, contacts, dt);
    recordSample(trace, k * dt, cmd.steer, model);
  }
  const m = stepSteerMetrics(trace.yawRate.slice(nPre), trace.ay.slice(nPre), trace.t.slice(nPre).map((t) => t - pre));
  return {
    procedure: 'iso7401',
    speedMps: speed,
    steerDeg,
    ...m,
    speedEndMps: trace.vx[trace.vx.length - 1],
    trace,
  };
}

export interface StepSteerMetrics {
  yawRateSs: number;
  yawRatePeak: number;
  overshoot: number;
  timeToPeakS: number;
  responseTimeS: number;
  settlingTime5pctS: number;
  lateralAccelSs: number;
}

/**
 * The step-steer metrics of a post-step trace (yaw rate r, lateral acceleration ay, time since the step
 * tAfter): ψ̇_ss = mean of the last 20 %, peak = max of the sign-aligned yaw rate, U = peak/ss, T_max, T_ψ̇
 * (first sample ≥ 90 % of ss), 5 % settling (end of the last sample outside the band), a_y,ss.
 */
export function stepSteerMetrics(r: ArrayLike<number>, ay: ArrayLike<number>, tAfter: ArrayLike<number>): StepSteerMetrics {
  const nTail = Math.max(1, Math.trunc(r.length / 5));
  const ss = mean(r, r.length - nTail);
  const aySs = mean(ay, ay.length - nTail);
  const sign = ss >= 0 ? 1 : -1;
  let peakIdx = 0;
  for (let i = 1; i < r.length; i++) if (r[i] * sign > r[peakIdx] * sign) peakIdx = i;
  const peak = r[peakIdx];
  let responseIdx = -1;
  for (let i = 0; i < r.length; i++) {
    if (r[i] * sign >= 0.9 * ss * sign) {
      responseIdx = i;
      break;
    }
  }
  const band = 0.05 * Math.abs(ss);
  let lastOutside = -1;
  for (let i = 0; i < r.length; i++) if (r[i] < ss - band || r[i] > ss + band) lastOutside = i;
  let settling = 0;
  if (lastOutside >= 0) settling = lastOutside + 1 < tAfter.length ? tAfter[lastOutside + 1] : tAfter[tAfter.length - 1];
  return {
    yawRateSs: ss,
    yawRatePeak: peak,
    overshoot: Math.abs(ss) > 1e-6 ? peak / ss : 0,
    timeToPeakS: tAfter[peakIdx],
    responseTimeS: responseIdx >= 0 && Math.abs(ss) > 1e-6 ? tAfter[responseIdx] : NaN,
    settlingTime5pctS: settling,
    lateralAccelSs: aySs,
  };
}
