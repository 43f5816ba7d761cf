/**
 * GPUDrive's polyline reduction (spec §5.2, json_serialization.hpp): repeatedly drop the middle point
 * of consecutive kept triples whose triangle area is below the threshold, until a pass changes nothing.
 * Float32 arithmetic on the raw JSON coordinates; only lane/road_line/road_edge polylines of ≥ 10 segments.
 */
export const POLYLINE_REDUCTION_THRESHOLD = 0.1;
export const MIN_SEGMENTS_FOR_REDUCTION = 10;

const f = Math.fround;

/** Returns the indices of the points kept, in order. `xs`/`ys` hold float32 values. */
export function reducePolyline(xs: ArrayLike<number>, ys: ArrayLike<number>, threshold = POLYLINE_REDUCTION_THRESHOLD): number[] {
  const n = xs.length;
  if (n - 1 < MIN_SEGMENTS_FOR_REDUCTION) return Array.from({ length: n }, (_, i) => i);
  const thr = f(threshold);
  const skip = new Uint8Array(n);
  let changed = true;
  while (changed) {
    changed = false;
    let k = 0;
    while (k < n - 1) {
      let k1 = k + 1;
      while (k1 < n - 1 && skip[k1]) k1++;
      if (k1 >= n - 1) break;
      let k2 = k1 + 1;
      while (k2 < n && skip[k2]) k2++;
      if (k2 >= n) break;
      const x1 = xs[k], y1 = ys[k], x2 = xs[k1], y2 = ys[k1], x3 = xs[k2], y3 = ys[k2];
      const cross = f(f(f(x1 - x3) * f(y2 - y1)) - f(f(x1 - x2) * f(y3 - y1)));
      const area = f(0.5 * Math.abs(cross));
      if (area < thr) {
        skip[k1] = 1;
        k = k2;
        changed = true;
      } else {
        k = k1;
      }
    }
  }
  skip[0] = 0;
  skip[n - 1] = 0;
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (!skip[i]) kept.push(i);
  return kept;
}
