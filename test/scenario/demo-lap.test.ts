/**
 * A simulated ego lapping the demo track among 30 NPCs (configs/scenarios/demo_lap.yaml, the autopilot): on the
 * seeds where it used to stand for minutes at the crossing (yielding to a stream of crossing NPCs, or face to
 * face with one) or be clipped by an NPC crossing in front of it as it pulled away, it now laps with no contact.
 * Two things made that: NPCs predict an ego that may speed up (MotionPredictor: a car pulling away from a stop
 * was predicted standing), and the autopilot, after standing 5 s for crossing traffic, goes and lets the crossing
 * vehicles yield (it still waits for one moving through its way, or standing across it). The crossing is
 * signalised: the autopilot stops at the red (and stoppable yellow) stop lines it meets (it ran 1-3 reds a lap
 * pair on seeds 1-5 before it knew of them).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/scenario/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const SCENARIO = join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml');

describe('the demo lap among 30 NPCs', () => {
  for (const seed of [1, 3, 4]) {
    it(`seed ${seed}: a lap in 180 s, no NPC touches the ego, no red run`, async () => {
      const sim = await Simulation.load(SCENARIO, { overrides: { seed, duration: 180 } });
      try {
        await sim.run();
        const m = sim.metrics(['lap_time', 'dist', 'npc_contacts', 'red_runs']);
        expect(m.npc_contacts).toBe(0);
        expect(m.red_runs).toBe(0);
        expect(m.lap_time).toBeLessThan(180);
        expect(m.dist).toBeGreaterThan(1000);
      } finally {
        await sim.close();
      }
    }, 120_000);
  }
});
