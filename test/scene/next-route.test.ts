import { describe, expect, it } from 'vitest';
import type { LaneNetwork } from '../../src/traffic/lanes.js';
import { Route } from '../../src/traffic/route.js';
import { committedLanes } from '../../src/scene/next-route.js';
import { SeededRandom } from '../../src/util/random.js';

/**
 * A junction: lane 0 (east, 30 m) forks into 1 (a sharp left, north) and 2 (straight on, east); each goes on
 * into one long lane (3 after 1, 4 after 2). Only what committedLanes and Route read.
 */
function junction(): LaneNetwork {
  const lane = (length: number, heading: number, next: number[]) => ({ length, next, heading });
  const lanes = [lane(30, 0, [1, 2]), lane(20, Math.PI / 2, [3]), lane(20, 0, [4]), lane(200, Math.PI / 2, []), lane(200, 0, [])];
  return { lanes, headingAt: (l: number) => lanes[l].heading } as unknown as LaneNetwork;
}

/** a generator that always picks the first of the successors */
const firstFork = { next: () => 0 } as unknown as SeededRandom;

describe('the next trip of an NPC at the end of one (committedLanes, Route via)', () => {
  it('keeps the lanes the old route had ahead, then takes the straightest fork as far as it looks ahead', () => {
    const net = junction();
    // 25 m along lane 0: 5 m to the fork; the straight fork (2), then its lane (4)
    expect(committedLanes(net, [0], 25)).toEqual([0, 2, 4]);
    expect(committedLanes(net, [0], 25, 20)).toEqual([0, 2]);
    // enough road ahead already: nothing added
    expect(committedLanes(net, [0, 1], 25, 20)).toEqual([0, 1]);
    // the old route's own fork is kept (the NPC is steering for it)
    expect(committedLanes(net, [0, 1], 25)).toEqual([0, 1, 3]);
  });

  it('a route given lanes to go via takes them at the forks, where it would otherwise have taken another', () => {
    const net = junction();
    expect(new Route(net, 0, 25, 100, firstFork).lanes).toEqual([0, 1, 3]);
    expect(new Route(net, 0, 25, 100, firstFork, [0, 2, 4]).lanes).toEqual([0, 2, 4]);
    // a via lane that is no successor is ignored
    expect(new Route(net, 0, 25, 100, firstFork, [0, 3]).lanes).toEqual([0, 1, 3]);
  });
});

describe('the plan of a live NPC near the end of its route', () => {
  it('runs on past the route end: every NPC has its lanes known at least LANES_AHEAD_M ahead', async () => {
    const { join } = await import('node:path');
    const { setupScene } = await import('../../src/scene/index.js');
    const { POLICY_DT } = await import('../../src/traffic/engine.js');
    const { MAX_PLAN } = await import('../../src/traffic/predict.js');
    const { LANES_AHEAD_M } = await import('../../src/scene/tuning.js');
    const { PROJECT_ROOT } = await import('../helpers/shared.js');
    const { testModel } = await import('../helpers/server-fixture.js');
    // short trips: many route ends
    const { scene, release } = await setupScene({ mapPath: join(PROJECT_ROOT, 'maps', 'demo-track.json'), modelPath: testModel(), config: { npc_target: 20, seed: 4, trip_length_m: 120 } });
    try {
      scene.reset();
      const e = (scene as unknown as { engine: { planLanes: Int32Array; planCount: Int32Array; planS: Float32Array; npcs(): Array<{ id: number }> } }).engine;
      const slots = (e as unknown as { slotById: Map<number, number> }).slotById;
      let checked = 0;
      for (let k = 1; k < 600; k++) {
        await scene.advanceTo(k * POLICY_DT);
        for (const n of e.npcs()) {
          const s = slots.get(n.id)!;
          const count = e.planCount[s];
          if (count === 0 || count === MAX_PLAN) continue;
          let ahead = -e.planS[s];
          for (let q = 0; q < count; q++) ahead += scene.lanes.lanes[e.planLanes[s * MAX_PLAN + q]].length;
          expect(ahead).toBeGreaterThanOrEqual(LANES_AHEAD_M);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(1000);
    } finally {
      await release();
    }
  }, 120_000);
});
