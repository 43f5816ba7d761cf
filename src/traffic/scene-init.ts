/**
 * Scene initialisation (spec §7.1–7.5, 7.15–7.16): object order (SDC, tracks_to_predict, objects of
 * interest, then file order), which objects become agents (vehicles valid at t = 0, at most 64), and
 * which of them are static, controlled or log-replay experts. Coordinates are made relative to the
 * float32 world mean.
 */
import type { SceneJson, SceneObjectJson } from '../map/types.js';
import { worldMean } from '../map/world-mean.js';
import { AgentKind, EPISODE_STEPS, MAX_SCENE_AGENTS, World } from './world.js';

/** An agent is static when its goal is within 0.2 m of its start (isAgentStatic). */
export const STATIC_THRESHOLD = 0.2;
export const MAX_CONTROLLED_AGENTS = 64;

/** Object indices in GPUDrive's creation order (main@9275c5b6, "new agent init order"). */
export function objectCreationOrder(scene: SceneJson): number[] {
  const n = scene.objects.length;
  const md = scene.metadata ?? {};
  const used = new Uint8Array(n);
  const order: number[] = [];
  const take = (i: number) => {
    if (i >= 0 && i < n && !used[i]) {
      used[i] = 1;
      order.push(i);
    }
  };
  if (md.sdc_track_index !== undefined) take(md.sdc_track_index);
  const predict = new Set((md.tracks_to_predict ?? []).map((t) => t.track_index));
  for (let i = 0; i < n; i++) if (predict.has(i)) take(i);
  const interest = new Set(md.objects_of_interest ?? []);
  for (let i = 0; i < n; i++) if (scene.objects[i].id !== undefined && interest.has(scene.objects[i].id!)) take(i);
  for (let i = 0; i < n; i++) take(i);
  return order;
}

/** Would GPUDrive create this object as an agent (init_mode all_non_trivial, remove_non_vehicles)? */
export function isCreated(o: SceneObjectJson): boolean {
  return o.type === 'vehicle' && o.valid[0] === true;
}

export function isStatic(o: SceneObjectJson): boolean {
  const dx = Math.fround(o.goalPosition.x) - Math.fround(o.position[0].x);
  const dy = Math.fround(o.goalPosition.y) - Math.fround(o.position[0].y);
  return Math.sqrt(dx * dx + dy * dy) < STATIC_THRESHOLD;
}

export interface SceneWorld {
  readonly world: World;
  readonly mean: { x: number; y: number };
  /** object index in the JSON for every slot */
  readonly objectIndex: Int32Array;
  readonly controlled: number;
}

/** Builds the world of a scene. `extraCapacity` leaves room for injected agents. */
export function initSceneWorld(scene: SceneJson, extraCapacity = 0): SceneWorld {
  const mean = worldMean(scene);
  const f = Math.fround;
  const order = objectCreationOrder(scene).filter((i) => isCreated(scene.objects[i])).slice(0, MAX_SCENE_AGENTS);
  const world = new World(order.length + extraCapacity, EPISODE_STEPS);
  const objectIndex = new Int32Array(order.length);
  let controlled = 0;
  for (const oi of order) {
    const o = scene.objects[oi];
    const stat = isStatic(o);
    const kind = stat ? AgentKind.Static : !o.mark_as_expert && controlled < MAX_CONTROLLED_AGENTS ? AgentKind.Controlled : AgentKind.Expert;
    if (kind === AgentKind.Controlled) controlled++;
    const s = world.allocate(kind);
    objectIndex[s] = oi;
    world.id[s] = o.id ?? oi;
    world.length[s] = f(o.length);
    world.width[s] = f(o.width);
    world.goalX[s] = f(f(o.goalPosition.x) - mean.x);
    world.goalY[s] = f(f(o.goalPosition.y) - mean.y);
    world.hasLog[s] = 1;
    const T = world.logSteps;
    for (let t = 0; t < T; t++) {
      const li = s * T + t;
      const have = t < o.position.length;
      world.logValid[li] = have && o.valid[t] ? 1 : 0;
      const p = have ? o.position[t] : { x: -10000, y: -10000 };
      const v = have ? o.velocity[t] : { x: -10000, y: -10000 };
      world.logX[li] = f(f(p.x) - mean.x);
      world.logY[li] = f(f(p.y) - mean.y);
      world.logYaw[li] = f(have ? o.heading[t] : -10000);
      world.logVx[li] = f(v.x);
      world.logVy[li] = f(v.y);
    }
    world.x[s] = world.logX[s * T];
    world.y[s] = world.logY[s * T];
    world.yaw[s] = world.logYaw[s * T];
    world.vx[s] = stat ? 0 : world.logVx[s * T];
    world.vy[s] = stat ? 0 : world.logVy[s * T];
  }
  return { world, mean, objectIndex, controlled };
}
