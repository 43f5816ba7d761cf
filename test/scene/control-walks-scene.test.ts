/**
 * Walk signals in a live scene (TrafficControl): the per-step crosswalk states the people side reads
 * (crosswalkStates(), one reused Uint8Array indexed like traffic_control.crosswalks) and the walk entries of the
 * frames' signals, on the hand-made four-way crossing with a crosswalk on its east arm and one mid-block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedMap } from '../../src/map/scene-json.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { CROSSWALK_DONT_WALK, CROSSWALK_FLASHING, CROSSWALK_NONE, CROSSWALK_WALK } from '../../src/scene/signals/walk-signals.js';
import { crossingMap } from '../helpers/junction-maps.js';
import { testModel } from '../helpers/server-fixture.js';

let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

/** a 3 m wide crossing of the east–west road at x = x0 (the road is 9 m wide) */
const across = (id: string, x0: number) => ({
  id, polygon: [{ x: x0 - 1.5, y: -4.5 }, { x: x0 + 1.5, y: -4.5 }, { x: x0 + 1.5, y: 4.5 }, { x: x0 - 1.5, y: 4.5 }],
  a: { x: x0, y: -4.5 }, b: { x: x0, y: 4.5 }, length: 9, width: 3, lanes: ['EB', 'WB'],
});

describe('walk signals in a live scene', () => {
  it('crosswalkStates() walks, flashes and stops with the plan; the frames carry the walk group; the mid-block crossing is none', () => {
    const base = crossingMap({ signals: true });
    const map: LoadedMap = { ...base, trafficControl: { ...base.trafficControl, crosswalks: [across('CW-E', 10.5), across('CW-MID', 80)] } };
    const scene = new LiveScene(map, policy.fork(), { npc_target: 0, seed: 1 });
    const states = scene.control.crosswalkStates();
    const seen = new Set<number>();
    let flashStart = -1, flashS = -1, walkEntry: unknown = null;
    let prev = -1;
    for (let k = 1; k <= 1500; k++) {
      scene.advanceTo(k / 10);
      expect(scene.control.crosswalkStates()).toBe(states); // the same array every step
      expect(states[1]).toBe(CROSSWALK_NONE);
      seen.add(states[0]);
      if (states[0] === CROSSWALK_FLASHING && prev !== CROSSWALK_FLASHING) flashStart = k / 10;
      if (states[0] === CROSSWALK_DONT_WALK && prev === CROSSWALK_FLASHING) flashS = k / 10 - flashStart;
      if (states[0] === CROSSWALK_WALK && !walkEntry) walkEntry = scene.snapshot().signals.find((e) => e.walk !== undefined);
      prev = states[0];
    }
    expect([...seen].sort()).toEqual([CROSSWALK_DONT_WALK, CROSSWALK_FLASHING, CROSSWALK_WALK]);
    expect(flashS).toBeCloseTo(9, 5);
    expect(walkEntry).toMatchObject({ walk: 'walk', code: 'G', state: 'green', crosswalks: ['CW-E'], lanes: [], left: false });
    expect((walkEntry as { id: string }).id).toMatch(/^J\d+\.walk\.1$/);
    // reset: don't walk again
    scene.reset();
    expect(states[0]).toBe(CROSSWALK_DONT_WALK);
  }, 60_000);
});
