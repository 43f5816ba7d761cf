import { describe, expect, it } from 'vitest';
import { reducePolyline } from '../../src/map/polyline.js';

const f32 = (a: number[]) => Float32Array.from(a);

describe('polyline reduction (spec §5.2)', () => {
  it('reduces 11 collinear points to the two ends', () => {
    const xs = f32([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const ys = f32(new Array(11).fill(0));
    expect(reducePolyline(xs, ys)).toEqual([0, 10]);
  });
  it('leaves polylines of fewer than 10 segments alone', () => {
    const xs = f32([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(reducePolyline(xs, new Float32Array(10))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  it('keeps a corner: an L of 6 + 5 segments keeps start, corner and end', () => {
    const xs = f32([0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5]);
    const ys = f32([0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6]);
    expect(reducePolyline(xs, ys)).toEqual([0, 5, 11]);
  });
  it('compares the triangle area with 0.1 strictly, in float32', () => {
    // zigzag of height h: each triangle (i,0),(i+1,h),(i+2,0) has area exactly h
    const zig = (h: number) => {
      const xs = f32(Array.from({ length: 11 }, (_, i) => i));
      const ys = f32(Array.from({ length: 11 }, (_, i) => (i % 2) * h));
      return reducePolyline(xs, ys);
    };
    expect(zig(0.1)).toHaveLength(11); // area == 0.1f is not < 0.1f: every point kept
    expect(zig(0.09)).toEqual([0, 10]); // odd points go first, then the now-collinear even ones
  });
});
