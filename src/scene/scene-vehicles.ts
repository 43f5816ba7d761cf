/**
 * Every vehicle of the scene in one list — the NPCs and the live egos — for what must keep clear of all of them
 * (spawns, the quality figures' contacts). Apart from the scene because the step rewrites a pool of these each
 * step rather than making new objects, and that care belongs with the list.
 */
import type { NpcView } from '../traffic/engine.js';
import type { EgoState } from './egos.js';
import type { Obstacle } from './spawn-spots.js';

/** A vehicle of the scene: an NPC (its id) or a live ego (its egoId). */
export type SceneVehicle = Obstacle & { id?: number; egoId?: string };

/** An NPC as the step's vehicles list it, rewritten every step (a class of its own: its fields hold doubles in place). */
export class StepVehicle {
  id = 0;
  x = 0;
  y = 0;
  yaw = 0;
  length = 0;
  width = 0;
  speed = 0;
}

/**
 * The NPCs `npcs` and the egos of `egos` that are not stale. With `pool`, the NPCs' objects are the pool's,
 * rewritten (the step's: nothing keeps them past it).
 */
export function sceneVehicles(npcs: readonly NpcView[], egos: readonly EgoState[], pool?: StepVehicle[]): SceneVehicle[] {
  const out: SceneVehicle[] = [];
  for (let k = 0; k < npcs.length; k++) {
    const n = npcs[k];
    if (!pool) {
      out.push({ id: n.id, x: n.x, y: n.y, yaw: n.yaw, length: n.length, width: n.width, speed: n.speed });
      continue;
    }
    if (k === pool.length) pool.push(new StepVehicle());
    const v = pool[k];
    v.id = n.id; v.x = n.x; v.y = n.y; v.yaw = n.yaw; v.length = n.length; v.width = n.width; v.speed = n.speed;
    out.push(v);
  }
  for (const e of egos) if (!e.stale) out.push({ egoId: e.egoId, x: e.x, y: e.y, yaw: e.yaw, length: e.length, width: e.width, speed: e.speed });
  return out;
}

/** The NPCs in contact with ego `egoId` (collided, and within reach of it); none when it is not among `egos`. */
export function npcsTouching(egos: readonly EgoState[], egoId: string, npcs: readonly NpcView[]): number[] {
  const e = egos.find((x) => x.egoId === egoId);
  if (!e) return [];
  return npcs.filter((n) => n.collided && Math.hypot(n.x - e.x, n.y - e.y) < (n.length + e.length) / 2 + 1).map((n) => n.id);
}
