/**
 * GPUDrive's self-play evaluation of one scene (spec §7.14): 91 steps, controlled agents driven by the
 * policy, experts replaying logs; per controlled agent, goal / collided / off-road count once if they
 * happened while it was live (before its done step, including that step).
 */
import { PolicyInput } from '../policy/input.js';
import type { PolicyResult, PolicySession } from '../policy/session.js';
import { buildRoadEntities } from '../map/road-entities.js';
import { RoadIndex } from '../map/spatial-index.js';
import type { SceneJson } from '../map/types.js';
import { initSceneWorld } from './scene-init.js';
import { Sim } from './sim.js';
import { stepPolicy, type PolicyStepper } from './policy-step.js';
import { AgentKind, EPISODE_STEPS } from './world.js';
import type { KinematicState } from '../vehicle/index.js';

export interface TraceAgent extends KinematicState {
  id: number;
  action: number;
}

export interface SceneResult {
  scene: string;
  agents: number;
  goal: number;
  collided: number;
  offroad: number;
  /** per step (1..91): the controlled agents that acted, with the state after the step (world-mean frame) */
  trace?: TraceAgent[][];
}

export async function evaluateScene(scene: SceneJson, policy: PolicySession, opts: { trace?: boolean; label?: string } = {}): Promise<SceneResult> {
  const { world, mean } = initSceneWorld(scene);
  const roads = new RoadIndex(buildRoadEntities(scene.roads, mean, { gpudriveCaps: true }));
  const sim = new Sim(world, roads, { episodeSteps: EPISODE_STEPS });
  const n = world.count;
  const active = new Int32Array(n);
  const actions = new Int32Array(n);
  const goal = new Uint8Array(n);
  const collided = new Uint8Array(n);
  const offroad = new Uint8Array(n);
  const trace: TraceAgent[][] | undefined = opts.trace ? [] : undefined;
  let m = 0;
  // GPUDrive's step: the policy's actions for the agents still driving, then the world's step (spec §7.6)
  const stepper: PolicyStepper = {
    observe(input: PolicyInput) {
      m = sim.activeControlled(active);
      sim.observe(active, m, input.obs!, policy.sizeScale);
      input.n = m;
      input.counts = sim.observations.rows;
    },
    apply({ actions: chosen }: PolicyResult) {
      for (let k = 0; k < m; k++) actions[active[k]] = chosen[k];
      sim.step(actions);
      const stepTrace: TraceAgent[] = [];
      for (let k = 0; k < m; k++) {
        const i = active[k];
        if (world.reachedGoal[i]) goal[i] = 1;
        if (world.hitVehicle[i]) collided[i] = 1;
        if (world.hitRoad[i]) offroad[i] = 1;
        if (trace) stepTrace.push({ id: world.id[i], x: world.x[i], y: world.y[i], yaw: world.yaw[i], speed: world.speed(i), action: chosen[k] });
      }
      trace?.push(stepTrace);
    },
  };
  // the 2984-float layout, as GPUDrive builds it (a rows-graph session packs its rows from it)
  const input = new PolicyInput(policy, n, 'layout');
  sim.reset();
  for (let t = 0; t < EPISODE_STEPS; t++) stepPolicy(stepper, policy, input);
  let agents = 0, g = 0, c = 0, o = 0;
  for (let i = 0; i < n; i++) {
    if (world.kind[i] !== AgentKind.Controlled) continue;
    agents++;
    g += goal[i];
    c += collided[i];
    o += offroad[i];
  }
  return { scene: opts.label ?? scene.name ?? 'scene', agents, goal: g, collided: c, offroad: o, trace };
}
