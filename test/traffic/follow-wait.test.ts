/**
 * An NPC held back by car-following alone reports that leader as what it waits for (NpcView.waitingFor), as
 * one held back by the shield's check does. Two NPCs nosed into a junction, each on the other's lane path a
 * few metres ahead, stood still behind each other with nothing reported: no gridlock ring was seen, and the
 * stuck-NPC recycling (counted as stuck) had to clear them (FMTC).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_ACCEL } from '../../src/policy/actions.js';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT, type TrafficEngine } from '../../src/traffic/engine.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';

describe('car-following leader as what an NPC waits for', () => {
  it('an NPC whose acceleration car-following caps waits for its leader, or for a vehicle its shield check met', async () => {
    const { scene, release } = await setupScene({ mapPath: join(PROJECT_ROOT, 'maps', 'demo-track.json'), modelPath: testModel(), config: { npc_target: 30, seed: 2 } });
    try {
      scene.reset();
      const e = (scene as unknown as { engine: TrafficEngine }).engine;
      const shield = e.shield!;
      const p = shield.predictor;
      // (private: the policy's action per slot, and the slots by NPC id)
      const { actions, slotById: slots } = e as unknown as { actions: Int32Array; slotById: Map<number, number> };
      let capped = 0;
      for (let k = 0; k < 600; k++) {
        await scene.advanceTo(k * POLICY_DT);
        for (const n of e.npcs()) {
          const s = slots.get(n.id)!;
          const binding = p.leader[s] >= 0 && p.followLimit[s] < ACTION_ACCEL[actions[s]];
          if (!binding) continue;
          capped++;
          expect(shield.waitingFor[s]).toBeGreaterThanOrEqual(0);
          expect(n.waitingFor).not.toBe(-1);
        }
      }
      expect(capped).toBeGreaterThan(100);
    } finally {
      await release();
    }
  }, 120_000);
});
