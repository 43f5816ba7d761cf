/**
 * Drawing pieces for the attempt report's time panels, in the style of src/plant/plot/svg-chart.ts (whose
 * escapeXml and 1-2-5 ticks they reuse). That chart cannot draw these panels: it sizes each panel's x axis to
 * its own data (here three panels share the time axis), joins every point into one polyline (here absent
 * samples and infinite TTC must leave gaps), and has no vertical markers.
 */
import { escapeXml, niceTicks } from '../../../plant/plot/svg-chart.js';

export { escapeXml };

/** A plot rectangle and its data ranges. */
export class Frame {
  constructor(
    readonly left: number,
    readonly top: number,
    readonly width: number,
    readonly height: number,
    readonly x0: number,
    readonly x1: number,
    readonly y0: number,
    readonly y1: number,
  ) {}

  px(x: number): number {
    return this.left + ((x - this.x0) / (this.x1 - this.x0)) * this.width;
  }

  py(y: number): number {
    return this.top + this.height - ((y - this.y0) / (this.y1 - this.y0)) * this.height;
  }

  get bottom(): number {
    return this.top + this.height;
  }

  get right(): number {
    return this.left + this.width;
  }
}

/** An axis over [lo, hi] widened to whole 1-2-5 ticks at both ends (about `count` of them). */
export function niceAxis(lo: number, hi: number, count = 5): { lo: number; hi: number; ticks: number[] } {
  if (!(hi > lo)) hi = lo + 1;
  const ticks = niceTicks(lo, hi, count);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : hi - lo;
  if (ticks[0] > lo + 1e-9 * step) ticks.unshift(Number((ticks[0] - step).toPrecision(12)));
  if (ticks[ticks.length - 1] < hi - 1e-9 * step) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return { lo: ticks[0], hi: ticks[ticks.length - 1], ticks };
}

function tickText(v: number): string {
  return String(Number(v.toPrecision(6)));
}

/** The panel's box, grid, tick labels, axis labels and its clip path. */
export function frameSvg(f: Frame, o: { title: string; yLabel: string; xLabel: string | null; xTicks: readonly number[]; yTicks: readonly number[]; clipId: string }): string[] {
  const out: string[] = [];
  out.push(`<text x="${f.left}" y="${f.top - 26}" font-size="14" font-weight="bold">${escapeXml(o.title)}</text>`);
  out.push(`<rect x="${f.left}" y="${f.top}" width="${f.width}" height="${f.height}" fill="#fff" stroke="#444"/>`);
  for (const t of o.xTicks) {
    if (t < f.x0 - 1e-9 || t > f.x1 + 1e-9) continue;
    const x = f.px(t).toFixed(1);
    out.push(`<line x1="${x}" y1="${f.top}" x2="${x}" y2="${f.bottom}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x}" y="${f.bottom + 15}" font-size="11" text-anchor="middle">${tickText(t)}</text>`);
  }
  for (const t of o.yTicks) {
    const y = f.py(t).toFixed(1);
    out.push(`<line x1="${f.left}" y1="${y}" x2="${f.right}" y2="${y}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${f.left - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${tickText(t)}</text>`);
  }
  if (o.xLabel) out.push(`<text x="${f.left + f.width / 2}" y="${f.bottom + 34}" font-size="12" text-anchor="middle">${escapeXml(o.xLabel)}</text>`);
  const yMid = f.top + f.height / 2;
  out.push(`<text x="18" y="${yMid}" font-size="12" text-anchor="middle" transform="rotate(-90 18 ${yMid})">${escapeXml(o.yLabel)}</text>`);
  out.push(`<clipPath id="${o.clipId}"><rect x="${f.left}" y="${f.top}" width="${f.width}" height="${f.height}"/></clipPath>`);
  return out;
}

/**
 * The `points` of the polylines drawing y(x): a new polyline wherever y is absent (null, NaN, ±Infinity);
 * finite values are clamped to [lo, hi] (the clip path then hides what left the axis). Many samples per pixel
 * column are cut to that column's first, lowest, highest and last, so a dip (the TTC minimum) survives.
 */
export function polylinePoints(xs: readonly number[], ys: ReadonlyArray<number | null>, f: Frame, lo: number, hi: number): string[] {
  const lines: string[] = [];
  let pts: string[] = [];
  // the current pixel column: its first, last, lowest (largest Y) and highest values and their order
  let col = NaN, first = 0, last = 0, low = 0, high = 0, k = 0, kLow = 0, kHigh = 0;
  const flushCol = () => {
    if (col !== col) return;
    const seq = kLow < kHigh ? [first, low, high, last] : [first, high, low, last];
    let prev = NaN;
    for (const y of seq) {
      if (y !== prev) pts.push(`${col.toFixed(1)},${y.toFixed(1)}`);
      prev = y;
    }
    col = NaN;
  };
  const flushLine = () => {
    flushCol();
    if (pts.length > 0) lines.push(pts.join(' '));
    pts = [];
  };
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) {
    const v = ys[i];
    if (v === null || !Number.isFinite(v)) {
      flushLine();
      continue;
    }
    const X = Math.round(f.px(xs[i]) * 2) / 2;
    const Y = f.py(Math.min(hi, Math.max(lo, v)));
    if (X !== col) {
      flushCol();
      col = X;
      first = last = low = high = Y;
      k = kLow = kHigh = 0;
      continue;
    }
    k++;
    last = Y;
    if (Y > low) {
      low = Y;
      kLow = k;
    }
    if (Y < high) {
      high = Y;
      kHigh = k;
    }
  }
  flushLine();
  return lines;
}

export interface LegendEntry {
  text: string;
  color: string;
  dashed?: boolean;
  width?: number;
}

/** One legend row: a line sample and the label per entry, left to right. */
export function legendSvg(entries: readonly LegendEntry[], x: number, y: number): string[] {
  const out: string[] = [];
  let lx = x;
  for (const e of entries) {
    const dash = e.dashed ? ' stroke-dasharray="5 3"' : '';
    out.push(`<line x1="${lx}" y1="${y - 4}" x2="${lx + 18}" y2="${y - 4}" stroke="${e.color}" stroke-width="${e.width ?? 2}"${dash}/>`);
    out.push(`<text x="${lx + 22}" y="${y}" font-size="11" fill="#333">${escapeXml(e.text)}</text>`);
    lx += 22 + textWidth(e.text, 11) + 18;
  }
  return out;
}

/** A rough width of sans-serif text [px] (labels are placed without a layout engine). */
export function textWidth(s: string, fontSize: number): number {
  return 0.58 * fontSize * s.length;
}
