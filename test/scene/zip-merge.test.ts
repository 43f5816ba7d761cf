/**
 * Two lanes of one road merging where neither gives way (src/scene/rules/right-of-way.ts): the vehicle ahead goes
 * first, as in a zip merge. FMTC's J20 has two such lanes; NPCs on both came up level at 14 m/s, both went in, and
 * stood nose to nose in the merge until the gridlock recycling took one (× 30 seed 6).
 */
import { describe, expect, it } from 'vitest';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { zipMap } from '../helpers/junction-maps.js';

/** NPCs on LEFT and RIGHT, `back` m before their lines at `speed`: which of them the rules hold. */
function held(left: { back: number; speed: number }, right: { back: number; speed: number }): { left: boolean; right: boolean } {
  const map = zipMap();
  const engine = new TrafficEngine(map.scene, { laneGraph: map.mapMetadata?.lane_graph });
  const control = new TrafficControl(map, engine, { rules: true });
  expect(control.layout.junctions).toHaveLength(1);
  const cj = control.layout.junctions[0];
  const laneOf = (id: string) => engine.lanes.lanes.findIndex((l) => l.id === id);
  const slotOf = (id: number) => [...Array(engine.world.count).keys()].find((s) => engine.world.present[s] && engine.world.id[s] === id)!;
  const put = (lane: string, at: { back: number; speed: number }) => {
    const mv = cj.movements.find((m) => m.entry.lane === laneOf(lane))!;
    expect(cj.yields[cj.movements.indexOf(mv) * cj.movements.length + (1 - cj.movements.indexOf(mv))]).toBe(0);
    const p = engine.lanes.pose(mv.entry.lane, mv.entry.s - at.back);
    return { id: engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: at.speed, goalX: 140, goalY: 0 }), mg: control.rules.index.base[0] + cj.movements.indexOf(mv) };
  };
  const l = put('LEFT', left), r = put('RIGHT', right);
  control.beforeStep(0);
  const { heldMg } = control.rules.memory;
  return { left: heldMg[slotOf(l.id)] === l.mg, right: heldMg[slotOf(r.id)] === r.mg };
}

describe('a zip merge', () => {
  it('the vehicle behind gives way to the one ahead, whichever lane it is in', () => {
    expect(held({ back: 30, speed: 10 }, { back: 33, speed: 10 })).toEqual({ left: false, right: true });
    expect(held({ back: 33, speed: 10 }, { back: 30, speed: 10 })).toEqual({ left: true, right: false });
  });

  it('of two level with each other exactly one gives way', () => {
    const h = held({ back: 30, speed: 10 }, { back: 30, speed: 10 });
    expect(h.left !== h.right).toBe(true);
  });

  it('one far enough ahead to be through first is not waited for', () => {
    expect(held({ back: 30, speed: 10 }, { back: 90, speed: 10 })).toEqual({ left: false, right: false });
  });
});
