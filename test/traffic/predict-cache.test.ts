/**
 * MotionPredictor keeps the direction of every segment of a vehicle's lane path (pathYaw), computed at most once
 * per step and only as far as first needed (straight stretches of the bend search need none), where it used to
 * call atan2 for it on every use (bendLimit twice per point, pathPoint on every call, from the shield's rollouts
 * too). Every decision must stay the same: the directions pathPoint gives and the curve limits (whose search
 * also stops where no point further on can lower the limit, and skips points it cannot lower it at) are checked
 * against the formulas as they were, bit for bit, on a live scene of 63 NPCs.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT, type TrafficEngine } from '../../src/traffic/engine.js';
import type { MotionPredictor } from '../../src/traffic/predict.js';
import { AgentKind } from '../../src/traffic/world.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';

/** bendLimit as it was: atan2 of both segments for every point (predict.ts before the cache). */
function bendLimitBefore(p: MotionPredictor, j: number, aLat: number, decel: number): number {
  const n = p.pathN[j];
  const b = j * p.maxPath;
  const w = 4;
  let limit = Infinity;
  for (let k = 0; k + w + 1 < n; k++) {
    const h0 = Math.atan2(p.pathY[b + k + 1] - p.pathY[b + k], p.pathX[b + k + 1] - p.pathX[b + k]);
    const h1 = Math.atan2(p.pathY[b + k + w + 1] - p.pathY[b + k + w], p.pathX[b + k + w + 1] - p.pathX[b + k + w]);
    let dh = h1 - h0;
    dh -= 2 * Math.PI * Math.round(dh / (2 * Math.PI));
    const kappa = Math.abs(dh) / w;
    if (kappa < 1e-3) continue;
    const vBend = Math.sqrt(aLat / kappa);
    const v = Math.sqrt(vBend * vBend + 2 * decel * k);
    if (v < limit) limit = v;
  }
  return limit;
}

describe('MotionPredictor path directions, computed once per step', () => {
  it('equal atan2 of the segment ends; pathPoint and the curve limits as before, bit for bit', async () => {
    const { scene, release } = await setupScene({ mapPath: join(PROJECT_ROOT, 'maps', 'demo-track.json'), modelPath: testModel(), config: { npc_target: 63, seed: 2 } });
    scene.reset();
    const engine = (scene as unknown as { engine: TrafficEngine }).engine;
    const p = engine.shield!.predictor;
    const w = engine.world;
    const out = { x: 0, y: 0, yaw: 0 };
    let segments = 0, points = 0, limits = 0, mismatches = 0;
    for (let k = 0; k < 40; k++) {
      await scene.advanceTo(k * POLICY_DT);
      for (let j = 0; j < w.count; j++) {
        if (!w.present[j] || !p.onLane[j]) continue;
        const n = p.pathN[j];
        const b = j * p.maxPath;
        // the curve limit first, from the directions the step computed (pathPoint below computes the rest)
        if (w.kind[j] === AgentKind.Controlled) {
          // the shield's own settings: its curve lateral acceleration, 2 m/s² for bends (shield.ts DEFAULT_SHIELD_OPTIONS, CURVE_DECEL)
          // (curveLimit is a Float32Array)
          if (!Object.is(p.curveLimit[j], Math.fround(bendLimitBefore(p, j, engine.shield!.options.curveLateralAccel, 2)))) mismatches++;
          limits++;
        }
        for (let i = 0; i + 1 < n; i++, segments++) {
          p.pathPoint(j, i + 0.5, out);
          if (!Object.is(out.yaw, Math.atan2(p.pathY[b + i + 1] - p.pathY[b + i], p.pathX[b + i + 1] - p.pathX[b + i]))) mismatches++;
          if (!Object.is(p.pathYaw[b + i], out.yaw)) mismatches++;
        }
        for (const d of [-1, 0, 0.37, 5, 12.5, 33.3, n - 1.5, n + 10]) {
          p.pathPoint(j, d, out);
          const f = Math.min(Math.max(d, 0), n - 1);
          const i = Math.min(Math.floor(f), n - 2);
          const yaw = Math.atan2(p.pathY[b + i + 1] - p.pathY[b + i], p.pathX[b + i + 1] - p.pathX[b + i]);
          if (!Object.is(out.yaw, yaw)) mismatches++;
          points++;
        }
      }
    }
    await release();
    expect(segments).toBeGreaterThan(10_000);
    expect(points).toBeGreaterThan(1000);
    expect(limits).toBeGreaterThan(1000);
    expect(mismatches).toBe(0);
  });
});
