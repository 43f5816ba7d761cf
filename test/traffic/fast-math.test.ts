/**
 * Exact stand-ins on the live step's hot paths. src/util/hypot.ts stands in for Math.hypot(x, y) on the live step's hot paths (the shield's rollouts, the
 * motion predictor, lane and route look-ups, the quality figures): it must give the very same double, or NPCs
 * would drive differently. Pinned against this Node's Math.hypot on random arguments over many magnitudes and
 * signs, on float32 differences as the engine has them, and on the edge cases. wrapAngle skips the fmod for
 * angles within ±2π (where it returns the angle itself): pinned against the fmod form.
 */
import { describe, expect, it } from 'vitest';
import { wrapAngle } from '../../src/traffic/bicycle.js';
import { hypot } from '../../src/util/hypot.js';
import { SeededRandom } from '../../src/util/random.js';

describe('hypot(x, y)', () => {
  it('is Math.hypot bit for bit', () => {
    const rng = new SeededRandom(17);
    let mismatches = 0;
    const f32 = new Float32Array(4);
    for (let k = 0; k < 1_000_000; k++) {
      const x = (rng.next() - 0.5) * 10 ** (rng.next() * 12 - 6);
      const y = (rng.next() - 0.5) * 10 ** (rng.next() * 12 - 6);
      if (!Object.is(hypot(x, y), Math.hypot(x, y))) mismatches++;
      // differences of float32 map coordinates, as in the engine
      f32[0] = x * 1000; f32[1] = y * 1000; f32[2] = x * 1000 + rng.next(); f32[3] = y * 1000 - rng.next();
      const dx = f32[2] - f32[0], dy = f32[3] - f32[1];
      if (!Object.is(hypot(dx, dy), Math.hypot(dx, dy))) mismatches++;
      if (!Object.is(hypot(x, x), Math.hypot(x, x))) mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it('edge cases: zeros, infinities, NaN, extremes', () => {
    const v = [0, -0, 1, -1, 3, 4, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e300, 1.7976931348623157e308, -1.7976931348623157e308, Infinity, -Infinity, NaN, Math.PI, 1 / 3];
    for (const x of v) for (const y of v) expect(Object.is(hypot(x, y), Math.hypot(x, y)), `hypot(${x}, ${y})`).toBe(true);
  });
});

/** wrapAngle as it was: always through fmod. */
function wrapAngleBefore(a: number): number {
  const TWO_PI = 2 * Math.PI;
  let r = a % TWO_PI;
  if (r > Math.PI) r -= TWO_PI;
  else if (r < -Math.PI) r += TWO_PI;
  return r;
}

describe('wrapAngle', () => {
  it('is the fmod form bit for bit', () => {
    const rng = new SeededRandom(5);
    let mismatches = 0;
    for (let k = 0; k < 1_000_000; k++) {
      const a = (rng.next() - 0.5) * (k % 2 === 0 ? 14 : 1e4);
      if (!Object.is(wrapAngle(a), wrapAngleBefore(a))) mismatches++;
    }
    const TWO_PI = 2 * Math.PI;
    for (const a of [0, -0, Math.PI, -Math.PI, TWO_PI, -TWO_PI, TWO_PI * (1 - 2 ** -52), -TWO_PI * (1 - 2 ** -52), 3 * Math.PI, Infinity, -Infinity, NaN, 5e-324]) {
      if (!Object.is(wrapAngle(a), wrapAngleBefore(a))) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
