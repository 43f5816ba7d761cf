/**
 * A simulated ego lapping the demo track among 30 NPCs (configs/scenarios/demo_lap.yaml, the autopilot), 180 s
 * on each of the seeds 1 to 5. The seeds are fixed up front, not picked for passing: every one of them runs,
 * has its figures printed (lap_time, dist, npc_contacts, red_runs) and must make a lap in 180 s (over 1000 m)
 * with no NPC touching the ego and no red light run.
 *
 * Why it exists: the ego shares the signalised crossing J1 with the NPCs. It used to stand for minutes there
 * (yielding to a stream of crossing NPCs, or face to face with one) or be clipped by an NPC crossing in front of
 * it as it pulled away; NPCs now predict an ego that may speed up (MotionPredictor), and the autopilot, after
 * standing 5 s for crossing traffic (not for a red light), goes and lets the crossing vehicles yield (it still
 * waits for one moving through its way, or standing across it). The autopilot stops at red (and, when that
 * takes no more than 3 m/s², yellow) stop lines: it ran 1-3 reds a lap pair on seeds 1-5 before it knew of them,
 * and it crept over the J1.B line at ~1 m/s on seeds 2 and 6 while its brake, following a speed target, faded
 * near the line (it now brakes for the deceleration that stops it at the line, and a red line holds while it
 * can still stop by it). Seeds 6-8 (scratch/lap.mjs) are checked by hand, not here, to keep the run short.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/scenario/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const SCENARIO = join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml');
const SEEDS = [1, 2, 3, 4, 5];
const DURATION_S = 180;

describe('the demo lap among 30 NPCs, seeds 1-5', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: a lap in ${DURATION_S} s, no NPC touches the ego, no red run`, async () => {
      const sim = await Simulation.load(SCENARIO, { overrides: { seed, duration: DURATION_S } });
      try {
        await sim.run();
        const m = sim.metrics(['lap_time', 'dist', 'npc_contacts', 'red_runs']);
        console.log(`demo lap seed ${seed}: lap_time ${m.lap_time.toFixed(2)} s, dist ${m.dist.toFixed(1)} m, npc_contacts ${m.npc_contacts}, red_runs ${m.red_runs}`);
        expect(m.npc_contacts).toBe(0);
        expect(m.red_runs).toBe(0);
        expect(m.lap_time).toBeLessThan(DURATION_S);
        expect(m.dist).toBeGreaterThan(1000);
      } finally {
        await sim.close();
      }
    }, 120_000);
  }
});
