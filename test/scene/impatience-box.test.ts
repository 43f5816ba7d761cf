/**
 * Impatience at a give-way line where the road beyond is short of room (src/scene/rules/exit-room.ts): an NPC that
 * has stood IMPATIENT_S at its line takes the next gap that an NPC with priority merging into the same exit could
 * stop for, and that one leaves it the room. FMTC seed 4 with 20 people: at J15 the minor road stood 180 s (flagged
 * stuck) while every gap in the queue towards J4, held for people at J3 and J4, went to the main road.
 */
import { describe, expect, it } from 'vitest';
import { parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import { IMPATIENT_S } from '../../src/scene/rules/rule-params.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { HoldReason } from '../../src/traffic/stops.js';

type Pt = { x: number; y: number };
const line = (x0: number, y0: number, x1: number, y1: number, step = 2): Pt[] => {
  const n = Math.max(1, Math.round(Math.hypot(x1 - x0, y1 - y0) / step));
  return Array.from({ length: n + 1 }, (_, i) => ({ x: x0 + ((x1 - x0) * i) / n, y: y0 + ((y1 - y0) * i) / n }));
};

/** An unsignalised corner: EB (y = −1.75) ends at x = −8 and turns right into SOUTH, which SB (x = −1.75) runs into
 * straight through; a yield sign on EB: the turn merges into SB's stream and gives way to it. */
function yieldMergeMap(): LoadedMap {
  const h = 1.75, e = 8, r = e - h;
  const arc: Pt[] = Array.from({ length: 9 }, (_, i) => {
    const a = Math.PI / 2 - (i / 8) * (Math.PI / 2);
    return { x: -e + r * Math.cos(a), y: -e + r * Math.sin(a) };
  });
  const lanes = [
    { id: 'EB', pts: line(-150, -h, -e, -h), next: ['EB_RIGHT'] },
    { id: 'EB_RIGHT', pts: arc, next: ['SOUTH'] },
    { id: 'SB', pts: line(-h, 150, -h, e), next: ['SB_THRU'] },
    { id: 'SB_THRU', pts: line(-h, e, -h, -e), next: ['SOUTH'] },
    { id: 'SOUTH', pts: line(-h, -e, -h, -150), next: [] },
  ];
  const roads = lanes.map((l) => ({ type: 'lane', geometry: l.pts, map_element_id: 2 }));
  const graph = lanes.map((l, i) => ({ id: l.id, road_index: i, next: l.next, left: null, right: null }));
  return parseMapJson({
    map: { name: 'yield-merge', origin: { lat: 37.3645, lon: 126.7239 }, lane_graph: { lanes: graph } },
    roads,
    traffic_control: { signals: [], stop_lines: [], signs: [{ id: 'SG1', x: -10, y: -h, kind: 'yield', lanes: ['EB'] }] },
  }, 'yield-merge');
}

/** EB's NPC standing at its line, SB's coming at 6 m/s 30 m before its line, and a car standing on SOUTH `roomM`
 * past the junction; the scene frozen for t seconds: who is held, and why. */
function decide(roomM: number, t: number, withMajor = true) {
  const map = yieldMergeMap();
  const engine = new TrafficEngine(map.scene, { laneGraph: map.mapMetadata?.lane_graph });
  const control = new TrafficControl(map, engine, { rules: true });
  const cj = control.layout.junctions[0];
  const laneOf = (id: string) => engine.lanes.lanes.findIndex((l) => l.id === id);
  const eb = cj.movements.find((m) => m.entry.lane === laneOf('EB_RIGHT'))!;
  const sb = cj.movements.find((m) => m.entry.lane === laneOf('SB_THRU'))!;
  // a pose `back` m before a movement's line, on the lane that leads into the junction
  const before = (mv: typeof eb, lane: string, back: number) => {
    const l = laneOf(lane);
    return engine.lanes.pose(l, engine.lanes.lanes[l].length - (back - mv.entry.s));
  };
  const at = before(eb, 'EB', 3.2);
  const minor = engine.addNpc({ x: at.x, y: at.y, yaw: at.yaw, speed: 0, goalX: -1.75, goalY: -140 });
  let major = -1;
  if (withMajor) {
    const p = before(sb, 'SB', 30);
    major = engine.addNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 6, goalX: -1.75, goalY: -140 });
  }
  engine.setExternal('car', { x: -1.75, y: -8 - roomM - 2.25, yaw: -Math.PI / 2, speed: 0, length: 4.5, width: 1.9 });
  const slotOf = (id: number) => [...Array(engine.world.count).keys()].find((s) => engine.world.present[s] && engine.world.id[s] === id)!;
  for (let k = 0; k * 0.1 <= t + 1e-9; k++) control.beforeStep(k * 0.1);
  const reason = (id: number) => (id < 0 ? -1 : control.stops.reason[slotOf(id)]);
  return { minor: reason(minor), major: reason(major) };
}

describe('impatience at a give-way line before a short road', () => {
  it('with room for one, the NPC with priority takes it at first', () => {
    const d = decide(10, 5);
    expect([HoldReason.GiveWay, HoldReason.Box]).toContain(d.minor);
    expect(d.major).toBe(HoldReason.None);
  });

  it(`after ${IMPATIENT_S} s at its line the NPC that gives way takes it, and the one with priority waits at its line`, () => {
    const d = decide(10, IMPATIENT_S + 1);
    expect(d.minor).toBe(HoldReason.None);
    expect(d.major).toBe(HoldReason.Box);
  });

  it('without room for one, nobody goes (and alone, it goes with room for one)', () => {
    expect(decide(4, 1, false).minor).toBe(HoldReason.Box);
    expect(decide(10, 1, false).minor).toBe(HoldReason.None);
    const d = decide(4, IMPATIENT_S + 1);
    expect(d.minor).toBe(HoldReason.Box);
    expect(d.major).toBe(HoldReason.Box);
  });
});
