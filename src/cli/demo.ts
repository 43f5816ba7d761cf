/**
 * `vils demo`: loads the policy (building it from the default checkpoint when needed), prints its
 * provenance and drives one agent (classic bicycle model) on an empty road towards a goal 60 m ahead,
 * showing the policy's choices. A smoke test a person can read.
 */
import { parseArgs } from 'node:util';
import { ACTION_ACCEL, ACTION_STEER, OBS_SIZE, PolicySession, ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS, resolvePolicyModel } from '../policy/index.js';
import { stepBicycle } from '../traffic/bicycle.js';
import type { Command } from './commands.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the policy on a simple hand-made situation and print what it does',
  usage: 'vils demo [--model <file.onnx> | --checkpoint <file.pt>] [--steps 30]',
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { model: { type: 'string' }, checkpoint: { type: 'string' }, steps: { type: 'string' } } });
    const modelPath = resolvePolicyModel({ model: values.model, checkpoint: values.checkpoint });
    const policy = await PolicySession.load(modelPath);
    const m = policy.metadata;
    console.log(`policy   ${modelPath}`);
    console.log(`source   ${m.source_file ?? '?'} (${m.source_model_name ?? '?'}), ${m.training_scenes ?? '?'}, size scale ${policy.sizeScale}`);
    const steps = Number(values.steps ?? 120);
    // One agent, 4.5 × 2 m, starting at rest, goal 60 m straight ahead; no partners, no road (padding rows).
    const obs = new Float32Array(OBS_SIZE);
    for (let r = 0; r < ROAD_ROWS; r++) obs[ROAD_OFFSET + r * ROAD_FEATURES + 6] = 1;
    const car = { x: 0, y: 0, yaw: 0, vx: 0, vy: 0 };
    const goal = { x: 60, y: 0 };
    for (let k = 0; k < steps; k++) {
      const dx = goal.x - car.x;
      const dy = goal.y - car.y;
      if (Math.hypot(dx, dy) < 2) {
        console.log(`goal reached after ${(k * 0.1).toFixed(1)} s`);
        break;
      }
      const c = Math.cos(car.yaw);
      const sn = Math.sin(car.yaw);
      obs[0] = Math.hypot(car.vx, car.vy) / 100;
      obs[1] = (4.5 * policy.sizeScale) / 30;
      obs[2] = (2.0 * policy.sizeScale) / 15;
      obs[3] = (c * dx + sn * dy) / 1000;
      obs[4] = (-sn * dx + c * dy) / 1000;
      const t0 = performance.now();
      const { actions } = await policy.run(obs, 1);
      const ms = performance.now() - t0;
      const a = actions[0];
      stepBicycle(car, ACTION_ACCEL[a], ACTION_STEER[a], 4.5);
      console.log(
        `t=${(k * 0.1).toFixed(1)}s  action ${String(a).padStart(2)} (accel ${ACTION_ACCEL[a].toFixed(3)}, steer ${ACTION_STEER[a].toFixed(3)})  ` +
          `x=${car.x.toFixed(2)} y=${car.y.toFixed(2)} m  v=${Math.hypot(car.vx, car.vy).toFixed(2)} m/s  (${ms.toFixed(2)} ms)`,
      );
    }
    await policy.release();
    return 0;
  },
};
