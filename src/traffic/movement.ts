/**
 * The movement phase of a step (spec §7.6 item 1, `movementSystem`): done agents leave the world
 * (GPUDrive teleports them far away; static agents stay), controlled agents take the classic bicycle step
 * with their action, experts replay their log one step behind, static and external agents do not move.
 */
import { ACTION_ACCEL, ACTION_STEER } from '../policy/actions.js';
import { stepBicycle, type BicycleState } from './bicycle.js';
import { AgentKind, type World } from './world.js';

const scratch: BicycleState = { x: 0, y: 0, yaw: 0, vx: 0, vy: 0 };

/**
 * Continuous controls for live NPCs (the safety shield's smoothed, rate-limited steering): where `use[i]` is
 * 1, slot i moves with `accel[i]` and `steer[i]` instead of its action's table values. GPUDrive's evaluation
 * never passes any.
 */
export interface ContinuousControls {
  readonly use: Uint8Array;
  readonly accel: Float32Array;
  readonly steer: Float32Array;
}

/** `actions[i]` is the action index of slot i (ignored for non-controlled slots). */
export function moveAgents(world: World, actions: ArrayLike<number>, controls?: ContinuousControls): void {
  const logIndex = world.stepIndex;
  for (let i = 0; i < world.count; i++) {
    if (!world.present[i]) continue;
    const kind = world.kind[i];
    if (kind === AgentKind.Static || kind === AgentKind.External) continue;
    if (world.done[i]) {
      world.present[i] = 0;
      world.vx[i] = 0;
      world.vy[i] = 0;
      continue;
    }
    if (kind === AgentKind.Controlled) {
      const a = actions[i];
      scratch.x = world.x[i];
      scratch.y = world.y[i];
      scratch.yaw = world.yaw[i];
      scratch.vx = world.vx[i];
      scratch.vy = world.vy[i];
      if (controls && controls.use[i]) stepBicycle(scratch, controls.accel[i], controls.steer[i], world.length[i]);
      else stepBicycle(scratch, ACTION_ACCEL[a], ACTION_STEER[a], world.length[i]);
      world.x[i] = scratch.x;
      world.y[i] = scratch.y;
      world.yaw[i] = scratch.yaw;
      world.vx[i] = scratch.vx;
      world.vy[i] = scratch.vy;
    } else if (world.hasLog[i]) {
      const li = i * world.logSteps + Math.min(logIndex, world.logSteps - 1);
      world.x[i] = world.logX[li];
      world.y[i] = world.logY[li];
      world.yaw[i] = world.logYaw[li];
      world.vx[i] = world.logVx[li];
      world.vy[i] = world.logVy[li];
    }
  }
}
