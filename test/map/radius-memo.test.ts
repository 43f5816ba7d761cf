import { describe, expect, it } from 'vitest';
import { buildRoadEntities, RoadIndex } from '../../src/map/index.js';
import { RadiusMemo } from '../../src/map/spatial-index.js';
import { SeededRandom } from '../../src/util/random.js';

/** uniform [0, 1) draws from the project's seeded generator */
function rng(seed: number): () => number {
  const r = new SeededRandom(seed);
  return () => r.next();
}

describe('RadiusMemo (firstInRadius for observers that move a little)', () => {
  it('answers firstInRadius id for id along random walks, jumps and entities on the boundary', () => {
    const r = rng(7);
    // 600 zigzag polylines of 12 segments over 400 × 400 m (at most 956 polylines, spec §5.1), and a ring
    // of segments exactly 50 m and 55 m from (0, 0)
    const roads = Array.from({ length: 600 }, () => {
      let x = (r() - 0.5) * 400, y = (r() - 0.5) * 400;
      const geometry = [{ x, y }];
      for (let k = 0; k < 12; k++) {
        const h = r() * 2 * Math.PI;
        x += 2 * Math.cos(h); y += 2 * Math.sin(h);
        geometry.push({ x, y });
      }
      return { type: 'lane', geometry };
    });
    for (let k = 0; k < 40; k++) {
      const a = (k / 40) * 2 * Math.PI, d = k % 2 ? 50 : 55;
      roads.push({ type: 'lane', geometry: [{ x: d * Math.cos(a) - 0.5, y: d * Math.sin(a) }, { x: d * Math.cos(a) + 0.5, y: d * Math.sin(a) }] });
    }
    const index = new RoadIndex(buildRoadEntities(roads, { x: 0, y: 0 }));
    const memo = new RadiusMemo(3);
    const want = new Int32Array(200), got = new Int32Array(200);
    const pos = [{ x: 0, y: 0 }, { x: 100, y: -50 }, { x: -120, y: 90 }];
    let compared = 0, full = 0;
    for (let step = 0; step < 3000; step++) {
      for (let slot = 0; slot < 3; slot++) {
        const p = pos[slot];
        if (r() < 0.01) { p.x = (r() - 0.5) * 400; p.y = (r() - 0.5) * 400; } // a jump (a new agent in the slot)
        else { p.x += (r() - 0.5) * 3; p.y += (r() - 0.5) * 3; }
        if (slot === 0 && step % 50 === 0) { p.x = 0; p.y = 0; } // on the ring's centre: entities at exactly 50 m
        const n = index.firstInRadius(p.x, p.y, 50, 200, want);
        const m = memo.firstInRadius(index, slot, p.x, p.y, 50, 200, got);
        expect(m).toBe(n);
        expect(Array.from(got.subarray(0, m))).toEqual(Array.from(want.subarray(0, n)));
        compared++;
        if (n === 200) full++;
      }
    }
    expect(compared).toBe(9000);
    expect(full).toBeGreaterThan(0); // the 200 cap was hit, so the order mattered
  });
  it('refreshes for another index or another radius', () => {
    const lane = (x: number) => ({ type: 'lane', geometry: [{ x, y: 0 }, { x: x + 1, y: 0 }] });
    const a = new RoadIndex(buildRoadEntities([lane(0), lane(30)], { x: 0, y: 0 }));
    const b = new RoadIndex(buildRoadEntities([lane(5)], { x: 0, y: 0 }));
    const memo = new RadiusMemo(1);
    const out = new Int32Array(10);
    expect(memo.firstInRadius(a, 0, 0, 0, 50, 10, out)).toBe(2);
    expect(memo.firstInRadius(a, 0, 0, 0, 10, 10, out)).toBe(1);
    expect(memo.firstInRadius(b, 0, 0, 0, 10, 10, out)).toBe(1);
    expect(out[0]).toBe(0);
  });
  it('around() for collidables holds every road edge within the radius of where the observer is now', () => {
    const r = rng(3);
    const roads = Array.from({ length: 300 }, () => {
      const x = (r() - 0.5) * 300, y = (r() - 0.5) * 300;
      return { type: r() < 0.5 ? 'road_edge' : 'lane', geometry: [{ x, y }, { x: x + 3, y: y + 1 }] };
    });
    const index = new RoadIndex(buildRoadEntities(roads, { x: 0, y: 0 }));
    const memo = new RadiusMemo(1, 5, true);
    const want = new Int32Array(index.entities.count);
    const p = { x: 0, y: 0 };
    let refreshedAway = 0;
    for (let step = 0; step < 2000; step++) {
      p.x += (r() - 0.5) * 4; p.y += (r() - 0.5) * 4;
      const n = memo.around(index, 0, p.x, p.y, 12);
      const list = new Set(memo.list(0).subarray(0, n));
      const m = index.collidableNear(p.x, p.y, 12, want);
      for (let k = 0; k < m; k++) expect(list.has(want[k])).toBe(true);
      for (const id of list) expect(index.collidable.includes(id)).toBe(true);
      if (n > m) refreshedAway++;
    }
    expect(refreshedAway).toBeGreaterThan(0); // the list did hold more than the query: it was reused
  });
});
