/**
 * Ground providers: fill the four contact points for the current state (VDSim IContactProvider). Wheel
 * contact points sit under the wheel centres, which hang (cg_height − wheel_radius) below the CG.
 */
import type { ContactSet } from '../contact.js';
import type { VehicleParams } from '../params/vehicle.js';
import type { VehicleState } from '../state.js';

export interface GroundProvider {
  readonly name: string;
  query(state: Readonly<VehicleState>, vp: Readonly<VehicleParams>, out: ContactSet): void;
}

/** Wheel-centre world positions (x, y, z per wheel) for the body attitude roll/pitch/yaw (ZYX). */
export function wheelCentres(state: Readonly<VehicleState>, vp: Readonly<VehicleParams>, out: Float64Array): void {
  const a = vp.cgToFront;
  const b = vp.cgToRear;
  const tf = 0.5 * vp.trackFront;
  const tr = 0.5 * vp.trackRear;
  const hz = -(vp.cgHeight - vp.wheelRadiusNominal);
  const cr = Math.cos(state.roll);
  const sr = Math.sin(state.roll);
  const cp = Math.cos(state.pitch);
  const sp = Math.sin(state.pitch);
  const cy = Math.cos(state.yaw);
  const sy = Math.sin(state.yaw);
  // R = Rz(yaw)·Ry(pitch)·Rx(roll)
  const r00 = cy * cp;
  const r01 = cy * sp * sr - sy * cr;
  const r02 = cy * sp * cr + sy * sr;
  const r10 = sy * cp;
  const r11 = sy * sp * sr + cy * cr;
  const r12 = sy * sp * cr - cy * sr;
  const r20 = -sp;
  const r21 = cp * sr;
  const r22 = cp * cr;
  for (let i = 0; i < 4; i++) {
    const bx = i < 2 ? a : -b;
    const by = i % 2 === 0 ? (i < 2 ? tf : tr) : -(i < 2 ? tf : tr);
    out[3 * i] = state.x + r00 * bx + r01 * by + r02 * hz;
    out[3 * i + 1] = state.y + r10 * bx + r11 * by + r12 * hz;
    out[3 * i + 2] = state.z + r20 * bx + r21 * by + r22 * hz;
  }
}

/** Hub penetration below the road: max(0, (road point + n·r − hub)·n). */
export function hubPenetration(hx: number, hy: number, hz: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, r: number): number {
  const d = (px + nx * r - hx) * nx + (py + ny * r - hy) * ny + (pz + nz * r - hz) * nz;
  return d > 0 ? d : 0;
}
