/**
 * Impatience at a give-way line (src/scene/rules/right-of-way.ts), as SUMO's drivers have it: an NPC that has
 * stood at its line for IMPATIENT_S takes a gap that makes an NPC with priority brake gently for it (it gives way to
 * one in the junction). FMTC × 30 seed 14: an NPC turning left at J4 waited 180 s — the stream with priority came
 * whenever J3 was green, and when it broke J3 was red and the road between full.
 */
import { describe, expect, it } from 'vitest';
import { IMPATIENT_S } from '../../src/scene/rules/rule-params.js';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { crossingMap } from '../helpers/junction-maps.js';

/** The crossing with a yield sign on NB: an NPC standing at NB's line, and a vehicle coming east on EB. */
function setup(priority: { back: number; speed: number; ego?: boolean }) {
  const map = crossingMap({ signs: { NB: 'yield' } });
  const engine = new TrafficEngine(map.scene, { laneGraph: map.mapMetadata?.lane_graph });
  const control = new TrafficControl(map, engine, { rules: true });
  const cj = control.layout.junctions[0];
  const laneOf = (id: string) => engine.lanes.lanes.findIndex((l) => l.id === id);
  const nb = cj.movements.find((m) => m.entry.lane === laneOf('NB'))!;
  const eb = cj.movements.find((m) => m.entry.lane === laneOf('EB'))!;
  const at = engine.lanes.pose(nb.entry.lane, nb.entry.s - 3.2);
  const minor = engine.addNpc({ x: at.x, y: at.y, yaw: at.yaw, speed: 0, goalX: 1.75, goalY: 120 });
  const p = engine.lanes.pose(eb.entry.lane, eb.entry.s - priority.back);
  if (priority.ego) engine.setExternal('car', { x: p.x, y: p.y, yaw: p.yaw, speed: priority.speed, length: 4.5, width: 1.9 });
  else engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: priority.speed, goalX: 120, goalY: -1.75 });
  const slot = [...Array(engine.world.count).keys()].find((s) => engine.world.present[s] && engine.world.id[s] === minor)!;
  const nbMg = control.rules.index.base[0] + cj.movements.indexOf(nb);
  /** whether the standing NPC is held at its line after standing there t seconds (the scene frozen) */
  const heldAfter = (t: number): boolean => {
    for (let k = 0; k * 0.1 <= t + 1e-9; k++) control.beforeStep(k * 0.1);
    return control.rules.memory.heldMg[slot] === nbMg;
  };
  return { heldAfter };
}

describe('impatience at a give-way line', () => {
  it(`an NPC that has stood at its line ${IMPATIENT_S} s goes in front of an NPC with priority that can brake gently for it`, () => {
    expect(setup({ back: 30, speed: 8 }).heldAfter(5)).toBe(true);
    expect(setup({ back: 30, speed: 8 }).heldAfter(IMPATIENT_S + 1)).toBe(false);
  });

  it('never in front of one that would have to brake hard, nor of a real car', () => {
    expect(setup({ back: 14, speed: 10 }).heldAfter(IMPATIENT_S + 1)).toBe(true); // 10 m/s, 10 m from its line: 5 m/s²
    expect(setup({ back: 30, speed: 8, ego: true }).heldAfter(IMPATIENT_S + 1)).toBe(true);
  });
});
