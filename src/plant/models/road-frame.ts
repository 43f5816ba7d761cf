/**
 * Road plane under the vehicle from the contact normals: the tangential gravity components in the body
 * heading frame and the normal gravity. Flat ground gives zero tangential gravity and the full g.
 */
import type { ContactSet } from '../contact.js';
import { useDoubleFields } from '../double-fields.js';
import { GRAVITY } from '../types.js';

export class RoadFrame {
  /** Tangential gravity along the road-projected body x and y [m/s²]. */
  gx = 0;
  gy = 0;
  /** Road normal in the heading frame (x forward, y left). */
  nxBody = 0;
  nyBody = 0;
  cosSlope = 1;
  hasNormal = true;
  /** Centripetal terms vx·r and vy·r [m/s²] held over the substep (inputs of gPerp). */
  vxR = 0;
  vyR = 0;
  /** Normal acceleration max(0, g·cos θ + vx·r·n_y − vy·r·n_x), 0 without a road normal [m/s²]. */
  gPerp = 9.80665;

  constructor() {
    useDoubleFields(this, ['gx', 'gy', 'nxBody', 'nyBody', 'cosSlope', 'vxR', 'vyR', 'gPerp']);
  }

  /** Computes the frame for the heading state[yawIndex] [rad]. */
  update(contacts: Readonly<ContactSet>, state: Float64Array, yawIndex: number): void {
    const yaw = state[yawIndex];
    let nx = 0;
    let ny = 0;
    let nz = 0;
    for (let i = 0; i < 4; i++) {
      if (!contacts.valid[i]) continue;
      const ax = contacts.normal[3 * i];
      const ay = contacts.normal[3 * i + 1];
      const az = contacts.normal[3 * i + 2];
      const n = Math.sqrt(ax * ax + ay * ay + az * az);
      if (!(n > 1e-12) || !Number.isFinite(n)) continue;
      nx += ax / n;
      ny += ay / n;
      nz += az / n;
    }
    const nn = Math.sqrt(nx * nx + ny * ny + nz * nz);
    this.hasNormal = nn > 1e-9;
    if (!this.hasNormal) {
      this.gx = this.gy = this.nxBody = this.nyBody = 0;
      this.cosSlope = 0;
      this.gPerp = 0;
      return;
    }
    nx /= nn;
    ny /= nn;
    nz /= nn;
    this.cosSlope = Math.max(0, nz);
    const c = Math.cos(yaw);
    const s = Math.sin(yaw);
    // x_road = heading projected onto the road plane; y_road = n × x_road.
    const dot = c * nx + s * ny;
    let xx = c - dot * nx;
    let xy = s - dot * ny;
    let xz = -dot * nz;
    const xn = Math.sqrt(xx * xx + xy * xy + xz * xz);
    if (xn > 1e-12) {
      xx /= xn;
      xy /= xn;
      xz /= xn;
    } else {
      // heading parallel to the normal: rebuild from body-lateral
      xx = -nz;
      xy = 0;
      xz = nx;
    }
    const yz = nx * xy - ny * xx;
    this.gx = -GRAVITY * xz;
    this.gy = -GRAVITY * yz;
    this.nxBody = c * nx + s * ny;
    this.nyBody = -s * nx + c * ny;
    const g = GRAVITY * this.cosSlope + this.vxR * this.nyBody - this.vyR * this.nxBody;
    this.gPerp = g > 0 ? g : 0;
  }
}
