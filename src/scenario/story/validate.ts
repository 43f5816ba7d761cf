/**
 * Whether a story can run on this map with these vehicles, decided before the run so that a set-up it cannot run
 * on is refused with every problem and its YAML key, not found out halfway through an attempt. Placing the actors
 * is part of the check (a start may be off the map or on top of a car): they are left placed at their starts.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { overlaps } from './geometry.js';
import type { ScriptedActor } from './motion.js';
import { laneIndex, laneName, pastLaneEnd, placeActor, reachableLanes, type Placement } from './placement.js';
import type { StoryReferences } from './references.js';
import type { StorySpec } from './spec.js';
import type { StoryVehicle, StoryWorld } from './world.js';

export interface StoryProblem {
  /** the YAML key path */
  key: string;
  message: string;
}

/** A set-up the story cannot run on (StoryRunner.place): every problem, each with its key. */
export class StoryRefused extends Error {
  constructor(readonly where: string, readonly problems: readonly StoryProblem[]) {
    super(`${where}: the story cannot run here:\n${problems.map((p) => `  ${p.key}: ${p.message}`).join('\n')}`);
    this.name = 'StoryRefused';
  }
}

/** The story's cast as the check needs it: its actors in the story's order, by id, and the lanes before each lane. */
export interface StoryCast {
  readonly actors: readonly ScriptedActor[];
  readonly actorIndex: ReadonlyMap<string, number>;
  readonly prev: readonly number[][];
}

/** What makes the story impossible here (unknown vehicles, lanes or junctions; actors off the map; lane changes no lane allows). Empty: it can run. */
export function validateStory(spec: StorySpec, net: LaneNetwork, refs: StoryReferences, cast: StoryCast, world: StoryWorld): StoryProblem[] {
  const { actors, actorIndex } = cast;
  const problems: StoryProblem[] = [];
  const known = new Set<string>([...actorIndex.keys(), ...world.vehicles.map((v) => v.id)]);
  for (const u of refs.uses) {
    if (u.kind === 'vehicle' && !known.has(u.id)) problems.push({ key: u.key, message: `unknown vehicle '${u.id}' (vehicles: ${[...known].slice(0, 12).join(', ')}${known.size > 12 ? ', …' : ''})` });
    if (u.kind === 'lane') {
      const l = laneIndex(net, u.id);
      if (typeof l === 'string') problems.push({ key: u.key, message: l });
    }
    if (u.kind === 'junction' && world.junctions && !world.junctions.includes(u.id)) problems.push({ key: u.key, message: `unknown junction '${u.id}' (signalised junctions: ${world.junctions.join(', ') || 'none'})` });
  }
  for (const p of refs.spots) {
    const l = net.laneById(p.lane);
    const past = l >= 0 ? pastLaneEnd(net, l, p.s) : null;
    if (past) problems.push({ key: p.key, message: past });
  }
  for (const e of spec.events) {
    for (const a of e.actions) {
      if (a.kind === 'follow_route') checkChain(net, a.lanes, `${a.key}.follow_route`, problems);
      if (a.kind === 'keep_time_gap' && a.to === a.actor) problems.push({ key: `${a.key}.keep_time_gap.to`, message: `${a.actor} cannot keep a time gap to itself` });
    }
  }
  for (const c of refs.routes.keys()) checkChain(net, c, 'route_s', problems);
  // relative to a vehicle of the world, or to an actor listed (and placed) before
  const placements: (Placement | null)[] = [];
  const view = (id: string): StoryVehicle | null => {
    const j = actorIndex.get(id);
    if (j !== undefined) return j < placements.length && placements[j] ? actors[j] : null;
    return world.vehicles.find((v) => v.id === id) ?? null;
  };
  spec.actors.forEach((a, i) => {
    const p = placeActor(a, net, cast.prev, view);
    if (typeof p === 'string') {
      // an unknown lane or vehicle of its start is said once, with its own key
      if (!problems.some((x) => x.key.startsWith(`${a.key}.start.`))) problems.push({ key: `${a.key}.start`, message: p });
      placements.push(null);
      return;
    }
    actors[i].placeAt(p.lane, p.s, p.offset, p.speed, p.across ?? 0, p.acrossEnd ?? 0);
    placements.push(p);
  });
  // lane changes to a side no lane along the actor's way has
  spec.actors.forEach((a, i) => {
    const p = placements[i];
    if (!p) return;
    let lanes: Set<number> | null = null;
    for (const e of spec.events) {
      for (const act of e.actions) {
        if (act.kind !== 'lane_change' || act.actor !== a.id || typeof act.to === 'object') continue;
        lanes ??= reachableLanes(net, p.lane);
        const side = act.to;
        if (![...lanes].some((l) => (side === 'left' ? net.lanes[l].left : net.lanes[l].right) >= 0)) {
          problems.push({ key: `${act.key}.lane_change.to`, message: `${a.id} starts on lane ${laneName(net, p.lane)} and no lane along its way has a lane to its ${side}: a lane change ${side} is impossible` });
        }
      }
    }
  });
  // actors placed on top of something
  spec.actors.forEach((a, i) => {
    if (!placements[i]) return;
    const me = actors[i];
    for (const v of world.vehicles) if (v.id !== a.id && overlaps(me, v)) problems.push({ key: `${a.key}.start`, message: `${a.id} would start overlapping ${v.id}` });
    for (let j = 0; j < i; j++) if (placements[j] && overlaps(me, actors[j])) problems.push({ key: `${a.key}.start`, message: `${a.id} would start overlapping ${actors[j].id}` });
  });
  return problems;
}

function checkChain(net: LaneNetwork, lanes: readonly string[], key: string, problems: StoryProblem[]): void {
  for (let i = 1; i < lanes.length; i++) {
    const a = net.laneById(lanes[i - 1]), b = net.laneById(lanes[i]);
    if (a >= 0 && b >= 0 && !net.lanes[a].next.includes(b)) problems.push({ key: `${key}[${i}]`, message: `lane ${lanes[i - 1]} does not lead to lane ${lanes[i]} (it leads to ${net.lanes[a].next.map((n) => laneName(net, n)).join(', ') || 'nothing'})` });
  }
}
