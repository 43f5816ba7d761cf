/**
 * The shared-memory transport of `vils time-grid` (worker-thread assets) as a functional test: a short run per
 * core schedule, checked for violations and for the skew bounds. Not a benchmark: no timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { runShmCell } from '../../src/time/asset-shm.js';

describe('worker-thread assets over shared memory', () => {
  for (const speed of [Infinity, 20]) {
    it(`${Number.isFinite(speed) ? `paced ×${speed}` : 'greedy'}: 3 workers × 2 samples reach the end with 0 violations and Tc − Ti within dmax`, async () => {
      const samples = await runShmCell({ assets: 3, dmaxUs: 40_000, stepUs: 10_000, steps: 150, samples: 2, workUs: 20, speed });
      expect(samples).toHaveLength(2);
      for (const s of samples) {
        expect(s.violations).toBe(0);
        expect(s.checks).toBeGreaterThanOrEqual(150); // at least one per core count-up (a report may cover several steps)
        expect(s.skewN).toBe(3 * 150); // every asset sampled at every progressing core count-up
        expect(s.skewMaxUs).toBeLessThanOrEqual(40_000);
        expect(s.skewMeanUs).toBeGreaterThanOrEqual(0);
      }
    });
  }
});
