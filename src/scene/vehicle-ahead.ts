/**
 * Is something ahead of a slow NPC — a vehicle in its path within 15 m, or the one its shield waits for? The
 * quality figures ask it every step to tell an NPC that waits from one that is stuck; apart from them because it
 * is geometry with an exactness argument of its own (mayReachPath), tested on its own.
 */
import { WAITING_FOR_EGO, type NpcView } from '../traffic/engine.js';
import { hypot } from '../util/hypot.js';
import { VEHICLE_AHEAD_M, VEHICLE_AHEAD_PATH_MARGIN_M } from './tuning.js';

/** Where the other vehicles are, for "is something ahead of this stopped NPC". */
export interface VehiclePoint {
  x: number;
  y: number;
  /** heading [rad], when known */
  yaw?: number;
  /** an NPC's id (egos have none) */
  id?: number;
  /** its size, when known [m]: then a vehicle counts as ahead when its body reaches into the path ahead */
  length?: number;
  width?: number;
}

/**
 * Is the NPC held back by its shield for a vehicle within 15 m (a car crossing or merging in front of it that
 * the ±35° cone misses)? Waiting for an ego always counts.
 */
export function heldBackNear(n: NpcView, vehicles: readonly VehiclePoint[]): boolean {
  if (n.waitingFor === WAITING_FOR_EGO) return true;
  if (n.waitingFor < 0) return false;
  for (const v of vehicles) {
    if (v.id === n.waitingFor) return hypot(v.x - n.x, v.y - n.y) <= VEHICLE_AHEAD_M + n.length;
  }
  return false;
}

/**
 * Can a vehicle of this size at (along, lat) in the NPC's frame reach into its path ahead, whatever its heading?
 * Its reach along and across the NPC's heading, 0.5·(|cos|·length + |sin|·width) and the like, is at most
 * 0.5·(length + width) as computed (rounding is monotone), so when this says no, vehicleAhead's test with the
 * heading says no too: a shortcut past its two trigonometric calls, never a different answer.
 */
export function mayReachPath(along: number, lat: number, hl: number, hw: number, length: number, width: number): boolean {
  const most = 0.5 * (length + width);
  return along + most > hl && along - most < hl + VEHICLE_AHEAD_M && lat - most < hw + VEHICLE_AHEAD_PATH_MARGIN_M;
}

/**
 * The nearest vehicle within 15 m ahead of the NPC, or null: its centre within ±35° of the NPC's heading, or
 * (its size known) its body reaching into the NPC's path ahead (a car across the junction in front of it).
 */
export function vehicleAhead(n: NpcView, vehicles: readonly VehiclePoint[]): VehiclePoint | null {
  const c = Math.cos(n.yaw), s = Math.sin(n.yaw);
  const hl = 0.5 * n.length, hw = 0.5 * n.width;
  let best: VehiclePoint | null = null;
  let bestAlong = Infinity;
  for (const v of vehicles) {
    if (v.id === n.id) continue;
    const dx = v.x - n.x, dy = v.y - n.y;
    const along = dx * c + dy * s;
    const lat = Math.abs(-dx * s + dy * c);
    if (along >= bestAlong) continue;
    let ahead = along > 0.5 && along <= VEHICLE_AHEAD_M + n.length && lat <= along * 0.7;
    if (!ahead && v.length !== undefined && v.width !== undefined && v.yaw !== undefined && mayReachPath(along, lat, hl, hw, v.length, v.width)) {
      // its box in the NPC's frame: how far it reaches along and across the NPC's heading
      const cr = Math.abs(Math.cos(v.yaw - n.yaw)), sr = Math.abs(Math.sin(v.yaw - n.yaw));
      const reachAlong = 0.5 * (cr * v.length + sr * v.width);
      const reachAcross = 0.5 * (sr * v.length + cr * v.width);
      ahead = along + reachAlong > hl && along - reachAlong < hl + VEHICLE_AHEAD_M && lat - reachAcross < hw + VEHICLE_AHEAD_PATH_MARGIN_M;
    }
    if (ahead) {
      best = v;
      bestAlong = along;
    }
  }
  return best;
}
