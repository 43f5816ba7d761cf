/**
 * Whether a spot is free to start an NPC on: nothing on top of it, room ahead, and no car coming up behind too fast
 * to slow down for one started there. The population asks it for every automatic and requested spawn; apart from
 * it because it is geometry over the scene's vehicles, tested on its own.
 */
import { obbOverlap } from '../traffic/obb.js';
import type { Box, Pose } from '../vehicle/index.js';
import { SPAWN_BEHIND_CONE_TAN, SPAWN_BEHIND_DECEL_MPS2, SPAWN_BEHIND_M } from './tuning.js';

/** A vehicle the population must keep clear of (NPCs and live egos). */
export interface Obstacle extends Pose, Box {
  /** m/s (a vehicle coming up behind a spot needs room to slow down for a car started there) */
  speed?: number;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/**
 * Free distance ahead of a pose (to the nearest vehicle within ±40° ahead, or nearer than 8 m anywhere); 0 when
 * a vehicle heading for the spot (the spot within ±25° ahead of it; following or crossing, not oncoming)
 * could not slow down for a car started there at SPAWN_BEHIND_DECEL_MPS2.
 */
export function clearance(x: number, y: number, yaw: number, vehicles: readonly Obstacle[]): number {
  const c = Math.cos(yaw), s = Math.sin(yaw);
  let free = Infinity;
  for (const v of vehicles) {
    const dx = v.x - x, dy = v.y - y;
    const d = Math.hypot(dx, dy);
    if (d < 8) return 0;
    const vs = v.speed ?? 0;
    if (vs > 1 && d < (vs * vs) / (2 * SPAWN_BEHIND_DECEL_MPS2) + SPAWN_BEHIND_M && Math.cos(v.yaw - yaw) > -Math.SQRT1_2) {
      const cv = Math.cos(v.yaw), sv = Math.sin(v.yaw);
      const along = -dx * cv - dy * sv;
      if (along > 0 && Math.abs(dx * sv - dy * cv) < along * SPAWN_BEHIND_CONE_TAN) return 0;
    }
    const along = dx * c + dy * s;
    if (along > 0 && Math.abs(-dx * s + dy * c) < along * 0.85) free = Math.min(free, d);
  }
  return free;
}

/** The vehicle a box at this pose would overlap (full size), described for the user; null when free. */
export function overlapping(x: number, y: number, yaw: number, length: number, width: number, vehicles: readonly Obstacle[]): string | null {
  for (const v of vehicles) {
    const d = Math.hypot(v.x - x, v.y - y);
    if (d > (Math.hypot(length, width) + Math.hypot(v.length, v.width)) / 2) continue;
    if (obbOverlap(x, y, yaw, length / 2, width / 2, v.x, v.y, v.yaw, v.length / 2, v.width / 2)) {
      const what = 'id' in v ? `NPC ${(v as Obstacle & { id: number }).id}` : 'egoId' in v ? `ego ${(v as Obstacle & { egoId: string }).egoId}` : 'a vehicle';
      return `${what} (${r1(d)} m away)`;
    }
  }
  return null;
}
