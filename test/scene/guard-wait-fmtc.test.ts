/**
 * An NPC the contact guard brakes waits for the vehicle it braked for (NpcView.waitingFor), before whatever the
 * shield chose: the guard's braking is what it does. On FMTC × 30 seed 2 (J7, t ≈ 484 s) an NPC turning left
 * stood braked by the guard for one that followed it, each the other's; the braked one reported nothing, no
 * gridlock ring was seen, and the two stood 11 s in the junction until another recycling took one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertNgii } from '../../src/map/ngii/convert.js';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT, WAITING_FOR_EGO, type TrafficEngine } from '../../src/traffic/engine.js';
import { AgentKind } from '../../src/traffic/world.js';
import { testModel } from '../helpers/server-fixture.js';
import { have } from '../helpers/prerequisites.js';
import { sharedPath } from '../helpers/shared.js';

describe.skipIf(!have('shared'))('what an NPC the contact guard brakes waits for (FMTC converted from ../shared)', () => {
  it('the vehicle the guard braked it for, as its id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-guard-wait-'));
    const mapPath = join(dir, 'fmtc.json');
    writeFileSync(mapPath, JSON.stringify((await convertNgii(sharedPath('data', 'ngii', 'fmtc'))).map));
    const { scene, release } = await setupScene({ mapPath, modelPath: testModel(), config: { npc_target: 30, seed: 2 } });
    try {
      scene.reset();
      const e = (scene as unknown as { engine: TrafficEngine }).engine;
      const guard = e.guard!;
      const slots = (e as unknown as { slotById: Map<number, number> }).slotById;
      let braked = 0;
      for (let k = 0; k < 150; k++) {
        await scene.advanceTo(k * POLICY_DT);
        for (const n of e.npcs()) {
          const s = slots.get(n.id)!;
          const j = guard.brakedForSlot[s];
          if (!guard.braked[s] || j < 0) continue;
          braked++;
          expect(n.waitingFor).toBe(e.world.kind[j] === AgentKind.Controlled ? e.world.id[j] : WAITING_FOR_EGO);
        }
      }
      expect(braked).toBeGreaterThan(0);
    } finally {
      release();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
