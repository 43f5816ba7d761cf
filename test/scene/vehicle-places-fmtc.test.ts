/**
 * Where the rules place a vehicle among the junction movements (src/scene/rules/vehicle-places.ts), at two spots
 * of FMTC where they used to get it wrong:
 * - J19 and J2 lie closer than a car's length: a car leaving J19 has its front in J2 while its centre is still in
 *   J19. It no longer approached J2 and was not yet counted in it, so for that moment a car giving way at J2 saw
 *   nobody, went in, and the two stood in each other's path until the gridlock recycling took one (× 30 seed 11).
 * - A car waiting at J7's left-turn line stands beside the end of J7's straight movement, 2.8 m from it, going the
 *   other way as on a two-way road. The junction's outline placed it in that movement, so it counted as standing in
 *   the junction (a 20.8 s stand on × 30 seed 20) and was in the way of those crossing it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertNgii } from '../../src/map/ngii/convert.js';
import { parseMapJson } from '../../src/map/scene-json.js';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import type { RightOfWay } from '../../src/scene/rules/right-of-way.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { testModel } from '../helpers/server-fixture.js';
import { have } from '../helpers/prerequisites.js';
import { sharedPath } from '../helpers/shared.js';

describe.skipIf(!have('shared'))('vehicle places on FMTC (map converted from ../shared)', async () => {
  const fmtc = have('shared') ? parseMapJson(JSON.parse(JSON.stringify((await convertNgii(sharedPath('data', 'ngii', 'fmtc'))).map)), 'fmtc') : null;
  const setup = () => {
    const engine = new TrafficEngine(fmtc!.scene, { laneGraph: fmtc!.mapMetadata?.lane_graph });
    const control = new TrafficControl(fmtc!, engine, { rules: true });
    const { layout, rules } = control;
    const laneNamed = (id: string) => engine.lanes.lanes.findIndex((l) => l.id === id);
    const mgOf = (jid: string, entryLane: string, exitLane: string) => {
      const j = layout.junctions.findIndex((cj) => cj.junction.id === jid);
      const m = layout.junctions[j].movements.findIndex((mv) => mv.entry.lane === laneNamed(entryLane) && mv.exit.lane === laneNamed(exitLane));
      expect(m).toBeGreaterThanOrEqual(0);
      return { j, m, mg: rules.index.base[j] + m, mv: layout.junctions[j].movements[m] };
    };
    const slotOf = (key: string) => {
      for (let s = 0; s < engine.world.count; s++) if (engine.externalKeyOf(s) === key) return s;
      throw new Error(`no ${key}`);
    };
    return { engine, control, rules, laneNamed, mgOf, slotOf };
  };

  it('a car with its front in J2 and its centre still in J19 is in J2’s movement: the left turn it crosses gives way to it', () => {
    const { engine, control, rules, mgOf, slotOf } = setup();
    const through = mgOf('J2', 'A2235W000159', 'A2235W000010'); // J2's left turn from J19's side, with priority
    const crossing = mgOf('J2', 'A2235W000118', 'A2235W000107'); // the left turn that gives way to it
    // the first car 1 m before its line (front 1.25 m past it), at 7 m/s; the second standing at its own line
    const p = engine.lanes.pose(through.mv.entry.lane, through.mv.entry.s - 1);
    engine.setExternal('through', { x: p.x, y: p.y, yaw: p.yaw, speed: 7, length: 4.5, width: 1.9 });
    const q = engine.lanes.pose(crossing.mv.entry.lane, crossing.mv.entry.s - 3);
    engine.setExternal('waiting', { x: q.x, y: q.y, yaw: q.yaw, speed: 0, length: 4.5, width: 1.9 });
    control.beforeStep(0);
    const a = slotOf('through'), b = slotOf('waiting');
    const places = rules.places;
    expect(places.inMg[a]).toBeGreaterThanOrEqual(0);
    expect(rules.index.refs[places.inMg[a]].j).not.toBe(through.j); // its centre is in J19
    expect(rules.index.refs[places.frontMg[a]].j).toBe(through.j); // its front in J2
    expect(places.occupants[through.mg]).toContain(a);
    const row = (rules as unknown as { rightOfWay: RightOfWay }).rightOfWay;
    expect(row.giveWay(engine.world, b, crossing.j, crossing.m, 0.5, 0, false, false)).toBe(a);
  });

  it('a car waiting at J7’s left-turn line, beside the end of J7’s straight movement and facing the other way, is not in it; one on that path is', () => {
    const { engine, control, rules, mgOf, slotOf } = setup();
    const left = mgOf('J7', 'A2235W000025', 'A2235W000025');
    const straight = mgOf('J7', 'A2235W000077', 'A2235W000090');
    // 3.1 m before the line, on the lane before the left turn's
    const before = engine.lanes.lanes.findIndex((l) => l.next.includes(left.mv.entry.lane));
    const at = engine.lanes.pose(before, engine.lanes.lanes[before].length + left.mv.entry.s - 3.1);
    // the straight movement's nearest point, and the car 2.5 m from it (as the NPC on seed 20 stood, a little to
    // the left of its lane's centre)
    const xs = rules.index.pathX[straight.mg], ys = rules.index.pathY[straight.mg];
    let n = 1;
    for (let k = 1; k < xs.length; k++) if (Math.hypot(xs[k] - at.x, ys[k] - at.y) < Math.hypot(xs[n] - at.x, ys[n] - at.y)) n = k;
    const d = Math.hypot(xs[n] - at.x, ys[n] - at.y);
    expect(d).toBeLessThan(3.5);
    const p = { x: xs[n] + ((at.x - xs[n]) * 2.5) / d, y: ys[n] + ((at.y - ys[n]) * 2.5) / d, yaw: at.yaw };
    engine.setExternal('waiting', { x: p.x, y: p.y, yaw: p.yaw, speed: 0, length: 4.5, width: 2 });
    const endYaw = Math.atan2(ys[n] - ys[n - 1], xs[n] - xs[n - 1]);
    control.beforeStep(0);
    const a = slotOf('waiting');
    expect(rules.index.refs[rules.places.apMg[a]].j).toBe(left.j); // it approaches J7's line
    expect(rules.places.occupants[straight.mg]).not.toContain(a);
    expect(rules.places.inMg[a]).toBe(-1);
    // the same spot facing along the straight path's end: in its way
    engine.setExternal('waiting', { x: p.x, y: p.y, yaw: endYaw + 0.3, speed: 0, length: 4.5, width: 2 });
    control.beforeStep(0.1);
    expect(rules.places.occupants[straight.mg]).toContain(slotOf('waiting'));
  });

  it('an NPC waits at J15’s line while two cars stand on the 21 m to J4’s line (it could not get out of J15 behind them), though it would have priority at J4; with one it goes', () => {
    const { engine, control, rules, mgOf } = setup();
    const intoJ15 = mgOf('J15', 'A2235W000095', 'A2235W000095');
    // J4's right turn, which gives way to nobody: only the room past J4 holds its vehicles (J3's queue)
    const atJ4 = mgOf('J4', 'A2235W000044', 'A2235W000020');
    const lane044 = atJ4.mv.entry.lane;
    const exitEnd = engine.lanes.lanes[intoJ15.mv.exit.lane];
    const p = engine.lanes.pose(intoJ15.mv.entry.lane, intoJ15.mv.entry.s - 3.2);
    const goal = engine.lanes.pose(atJ4.mv.exit.lane, atJ4.mv.exit.s);
    const npc = engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 0, goalX: goal.x, goalY: goal.y });
    const slot = [...Array(engine.world.count).keys()].find((s) => engine.world.present[s] && engine.world.id[s] === npc)!;
    const stand = (key: string, s: number) => {
      const q = engine.lanes.pose(lane044, s);
      engine.setExternal(key, { x: q.x, y: q.y, yaw: q.yaw, speed: 0, length: 4.5, width: 1.9 });
    };
    expect(exitEnd.next).toContain(lane044);
    stand('first', atJ4.mv.entry.s - 3.2);
    stand('second', atJ4.mv.entry.s - 3.2 - 7);
    control.beforeStep(0);
    expect(rules.places.ap2Mg[slot]).toBe(atJ4.mg);
    expect(rules.memory.heldMg[slot]).toBe(intoJ15.mg);
    expect(engine.removeExternal('second')).toBe(true);
    control.beforeStep(0.1);
    expect(rules.memory.heldMg[slot]).toBe(-1);
  });

  describe('auto NPCs start clear of every junction', () => {
    let policy: PolicySession;
    beforeAll(async () => {
      policy = await PolicySession.load(testModel());
    });
    afterAll(async () => policy?.release());

    it('no NPC starts in a junction, nor with its front over a junction’s line (FMTC, 63 NPCs, seeds 1–8)', () => {
      let npcs = 0;
      for (let seed = 1; seed <= 8; seed++) {
        const sc = new LiveScene(fmtc!, policy.fork(), { npc_target: 63, seed });
        sc.reset();
        sc.control.beforeStep(0);
        const { places } = sc.control.rules;
        const w = sc.control.rules.engine.world;
        for (let s = 0; s < w.count; s++) {
          if (!w.present[s]) continue;
          npcs++;
          expect(places.inMg[s], `seed ${seed}, NPC ${w.id[s]}`).toBe(-1);
          expect(places.frontMg[s]).toBe(-1);
          // its front at least a stop's margin (1.75 m) before the next line
          if (places.apMg[s] >= 0) expect(places.apD[s] - 0.5 * w.length[s]).toBeGreaterThanOrEqual(1.75 - 1e-9);
        }
      }
      expect(npcs).toBeGreaterThan(8 * 50);
    });
  });
});
