/**
 * Kinematic helpers both rooms use: how long a vehicle takes to cover a distance (the rules' gap checks, the
 * signals' clearance times) and the speed a lane allows.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { DEFAULT_SPEED_LIMIT_MPS } from './kit-params.js';

/** The time to cover d from speed v, accelerating at a up to vmax (at least 0.5 m/s) [s]. */
export function timeToCover(d: number, v: number, a: number, vmax: number): number {
  if (d <= 0) return 0;
  const top = Math.max(vmax, v, 0.5);
  if (v >= top) return d / top;
  const t1 = (top - v) / a;
  const d1 = v * t1 + 0.5 * a * t1 * t1;
  if (d <= d1) return (-v + Math.sqrt(v * v + 2 * a * d)) / a;
  return t1 + (d - d1) / top;
}

/** A lane's speed limit, DEFAULT_SPEED_LIMIT_MPS (50 km/h) where the map gives none [m/s]. */
export function speedLimitOf(lanes: LaneNetwork, lane: number): number {
  const v = lanes.lanes[lane].speedLimit;
  return Number.isFinite(v) ? v : DEFAULT_SPEED_LIMIT_MPS;
}
