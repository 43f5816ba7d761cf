/**
 * Where each actor starts, from its `start:` and the world at the story's start; and the lanes an actor may
 * ever be on, for refusing lane changes no lane allows (a cut-in on a one-lane road). Problems come back as
 * messages (the runner adds the key), never as a half-placed actor.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { lanePoseInto, projectOnLane, travel, type LaneProjection } from './geometry.js';
import { MAX_LANE_OFFSET_M } from './motion.js';
import type { ActorSpec } from './spec.js';
import type { StoryVehicle } from './world.js';
import type { Pose } from '../../vehicle/index.js';

export interface Placement {
  lane: number;
  s: number;
  offset: number;
  speed: number;
  /** a person crossing the lane: +1 walking to its left, −1 to its right (0: moving along the lane) */
  across?: number;
  /** … and the offset it stops at */
  acrossEnd?: number;
}

/**
 * The impact point's offset left of the lane's centre line [m]: `share` of the vehicle's width from its near side
 * (the right: −w/2 + share·w) or its far side (the left: w/2 − share·w), the vehicle on the centre line.
 */
export function impactOffset(share: number, side: 'near' | 'far', width: number): number {
  return side === 'near' ? -width / 2 + share * width : width / 2 - share * width;
}

/** a point given by x, y (or a vehicle to place relative to) must be this close to a lane [m] */
const SNAP_M = 3;
/** how far along its way an actor's possible lanes are gathered [m] */
const REACH_M = 1000;

export function laneName(net: LaneNetwork, lane: number): string {
  return net.lanes[lane].id;
}

/** The lane's index, or a message naming a few of the map's lanes. */
export function laneIndex(net: LaneNetwork, id: string): number | string {
  const i = net.laneById(id);
  if (i >= 0) return i;
  const ids = net.lanes.slice(0, 12).map((l) => l.id);
  return `unknown lane '${id}' (the map's lanes: ${ids.join(', ')}${net.lanes.length > 12 ? `, … ${net.lanes.length} in all` : ''})`;
}

/** The message for a place past its lane's end, or null when s is on the lane. */
export function pastLaneEnd(net: LaneNetwork, lane: number, s: number): string | null {
  const len = net.lanes[lane].length;
  return s > len ? `off the map: lane ${laneName(net, lane)} is ${len.toFixed(1)} m long, s_m is ${s}` : null;
}

export function placeActor(a: ActorSpec, net: LaneNetwork, prev: readonly number[][], view: (id: string) => StoryVehicle | null): Placement | string {
  const st = a.start;
  const proj: LaneProjection = { s: 0, offset: 0 };
  if (st.kind === 'lane' || st.kind === 'cross') {
    const lane = laneIndex(net, st.lane);
    if (typeof lane === 'string') return lane;
    const past = pastLaneEnd(net, lane, st.s);
    if (past) return past;
    if (st.kind === 'lane' && !st.impact) return { lane, s: st.s, offset: st.offset, speed: st.speed };
    const impact = st.impact!;
    const ego = view(impact.of);
    if (!ego) return `unknown vehicle '${impact.of}' whose front the impact point is on`;
    const at = impactOffset(impact.share, impact.side, ego.width);
    if (st.kind === 'lane') return { lane, s: st.s, offset: at, speed: st.speed };
    // from the near side (the right) it walks to the left, from the far side to the right
    const dir = impact.side === 'near' ? 1 : -1;
    return { lane, s: st.s, offset: at - dir * st.distance, speed: st.speed, across: dir, acrossEnd: at + dir * st.beyond };
  }
  if (st.kind === 'xy') {
    const p = net.locate(st.x, st.y, st.yaw ?? undefined, SNAP_M);
    if (!p) return `off the map: no lane within ${SNAP_M} m of (${st.x}, ${st.y})${st.yaw === null ? '' : ' running that way'}`;
    return { lane: p.lane, s: p.s, offset: st.offset, speed: st.speed };
  }
  const ref = view(st.of);
  if (!ref) return `unknown vehicle '${st.of}' to place ${a.id} by`;
  const at = net.locate(ref.x, ref.y, ref.yaw, SNAP_M);
  if (!at) return `${st.of} is not on a lane (none within ${SNAP_M} m running its way), so ${a.id} cannot be placed relative to it`;
  projectOnLane(net, at.lane, ref.x, ref.y, proj);
  const reach = ref.length / 2 + Math.abs(st.gap) + a.length / 2;
  const to = { lane: 0, s: 0 };
  if (!travel(net, prev, at.lane, proj.s, st.gap >= 0 ? reach : -reach, to)) return `off the map: the lanes end less than ${reach.toFixed(1)} m ${st.gap >= 0 ? 'ahead of' : 'behind'} ${st.of}`;
  if (st.lane === 'same') return { lane: to.lane, s: to.s, offset: st.offset, speed: st.speed };
  let target: number;
  if (st.lane === 'left' || st.lane === 'right') {
    target = st.lane === 'left' ? net.lanes[to.lane].left : net.lanes[to.lane].right;
    if (target < 0) return `there is no lane to the ${st.lane} of lane ${laneName(net, to.lane)} ${st.gap >= 0 ? 'ahead of' : 'behind'} ${st.of}`;
  } else {
    const t = laneIndex(net, st.lane.id);
    if (typeof t === 'string') return t;
    target = t;
  }
  const pose: Pose = { x: 0, y: 0, yaw: 0 };
  lanePoseInto(net, to.lane, to.s, pose);
  projectOnLane(net, target, pose.x, pose.y, proj);
  if (Math.abs(proj.offset) > MAX_LANE_OFFSET_M) return `lane ${laneName(net, target)} is not beside lane ${laneName(net, to.lane)} there (${Math.abs(proj.offset).toFixed(1)} m away)`;
  return { lane: target, s: proj.s, offset: st.offset, speed: st.speed };
}

/**
 * Every lane an actor starting on `lane` may be on: the lanes ahead within REACH_M (every branch) and their
 * neighbours, and so on (a lane change puts it on a neighbour, which has lanes ahead of its own).
 */
export function reachableLanes(net: LaneNetwork, lane: number): Set<number> {
  const seen = new Set<number>();
  const best = new Map<number, number>();
  const queue: Array<[number, number]> = [[lane, 0]];
  while (queue.length) {
    const [l, d] = queue.shift()!;
    if (d > REACH_M || (best.get(l) ?? Infinity) <= d) continue;
    best.set(l, d);
    seen.add(l);
    const L = net.lanes[l];
    for (const n of L.next) queue.push([n, d + L.length]);
    if (L.left >= 0) queue.push([L.left, d]);
    if (L.right >= 0) queue.push([L.right, d]);
  }
  return seen;
}
