/**
 * ISO 3888-2 severe lane change as VDSim runs it: a raised-cosine centre line (A 12 m at y 0, B 13.5 m to
 * y 3.5, C 11 m, D 12.5 m back, E 12 m, 0.5 m spacing) followed by pure pursuit (look-ahead max(3, 0.5·vx),
 * steer atan(L·2·dy/d²) clamped ±0.45 rad), throttle clamp(0.15 + 0.40·(v0 − vx), 0, 1), brake 0.2 when
 * v0 − vx ≤ −0.5; dt 5 ms, at most 10 s, until x passes the last waypoint; spin v/wheel_radius_nominal.
 * PASS iff speed loss < 2 km/h and max |y − y_ref(x)| < 1.0 m.
 */
import { neutralCommand } from '../types.js';
import { type ProcedureVehicle, flatContacts, startModel, stepCount } from './setup.js';

export interface Iso3888Options {
  speedKmh?: number;
  dt?: number;
  maxDurationS?: number;
  mu?: number;
}

export interface Iso3888Trace {
  t: number[];
  x: number[];
  y: number[];
  yaw: number[];
  vx: number[];
  yawRate: number[];
  ay: number[];
  steer: number[];
}

export interface Iso3888Result {
  procedure: 'iso3888';
  entryKmh: number;
  exitKmh: number;
  speedLossKmh: number;
  maxLateralExcursionM: number;
  peakYawRateDegS: number;
  peakLateralAccelG: number;
  pass: boolean;
  waypoints: { x: number[]; y: number[] };
  trace: Iso3888Trace;
}

/** np.arange(0, len, dx) without the end point. */
function arange(len: number, dx: number): number[] {
  const out: number[] = [];
  const n = Math.ceil(len / dx);
  for (let i = 0; i < n; i++) out.push(i * dx);
  return out;
}

export function laneChangeWaypoints(dx = 0.5): { x: number[]; y: number[] } {
  const [A, B, C, D, E] = [12.0, 13.5, 11.0, 12.5, 12.0];
  const OFF = 3.5;
  const x: number[] = [];
  const y: number[] = [];
  for (const s of arange(A, dx)) (x.push(s), y.push(0));
  for (const s of arange(B, dx)) (x.push(A + s), y.push(OFF * 0.5 * (1 - Math.cos((Math.PI * s) / B))));
  for (const s of arange(C, dx)) (x.push(A + B + s), y.push(OFF));
  for (const s of arange(D, dx)) (x.push(A + B + C + s), y.push(OFF * 0.5 * (1 + Math.cos((Math.PI * s) / D))));
  for (const s of arange(E, dx)) (x.push(A + B + C + D + s), y.push(0));
  return { x, y };
}

/** numpy.interp: piecewise linear, clamped at the ends; xs ascending. */
export function interp(x: number, xs: readonly number[], ys: readonly number[]): number {
  if (x <= xs[0]) return ys[0];
  const n = xs.length;
  if (x >= xs[n - 1]) return ys[n - 1];
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  return ys[lo] + ((x - xs[lo]) * (ys[hi] - ys[lo])) / (xs[hi] - xs[lo]);
}

export function runIso3888(car: ProcedureVehicle, opts: Iso3888Options = {}): Iso3888Result {
  const entryKmh = opts.speedKmh ?? 60;
  const v0 = entryKmh / 3.6;
  const dt = opts.dt ?? 0.005;
  const wp = laneChangeWaypoints();
  const model = startModel(car, v0, car.vehicle.wheelRadiusNominal);
  const contacts = flatContacts(opts.mu ?? 1);
  const cmd = neutralCommand();
  const L = car.vehicle.wheelbase;
  const trace: Iso3888Trace = { t: [], x: [], y: [], yaw: [], vx: [], yawRate: [], ay: [], steer: [] };
  const n = stepCount(opts.maxDurationS ?? 10, dt);
  let idx = 0;
  const last = wp.x.length - 1;
  for (let k = 0; k < n; k++) {
    const s = model.state;
    const ld = Math.max(3.0, 0.5 * s.vx);
    while (idx < last && Math.hypot(wp.x[idx] - s.x, wp.y[idx] - s.y) < ld) idx++;
    const c = Math.cos(s.yaw);
    const sn = Math.sin(s.yaw);
    const dxw = wp.x[idx] - s.x;
    const dyw = wp.y[idx] - s.y;
    const dxb = c * dxw + sn * dyw;
    const dyb = -sn * dxw + c * dyw;
    const d2 = dxb * dxb + dyb * dyb;
    const steer = d2 < 1e-6 ? 0 : Math.max(-0.45, Math.min(0.45, Math.atan(((2 * dyb) / d2) * L)));
    const ev = v0 - s.vx;
    cmd.steer = steer;
    cmd.throttle = Math.max(0, Math.min(1, 0.15 + 0.4 * ev));
    cmd.brake = ev > -0.5 ? 0 : 0.2;
    model.step(cmd, contacts, dt);
    trace.t.push(k * dt);
    trace.x.push(s.x);
    trace.y.push(s.y);
    trace.yaw.push(s.yaw);
    trace.vx.push(s.vx);
    trace.yawRate.push(s.yawRate);
    trace.ay.push(model.diagnostics.ay);
    trace.steer.push(steer);
    if (s.x > wp.x[last]) break;
  }
  const exitKmh = trace.vx[trace.vx.length - 1] * 3.6;
  let excursion = 0;
  for (let i = 0; i < trace.x.length; i++) excursion = Math.max(excursion, Math.abs(trace.y[i] - interp(trace.x[i], wp.x, wp.y)));
  const speedLoss = entryKmh - exitKmh;
  const peakR = Math.max(...trace.yawRate.map(Math.abs));
  const peakAy = Math.max(...trace.ay.map(Math.abs));
  return {
    procedure: 'iso3888',
    entryKmh,
    exitKmh,
    speedLossKmh: speedLoss,
    maxLateralExcursionM: excursion,
    peakYawRateDegS: (peakR * 180) / Math.PI,
    peakLateralAccelG: peakAy / 9.80665,
    pass: speedLoss < 2 && excursion < 1,
    waypoints: wp,
    trace,
  };
}
