/**
 * A known car streaming its fixes to the scene, on a virtual timeline (no socket, no clock: deterministic), for
 * `npm run bench:gnss` and its test. The car drives a ground-truth trajectory — 100 km/h straight, a 0.4 g curve
 * entered and left along clothoids, or a 6 m/s² stop from 100 km/h with a realistic onset — and sends fixes (lat,
 * lon, heading, speed, its own stamp) at 10 or 20 Hz; each arrives `latency` ± `jitter` later, `loss` of them
 * never, and the car's clock is `clockOffsetS` off the server's. The server side is the production path: the
 * ego's FixClock (src/server/ego-clocks.ts) places each fix, egoReportFromGnss converts it, the scene's
 * EgoRegistry takes it and moves the car to any time (src/scene/egos.ts). The car answers the server's clock
 * probes (once a second, over the same link) unless told not to. Every 10 ms of the measured stretch the
 * scene's ego pose is compared with the truth.
 */
import { GeoFrame } from '../src/geo/frame.js';
import { EgoRegistry } from '../src/scene/index.js';
import { DEFAULT_SCENE_CONFIG, type SceneConfig } from '../src/scene/config.js';
import { EgoClocks } from '../src/server/ego-clocks.js';
import { egoReportFromGnss } from '../src/server/wire.js';
import type { TrafficEngine } from '../src/traffic/engine.js';
import { SeededRandom } from '../src/util/random.js';

export type Manoeuvre = 'straight' | 'curve' | 'brake';
/** probe: the car answers clock probes; fixes: it does not; synced: it does not, and its clock is the server's */
export type ClockMode = 'probe' | 'fixes' | 'synced';

export interface TrackCase {
  manoeuvre: Manoeuvre;
  rateHz: number;
  latencyS: number;
  jitterS?: number;
  loss?: number;
  clockOffsetS?: number;
  clock: ClockMode;
  seed: number;
  /** measurement noise of an RTK receiver with a dual antenna: position 2 cm, heading 0.1°, speed 0.03 m/s (σ, Gaussian) */
  noise?: boolean;
}

export interface TrackErrors {
  /** position errors [m] and heading errors [deg] at every 10 ms of the measured stretch */
  pos: number[];
  yawDeg: number[];
  fixes: number;
  lost: number;
  /** fixes the server did not take (out of order, refused) */
  dropped: number;
}

/** The measured stretch starts after this much driving (the clock estimate settles, as a car connected before a test) [s] */
export const WARMUP_S = 60;
const T0 = 1.8e9;
const DT = 0.001;
const EVAL_DT = 0.01;
const G = 9.80665;

interface Truth {
  t0: number;
  x: Float64Array;
  y: Float64Array;
  yaw: Float64Array;
  v: Float64Array;
  /** the measured stretch [s] */
  from: number;
  to: number;
}

/** Speed and curvature over time for each manoeuvre, integrated on a 1 ms grid (RK2). */
function truthOf(m: Manoeuvre): Truth {
  let v0: number, accel: (t: number) => number, kappa: (t: number) => number, from: number, to: number;
  const W = WARMUP_S;
  if (m === 'straight') {
    v0 = 100 / 3.6;
    accel = () => 0;
    kappa = () => 0;
    from = W;
    to = W + 20;
  } else if (m === 'curve') {
    // 72 km/h on a 0.4 g curve: R = v² / 0.4 g ≈ 102 m, entered and left along 1.5 s clothoids
    v0 = 20;
    const k = (0.4 * G) / (v0 * v0), ramp = 1.5, hold = 10;
    kappa = (t) => {
      const s = t - W;
      if (s < 0) return 0;
      if (s < ramp) return (k * s) / ramp;
      if (s < ramp + hold) return k;
      if (s < 2 * ramp + hold) return k * (1 - (s - ramp - hold) / ramp);
      return 0;
    };
    accel = () => 0;
    from = W;
    to = W + 2 * ramp + hold + 1;
  } else {
    // a stop at 6 m/s² from 100 km/h, the deceleration built up at 25 m/s³ (a brake's onset) and released at the stop
    v0 = 100 / 3.6;
    const jerk = 25, decel = 6, ramp = decel / jerk;
    accel = (t) => {
      const s = t - W;
      return s < 0 ? 0 : -Math.min(decel, jerk * s);
    };
    kappa = () => 0;
    from = W - 1;
    to = W + ramp + v0 / decel + 2;
  }
  const n = Math.ceil((to + 1) / DT);
  const x = new Float64Array(n), y = new Float64Array(n), yaw = new Float64Array(n), v = new Float64Array(n);
  // start far from the origin's lanes, heading north-east
  x[0] = 200;
  y[0] = -300;
  yaw[0] = 0.6;
  v[0] = v0;
  for (let i = 1; i < n; i++) {
    const tm = (i - 0.5) * DT;
    v[i] = Math.max(0, v[i - 1] + DT * accel(tm));
    const vMid = 0.5 * (v[i - 1] + v[i]);
    const turn = DT * vMid * kappa(tm);
    const yawMid = yaw[i - 1] + 0.5 * turn;
    yaw[i] = yaw[i - 1] + turn;
    x[i] = x[i - 1] + DT * vMid * Math.cos(yawMid);
    y[i] = y[i - 1] + DT * vMid * Math.sin(yawMid);
  }
  return { t0: 0, x, y, yaw, v, from, to };
}

function at(tr: Truth, t: number) {
  const f = t / DT, i = Math.min(Math.floor(f), tr.x.length - 2), w = f - i;
  const lerp = (a: Float64Array) => a[i] + (a[i + 1] - a[i]) * w;
  return { x: lerp(tr.x), y: lerp(tr.y), yaw: lerp(tr.yaw), v: lerp(tr.v) };
}

function gauss(r: SeededRandom): number {
  return Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next());
}

const wrapPi = (a: number) => a - 2 * Math.PI * Math.round(a / (2 * Math.PI));

const noEngine = { setExternal() {}, removeExternal() {}, externalCollided: () => false } as unknown as TrafficEngine;

type Event = { t: number; kind: 0 | 1 | 2; k: number };

/** Drives one case: the errors of the scene's ego pose against the truth over the measured stretch. */
export function runTrack(c: TrackCase): TrackErrors {
  const tr = truthOf(c.manoeuvre);
  const rnd = new SeededRandom(c.seed * 7919 + c.rateHz * 31 + Math.round(c.latencyS * 1000));
  const jitter = c.jitterS ?? 0.03, loss = c.loss ?? 0.05;
  const offset = c.clock === 'synced' ? 0 : c.clockOffsetS ?? 2;
  const delay = () => Math.max(0, c.latencyS + (rnd.next() * 2 - 1) * jitter);
  const geo = new GeoFrame();
  const config: SceneConfig = { ...DEFAULT_SCENE_CONFIG };
  const egos = new EgoRegistry(config, () => undefined);
  const clocks = new EgoClocks(() => ({ assumedOffsetS: 0, maxLatencyS: config.ego_timeout_s }));
  // everything that happens, by the server-clock time it happens at: fix arrivals (0), probe replies (1), evaluations (2)
  const events: Event[] = [];
  const fixTaken: number[] = [];
  let lost = 0;
  // the car's fixes come on its own schedule, not the server's steps
  const phase = rnd.next() / c.rateHz;
  for (let k = 0; phase + k / c.rateHz < tr.to; k++) {
    const taken = phase + k / c.rateHz;
    fixTaken.push(taken);
    if (rnd.next() < loss) {
      lost++;
      continue;
    }
    events.push({ t: taken + delay(), kind: 0, k });
  }
  const probes: Array<{ t1: number; t2: number }> = [];
  if (c.clock === 'probe') {
    for (let s = 0.5; s < tr.to; s += 1) {
      if (rnd.next() < loss) continue;
      const received = s + delay();
      if (rnd.next() < loss) continue;
      probes.push({ t1: s, t2: received });
      events.push({ t: received + delay(), kind: 1, k: probes.length - 1 });
    }
  }
  for (let t = tr.from; t <= tr.to; t += EVAL_DT) events.push({ t, kind: 2, k: 0 });
  events.sort((a, b) => a.t - b.t || a.kind - b.kind);
  const out: TrackErrors = { pos: [], yawDeg: [], fixes: fixTaken.length, lost, dropped: 0 };
  let nextStep = 0;
  for (const e of events) {
    // the scene's policy steps every 0.1 s place the egos (and make them stale when silent)
    while (nextStep <= e.t) {
      egos.place(noEngine, nextStep);
      nextStep = Math.round((nextStep + 0.1) * 10) / 10;
    }
    if (e.kind === 0) {
      const taken = fixTaken[e.k];
      const p = at(tr, taken);
      if (c.noise) {
        p.x += 0.02 * gauss(rnd);
        p.y += 0.02 * gauss(rnd);
        p.yaw += ((0.1 * Math.PI) / 180) * gauss(rnd);
        p.v = Math.max(0, p.v + 0.03 * gauss(rnd));
      }
      const ll = geo.toLatLon(p.x, p.y);
      const stamp = T0 + taken + offset;
      const placed = clocks.place('car', T0 + e.t, stamp);
      if (!placed.ok) {
        out.dropped++;
        continue;
      }
      const report = egoReportFromGnss(geo, 'car', { lat: ll.lat, lon: ll.lon, heading: geo.yawToHeading(p.yaw, p.x, p.y), speed: p.v }, stamp);
      report.timing = placed.timing;
      if (!egos.update(report, e.t)) out.dropped++;
    } else if (e.kind === 1) {
      const pr = probes[e.k];
      clocks.probe(['car'], T0 + pr.t1, T0 + pr.t2 + offset, T0 + pr.t2 + offset, T0 + e.t);
    } else {
      const ego = egos.list(e.t)[0];
      if (!ego || ego.stale) continue;
      const p = at(tr, e.t);
      out.pos.push(Math.hypot(ego.x - p.x, ego.y - p.y));
      out.yawDeg.push((Math.abs(wrapPi(ego.yaw - p.yaw)) * 180) / Math.PI);
    }
  }
  return out;
}

export function p95(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

/** The goals per manoeuvre: position p95 [m] and heading p95 [deg]. */
export const GOALS: Record<Manoeuvre, { posM: number; yawDeg: number }> = {
  straight: { posM: 0.1, yawDeg: 0.5 },
  curve: { posM: 0.3, yawDeg: 0.5 },
  brake: { posM: 0.3, yawDeg: 0.5 },
};
