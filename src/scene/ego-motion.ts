/**
 * A real car between its fixes: each fix is placed at the time it was measured (the car's stamp on the
 * server's clock, src/time/fix-clock.ts), and the car is moved from its latest fix to any later time with a
 * constant acceleration and a yaw rate that changes at a constant rate — CTRA, the model GNSS/INS trackers and
 * Autoware's own prediction use over fractions of a second, with the yaw rate's own trend so that a car entering
 * or leaving a curve along a clothoid is not turned too little or too much. They come from the fixes themselves,
 * at their own times (a late or lost fix changes nothing): the acceleration is the least-squares slope of speed
 * over the fixes of the last RATE_WINDOW_S; yaw rate and its change are a least-squares parabola through the yaw
 * of the last YAW_WINDOW_S (its slope at the newest fix: no lag while the rate ramps; its curvature only where
 * it stands out of the heading's noise), a straight line while there are too few fixes for it. All are bounded to what a car can do. A car that brakes to a stop stays
 * stopped and stops turning; it never reverses. Pure, no allocation per fix or per pose.
 */
import type { KinematicState } from '../vehicle/index.js';

/** fixes within this span of the newest are fitted for acceleration (and for a yaw rate while the parabola has too few) [s] */
export const RATE_WINDOW_S = 0.25;
/**
 * fixes within this span of the newest are fitted with a parabola for yaw rate and its change [s] (longer holds
 * a heading's noise down, shorter follows a clothoid's ends: npm run bench:gnss measured 0.35–0.6 s)
 */
export const YAW_WINDOW_S = 0.45;
/** … once at least this many span at least half that window */
const YAW_FIT_MIN_FIXES = 4;
/** at most this many fixes are kept for the fits (50 Hz over the yaw window) */
const RATE_FIXES = 32;
/** the yaw rate's change is bounded to this [rad/s²], and is extrapolated for at most YAW_ACCEL_HORIZON_S */
export const MAX_YAW_ACCEL = 2;
const YAW_ACCEL_HORIZON_S = 0.5;
/** a parabola's curvature is used only when it is this many standard errors from 0 */
const CURVATURE_SIGNIFICANCE = 3;
/** the pose is integrated in steps of at most this [s] */
const INTEGRATION_STEP_S = 0.01;
/** the fitted acceleration is bounded to this magnitude [m/s²] (well beyond any car's braking) */
export const MAX_ACCEL_MPS2 = 12;
/** and the yaw rate to this [rad/s] … */
export const MAX_YAW_RATE = 1.5;
/** … and to this lateral acceleration at the car's speed [m/s²] */
export const MAX_LATERAL_MPS2 = 12;
/** a real car is moved at most this far beyond its latest fix [s] (it is stale long before) */
export const MAX_EXTRAPOLATION_S = 2;
/** the yaw rate's change is also bounded by this lateral jerk at the car's speed [m/s³] (a driver's quickest steering) */
export const MAX_LATERAL_JERK = 20;

export class EgoMotion {
  /** the latest fix, at its own time [s of simulation time] */
  t = NaN;
  x = 0;
  y = 0;
  yaw = 0;
  speed = 0;
  /** fitted from the fixes: longitudinal acceleration [m/s²], yaw rate [rad/s, counter-clockwise] and its change [rad/s²] */
  accel = 0;
  yawRate = 0;
  yawAccel = 0;
  private readonly ts = new Float64Array(RATE_FIXES);
  private readonly vs = new Float64Array(RATE_FIXES);
  /** yaw unwrapped along the kept fixes (NaN where the yaw was not the car's) */
  private readonly ys = new Float64Array(RATE_FIXES);
  private n = 0;
  private head = 0;

  /**
   * A fix measured at t. `yawKnown`: its yaw is the car's (reported, a course over ground, or held) and may be
   * fitted for a yaw rate; otherwise the yaw rate is 0. Fixes must come in time order (the registry drops others).
   */
  addFix(t: number, x: number, y: number, yaw: number, speed: number, yawKnown: boolean): void {
    // a fix after a gap longer than the yaw window starts the fits afresh
    if (this.n > 0 && t - this.t > YAW_WINDOW_S) this.n = 0;
    const prevYaw = this.n > 0 ? this.ys[(this.head + this.n - 1) % RATE_FIXES] : NaN;
    const unwrapped = prevYaw === prevYaw ? prevYaw + wrap(yaw - prevYaw) : yaw;
    if (this.n === RATE_FIXES) {
      this.head = (this.head + 1) % RATE_FIXES;
      this.n--;
    }
    const i = (this.head + this.n) % RATE_FIXES;
    this.ts[i] = t;
    this.vs[i] = speed;
    this.ys[i] = yawKnown ? unwrapped : NaN;
    this.n++;
    while (this.n > 1 && this.ts[this.head] < t - YAW_WINDOW_S - 1e-9) {
      this.head = (this.head + 1) % RATE_FIXES;
      this.n--;
    }
    this.t = t;
    this.x = x;
    this.y = y;
    this.yaw = yaw;
    this.speed = speed;
    this.accel = clamp(this.fit(this.vs, RATE_WINDOW_S, false), MAX_ACCEL_MPS2);
    this.fit(this.ys, YAW_WINDOW_S, true);
    const w = yawKnown && fitRate === fitRate ? fitRate : 0;
    this.yawRate = clamp(w, Math.min(MAX_YAW_RATE, MAX_LATERAL_MPS2 / Math.max(speed, 1)));
    this.yawAccel = yawKnown && fitCurve === fitCurve ? clamp(fitCurve, Math.min(MAX_YAW_ACCEL, MAX_LATERAL_JERK / Math.max(speed, 1))) : 0;
  }

  /**
   * Least-squares fit of the kept values within `windowS` of the newest, in time since the newest: a straight
   * line, or (parabola, with enough fixes over enough time) a parabola. Returns the slope at the newest fix (0
   * with fewer than two fixes, NaN when a value is NaN); a parabola's second derivative goes to fitCurve (0
   * for a line).
   */
  private fit(vals: Float64Array, windowS: number, parabola: boolean): number {
    fitCurve = 0;
    let k0 = 0;
    const tNew = this.t;
    while (k0 < this.n - 1 && this.ts[(this.head + k0) % RATE_FIXES] < tNew - windowS - 1e-9) k0++;
    const m = this.n - k0;
    if (m < 2) return (fitRate = 0);
    const span = tNew - this.ts[(this.head + k0) % RATE_FIXES];
    if (!parabola || m < YAW_FIT_MIN_FIXES || span < windowS / 2 - 1e-9) {
      if (parabola) {
        // too few for a parabola: a line over the shorter window
        return (fitRate = this.fit(vals, RATE_WINDOW_S, false));
      }
      return (fitRate = this.lineSlope(vals, k0));
    }
    // v ≈ c0 + c1 dt + c2 dt² with dt = t − tNew: the slope at the newest fix is c1, the curvature 2 c2
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, b0 = 0, b1 = 0, b2 = 0;
    for (let k = k0; k < this.n; k++) {
      const i = (this.head + k) % RATE_FIXES;
      const dt = this.ts[i] - tNew, v = vals[i], dt2 = dt * dt;
      s0 += 1;
      s1 += dt;
      s2 += dt2;
      s3 += dt2 * dt;
      s4 += dt2 * dt2;
      b0 += v;
      b1 += v * dt;
      b2 += v * dt2;
    }
    // Cramer's rule on the 3×3 normal equations [s0 s1 s2; s1 s2 s3; s2 s3 s4] c = b
    const det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2);
    if (!(Math.abs(det) > 1e-18)) return (fitRate = this.fit(vals, RATE_WINDOW_S, false));
    const c0 = (b0 * (s2 * s4 - s3 * s3) - s1 * (b1 * s4 - s3 * b2) + s2 * (b1 * s3 - s2 * b2)) / det;
    const c1 = (s0 * (b1 * s4 - s3 * b2) - b0 * (s1 * s4 - s3 * s2) + s2 * (s1 * b2 - b1 * s2)) / det;
    const c2 = (s0 * (s2 * b2 - b1 * s3) - s1 * (s1 * b2 - b1 * s2) + b0 * (s1 * s3 - s2 * s2)) / det;
    // is the curvature more than the measurement noise makes? (its standard error from the fit's residuals): if
    // not, the yaw rate is not carried on changing — a heading's noise would otherwise be extrapolated as a turn
    let rss = 0;
    for (let k = k0; k < this.n; k++) {
      const i = (this.head + k) % RATE_FIXES;
      const dt = this.ts[i] - tNew, r = vals[i] - (c0 + c1 * dt + c2 * dt * dt);
      rss += r * r;
    }
    const seC2 = m > 3 ? Math.sqrt((rss / (m - 3)) * Math.abs((s0 * s2 - s1 * s1) / det)) : 0;
    if (Math.abs(c2) < CURVATURE_SIGNIFICANCE * seC2) return (fitRate = c1);
    fitCurve = 2 * c2;
    return (fitRate = c1);
  }

  /** Least-squares slope of the kept values from the k0-th on (0 with fewer than two). */
  private lineSlope(vals: Float64Array, k0: number): number {
    const tNew = this.t;
    let st = 0, sv = 0, stt = 0, stv = 0, j = 0;
    for (let k = k0; k < this.n; k++, j++) {
      const i = (this.head + k) % RATE_FIXES;
      const dt = this.ts[i] - tNew, v = vals[i];
      st += dt;
      sv += v;
      stt += dt * dt;
      stv += dt * v;
    }
    const den = j * stt - st * st;
    return den > 1e-12 ? (j * stv - st * sv) / den : 0;
  }

  /** Forgets the fits (the yaw is replaced, e.g. a car's heading source changed). */
  resetRates(): void {
    this.n = 0;
    this.accel = 0;
    this.yawRate = 0;
    this.yawAccel = 0;
  }

  /**
   * The car at time t (at or after its latest fix; earlier times give the fix itself), written into `out`.
   * `moving` false keeps it where it was reported (a car whose heading is a placeholder); `maxS` bounds how far
   * beyond the fix it is carried (a simulated ego's report age is its plant's lag: unbounded).
   */
  poseAt(t: number, out: KinematicState, moving = true, maxS = MAX_EXTRAPOLATION_S): KinematicState {
    const tau = moving && this.t === this.t ? Math.min(Math.max(t - this.t, 0), maxS) : 0;
    return ctra(this.x, this.y, this.yaw, this.speed, this.accel, this.yawRate, this.yawAccel, tau, out);
  }
}

/** the last fit's results (module scratch: fit is synchronous and never re-entered mid-use) */
let fitRate = 0;
let fitCurve = 0;

/**
 * Constant acceleration a and a yaw rate w changing at wd (for at most YAW_ACCEL_HORIZON_S) from (x, y, yaw, v)
 * over tau seconds; a braking car stops (and stops turning) where its speed reaches 0. Integrated at the midpoints
 * of steps of at most INTEGRATION_STEP_S (exact for the speed and the yaw, which are polynomials in time).
 */
export function ctra(x: number, y: number, yaw: number, v: number, a: number, w: number, wd: number, tau: number, out: KinematicState): KinematicState {
  let t = tau;
  if (a < 0 && v + a * t < 0) t = v > 0 ? -v / a : 0;
  const steps = Math.max(1, Math.ceil(t / INTEGRATION_STEP_S));
  const h = t / steps;
  let px = x, py = y;
  for (let k = 0; k < steps; k++) {
    const tm = (k + 0.5) * h;
    const vm = v + a * tm;
    const ym = yawAt(yaw, w, wd, tm);
    px += vm * h * Math.cos(ym);
    py += vm * h * Math.sin(ym);
  }
  out.x = px;
  out.y = py;
  out.yaw = wrap(yawAt(yaw, w, wd, t));
  out.speed = v + a * t;
  return out;
}

/** The yaw after s seconds with rate w changing at wd for at most YAW_ACCEL_HORIZON_S, then held. */
function yawAt(yaw: number, w: number, wd: number, s: number): number {
  const sa = s < YAW_ACCEL_HORIZON_S ? s : YAW_ACCEL_HORIZON_S;
  return yaw + w * s + wd * sa * (s - 0.5 * sa);
}

function wrap(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}

function clamp(v: number, max: number): number {
  return v > max ? max : v < -max ? -max : v;
}
