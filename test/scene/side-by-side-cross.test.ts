/**
 * Two movements of one approach whose ways cross inside the junction (src/scene/rules/right-of-way.ts): a turn from
 * one lane across the lane beside it, as K-City's J35 has a left turn from its second lane across the straight on
 * from its first. The rules used to skip every conflict within an approach (they run side by side): the two NPCs went
 * in together on one green and touched where they cross (K-City × 63 seed 4, K-City without B2 × 63 seed 3: 14
 * contact steps each). The junction's own order holds: the turn gives way to the straight on.
 */
import { describe, expect, it } from 'vitest';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { HoldReason } from '../../src/traffic/stops.js';
import { sideBySideCrossMap } from '../helpers/junction-maps.js';

function scene(signals: boolean, turn: { back: number; speed: number }, straight: { back: number; speed: number }) {
  const map = sideBySideCrossMap({ signals });
  const engine = new TrafficEngine(map.scene, { laneGraph: map.mapMetadata?.lane_graph });
  const control = new TrafficControl(map, engine, { rules: true });
  expect(control.layout.junctions).toHaveLength(1);
  const cj = control.layout.junctions[0];
  const laneOf = (id: string) => engine.lanes.lanes.findIndex((l) => l.id === id);
  const thru = cj.movements.find((m) => m.entry.lane === laneOf('A_THRU'))!;
  const left = cj.movements.find((m) => m.entry.lane === laneOf('B_LEFT'))!;
  // one approach, crossing, and the turn gives way
  expect(thru.approach).toBe(left.approach);
  expect(cj.junction.conflicts[left.index * cj.movements.length + thru.index]).toBe(1);
  expect(cj.yields[left.index * cj.movements.length + thru.index]).toBe(1);
  const put = (lane: string, at: { back: number; speed: number }) => {
    const p = engine.lanes.pose(laneOf(lane), engine.lanes.lanes[laneOf(lane)].length - at.back);
    return engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: at.speed, goalX: lane === 'A' ? 140 : 4, goalY: lane === 'A' ? 1.75 : 140 });
  };
  const ids = { turn: put('B', turn), straight: put('A', straight) };
  const slotOf = (id: number) => [...Array(engine.world.count).keys()].find((s) => engine.world.present[s] && engine.world.id[s] === id)!;
  return { engine, control, turn: slotOf(ids.turn), straight: slotOf(ids.straight) };
}

describe('a turn across the lane beside it, within one approach', () => {
  it('without signals: the turn gives way to the straight on coming up beside it, which goes', () => {
    const { engine, control, turn, straight } = scene(false, { back: 20, speed: 8 }, { back: 22, speed: 8 });
    control.beforeStep(0);
    expect(control.stops.reason[turn]).toBe(HoldReason.GiveWay);
    expect(control.stops.holdFor[turn]).toBe(straight);
    expect(control.stops.reason[straight]).toBe(HoldReason.None);
  });

  it('on one green, both standing at the line: the turn waits for the straight on beside it however long it has stood there', () => {
    const { engine, control, turn, straight } = scene(true, { back: 3, speed: 0 }, { back: 3, speed: 0 });
    // (a car standing a while is otherwise taken as not coming: one held at a red, or one a driver waits on)
    for (let t = 0; t <= 10; t += 0.5) {
      control.beforeStep(t);
      expect(control.stops.reason[straight]).toBe(HoldReason.None);
      expect(control.stops.reason[turn]).toBe(HoldReason.GiveWay);
      expect(control.stops.holdFor[turn]).toBe(straight);
    }
  });
});
