/**
 * ISO 4138 steady-state circular driving, constant-speed method as VDSim runs it: coast at v (spin v/0.33),
 * road-wheel angle ramped linearly 0 → δ_max over the ramp time, sampled after every step.
 * δ_kin = L·r / max(vx, 1e-3); the understeer gradient K is the slope of the least-squares line of
 * (δ − δ_kin) against a_y over 1 ≤ a_y ≤ 4 m/s² (at least 5 samples); understeer if K > 1e-4 rad/(m/s²).
 * The linear range ends at the first a_y > 4 m/s² whose residual exceeds 10 % of the largest |fit|.
 * VDSim's fit window also takes samples from after the a_y peak (the car past the limit, a_y falling back
 * through 4 m/s²); the same fit over the rising part only is reported beside it, with the sample count.
 */
import { GRAVITY, neutralCommand } from '../types.js';
import { type ProcedureVehicle, SCENARIO_SPIN_RADIUS, flatContacts, recordSample, startModel, stepCount, type ManoeuvreTrace } from './setup.js';
import { linearFit } from './stats.js';

export interface Iso4138Options {
  speedKmh?: number;
  steerMaxDeg?: number;
  rampS?: number;
  dt?: number;
  mu?: number;
  fitMinAy?: number;
  fitMaxAy?: number;
}

export interface Iso4138Trace extends ManoeuvreTrace {
  /** δ − δ_kin [rad]. */
  steerExcess: number[];
}

export type HandlingTendency = 'understeer' | 'neutral' | 'oversteer';

export interface Iso4138Result {
  procedure: 'iso4138';
  speedMps: number;
  /** Understeer gradient [rad/(m/s²)] and [rad/g]. */
  gradientRadPerMps2: number;
  gradientRadPerG: number;
  interceptRad: number;
  /** The same fit over the samples before the a_y peak only [rad/g], and how many fit samples came after it. */
  risingGradientRadPerG: number;
  postPeakFitSamples: number;
  tendency: HandlingTendency;
  linearRangeAyMax: number;
  ayMax: number;
  fitSamples: number;
  trace: Iso4138Trace;
}

export function runIso4138(car: ProcedureVehicle, opts: Iso4138Options = {}): Iso4138Result {
  const speed = (opts.speedKmh ?? 80) / 3.6;
  const steerMax = ((opts.steerMaxDeg ?? 4) * Math.PI) / 180;
  const dt = opts.dt ?? 0.002;
  const n = stepCount(opts.rampS ?? 12, dt);
  const lo = opts.fitMinAy ?? 1;
  const hi = opts.fitMaxAy ?? 4;
  const model = startModel(car, speed, SCENARIO_SPIN_RADIUS);
  const contacts = flatContacts(opts.mu ?? 1);
  const cmd = neutralCommand();
  const L = car.vehicle.wheelbase;
  const trace: Iso4138Trace = { t: [], steer: [], yawRate: [], ay: [], vx: [], x: [], y: [], steerExcess: [] };
  for (let i = 0; i < n; i++) {
    cmd.steer = steerMax * (i / n);
    model.step(cmd, contacts, dt);
    const s = model.state;
    recordSample(trace, i * dt, cmd.steer, model);
    trace.steerExcess.push(cmd.steer - (L * s.yawRate) / Math.max(s.vx, 1e-3));
  }
  let peak = 0;
  for (let i = 1; i < n; i++) if (trace.ay[i] > trace.ay[peak]) peak = i;
  const fx: number[] = [];
  const fy: number[] = [];
  const rx: number[] = [];
  const ry: number[] = [];
  for (let i = 0; i < n; i++) {
    if (trace.ay[i] >= lo && trace.ay[i] <= hi) {
      fx.push(trace.ay[i]);
      fy.push(trace.steerExcess[i]);
      if (i < peak) {
        rx.push(trace.ay[i]);
        ry.push(trace.steerExcess[i]);
      }
    }
  }
  const ayMax = trace.ay[peak];
  let slope = 0;
  let intercept = 0;
  let linearMax = 0;
  if (fx.length >= 5) {
    ({ slope, intercept } = linearFit(fx, fy));
    let maxFit = 0;
    for (const a of trace.ay) maxFit = Math.max(maxFit, Math.abs(slope * a + intercept));
    const threshold = maxFit > 0 ? 0.1 * maxFit : 0.01;
    linearMax = ayMax;
    for (let i = 0; i < n; i++) {
      if (trace.ay[i] > hi && Math.abs(trace.steerExcess[i] - (slope * trace.ay[i] + intercept)) > threshold) {
        linearMax = trace.ay[i];
        break;
      }
    }
  }
  return {
    procedure: 'iso4138',
    speedMps: speed,
    gradientRadPerMps2: slope,
    gradientRadPerG: slope * GRAVITY,
    interceptRad: intercept,
    risingGradientRadPerG: rx.length >= 5 ? linearFit(rx, ry).slope * GRAVITY : 0,
    postPeakFitSamples: fx.length - rx.length,
    tendency: slope > 1e-4 ? 'understeer' : slope < -1e-4 ? 'oversteer' : 'neutral',
    linearRangeAyMax: linearMax,
    ayMax,
    fitSamples: fx.length,
    trace,
  };
}
