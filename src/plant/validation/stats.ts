/** Small numeric helpers for the procedures: means and the least-squares line (numpy polyfit degree 1). */

export function mean(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i];
  return s / (to - from);
}

/** Slope and intercept of the least-squares line through (x, y). */
export function linearFit(x: readonly number[], y: readonly number[]): { slope: number; intercept: number } {
  const n = x.length;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  return { slope, intercept: my - slope * mx };
}
