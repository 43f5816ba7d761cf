/**
 * The built-in `control: internal` driver of vdsim_realtime (spec §2.4): without a path it holds the spawn
 * speed, going straight; with a path it follows it by pure pursuit. Speed law ax = clamp(0.8·(v_target − vx),
 * −3, 3), throttle = ax/3 (or brake = −ax/3), each ≤ 1. Path: nearest waypoint, then forward along the
 * polyline (wrapping) until `lookahead` metres are covered; the target in body axes (dx, dy), ld = max(1,
 * hypot); steer = clamp(atan2(2·L·dy, ld²), ±max_steer_angle_wheel); v_target = that waypoint's vx when > 0,
 * else the spawn speed. Allocation-free.
 */
import type { VehicleParams } from '../plant/params/vehicle.js';
import type { VehicleState } from '../plant/state.js';
import type { DriverCommand } from '../plant/types.js';

export interface Waypoint {
  x: number;
  y: number;
  /** Target speed at this point [m/s]; ≤ 0 = the default (spawn) speed. */
  vx: number;
}

export class InternalController {
  constructor(
    private readonly vp: Readonly<VehicleParams>,
    private readonly cruiseVx: number,
    private readonly path: readonly Waypoint[] = [],
    private readonly lookahead = 8,
  ) {}

  /** Writes this tick's command for the true state `s` into `out`. */
  update(s: Readonly<VehicleState>, out: DriverCommand): DriverCommand {
    out.steer = 0;
    out.throttle = 0;
    out.brake = 0;
    out.gear = 1;
    out.handbrake = false;
    let vTarget = this.cruiseVx;
    const pts = this.path;
    if (pts.length > 0) {
      let i0 = 0;
      let dMin = Infinity;
      for (let i = 0; i < pts.length; i++) {
        const d = (pts[i].x - s.x) ** 2 + (pts[i].y - s.y) ** 2;
        if (d < dMin) {
          dMin = d;
          i0 = i;
        }
      }
      let j = i0;
      let acc = 0;
      while (acc < this.lookahead) {
        const nj = (j + 1) % pts.length;
        acc += Math.hypot(pts[nj].x - pts[j].x, pts[nj].y - pts[j].y);
        j = nj;
        if (j === i0) break;
      }
      const ex = pts[j].x - s.x;
      const ey = pts[j].y - s.y;
      const c = Math.cos(-s.yaw);
      const sn = Math.sin(-s.yaw);
      const dx = c * ex - sn * ey;
      const dy = sn * ex + c * ey;
      const ld = Math.max(1, Math.hypot(dx, dy));
      const maxSteer = this.vp.maxSteerAngleWheel > 0 ? this.vp.maxSteerAngleWheel : 0.5;
      out.steer = Math.min(maxSteer, Math.max(-maxSteer, Math.atan2(2 * this.vp.wheelbase * dy, ld * ld)));
      if (pts[j].vx > 0) vTarget = pts[j].vx;
    }
    const ax = Math.min(3, Math.max(-3, 0.8 * (vTarget - s.vx)));
    if (ax >= 0) out.throttle = Math.min(1, ax / 3);
    else out.brake = Math.min(1, -ax / 3);
    return out;
  }
}
