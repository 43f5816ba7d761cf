/**
 * Violations counted from geometry, the same with the rules on or off (src/scene/rules/line-watch.ts, issue 41
 * item 1): a figure that stays 0 whatever the NPCs do proves nothing. With the rules switched off the demo track's
 * NPCs run the red at J1 and the watch counts every run (and records it as an event); with them on, none. A right
 * turn on red is counted unless the NPC stopped fully at the line first; a stop sign run without a full stop.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile, type LoadedMap } from '../../src/map/scene-json.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene, type SceneEvent } from '../../src/scene/index.js';
import { POLICY_DT } from '../../src/traffic/engine.js';
import { crossingMap, rightTurnMap } from '../helpers/junction-maps.js';
import { testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

async function drive(map: LoadedMap, config: object, seconds: number, setup?: (sc: LiveScene) => void) {
  const sc = new LiveScene(map, policy.fork(), { seed: 1, ...config });
  sc.reset();
  const events: SceneEvent[] = [];
  sc.on((e) => events.push(e));
  setup?.(sc);
  for (let k = 1; k <= seconds / POLICY_DT; k++) await sc.advanceTo(k * POLICY_DT);
  return { sc, figures: sc.control.metrics.violations(), runs: events.filter((e) => e.type === 'npc_ran_line') };
}

describe('stop-line violations from geometry', () => {
  it('the demo track with the rules off: the NPCs run J1\'s red and every run is counted and recorded; with the rules on, none', async () => {
    const off = await drive(TRACK, { npc_target: 30, traffic_rules: false }, 60);
    expect(off.figures.line_crossings).toBeGreaterThan(10);
    expect(off.figures.red_light_violations).toBeGreaterThan(5);
    expect(off.runs).toHaveLength(off.figures.red_light_violations);
    expect(off.runs.every((e) => e.type === 'npc_ran_line' && e.kind === 'red' && /^J1\.[AB]$/.test(e.group) && e.speed > 0)).toBe(true);
    const on = await drive(TRACK, { npc_target: 30 }, 60);
    expect(on.figures.line_crossings).toBeGreaterThan(10);
    expect(on.figures.red_light_violations).toBe(0);
    expect(on.runs).toHaveLength(0);
    console.log(`demo track, 30 NPCs, 60 s: rules off ${off.figures.red_light_violations} red runs in ${off.figures.line_crossings} crossings; rules on ${on.figures.red_light_violations} in ${on.figures.line_crossings}`);
  }, 120_000);

  it('a right turn on red: counted without the full stop at the line (rules off), not after it (rules on)', async () => {
    const map = rightTurnMap();
    const setRed = (sc: LiveScene) => {
      const cj = sc.control.layout.junctions[0];
      const states = Object.fromEntries(sc.control.layout.groups.map((g) => [g.id, 'r']));
      sc.control.controller.setLive({ junction: cj.junction.id, states, timeout_s: 600 });
      const eb = sc.lanes.lanes.findIndex((l) => l.id === 'EB');
      const p = sc.lanes.pose(eb, sc.lanes.lanes[eb].length - 30);
      sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 6, keepDriving: false });
    };
    const off = await drive(map, { npc_target: 0, traffic_rules: false }, 20, setRed);
    expect(off.figures).toMatchObject({ red_light_violations: 1, right_turns_on_red_without_stop: 1 });
    expect(off.runs[0]).toMatchObject({ kind: 'red', turn: 'right' });
    const on = await drive(map, { npc_target: 0 }, 25, setRed);
    expect(on.figures.line_crossings).toBe(1);
    expect(on.figures).toMatchObject({ red_light_violations: 0, right_turns_on_red_without_stop: 0 });
  }, 120_000);

  it('a stop sign: counted when crossed without a full stop (rules off), not when the NPC stops first (rules on)', async () => {
    const map = crossingMap({ signs: { EB: 'stop', WB: 'stop', NB: 'stop', SB: 'stop' } });
    const one = (sc: LiveScene) => {
      const eb = sc.lanes.lanes.findIndex((l) => l.id === 'EB');
      const p = sc.lanes.pose(eb, 150 - 40);
      sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 7, keepDriving: false });
    };
    const off = await drive(map, { npc_target: 0, traffic_rules: false }, 15, one);
    expect(off.figures).toMatchObject({ stop_sign_violations: 1, line_crossings: 1 });
    expect(off.runs[0]).toMatchObject({ kind: 'stop_sign' });
    const on = await drive(map, { npc_target: 0 }, 20, one);
    expect(on.figures).toMatchObject({ stop_sign_violations: 0, line_crossings: 1 });
  }, 120_000);
});
