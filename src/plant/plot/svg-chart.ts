/**
 * Hand-written SVG line charts (no plotting dependency): panels stacked vertically, each with its own axes,
 * "nice" tick marks, a legend and optional horizontal reference lines.
 */

export interface ChartSeries {
  label: string;
  color: string;
  x: readonly number[];
  y: readonly number[];
  dashed?: boolean;
}

export interface ReferenceLine {
  y: number;
  label: string;
  color: string;
}

export interface ChartPanel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  references?: ReferenceLine[];
  /** Same scale on both axes (paths). */
  equalAspect?: boolean;
  heightPx?: number;
}

export interface ChartDocument {
  title: string;
  subtitle?: string;
  panels: ChartPanel[];
  widthPx?: number;
}

const MARGIN = { left: 70, right: 20, top: 44, bottom: 45 };
const MAX_POINTS = 1500;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Tick positions covering [lo, hi] with a 1-2-5 step, about `count` of them. */
export function niceTicks(lo: number, hi: number, count = 6): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) ticks.push(k === 0 ? 0 : Number((k * step).toPrecision(12)));
  return ticks;
}

function fmt(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return String(Number(v.toPrecision(6)));
}

function extent(values: Iterable<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi - lo < 1e-12) return [lo - 1, hi + 1];
  const pad = 0.05 * (hi - lo);
  return [lo - pad, hi + pad];
}

function panelSvg(p: ChartPanel, top: number, width: number): { svg: string; height: number } {
  const height = p.heightPx ?? 240;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  let [x0, x1] = extent(p.series.flatMap((s) => s.x));
  let [y0, y1] = extent([...p.series.flatMap((s) => s.y), ...(p.references ?? []).map((r) => r.y)]);
  if (p.equalAspect) {
    const sx = (x1 - x0) / plotW;
    const sy = (y1 - y0) / plotH;
    if (sx > sy) {
      const c = 0.5 * (y0 + y1);
      y0 = c - 0.5 * sx * plotH;
      y1 = c + 0.5 * sx * plotH;
    } else {
      const c = 0.5 * (x0 + x1);
      x0 = c - 0.5 * sy * plotW;
      x1 = c + 0.5 * sy * plotW;
    }
  }
  const px = (x: number): number => MARGIN.left + ((x - x0) / (x1 - x0)) * plotW;
  const py = (y: number): number => top + MARGIN.top + plotH - ((y - y0) / (y1 - y0)) * plotH;
  const out: string[] = [];
  out.push(`<text x="${MARGIN.left}" y="${top + 18}" font-size="14" font-weight="bold">${escapeXml(p.title)}</text>`);
  out.push(`<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotW}" height="${plotH}" fill="#fff" stroke="#444"/>`);
  for (const t of niceTicks(x0, x1)) {
    const x = px(t).toFixed(1);
    out.push(`<line x1="${x}" y1="${top + MARGIN.top}" x2="${x}" y2="${top + MARGIN.top + plotH}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x}" y="${top + MARGIN.top + plotH + 15}" font-size="11" text-anchor="middle">${fmt(t)}</text>`);
  }
  for (const t of niceTicks(y0, y1, 5)) {
    const y = py(t).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotW}" y2="${y}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${MARGIN.left - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${fmt(t)}</text>`);
  }
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${top + height - 8}" font-size="12" text-anchor="middle">${escapeXml(p.xLabel)}</text>`);
  const yMid = top + MARGIN.top + plotH / 2;
  out.push(`<text x="16" y="${yMid}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${yMid})">${escapeXml(p.yLabel)}</text>`);
  out.push(`<clipPath id="clip${top}"><rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotW}" height="${plotH}"/></clipPath>`);
  for (const r of p.references ?? []) {
    const y = py(r.y).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotW}" y2="${y}" stroke="${r.color}" stroke-dasharray="6 4" clip-path="url(#clip${top})"/>`);
  }
  const legend: { text: string; color: string; dashed: boolean }[] = [];
  p.series.forEach((s) => {
    const n = Math.min(s.x.length, s.y.length);
    const stride = Math.max(1, Math.ceil(n / MAX_POINTS));
    const pts: string[] = [];
    for (let i = 0; i < n; i += stride) pts.push(`${px(s.x[i]).toFixed(1)},${py(s.y[i]).toFixed(1)}`);
    if (n > 0 && (n - 1) % stride !== 0) pts.push(`${px(s.x[n - 1]).toFixed(1)},${py(s.y[n - 1]).toFixed(1)}`);
    const dash = s.dashed ? ' stroke-dasharray="5 3"' : '';
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1.6"${dash} clip-path="url(#clip${top})" points="${pts.join(' ')}"/>`);
    if (s.label) legend.push({ text: s.label, color: s.color, dashed: Boolean(s.dashed) });
  });
  for (const r of p.references ?? []) legend.push({ text: r.label, color: r.color, dashed: true });
  // legend row between the panel title and the plot: a line sample and the label per entry
  let lx = MARGIN.left;
  const ly = top + 34;
  for (const e of legend) {
    const dash = e.dashed ? ' stroke-dasharray="5 3"' : '';
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 18}" y2="${ly - 4}" stroke="${e.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 22}" y="${ly}" font-size="11" fill="#333">${escapeXml(e.text)}</text>`);
    lx += 22 + 6.5 * e.text.length + 18;
  }
  return { svg: out.join('\n'), height };
}

export function renderChartDocument(doc: ChartDocument): string {
  const width = doc.widthPx ?? 900;
  const header = doc.subtitle ? 56 : 36;
  const parts: string[] = [];
  let top = header;
  for (const p of doc.panels) {
    const { svg, height } = panelSvg(p, top, width);
    parts.push(svg);
    top += height;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top + 10}" viewBox="0 0 ${width} ${top + 10}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#fafafa"/>`,
    `<text x="${width / 2}" y="24" font-size="17" font-weight="bold" text-anchor="middle">${escapeXml(doc.title)}</text>`,
    doc.subtitle ? `<text x="${width / 2}" y="44" font-size="12" text-anchor="middle" fill="#555">${escapeXml(doc.subtitle)}</text>` : '',
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
