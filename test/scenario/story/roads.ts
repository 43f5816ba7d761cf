/**
 * Test fixtures for the story: a straight one-way road along +x (lane R at y = 0, lane L at y = 3.5 to its left
 * when it has two lanes), an ego moved by the test itself (longitudinal kinematics only), and a loop that
 * feeds the runner snapshots as a host would.
 */
import { buildRoadEntities } from '../../../src/map/index.js';
import type { LaneJson } from '../../../src/map/scene-json.js';
import { LaneNetwork } from '../../../src/traffic/lanes.js';
import { parseStory } from '../../../src/scenario/story/parse.js';
import { StoryRunner } from '../../../src/scenario/story/runner.js';
import type { ActorPose, AttemptResult, Happening, StoryCommand, StoryVehicle } from '../../../src/scenario/story/world.js';

export const LANE_WIDTH = 3.5;

export function straightRoad(lanes: 1 | 2, length = 1000): LaneNetwork {
  const roads = [{ type: 'lane', geometry: [{ x: 0, y: 0 }, { x: length, y: 0 }] }];
  const graph: LaneJson[] = [{ id: 'R', road_index: 0, next: [], left: lanes === 2 ? 'L' : null, right: null }];
  if (lanes === 2) {
    roads.push({ type: 'lane', geometry: [{ x: 0, y: LANE_WIDTH }, { x: length, y: LANE_WIDTH }] });
    graph.push({ id: 'L', road_index: 1, next: [], left: null, right: 'R' });
  }
  return new LaneNetwork(buildRoadEntities(roads as never, { x: 0, y: 0 }, { gpudriveCaps: false }), { lanes: graph });
}

export interface Ego extends StoryVehicle {
  id: string;
}

export function ego(x: number, speedKmh: number, id = 'sim1', y = 0): Ego {
  return { id, x, y, yaw: 0, speed: speedKmh / 3.6, accel: 0, length: 4.5, width: 2 };
}

/** One step of the ego's longitudinal motion at `accel` (it never reverses). */
export function move(e: Ego, accel: number, dt: number): void {
  const v1 = Math.max(0, e.speed + accel * dt);
  e.x += 0.5 * (e.speed + v1) * dt;
  e.accel = (v1 - e.speed) / dt;
  e.speed = v1;
}

export interface Run {
  runner: StoryRunner;
  poses: ActorPose[];
  happenings: Happening[];
  commands: StoryCommand[];
  /** the actors' poses after every step, flattened (x, y, yaw, speed per actor) */
  trace: number[];
  result: AttemptResult;
  steps: number;
}

/**
 * Runs a story: `control` gives the ego's acceleration from what it sees at t (the actors' poses at t). Stops
 * when the story ends or after maxSteps; then finishes it (the host's duration).
 */
export function runStory(yamlDoc: unknown, net: LaneNetwork, egos: Ego[], control: (t: number, poses: readonly ActorPose[]) => number, dt = 0.1, maxSteps = 400, others: StoryVehicle[] = []): Run {
  const spec = parseStory(yamlDoc, 'test.yaml');
  const runner = new StoryRunner(spec, net);
  const poses = runner.newPoses();
  const world = { t: 0, vehicles: [...egos, ...others] as StoryVehicle[] };
  runner.place(world, poses);
  world.vehicles = [...egos, ...others, ...poses];
  const happenings: Happening[] = [];
  const commands: StoryCommand[] = [];
  const trace: number[] = [];
  let k = 0;
  for (; k < maxSteps && !runner.isEnded; k++) {
    world.t = k * dt;
    const a = control(world.t, poses);
    const r = runner.step(world, dt, poses);
    happenings.push(...r.happenings);
    commands.push(...r.commands);
    for (const p of poses) trace.push(p.x, p.y, p.yaw, p.speed);
    move(egos[0], a, dt);
  }
  runner.finish(k * dt);
  return { runner, poses, happenings, commands, trace, result: runner.result(), steps: k };
}

/** TTC from the ego to a pose ahead on a straight road along +x (bumper gap / closing speed). */
export function ttcAhead(e: Ego, p: StoryVehicle): number {
  const gap = p.x - e.x - (p.length + e.length) / 2;
  const closing = e.speed - p.speed;
  if (p.x <= e.x) return Infinity;
  return gap <= 0 ? 0 : closing > 0 ? gap / closing : Infinity;
}
