/**
 * Congestion-aware forks (route_choice: queues): an exit whose lanes hold standing vehicles within 120 m is taken
 * 1/(1 + 10q)² as often as a free one; moving vehicles and queues further on do not count; a route without
 * weights picks uniformly as before.
 */
import { describe, expect, it } from 'vitest';
import type { LaneNetwork } from '../../src/traffic/lanes.js';
import { Route, type ForkChooser } from '../../src/traffic/route.js';
import { LaneQueues } from '../../src/scene/lane-queues.js';
import { SeededRandom } from '../../src/util/random.js';

/** Lane 0 forks into 1 (left) and 2 (straight), 20 m each; 1 goes on into 3, 2 into 4 (200 m each). */
function junction(): LaneNetwork {
  const lane = (length: number, next: number[]) => ({ length, next });
  return { lanes: [lane(30, [1, 2]), lane(20, [3]), lane(20, [4]), lane(200, []), lane(200, [])] } as unknown as LaneNetwork;
}

/** How often each exit of lane 0 is taken over `n` routes. */
function shares(net: LaneNetwork, choose: ForkChooser | undefined, n = 4000): [number, number] {
  const rng = new SeededRandom(3);
  let left = 0;
  for (let i = 0; i < n; i++) if (new Route(net, 0, 0, 100, rng, [], choose).lanes[1] === 1) left++;
  return [left / n, 1 - left / n];
}

describe('forks weighed by the queues after them', () => {
  it('no queues: both exits alike; a queue on the lane after an exit makes it rare; moving vehicles do not count', () => {
    const net = junction();
    const q = new LaneQueues(net);
    const [free] = shares(net, q.choose);
    expect(free).toBeGreaterThan(0.45);
    expect(free).toBeLessThan(0.55);
    q.add(3, 0.5); // one standing on the lane after the left exit (within 120 m of the fork)
    q.add(4, 8); // one moving on the straight one
    expect(q.forkWeight(1)).toBeCloseTo(1 / 121, 12);
    expect(q.forkWeight(2)).toBe(1);
    const [left] = shares(net, q.choose);
    expect(left).toBeGreaterThan(0.002);
    expect(left).toBeLessThan(0.02); // 1/121 of the straight exit's weight: 0.8 %
    q.clear();
    expect(q.forkWeight(1)).toBe(1);
  });

  it('only the fullest lane after an exit counts, and only within 120 m of its start', () => {
    const lane = (length: number, next: number[]) => ({ length, next });
    // exit 1 (20 m) forks into 3 and 4; 4 (150 m) goes on into 5
    const net = { lanes: [lane(30, [1, 2]), lane(20, [3, 4]), lane(20, []), lane(50, []), lane(150, [5]), lane(50, [])] } as unknown as LaneNetwork;
    const q = new LaneQueues(net);
    q.add(3, 0);
    q.add(4, 0);
    q.add(4, 0);
    q.add(5, 0); // starts 170 m after exit 1's start: beyond the look-ahead
    expect(q.forkWeight(1)).toBeCloseTo(1 / 21 ** 2, 12);
  });

  it("a loop's fork stays uniform: going round again is no alternative to a queued exit", () => {
    const lane = (length: number, next: number[]) => ({ length, next });
    // lane 0 (47 m) forks into 1 (74 m, back into 0: a 121 m circuit) and 2 (the way out, 10 m, then 3)
    const net = { lanes: [lane(47, [1, 2]), lane(74, [0]), lane(10, [3]), lane(200, [])] } as unknown as LaneNetwork;
    const q = new LaneQueues(net);
    q.add(3, 0);
    q.add(3, 0); // the way out is queued
    expect(q.forkWeight(2)).toBeLessThan(0.01);
    const [round] = shares(net, q.choose);
    expect(round).toBeGreaterThan(0.45);
    expect(round).toBeLessThan(0.55);
    // the same fork without the way back is weighed
    const open = { lanes: [lane(47, [1, 2]), lane(74, []), lane(10, [3]), lane(200, [])] } as unknown as LaneNetwork;
    const q2 = new LaneQueues(open);
    q2.add(3, 0);
    q2.add(3, 0);
    expect(shares(open, q2.choose)[0]).toBeGreaterThan(0.99);
  });

  it('without weights a route forks uniformly, drawing one number per fork as before', () => {
    const net = junction();
    const a = new SeededRandom(9), b = new SeededRandom(9);
    for (let i = 0; i < 50; i++) {
      const r = new Route(net, 0, 0, 100, a);
      expect(r.lanes[1]).toBe(b.next() < 0.5 ? 1 : 2);
    }
  });
});
