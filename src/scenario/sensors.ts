/**
 * Sensor readings of a simulated ego (spec §9.1, VDSim's Simulation.get_data): the measured CG bundle (the
 * plant's sensor model: noise, bias, random walk), and per declared sensor the same moved to its mount — GNSS
 * position by R(ψ)·mount, GNSS velocity by ω×r, IMU acceleration by −r²·mount + α×mount (α the finite-difference
 * yaw acceleration) and then rotated into the mount's yaw. Cameras and lidars (declarations in VDSim) give a
 * ground-truth object list: the vehicles within `params.range_m` (default 100 m) and `params.fov_deg` (default
 * 360°) of the mount, in the sensor's frame. Roadside sensors (`host: infra:<name>`) do the same from their
 * fixed pose in the map frame.
 */
import type { SensorDeclaration } from '../plant/params/sensor.js';
import type { InfraSensor } from './config.js';
import type { SimEgo } from './sim-ego.js';

export interface CgBundle {
  gnss: { x: number; y: number; vx: number; vy: number };
  imu: { ax: number; ay: number; wz: number };
  wheel_speed: { w: [number, number, number, number] };
  steer: { angle: number };
}

export interface DetectedObject {
  kind: 'npc' | 'ego';
  id: string;
  /** position in the sensor frame (x forward, y left) [m] */
  x: number;
  y: number;
  range: number;
  /** rad, + left */
  bearing: number;
  speed: number;
}

export type SensorData =
  | ({ id: 'cg'; t: number } & CgBundle)
  | { id: string; type: 'gnss' | 'gnss_pos' | 'gnss_vel'; t: number; x: number; y: number; vx: number; vy: number }
  | { id: string; type: 'imu' | 'imu_accel' | 'imu_gyro'; t: number; ax: number; ay: number; wz: number }
  | { id: string; type: 'wheel_speed'; t: number; w: [number, number, number, number] }
  | { id: string; type: 'steer'; t: number; angle: number }
  | { id: string; type: 'camera' | 'lidar'; host: string; t: number; objects: DetectedObject[] };

/** A vehicle in the world, for object lists. */
export interface WorldObject {
  kind: 'npc' | 'ego';
  id: string;
  x: number;
  y: number;
  speed: number;
}

export function cgBundle(ego: SimEgo): { id: 'cg'; t: number } & CgBundle {
  const m = ego.session.sensorReadings;
  const w = m.wheelSpeed;
  return {
    id: 'cg', t: ego.time,
    gnss: { x: m.gnssX, y: m.gnssY, vx: m.gnssVx, vy: m.gnssVy },
    imu: { ax: m.ax, ay: m.ay, wz: m.wz },
    wheel_speed: { w: [w[0], w[1], w[2], w[3]] },
    steer: { angle: m.steer },
  };
}

/** The object list seen from (x, y, yaw) within range and field of view. */
export function objectList(x: number, y: number, yaw: number, params: Readonly<Record<string, number>>, objects: readonly WorldObject[], self?: string): DetectedObject[] {
  const range = params.range_m ?? 100;
  const halfFov = ((params.fov_deg ?? 360) * Math.PI) / 360;
  const c = Math.cos(yaw), s = Math.sin(yaw);
  const out: DetectedObject[] = [];
  for (const o of objects) {
    if (o.id === self) continue;
    const dx = o.x - x, dy = o.y - y;
    const fx = c * dx + s * dy, fy = -s * dx + c * dy;
    const r = Math.hypot(fx, fy);
    const b = Math.atan2(fy, fx);
    if (r <= range && Math.abs(b) <= halfFov + 1e-12) out.push({ kind: o.kind, id: o.id, x: fx, y: fy, range: r, bearing: b, speed: o.speed });
  }
  return out.sort((a, b) => a.range - b.range);
}

/** One declared sensor of `ego`, moved to its mount. */
export function mountedReading(ego: SimEgo, d: Readonly<SensorDeclaration>, objects: readonly WorldObject[]): SensorData {
  const cg = cgBundle(ego);
  const [mx, my] = d.mountPos;
  const st = ego.session.truth;
  const psi = st.yaw;
  const c = Math.cos(psi), s = Math.sin(psi);
  const rx = c * mx - s * my, ry = s * mx + c * my; // mount lever arm in the world frame
  const wz = cg.imu.wz;
  switch (d.type) {
    case 'gnss':
    case 'gnss_pos':
    case 'gnss_vel':
      return { id: d.id, type: d.type, t: cg.t, x: cg.gnss.x + rx, y: cg.gnss.y + ry, vx: cg.gnss.vx - wz * ry, vy: cg.gnss.vy + wz * rx };
    case 'imu':
    case 'imu_accel':
    case 'imu_gyro': {
      const r = st.yawRate;
      const a = ego.yawAccel;
      const ax = cg.imu.ax - r * r * mx - a * my;
      const ay = cg.imu.ay - r * r * my + a * mx;
      const ym = d.mountRpy[2];
      const cm = Math.cos(ym), sm = Math.sin(ym);
      return { id: d.id, type: d.type, t: cg.t, ax: cm * ax + sm * ay, ay: -sm * ax + cm * ay, wz };
    }
    case 'wheel_speed':
      return { id: d.id, type: 'wheel_speed', t: cg.t, w: cg.wheel_speed.w };
    case 'steer':
      return { id: d.id, type: 'steer', t: cg.t, angle: cg.steer.angle };
    default:
      return { id: d.id, type: d.type === 'lidar' ? 'lidar' : 'camera', host: ego.id, t: cg.t, objects: objectList(st.x + rx, st.y + ry, psi + d.mountRpy[2], d.params, objects, ego.id) };
  }
}

export function infraReading(sensor: InfraSensor, t: number, objects: readonly WorldObject[]): SensorData {
  return { id: sensor.id, type: sensor.type === 'lidar' ? 'lidar' : 'camera', host: sensor.host, t, objects: objectList(sensor.x, sensor.y, sensor.yaw, sensor.params, objects) };
}
