/**
 * An NPC held at a junction's line for a steady stream of people on the crosswalk at its exit claims its turn after
 * IMPATIENT_S (give-way.ts) even when the junction rules hold it at that same line now and then (issue 43 item 5,
 * FMTC seed 4: an NPC at J4's line for J3's crosswalks, held by them on J3's green and by the box rule on its red,
 * started its count afresh at every change and stood 180 s, flagged stuck).
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

/** Seconds until an NPC coming along EB has turned past the crosswalk, with `people` people about and the junction's
 * signal green for greenS, then red for redS, over and over (Infinity: not within limitS). */
async function secondsToTurn(people: number, greenS: number, redS: number, limitS: number): Promise<{ turnedAt: number; struck: number; entries: number }> {
  const sc = new LiveScene(rightTurnMapWithExitCrosswalk(), policy.fork(), { npc_target: 0, pedestrians: people, seed: 3 });
  sc.reset();
  const junction = sc.control.layout.junctions[0].junction.id;
  const show = (code: string) => {
    const states: Record<string, string> = {};
    for (const g of sc.control.layout.groups) states[g.id] = code;
    sc.control.controller.setLive({ junction, states: states as never, timeout_s: 600 });
  };
  show('g');
  const lane = sc.lanes.laneById('EB');
  let id = -1;
  let turnedAt = Infinity;
  const cycle = greenS + redS;
  let shown = 'g';
  for (let k = 0; k * POLICY_DT < limitS && turnedAt === Infinity; k++) {
    const t = k * POLICY_DT;
    // the NPC comes once the people's stream is under way
    if (t >= 30 && id < 0) {
      const p = sc.lanes.pose(lane, sc.lanes.lanes[lane].length - 30);
      id = sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 6, keepDriving: false });
    }
    const want = t < 30 || (t - 30) % cycle < greenS ? 'g' : 'r';
    if (want !== shown) {
      show(want);
      shown = want;
    }
    await sc.advanceTo(t);
    const n = id < 0 ? undefined : sc.snapshot().npcs.find((v) => v.id === id);
    if (n && n.y < CROSS_Y - 6) turnedAt = t - 30;
  }
  const s = sc.people.summary();
  return { turnedAt, struck: s.people_struck, entries: s.npc_crosswalk_entries_with_person };
}

describe('an NPC claims its turn at a junction for a stream of people', () => {
  it('after standing IMPATIENT_S at its line, though a red there held it now and then, it turns', async () => {
    // greens of 8 s: never 10 s on end held for the people
    const r = await secondsToTurn(20, 8, 4, 90);
    expect(r.turnedAt).toBeLessThan(40);
    expect(r.struck).toBe(0);
    expect(r.entries).toBe(0);
  }, 120_000);
});
