/**
 * Numbers as a verdict prints them. A figure rounded to two decimals can say the opposite of the comparison it
 * stands in ("TTC 1.00 s < 1 s" for 0.9996 s): `figureAgainst` prints as many decimals as it takes for the
 * printed number to sit on the same side of every bound as the measured one. Pure; shared by the criteria's
 * details, the start line's happenings, the reports, the CLI and the web map's test panel.
 */

/** the most decimals a figure gets before it is printed in full */
const MAX_DIGITS = 9;

/** −1, 0 or 1: where x is against the bound */
function side(x: number, bound: number): number {
  return x < bound ? -1 : x > bound ? 1 : 0;
}

/**
 * x with `digits` decimals, or more when the rounded number would compare differently with one of the bounds
 * (below, equal, above); '∞' / '−∞' for infinities.
 */
export function figureAgainst(x: number, bounds: readonly number[], digits = 2): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '∞' : '−∞';
  for (let d = digits; d <= MAX_DIGITS; d++) {
    const s = x.toFixed(d);
    const y = Number(s);
    if (bounds.every((b) => side(y, b) === side(x, b))) return s === '-0' || /^-0\.0*$/.test(s) ? s.slice(1) : s;
  }
  return String(x);
}

/** A limit or a setting as the file gave it (no rounding, no trailing zeros): 1 → '1', 0.5 → '0.5'. */
export function asGiven(x: number): string {
  return String(Number(x.toPrecision(12)));
}

/** m/s → km/h as a setting is shown (50/3.6 m/s → '50') */
export function kmhGiven(mps: number): string {
  return asGiven(mps * 3.6);
}
