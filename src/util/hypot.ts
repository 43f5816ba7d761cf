/**
 * `Math.hypot(x, y)` bit for bit, about three times faster. V8's Math.hypot is a builtin taking a variable
 * argument list (it allocates an array of the absolute values); for two finite arguments it normalises by the
 * larger one and sums the squares with Kahan compensation: with m = max(|x|, |y|) and r = min(|x|, |y|) / m,
 * the first term is exactly 1 (m / m) and its compensation exactly 0, so the result is sqrt(1 + r·r)·m, which
 * this computes with the same operations in the same order. Infinite and NaN arguments go to Math.hypot
 * itself. test/util/hypot.test.ts pins the equality on millions of arguments and the edge cases.
 */
export function hypot(x: number, y: number): number {
  const ax = Math.abs(x), ay = Math.abs(y);
  const max = ax > ay ? ax : ay;
  const min = ax > ay ? ay : ax;
  // an infinite or NaN argument (NaN fails both comparisons); (· 1 and max · 0 = +0 keep every return a double
  // in optimised code: a return merging an integer or a boxed number makes callers box their own doubles)
  if (!(max < Infinity) || min !== min) return Math.hypot(x, y) * 1;
  if (max === 0) return max * 0;
  const r = min / max;
  return Math.sqrt(1 + r * r) * max;
}
