/**
 * Goal check (spec §7.8, `doneSystem`): an agent whose position is strictly within 2.0 m of its goal is
 * done and has reached it; after the last episode step every agent is done. External agents have no goal.
 */
import { AgentKind, type World } from './world.js';

export const GOAL_RADIUS = 2.0;

export function goalReached(dx: number, dy: number, radius = GOAL_RADIUS): boolean {
  return Math.sqrt(dx * dx + dy * dy) < radius;
}

export function checkGoals(world: World, radius = GOAL_RADIUS): void {
  for (let i = 0; i < world.count; i++) {
    if (!world.present[i] || world.kind[i] === AgentKind.External) continue;
    if (goalReached(world.x[i] - world.goalX[i], world.y[i] - world.goalY[i], radius)) {
      world.done[i] = 1;
      world.reachedGoal[i] = 1;
    }
  }
}
