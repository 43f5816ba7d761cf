/**
 * The paced loop of a served scenario's simulated egos in their own thread (src/session/sim-ego-loop.ts), on a
 * virtual clock: what it decides, never how fast this machine is. It ticks on the scene's grid and stamps its
 * reports with the plant time; a tick a whole period late is an overrun and the ticks it missed are skipped (one
 * plant step, never a burst); when the scene gives time up after a stall the plants keep their schedule and
 * their reports are stamped with the scene's time; paused it stands; resumed ahead of the scene it carries on at
 * once (a real-time plant never waits); a reset puts the egos back at their starts, idle until the scene runs;
 * the autopilot reads a snapshot as of the plant time that scene time stands for.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, type Scenario } from '../../src/scenario/config.js';
import { SimEgo } from '../../src/scenario/sim-ego.js';
import { PlantLoop } from '../../src/session/sim-ego-loop.js';
import type { TimedReport } from '../../src/session/sim-ego-protocol.js';
import { VirtualClock } from '../../src/time/clock.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const STEP = 0.005; // demo_lap's ego: dt 5 ms

describe('PlantLoop: the egos\' own schedule, following the scene\'s timeline', () => {
  let scenario: Scenario;
  beforeAll(async () => {
    scenario = await loadScenario(join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml'));
  });

  const make = () => {
    const clock = new VirtualClock(100);
    const egos = scenario.egos.map((s) => new SimEgo(s, { ground: scenario.map.ground, line: scenario.map.line, record: false }));
    const reports: TimedReport[] = [];
    const loop = new PlantLoop({ clock, egos, reportEveryUs: 10_000, onReports: (r) => reports.push(...r) });
    /** runs the tick due, `lateS` after it was due */
    const tick = (lateS = 0) => {
      const due = loop.due!;
      clock.advance(due + lateS - clock.now());
      loop.tick(clock.now());
    };
    return { clock, egos, reports, loop, tick };
  };

  it('ticks on the scene\'s grid and stamps each report with the plant time it stands for', () => {
    const { loop, tick, reports, egos } = make();
    expect(loop.stepUs).toBe(5000);
    expect(loop.due).toBeNull(); // idle until the scene runs
    loop.setTimeline({ running: true, simS: 0, wallS: 100 });
    expect(loop.due).toBeCloseTo(100 + STEP, 12);
    for (let i = 0; i < 4; i++) tick(0.0002);
    expect(egos[0].time).toBeCloseTo(4 * STEP, 12);
    expect(reports.map((r) => r.t)).toEqual([0.01, 0.02]); // every 10 ms of plant time, exactly on its grid
    expect(reports[0].report.egoId).toBe('sim1');
    expect(loop.aheadS).toBeCloseTo(0, 9);
    expect(loop.overruns).toBe(0);
  });

  it('a tick a whole period late or more: an overrun, the missed ticks skipped, the plants one step on', () => {
    const { loop, tick, egos } = make();
    loop.setTimeline({ running: true, simS: 0, wallS: 100 });
    tick();
    const due = loop.due!;
    tick(3.5 * STEP);
    expect(loop.overruns).toBe(1);
    expect(loop.skippedTicks).toBe(3);
    expect(egos[0].time).toBeCloseTo(2 * STEP, 12); // one step, not four in a burst
    expect(loop.due).toBeCloseTo(due + 4 * STEP, 12); // still on its schedule's grid
    expect(loop.aheadS).toBeCloseTo(-3 * STEP, 9); // the plant behind the scene by the skipped ticks
  });

  it('the scene gives time up after a stall: the plants keep their schedule, their reports take the scene\'s time', () => {
    const { loop, tick, reports, egos } = make();
    loop.setTimeline({ running: true, simS: 0, wallS: 100 });
    for (let i = 0; i < 2; i++) tick();
    const due = loop.due!;
    // the runner slipped 0.5 s: the same clock instant now stands for 0.5 s less of simulation time
    loop.setTimeline({ running: true, simS: 0.01 - 0.5, wallS: 100.01 });
    expect(loop.due).toBe(due);
    for (let i = 0; i < 2; i++) tick();
    expect(egos[0].time).toBeCloseTo(4 * STEP, 12);
    expect(reports.map((r) => r.t)).toEqual([0.01, 0.02 - 0.5]);
    expect(loop.aheadS).toBeCloseTo(0.5, 9);
  });

  it('paused it stands; resumed behind the scene by less than a period it takes the scene\'s grid, ahead of it it carries on at once', () => {
    const { loop, tick, clock, egos } = make();
    loop.setTimeline({ running: true, simS: 0, wallS: 100 });
    for (let i = 0; i < 3; i++) tick();
    loop.setTimeline({ running: false, simS: 3 * STEP, wallS: clock.now() });
    expect(loop.due).toBeNull();
    expect(loop.running).toBe(false);
    clock.advance(5);
    // resumed where it paused: the next tick one period on
    loop.setTimeline({ running: true, simS: 3 * STEP, wallS: clock.now() });
    expect(loop.due).toBeCloseTo(clock.now() + STEP, 9);
    tick();
    expect(egos[0].time).toBeCloseTo(4 * STEP, 12);
    // paused again, and resumed with the scene 0.2 s behind the plant: no 0.2 s wait, the next tick a period on
    loop.setTimeline({ running: false, simS: 4 * STEP - 0.2, wallS: clock.now() });
    clock.advance(1);
    loop.setTimeline({ running: true, simS: 4 * STEP - 0.2, wallS: clock.now() });
    expect(loop.due).toBeCloseTo(clock.now() + STEP, 9);
    expect(loop.aheadS).toBeCloseTo(0.2, 9);
  });

  it('a reset: the egos back at their starts, time 0, idle until the scene runs again', () => {
    const { loop, tick, egos } = make();
    const start = egos[0].report();
    loop.setTimeline({ running: true, simS: 0, wallS: 100 });
    for (let i = 0; i < 200; i++) tick();
    expect(Math.hypot(egos[0].report().x - start.x, egos[0].report().y - start.y)).toBeGreaterThan(1); // it drove
    loop.reset();
    expect(loop.due).toBeNull();
    expect(loop.plantTime).toBe(0);
    expect(egos[0].report()).toEqual(start);
  });

  it('a policy step\'s traffic: each ego sees the others that are not stale, and counts its own contacts', () => {
    const { loop, egos } = make();
    const npc = { x: 0, y: 0, vx: 0, vy: 0, length: 4.5, width: 1.8, yaw: 0 };
    loop.observe(0.1, [npc], [{ ...npc, egoId: 'sim1', stale: false, collided: true }], []);
    loop.observe(0.2, [npc], [{ ...npc, egoId: 'sim1', stale: true, collided: false }], []);
    expect(egos[0].sceneSteps).toBe(1);
    expect(egos[0].npcContacts).toBe(1);
  });
});
