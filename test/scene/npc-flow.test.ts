// Pure pieces of live traffic flow: lane links a car cannot take, what counts as a vehicle ahead of a stopped
// NPC, and gridlock rings.
import { describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/index.js';
import { gridlockedNpcs } from '../../src/scene/gridlock.js';
import { BLOCKED_BY_EGO, QualityMetrics } from '../../src/scene/quality.js';
import type { NpcView } from '../../src/traffic/engine.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';

describe('lane links', () => {
  it('a route never takes a successor that leaves the lane end the other way (a two-way connector drawn as two lanes)', () => {
    const roads = [
      { type: 'lane' as const, geometry: [{ x: 0, y: 0 }, { x: 10, y: 0 }] },
      { type: 'lane' as const, geometry: [{ x: 10, y: 0 }, { x: 0, y: 0 }] }, // the same centreline, reversed
      { type: 'lane' as const, geometry: [{ x: 10, y: 0 }, { x: 20, y: 2 }] },
      { type: 'lane' as const, geometry: [{ x: 10, y: 0 }, { x: 12, y: 10 }] }, // a right-angle turn (kept)
    ];
    const graph = { lanes: [{ id: 'a', road_index: 0, next: ['b', 'c', 'd'] }, { id: 'b', road_index: 1, next: ['a'] }, { id: 'c', road_index: 2 }, { id: 'd', road_index: 3 }] };
    const net = new LaneNetwork(buildRoadEntities(roads, { x: 0, y: 0 }, { gpudriveCaps: false }), graph);
    expect(net.lanes[0].next).toEqual([2, 3]);
    expect(net.lanes[1].next).toEqual([]); // b's end meets a's start head-on
  });

  it('two lanes one each way on one centre line keep right of it, easing in from their ends', () => {
    const line = Array.from({ length: 41 }, (_, i) => ({ x: i, y: 0 }));
    const roads = [
      { type: 'lane' as const, geometry: line },
      { type: 'lane' as const, geometry: [...line].reverse() },
      { type: 'lane' as const, geometry: [{ x: 0, y: 10 }, { x: 40, y: 10 }] }, // a one-way lane stays put
    ];
    const net = new LaneNetwork(buildRoadEntities(roads, { x: 0, y: 0 }, { gpudriveCaps: false }));
    expect(net.twinCount).toBe(2);
    const east = net.pose(0, 20), west = net.pose(1, 20);
    expect(east.y).toBeCloseTo(-1.3, 5); // right of an eastbound car is south
    expect(west.y).toBeCloseTo(1.3, 5);
    expect(net.pose(0, 0).y).toBeCloseTo(0, 5); // joins its neighbours where the map has it
    expect(net.pose(0, 4).y).toBeCloseTo(-0.65, 1);
    expect(net.pose(2, 20).y).toBeCloseTo(10, 5);
  });
});

const view = (id: number, x: number, y: number, yaw: number, speed = 0, waitingFor = -1): NpcView => ({
  id, x, y, yaw, prevX: x - speed * 0.1 * Math.cos(yaw), prevY: y - speed * 0.1 * Math.sin(yaw), prevYaw: yaw, speed, length: 4.5, width: 2,
  goalX: x + 20, goalY: y, collided: false, offroad: false, reachedGoal: false, shield: 0, maxSpeed: Infinity, waitingFor, hold: 'none',
});

describe('stuck NPCs: below 0.5 m/s for over 10 s with no vehicle within 15 m ahead', () => {
  const run = (others: (step: number) => Array<{ id?: number; x: number; y: number; yaw: number; length?: number; width?: number }>, waitingFor = -1) => {
    const q = new QualityMetrics();
    for (let step = 1; step <= 120; step++) {
      const npc = view(1, 0, 0, 0, 0, waitingFor);
      q.observeStep([npc], step, [npc, ...others(step)]);
    }
    return q;
  };

  it('an NPC standing with nothing near is stuck', () => {
    expect(run(() => []).summary().stuck_npcs).toBe(1);
  });

  it('a car across its path just in front is ahead, though its centre is 40° off the heading', () => {
    // the car's centre at (3.5, 3): 40° to the left; its body (4.5 m long, across) reaches to y = 0.75
    const across = { id: 2, x: 3.5, y: 3, yaw: Math.PI / 2, length: 4.5, width: 2 };
    const q = run(() => [across]);
    expect(q.summary().stuck_npcs).toBe(0);
    expect(q.blockerOf(1)).toBe(2);
    // the same car 3 m further left no longer reaches into the path: the NPC is stuck
    expect(run(() => [{ ...across, y: 6 }]).summary().stuck_npcs).toBe(1);
  });

  it('waiting for the car the shield holds it back for (within 15 m) is not stuck; an ego ahead is an ego', () => {
    const crossing = (step: number) => [{ id: 3, x: 12, y: -10 - step * 0.01, yaw: Math.PI / 2, length: 4.5, width: 2 }];
    expect(run(crossing).summary().stuck_npcs).toBe(1);
    expect(run(crossing, 3).summary().stuck_npcs).toBe(0);
    const q = run(() => [{ x: 8, y: 0, yaw: 0, length: 4.5, width: 2 }]);
    expect(q.summary().stuck_npcs).toBe(0);
    expect(q.blockerOf(1)).toBe(BLOCKED_BY_EGO);
  });
});

describe('gridlocks', () => {
  const input = (held: Record<number, number>, opts: { moving?: number[]; notAuto?: number[] } = {}) => ({
    ids: Object.keys(held).map(Number),
    heldBy: (id: number) => held[id] ?? -1,
    stoppedLongEnough: (id: number) => id in held && !(opts.moving ?? []).includes(id),
    recyclable: (id: number) => !(opts.notAuto ?? []).includes(id),
  });

  it('recycles one NPC per ring of stopped NPCs each held by the next', () => {
    expect(gridlockedNpcs(input({ 1: 2, 2: 3, 3: 1 }))).toEqual([1]);
    expect(gridlockedNpcs(input({ 1: 2, 2: 1, 5: 6, 6: 7, 7: 5, 8: 5 }))).toEqual([1, 5]);
    // a user's NPC stays; another member of its ring goes
    expect(gridlockedNpcs(input({ 1: 2, 2: 3, 3: 1 }, { notAuto: [1] }))).toEqual([2]);
  });

  it('a queue is no ring: behind an ego, behind a car that moves, or a chain that ends', () => {
    expect(gridlockedNpcs(input({ 1: 2, 2: 3, 3: -2 }))).toEqual([]);
    expect(gridlockedNpcs(input({ 1: 2, 2: 3, 3: 1 }, { moving: [3] }))).toEqual([]);
    expect(gridlockedNpcs(input({ 1: 2, 2: 3, 3: 4 }))).toEqual([]);
  });
});
