/**
 * Car-following (MotionPredictor.follow) sees the leader of a stopped NPC: a queue at a crossing stands
 * behind its first car because the IDM term holds it, not because the shield overrides every step. The
 * search box used to be the NPC's predicted bounds, which for a stopped NPC are its own spot, so a
 * stopped NPC never had a leader and its policy's "go" was overridden at every step it queued.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT, type TrafficEngine } from '../../src/traffic/engine.js';
import { AgentKind } from '../../src/traffic/world.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';

describe('car-following', () => {
  it('a stopped NPC with a vehicle on its lane path a few metres ahead has a finite follow limit below free acceleration', async () => {
    const { scene, release } = await setupScene({ mapPath: join(PROJECT_ROOT, 'maps', 'demo-track.json'), modelPath: testModel(), config: { npc_target: 30, seed: 2 } });
    try {
      scene.reset();
      const engine = (scene as unknown as { engine: TrafficEngine }).engine;
      const p = engine.shield!.predictor;
      const w = engine.world;
      let queued = 0;
      for (let k = 0; k < 900; k++) {
        await scene.advanceTo(k * POLICY_DT);
        for (let j = 0; j < w.count; j++) {
          if (!w.present[j] || w.kind[j] !== AgentKind.Controlled || !p.onLane[j] || w.speed(j) > 0.1) continue;
          // a vehicle whose centre is on j's path 3-6 m ahead of j's nose (beyond the IDM's 2.5 m rest gap)
          const b = j * p.maxPath;
          for (let o = 0; o < w.count; o++) {
            if (o === j || !w.present[o]) continue;
            const ahead = Math.round(0.5 * (w.length[j] + w.length[o])) + 3;
            let onPath = false;
            for (let s = ahead; s <= ahead + 3 && s < p.pathN[j]; s++) {
              if (Math.hypot(p.pathX[b + s] - w.x[o], p.pathY[b + s] - w.y[o]) < 0.5 * w.width[j]) onPath = true;
            }
            if (!onPath || w.speed(o) > 0.1) continue;
            queued++;
            expect(p.followLimit[j]).toBeLessThan(1.9); // IDM at rest 3-6.5 m behind: 0.6-1.7 m/s² (free road: 2; before: Infinity)
          }
        }
      }
      // the demo track's crossing queues up on this seed (the test must see queues to mean anything)
      expect(queued).toBeGreaterThan(20);
    } finally {
      await release();
    }
  }, 120_000);
});
