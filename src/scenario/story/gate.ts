/**
 * The start gate (`story.start`, an Act's StartTrigger): an armed attempt waits for it before its actors are
 * placed. It runs as a story of its own — no actors, no events, the gate as its end — so its conditions keep
 * their state from step to step (a start line needs the previous step's place). Arming checks the whole story
 * before anything changes in the scene: where the gate is a start line, at the line (the vehicle there, along
 * its lane, at the line's speed), since that is where the actors will be placed around it; a gate of another
 * kind can only have its own references checked until it opens.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { lanePoseInto } from './geometry.js';
import { StoryRunner } from './runner.js';
import type { Condition, StorySpec } from './spec.js';
import type { StoryProblem } from './validate.js';
import type { StoryVehicle, StoryWorld } from './world.js';

type StartLine = Condition & { kind: 'start_line' };

/** The gate's own story: the gate condition as its end (its keys renamed back to story.start in problems). */
export function gateRunner(spec: StorySpec, net: LaneNetwork): StoryRunner {
  if (!spec.start) throw new Error('gateRunner: the story has no start gate');
  return new StoryRunner({ start: null, actors: [], events: [], criteria: [], end: spec.start, startTimeout: null, where: spec.where }, net);
}

/** The start line the gate needs, when it does (the gate itself, or one of an `all`): where the car will be. */
export function startLineOf(c: Condition): StartLine | null {
  if (c.kind === 'start_line') return c;
  if (c.kind === 'all') for (const x of c.of) if (x.kind === 'start_line') return x;
  return null;
}

/**
 * Every problem arming a gated story now would meet: the gate's own (its vehicles and lanes, keyed story.start)
 * and, for a start line, the whole story's as it would be placed at the line. `world`: the vehicles as they are
 * (the gate's references); `placing`: those the actors may not be placed on (the scene's egos; NPCs make room).
 */
export function checkGated(spec: StorySpec, net: LaneNetwork, world: StoryWorld, placing: StoryWorld): StoryProblem[] {
  const problems = gateRunner(spec, net).validate(world).map((p) => ({ ...p, key: p.key.replace(/^story\.end/, 'story.start') }));
  const line = spec.start ? startLineOf(spec.start) : null;
  if (problems.length || !line) return problems;
  return new StoryRunner(spec, net).validate(worldAtLine(line, placing, net));
}

/** The world with the line's vehicle standing on it: front bumper on the line, along the lane, at its speed. */
function worldAtLine(line: StartLine, world: StoryWorld, net: LaneNetwork): StoryWorld {
  const lane = net.laneById(line.point.lane);
  const vehicles = world.vehicles.map((v): StoryVehicle => {
    if (v.id !== line.of || lane < 0) return v;
    const p = { x: 0, y: 0, yaw: 0 };
    lanePoseInto(net, lane, Math.max(0, line.point.s - v.length / 2), p);
    return { ...v, x: p.x, y: p.y, yaw: p.yaw, speed: line.speed, accel: 0 };
  });
  return { ...world, vehicles };
}
