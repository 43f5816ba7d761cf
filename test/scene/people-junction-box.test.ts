/**
 * An NPC does not stand inside a junction for people on the crosswalk at its exit (issue 43 item 5): before the
 * junction it waits at its line while a person walks that crosswalk in its path (it used to creep in once its front
 * reached the line's margin and stand in the junction, FMTC's J6), and a stand inside a junction held for people is
 * reported as held by `crosswalk` (the junction figures used to be taken before the give-way wrote its stops: 'none').
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { POLICY_DT } from '../../src/traffic/engine.js';
import { EXIT_CROSSWALK_Y, rightTurnMapWithExitCrosswalk } from '../helpers/junction-maps.js';
import { testModel } from '../helpers/server-fixture.js';

let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

/** the exit crosswalk's axis across SOUTH (rightTurnMapWithExitCrosswalk) */
const CROSS_Y = EXIT_CROSSWALK_Y;
/** the junction's entry on EB */
const ENTRY_X = -8;

function sceneOn(): LiveScene {
  const sc = new LiveScene(rightTurnMapWithExitCrosswalk(), policy.fork(), { npc_target: 0, pedestrians: 0, seed: 1 });
  sc.reset();
  const states: Record<string, string> = {};
  for (const g of sc.control.layout.groups) states[g.id] = 'g';
  sc.control.controller.setLive({ junction: sc.control.layout.junctions[0].junction.id, states: states as never, timeout_s: 600 });
  return sc;
}

describe('NPCs and the crosswalk at a junction exit', () => {
  it('an NPC before the junction waits at its line while a person walks the exit crosswalk in its path, then goes', async () => {
    const sc = sceneOn();
    const lane = sc.lanes.laneById('EB');
    const p = sc.lanes.pose(lane, sc.lanes.lanes[lane].length - 40);
    const id = sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 8, keepDriving: false });
    // a slow walker (0.5 m/s: 17 s across) steps on from the west kerb as the NPC comes
    const person = sc.people.walkers.place(0, 1, 0, 0.5, 0);
    expect(person).toBeGreaterThan(0);
    let maxFrontXWhileInPath = -Infinity;
    let stoodAtLine = 0;
    let turned = false;
    for (let k = 0; k < 500 && !turned; k++) {
      await sc.advanceTo(k * POLICY_DT);
      const snap = sc.snapshot();
      const n = snap.npcs.find((v) => v.id === id);
      if (!n) break;
      const frontX = n.x + 0.5 * n.length * Math.cos(n.yaw);
      const walker = snap.npcs.find((v) => v.id === person);
      // the person is in the lane's path until past its body (x = −1.75 ± 1 m) and a margin
      if (walker && walker.x < -1.75 + 2.5) {
        maxFrontXWhileInPath = Math.max(maxFrontXWhileInPath, frontX);
        if (n.speed < 0.1) {
          stoodAtLine++;
          expect(n.hold).toBe('crosswalk');
        }
      }
      if (n.y < CROSS_Y - 5) turned = true;
    }
    // it stood (for seconds) with its front before the junction's entry, never in the junction, and went after
    expect(stoodAtLine * POLICY_DT).toBeGreaterThan(3);
    expect(maxFrontXWhileInPath).toBeLessThan(ENTRY_X);
    expect(turned).toBe(true);
    expect(sc.people.summary().people_struck).toBe(0);
    expect(sc.people.summary().npc_crosswalk_entries_with_person).toBe(0);
    expect(sc.control.metrics.summary().junction_stands_over_10s).toBe(0);
  }, 60_000);

  it('a stand inside the junction held for people is reported as held by crosswalk', async () => {
    const sc = sceneOn();
    // already in the junction, on the turn, rolling slowly: committed, it stops before the stripes inside it
    const lane = sc.lanes.laneById('EB_RIGHT');
    const p = sc.lanes.pose(lane, 1);
    const id = sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 1, keepDriving: false });
    const person = sc.people.walkers.place(0, 1, 0, 0.3, 0);
    expect(person).toBeGreaterThan(0);
    for (let k = 0; k * POLICY_DT < 20; k++) await sc.advanceTo(k * POLICY_DT);
    const j = sc.control.metrics.summary();
    expect(j.junction_stands_over_10s).toBe(1);
    expect(j.long_stands[0]).toMatchObject({ npc: id, held_by: 'crosswalk' });
    expect(sc.people.summary().people_struck).toBe(0);
  }, 60_000);
});
