import { describe, expect, it } from 'vitest';
import { ACCEL_VALUES, ACTION_ACCEL, ACTION_STEER, NEUTRAL_ACTION, STEER_VALUES, SeededRandom, actionIndex, argmax, sampleSoftmax } from '../../src/policy/index.js';

describe('action table (spec §6.3–6.4)', () => {
  it('holds round3(linspace) values as float32', () => {
    expect(Array.from(ACCEL_VALUES)).toEqual([-4, -2.667, -1.333, 0, 1.333, 2.667, 4].map(Math.fround));
    expect(Array.from(STEER_VALUES)).toEqual(
      [-3.142, -2.618, -2.094, -1.571, -1.047, -0.524, 0, 0.524, 1.047, 1.571, 2.094, 2.618, 3.142].map(Math.fround),
    );
    expect(STEER_VALUES[0]).toBeCloseTo(-3.1419999599, 10);
    expect(STEER_VALUES[12]).toBe(Math.fround(3.142));
  });
  it('indexes actions as accel_idx·13 + steer_idx', () => {
    expect(actionIndex(0, 0)).toBe(0);
    expect(actionIndex(6, 12)).toBe(90);
    expect(NEUTRAL_ACTION).toBe(45);
    expect(ACTION_ACCEL[45]).toBe(0);
    expect(ACTION_STEER[45]).toBe(0);
    expect(ACTION_ACCEL[2 * 13 + 9]).toBe(Math.fround(-1.333));
    expect(ACTION_STEER[2 * 13 + 9]).toBe(Math.fround(1.571));
    expect(ACTION_ACCEL[90]).toBe(4);
    expect(ACTION_STEER[90]).toBe(Math.fround(3.142));
  });
  it('keeps tan δ non-monotonic over the steering values (spec §6.5)', () => {
    const tan = Array.from(STEER_VALUES, (s) => Math.fround(Math.tan(s)));
    expect(tan[3]).toBeCloseTo(4910.3, 0);
    expect(tan[9]).toBeCloseTo(-4910.3, 0);
    expect(tan[2]).toBeCloseTo(1.734, 3);
    expect(tan[0]).toBeCloseTo(-0.0004, 4);
  });
});

describe('action selection', () => {
  it('argmax takes the first of equal maxima, as torch does', () => {
    expect(argmax([1, 3, 3, 2], 0, 4)).toBe(1);
    expect(argmax([9, 1, 3, 3, 2], 1, 4)).toBe(1);
  });
  it('seeded sampling is reproducible and follows softmax', () => {
    const logits = [0, Math.log(2), Math.log(7)]; // p = 0.1, 0.2, 0.7
    const draw = (seed: number, n: number) => {
      const rng = new SeededRandom(seed);
      return Array.from({ length: n }, () => sampleSoftmax(logits, 0, 3, rng.next()));
    };
    expect(draw(42, 50)).toEqual(draw(42, 50));
    expect(draw(42, 50)).not.toEqual(draw(43, 50));
    const counts = [0, 0, 0];
    for (const a of draw(1, 20000)) counts[a]++;
    expect(counts[0] / 20000).toBeCloseTo(0.1, 1);
    expect(counts[1] / 20000).toBeCloseTo(0.2, 1);
    expect(counts[2] / 20000).toBeCloseTo(0.7, 1);
  });
});
