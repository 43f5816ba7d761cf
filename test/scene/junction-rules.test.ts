/**
 * NPCs at junctions (src/scene/rules/rules.ts), in live scenes on simulation time with the S75 policy: red → they
 * stop at the line and queue, green → they go; an all-way stop serves the approaches in the order their vehicles
 * stopped; a car standing in the junction holds crossing NPCs; a live signal input overrides the plan through the
 * clearances and times out back to it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile, parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import { convertNgii } from '../../src/map/ngii/convert.js';
import type { Movement } from '../../src/map/junctions.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { POLICY_DT } from '../../src/traffic/engine.js';
import { crossingMap, rightTurnMap } from '../helpers/junction-maps.js';
import { testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT, sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

function sceneOn(map: LoadedMap, config = {}): LiveScene {
  const s = new LiveScene(map, policy.fork(), { npc_target: 0, seed: 1, ...config });
  s.reset();
  return s;
}

/** The movement of a junction that starts on lane `laneId`. */
function movementFrom(sc: LiveScene, laneId: string): Movement {
  const cj = sc.control.layout.junctions[0];
  const m = cj.movements.find((mv) => sc.lanes.lanes[mv.pieces[0].lane].id === laneId || sc.lanes.lanes[mv.entry.lane].id === laneId);
  if (!m) throw new Error(`no movement from ${laneId}`);
  return m;
}

/** How far a vehicle's front is past the movement's stop line (negative: before it). */
function frontPast(m: Movement, n: { x: number; y: number; length: number }): number {
  return (n.x - m.entry.x) * Math.cos(m.entry.yaw) + (n.y - m.entry.y) * Math.sin(m.entry.yaw) + 0.5 * n.length;
}

/** A spawn `back` m before the movement's line, along its entry lane. */
function before(sc: LiveScene, m: Movement, back: number, speed: number) {
  const p = sc.lanes.pose(m.entry.lane, m.entry.s - back);
  return { x: p.x, y: p.y, yaw: p.yaw, speed, keepDriving: false };
}

// the S75 policy is what drives up to the lines; a random-weight stand-in does not drive
const RUN = have('shared');
describe.skipIf(!RUN)('NPCs at junctions (S75 policy)', () => {

  it('red: NPCs stop at the line and queue behind the first; green: they all go; no contact, no violation', async () => {
    const sc = sceneOn(TRACK);
    const ctl = sc.control.controller;
    const A = sc.control.layout.groups.find((g) => g.id === 'J1.A')!;
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'r', 'J1.B': 'r' }, timeout_s: 600 });
    const ids: Array<{ id: number; m: Movement }> = [];
    for (const lane of A.lanes) {
      const m = movementFrom(sc, lane);
      for (const back of [18, 40]) ids.push({ id: sc.spawnNpc(before(sc, m, back, 8)), m });
    }
    let worstPast = -Infinity;
    for (let k = 0; k < 400; k++) {
      await sc.advanceTo(k * POLICY_DT);
      for (const n of sc.snapshot().npcs) {
        const me = ids.find((i) => i.id === n.id);
        if (me) worstPast = Math.max(worstPast, frontPast(me.m, n));
      }
    }
    expect(worstPast).toBeLessThanOrEqual(0);
    const snap = sc.snapshot();
    for (const lane of A.lanes) {
      const mine = ids.filter((i) => sc.lanes.lanes[i.m.pieces[0].lane].id === lane || sc.lanes.lanes[i.m.entry.lane].id === lane);
      const states = mine.map((i) => ({ ...i, n: snap.npcs.find((n) => n.id === i.id)! })).sort((a, b) => frontPast(b.m, b.n) - frontPast(a.m, a.n));
      const [first, second] = states;
      expect(first.n.speed).toBeLessThan(0.3);
      expect(second.n.speed).toBeLessThan(0.3);
      // the first within 2.5 m of the line, held by the red light; the second close behind it, in the queue
      expect(frontPast(first.m, first.n)).toBeGreaterThan(-2.5);
      expect(first.n.hold).toBe('red');
      expect(frontPast(first.m, first.n) - frontPast(second.m, second.n)).toBeLessThan(first.n.length + 6);
      expect(second.n.hold).toBe('queue');
    }
    // green for A: everyone crosses
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'G' }, timeout_s: 600 });
    const crossed = new Set<number>();
    for (let k = 400; k < 650; k++) {
      await sc.advanceTo(k * POLICY_DT);
      for (const n of sc.snapshot().npcs) {
        const me = ids.find((i) => i.id === n.id);
        if (me && frontPast(me.m, n) > 5) crossed.add(n.id);
      }
    }
    expect([...crossed].sort()).toEqual(ids.map((i) => i.id).sort());
    expect(sc.quality.summary().vehicle_contact_steps).toBe(0);
    const j = sc.control.metrics.summary();
    expect(j.red_light_violations).toBe(0);
    // where they waited: at J1, all four for the red line (the second of each lane shows 'queue' but keeps to the
    // line too), most of the 40 s of red
    expect(j.held_by_junction.map((h) => h.junction)).toEqual(['J1']);
    const [h] = j.held_by_junction;
    expect(h.red).toBeGreaterThan(4 * 30);
    expect(h.red).toBeLessThanOrEqual(4 * 40 + 0.1);
    expect(h.give_way + h.box + h.stop_sign).toBe(0);
    expect(Math.abs(h.npc_s - (h.red + h.yellow))).toBeLessThanOrEqual(0.1);
  }, 120_000);

  it('an all-way stop: every NPC stops fully at its line, and of two crossing approaches the one that stopped first goes first', async () => {
    const map = crossingMap({ signs: { EB: 'stop', WB: 'stop', NB: 'stop', SB: 'stop' } });
    const sc = sceneOn(map);
    expect(sc.control.layout.junctions[0].control).toBe('all_way_stop');
    // arrival order by distance: NB, then EB, SB, WB
    const plan: Array<[string, number]> = [['NB', 14], ['EB', 26], ['SB', 38], ['WB', 50]];
    const npc = plan.map(([lane, back]) => {
      const m = movementFrom(sc, lane);
      return { lane, m, id: sc.spawnNpc(before(sc, m, back, 6)), stoppedAt: Infinity, crossedAt: Infinity, minSpeedNearLine: Infinity };
    });
    for (let k = 0; k < 700; k++) {
      const t = k * POLICY_DT;
      await sc.advanceTo(t);
      for (const n of sc.snapshot().npcs) {
        const me = npc.find((i) => i.id === n.id);
        if (!me) continue;
        const past = frontPast(me.m, n);
        if (past > -3 && past <= 0) me.minSpeedNearLine = Math.min(me.minSpeedNearLine, n.speed);
        if (n.speed <= 0.1 && past > -3 && past <= 0 && me.stoppedAt === Infinity) me.stoppedAt = t;
        if (past > 0 && me.crossedAt === Infinity) me.crossedAt = t;
      }
    }
    for (const me of npc) {
      expect(me.stoppedAt, `${me.lane} stopped at its line`).toBeLessThan(Infinity);
      expect(me.crossedAt, `${me.lane} crossed`).toBeLessThan(Infinity);
      expect(me.crossedAt).toBeGreaterThan(me.stoppedAt);
    }
    const by = (lane: string) => npc.find((i) => i.lane === lane)!;
    for (const [a, b] of [['NB', 'EB'], ['NB', 'WB'], ['SB', 'EB'], ['SB', 'WB']]) {
      const first = by(a).stoppedAt < by(b).stoppedAt ? by(a) : by(b);
      const second = first === by(a) ? by(b) : by(a);
      expect(first.crossedAt, `${first.lane} stopped before ${second.lane} and goes first`).toBeLessThan(second.crossedAt);
    }
    console.log(`all-way stop: ${npc.map((i) => `${i.lane} stopped ${i.stoppedAt.toFixed(1)} s, crossed ${i.crossedAt.toFixed(1)} s`).join('; ')}`);
    expect(sc.control.metrics.summary().stop_sign_violations).toBe(0);
    expect(sc.quality.summary().vehicle_contact_steps).toBe(0);
  }, 120_000);

  it('right turn on red (Korean law): a full stop at the line, then it turns, giving way to the green stream it merges with; set off, it waits for green', async () => {
    const map = rightTurnMap();
    const run = async (config: object, stream: boolean, seconds: number) => {
      const sc = sceneOn(map, config);
      const cj = sc.control.layout.junctions[0];
      expect(cj.control).toBe('signal');
      const groups = sc.control.layout.groups;
      const m = movementFrom(sc, 'EB_RIGHT');
      expect(m.turn).toBe('right');
      const eb = cj.groupOfMovement[cj.movements.indexOf(m)];
      const sb = cj.groupOfMovement[cj.movements.indexOf(movementFrom(sc, 'SB_THRU'))];
      expect(eb).toBeGreaterThanOrEqual(0);
      expect(sb).not.toBe(eb);
      sc.control.controller.setLive({ junction: cj.junction.id, states: { [groups[eb].id]: 'r', [groups[sb].id]: 'G' }, timeout_s: 600 });
      // on the lane before the junction's lane, `back` m before the line
      const on = (lane: string, line: number, back: number, speed: number) => {
        const k = sc.lanes.lanes.findIndex((l) => l.id === lane);
        const p = sc.lanes.pose(k, sc.lanes.lanes[k].length + line - back);
        return { x: p.x, y: p.y, yaw: p.yaw, speed, keepDriving: false };
      };
      const me = { id: sc.spawnNpc(on('EB', m.entry.s, 25, 6)), stoppedAt: Infinity, crossedAt: Infinity, codeAtCrossing: '', worstPast: -Infinity, holds: new Set<string>() };
      const others = stream ? [20, 42, 64, 86, 108].map((back) => sc.spawnNpc(on('SB', movementFrom(sc, 'SB_THRU').entry.s, back, 9))) : [];
      for (let k = 0; k < seconds / POLICY_DT; k++) {
        const t = k * POLICY_DT;
        await sc.advanceTo(t);
        const n = sc.snapshot().npcs.find((v) => v.id === me.id);
        if (!n) continue;
        const past = frontPast(m, n);
        me.worstPast = Math.max(me.worstPast, past);
        if (n.hold) me.holds.add(n.hold);
        if (n.speed <= 0.1 && past > -3 && past <= 0 && me.stoppedAt === Infinity) me.stoppedAt = t;
        if (past > 0 && me.crossedAt === Infinity) {
          me.crossedAt = t;
          me.codeAtCrossing = sc.control.controller.code(eb);
        }
      }
      expect(sc.quality.summary().vehicle_contact_steps).toBe(0);
      expect(sc.control.metrics.summary().red_light_violations).toBe(0);
      return { ...me, othersLeft: others.length };
    };
    const alone = await run({}, false, 25);
    expect(alone.holds.has('red')).toBe(true);
    expect(alone.stoppedAt).toBeLessThan(Infinity);
    expect(alone.crossedAt).toBeGreaterThan(alone.stoppedAt);
    expect(alone.crossedAt).toBeLessThan(Infinity);
    expect(alone.codeAtCrossing).toBe('r');
    // a stream on SB's green: it waits after its stop for the stream to pass, then turns, still on red
    const merging = await run({}, true, 40);
    expect(merging.holds.has('give_way')).toBe(true);
    expect(merging.crossedAt).toBeGreaterThan(alone.crossedAt + 3);
    expect(merging.crossedAt).toBeLessThan(Infinity);
    expect(merging.codeAtCrossing).toBe('r');
    // the setting off: it stands at the line for as long as it is red
    const waits = await run({ right_turn_on_red: false }, false, 25);
    expect(waits.worstPast).toBeLessThanOrEqual(0);
    expect(waits.crossedAt).toBe(Infinity);
    console.log(`right turn on red: alone stopped ${alone.stoppedAt.toFixed(1)} s, crossed ${alone.crossedAt.toFixed(1)} s; behind a stream crossed ${merging.crossedAt.toFixed(1)} s`);
  }, 120_000);

  it('a decision to go on at a yellow holds for that pass only: round the track again, the NPC stops at a yellow it can stop for', async () => {
    const sc = sceneOn(TRACK);
    const ctl = sc.control.controller;
    const rules = sc.control.rules;
    // the R loop passes J1 from R6 (group A), then from R3 (group B), then from R6 again: 805 m a lap
    const m = movementFrom(sc, 'R6');
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'r' }, timeout_s: 900 });
    let k = 0;
    let travelled = 0;
    let id = -1;
    const step = async () => {
      await sc.advanceTo(++k * POLICY_DT);
      const me = sc.snapshot().npcs.find((v) => v.id === id);
      travelled += (me?.speed ?? 0) * POLICY_DT;
      return me;
    };
    for (; k < 80; ) await step();
    id = sc.spawnNpc({ ...before(sc, m, 80, 11), keepDriving: true });
    // first pass: A turns yellow when the NPC is 12 m from the line, too close to stop at 3 m/s², so it goes on
    let n = await step();
    while (n && frontPast(m, n) < -12) n = await step();
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'r', 'J1.B': 'G' }, timeout_s: 900 });
    while (n && frontPast(m, n) < 5) n = await step();
    expect(n, 'the NPC crossed on yellow').toBeDefined();
    expect(sc.snapshot().signals.find((g) => g.id === 'J1.A')!.code).toBe('y');
    // then through J1 from R3 on green (half a lap on), and A green again for its way round
    const lapStart = travelled;
    while (n && travelled - lapStart < 500) n = await step();
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'r' }, timeout_s: 900 });
    // second pass: A turns yellow just before the NPC comes within deciding distance, where it can stop comfortably
    const decideAt = (v: number) => Math.max(40, (v * v) / 4 + 10);
    const toLine = (v: { x: number; y: number }) => Math.hypot(v.x - m.entry.x, v.y - m.entry.y);
    while (n && !(travelled - lapStart > 650 && toLine(n) - 0.5 * n.length < decideAt(n.speed) + 4)) n = await step();
    expect(n, 'the NPC came round').toBeDefined();
    expect(frontPast(m, n!)).toBeLessThan(-40);
    ctl.setLive({ junction: 'J1', states: { 'J1.A': 'r', 'J1.B': 'G' }, timeout_s: 900 });
    let worstPast = -Infinity;
    const holds = new Set<string>();
    for (let i = 0; i < 150 && n; i++) {
      n = await step();
      if (!n) break;
      worstPast = Math.max(worstPast, frontPast(m, n));
      holds.add(n.hold);
    }
    expect(worstPast).toBeLessThanOrEqual(0);
    expect(holds.has('yellow')).toBe(true);
    expect(sc.control.metrics.summary().red_light_violations).toBe(0);
  }, 120_000);

  it('a car standing in the junction holds the crossing NPCs at their line, however green; they go once it has left', async () => {
    const sc = sceneOn(TRACK);
    const ctl = sc.control.controller;
    const A = sc.control.layout.groups.find((g) => g.id === 'J1.A')!;
    const B = sc.control.layout.groups.find((g) => g.id === 'J1.B')!;
    ctl.setLive({ junction: 'J1', states: { 'J1.B': 'G', 'J1.A': 'r' }, timeout_s: 600 });
    // the car stands in the middle of the crossing, on approach A's path
    const carLane = movementFrom(sc, A.lanes[0]);
    const p = sc.lanes.pose(carLane.entry.lane, carLane.entry.s + 10);
    const ids = B.lanes.flatMap((lane) => {
      const m = movementFrom(sc, lane);
      return [{ id: sc.spawnNpc(before(sc, m, 30, 8)), m }];
    });
    let worstPast = -Infinity;
    let held = 0;
    for (let k = 0; k < 200; k++) {
      const t = k * POLICY_DT;
      sc.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed: 0 }, t);
      await sc.advanceTo(t);
      for (const n of sc.snapshot().npcs) {
        const me = ids.find((i) => i.id === n.id);
        if (!me) continue;
        worstPast = Math.max(worstPast, frontPast(me.m, n));
        if (n.hold === 'give_way') held++;
      }
    }
    expect(worstPast).toBeLessThanOrEqual(0);
    expect(held).toBeGreaterThan(0);
    expect(sc.egoCollisionSteps).toBe(0);
    sc.removeEgo('car');
    const crossed = new Set<number>();
    for (let k = 200; k < 400; k++) {
      await sc.advanceTo(k * POLICY_DT);
      for (const n of sc.snapshot().npcs) {
        const me = ids.find((i) => i.id === n.id);
        if (me && frontPast(me.m, n) > 5) crossed.add(n.id);
      }
    }
    expect(crossed.size).toBe(ids.length);
  }, 120_000);

  it('a stand of more than 10 s inside a junction is reported with its movement, NPC, start, length and what held it', async () => {
    const sc = sceneOn(TRACK);
    sc.control.controller.setLive({ junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'r' }, timeout_s: 600 });
    const m = movementFrom(sc, 'R6');
    const cj = sc.control.layout.junctions[0];
    const movement = `J1.${cj.movements.indexOf(m)}`;
    // a car stands just past the crossing on R6's way; an NPC in the crossing behind it has to wait there
    const car = sc.lanes.pose(m.exit.lane, m.exit.s + 3);
    const start = sc.lanes.pose(m.entry.lane, m.entry.s + 3);
    let k = 0;
    const run = async (until: number, withCar: boolean) => {
      for (; k * POLICY_DT < until; k++) {
        if (withCar) sc.updateEgo({ egoId: 'car', x: car.x, y: car.y, yaw: car.yaw, speed: 0 }, k * POLICY_DT);
        await sc.advanceTo(k * POLICY_DT);
      }
    };
    await run(6, false);
    const id = sc.spawnNpc({ x: start.x, y: start.y, yaw: start.yaw, speed: 2, keepDriving: true });
    await run(25, true);
    let j = sc.control.metrics.summary();
    expect(j.junction_stands_over_10s).toBe(1);
    expect(j.long_stands).toHaveLength(1);
    const [going] = j.long_stands;
    expect(going).toMatchObject({ junction: 'J1', movement, npc: id, held_by: 'none' });
    expect(going.from_s).toBeGreaterThan(6);
    expect(going.from_s).toBeLessThan(12);
    expect(going.seconds).toBeCloseTo(25 - POLICY_DT - going.from_s, 0);
    // the car leaves: the NPC drives on, and its stand is kept with its length
    sc.removeEgo('car');
    await run(40, false);
    j = sc.control.metrics.summary();
    expect(j.long_stands).toHaveLength(1);
    expect(j.long_stands[0].from_s).toBe(going.from_s);
    expect(j.long_stands[0].seconds).toBeGreaterThanOrEqual(going.seconds);
    expect(j.long_stands[0].seconds).toBeLessThan(going.seconds + 3);
  }, 120_000);
});

describe.skipIf(!RUN)('red-light figures on FMTC (map converted from ../shared)', () => {
  it('a car that jumps from before a red line to before another junction far off has not run the red (a GNSS jump, a re-placed ego)', async () => {
    const fmtc = parseMapJson(JSON.parse(JSON.stringify((await convertNgii(sharedPath('data', 'ngii', 'fmtc'))).map)), 'fmtc');
    const sc = sceneOn(fmtc);
    const layout = sc.control.layout;
    const j3 = layout.junctions.find((cj) => cj.junction.id === 'J3')!;
    const j4 = layout.junctions.find((cj) => cj.junction.id === 'J4')!;
    sc.control.controller.setLive({ junction: 'J3', states: Object.fromEntries(j3.groups.map((g) => [layout.groups[g].id, 'r'])), timeout_s: 600 });
    // J3's approach from lane 208 (red), 30 m out; then J4's movement from lane 044, 15 m out
    const laneNamed = (id: string) => sc.lanes.lanes.findIndex((l) => l.id === id);
    const atJ3 = j3.movements.find((m) => m.entry.lane === laneNamed('A2235W000208'))!;
    const atJ4 = j4.movements.find((m) => m.entry.lane === laneNamed('A2235W000044'))!;
    const p1 = sc.lanes.pose(atJ3.entry.lane, atJ3.entry.s - 30);
    const p2 = sc.lanes.pose(atJ4.entry.lane, atJ4.entry.s - 15);
    let k = 0;
    for (; k * POLICY_DT < 8; k++) await sc.advanceTo(k * POLICY_DT);
    expect(sc.snapshot().signals.filter((g) => g.junction === 'J3').every((g) => g.code === 'r')).toBe(true);
    for (const [p, until] of [[p1, 9], [p2, 10]] as const) {
      for (; k * POLICY_DT < until; k++) {
        sc.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed: 5 }, k * POLICY_DT);
        await sc.advanceTo(k * POLICY_DT);
      }
    }
    expect(sc.control.metrics.summary().ego_red_light_runs).toBe(0);
    // … while driving over the line on red is one
    for (; k * POLICY_DT < 13; k++) {
      const p = sc.lanes.pose(atJ3.entry.lane, Math.min(atJ3.entry.s - 4 + (k * POLICY_DT - 10) * 2, atJ3.entry.s));
      sc.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed: 2 }, k * POLICY_DT);
      await sc.advanceTo(k * POLICY_DT);
    }
    expect(sc.control.metrics.summary().ego_red_light_runs).toBe(1);
  }, 120_000);
});

describe('signals on simulation time in a live scene', () => {
  it('a live input overrides the plan through yellow and all-red, and times out back to the plan', async () => {
    const sc = sceneOn(TRACK);
    const plan = sc.control.controller.plan('J1')!;
    await sc.advanceTo(2);
    const greenNow = sc.snapshot().signals.find((s) => s.code === 'G')!.id;
    const other = greenNow === 'J1.A' ? 'J1.B' : 'J1.A';
    sc.control.controller.setLive({ junction: 'J1', states: { [other]: 'G' }, timeout_s: 10 });
    const changes: Array<{ t: number; states: string; source: string }> = [];
    for (let k = 21; k <= 600; k++) {
      const t = k * POLICY_DT;
      await sc.advanceTo(t);
      const sig = sc.snapshot().signals;
      const states = sig.map((s) => `${s.id}:${s.code}`).join(' ');
      expect(sig.filter((s) => s.code === 'G' || s.code === 'y').length, `t=${t.toFixed(1)} ${states}`).toBeLessThanOrEqual(1);
      if (!changes.length || changes[changes.length - 1].states !== states) changes.push({ t, states, source: sig[0].source });
    }
    const at = (i: number) => changes[i];
    expect(at(0).states).toContain(`${greenNow}:y`);
    expect(at(1).t - at(0).t).toBeCloseTo(plan.yellow_s, 5);
    expect(at(1).states).toContain(`${greenNow}:r`);
    expect(at(2).t - at(1).t).toBeCloseTo(plan.all_red_s, 5);
    expect(at(2).states).toContain(`${other}:G`);
    // the timeout (10 s from the input at 2 s): the live green ends in yellow, and the plan takes over again
    expect(changes.find((c) => c.t > 11.95 && c.states.includes(`${other}:y`))!.t).toBeCloseTo(12, 5);
    const last = sc.snapshot();
    expect(last.signals.every((s) => s.source === 'plan')).toBe(true);
    // … showing what the plan says at this time
    let tc = (60 - plan.offset_s) % plan.cycle_s;
    let phase = plan.phases[0];
    for (const ph of plan.phases) {
      if (tc < ph.duration_s) { phase = ph; break; }
      tc -= ph.duration_s;
    }
    const cj = sc.control.layout.junctions[0];
    expect(sc.control.controller.junctionStates(cj)).toBe(phase.states);
  }, 60_000);

  it('vehicle-actuated: a car coming to the empty crossing on red calls its green, which comes before it reaches the line; without it the green rests', async () => {
    const sc = new LiveScene(TRACK, policy.fork(), { npc_target: 0, seed: 1 }, { signalsActuated: true });
    sc.reset();
    const plan = sc.control.controller.plan('J1')!;
    expect(plan.actuated).toBeDefined();
    // nobody anywhere: the first green rests
    for (let k = 0; k <= 1200; k++) await sc.advanceTo(k * POLICY_DT);
    const red = sc.snapshot().signals.find((s) => s.code === 'r')!;
    expect(sc.snapshot().signals.filter((s) => s.code === 'G').length).toBe(1);
    const group = sc.control.layout.groups.find((g) => g.id === red.id)!;
    const m = movementFrom(sc, group.lanes[0]);
    const speed = 10;
    let greenAt = NaN, lineAt = NaN;
    for (let k = 1201; k <= 1500; k++) {
      const t = k * POLICY_DT;
      const back = 150 - speed * (t - 120);
      const p = sc.lanes.pose(m.entry.lane, m.entry.s - back);
      sc.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed }, t);
      await sc.advanceTo(t);
      if (Number.isNaN(greenAt) && sc.snapshot().signals.find((s) => s.id === red.id)!.code === 'G') greenAt = t;
      if (Number.isNaN(lineAt) && back <= 2.5) lineAt = t;
    }
    expect(greenAt).toBeLessThan(lineAt);
    // called when it was within 6 s of the line at its speed; the rest is the other green's yellow and all-red
    expect(greenAt - (lineAt - 6)).toBeLessThanOrEqual(plan.yellow_s + plan.all_red_s + 0.3);
  }, 60_000);
});
