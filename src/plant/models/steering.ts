/** Kinematic steering: the road-wheel angle follows the command; optional partial Ackermann on the front axle. */
import type { VehicleParams } from '../params/vehicle.js';
import type { DriverCommand } from '../types.js';

/**
 * Front wheel angles for the commanded mean steer d [rad]: inner = atan(|tan d| / (1 − |tan d|·(track/2)/L)), outer with +,
 * each wheel = d + frac·(ackermann − d), frac = ackerman_percent/100. Writes [FL, FR] into out.
 */
export function ackermannAngles(vp: Readonly<VehicleParams>, cmd: Readonly<DriverCommand>, out: Float64Array): void {
  const d = cmd.steer;
  out[0] = d;
  out[1] = d;
  if (!(Math.abs(d) > 1e-6) || !(vp.ackermanPercent > 1e-9)) return;
  const frac = Math.min(1, Math.max(0, vp.ackermanPercent / 100));
  const half = 0.5 * vp.trackFront;
  const L = vp.wheelbase;
  const sgn = d >= 0 ? 1 : -1;
  const t = Math.tan(Math.abs(d));
  const inner = sgn * Math.atan(t / (1 - (t * half) / L));
  const outer = sgn * Math.atan(t / (1 + (t * half) / L));
  const fl = d > 0 ? inner : outer;
  const fr = d > 0 ? outer : inner;
  out[0] = d + frac * (fl - d);
  out[1] = d + frac * (fr - d);
}
