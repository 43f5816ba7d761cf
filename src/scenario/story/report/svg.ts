/**
 * The attempt's picture: a verdict banner (status, reason, each criterion with verdict, value and limit) over
 * three panels sharing the time axis — speeds [km/h], the bumper gap along the ego's lane [m], TTC [s] — with
 * a vertical line at each event start (labelled with its id) and at the end, the criteria's limits as dashed
 * lines over a shaded failing band, and their measured minima marked. Self-contained: no fonts, scripts or
 * links to fetch. TTC is clipped at `ttcClip` (10 s): above it, and where it is infinite (nothing closing in
 * the ego's path), nothing is drawn.
 */
import type { AttemptResult } from '../world.js';
import { STATUS_COLOR, STATUS_LABEL, VERDICT_COLOR, atText, fixed, limitText, valueText, verdictLabel, type CriterionResult } from './format.js';
import { Frame, escapeXml, frameSvg, legendSvg, niceAxis, polylinePoints, textWidth, type LegendEntry } from './plot.js';
import { AttemptTrace, type TraceJson } from './trace.js';

export interface SvgOptions {
  /** the case's name, in the banner */
  title?: string;
  widthPx?: number;
  /** TTC axis top [s]; default 10 */
  ttcClip?: number;
  /** false inside HTML (no xmlns attribute: inline SVG needs none, and the page then names no URL at all) */
  standalone?: boolean;
  /** prefix of the clip-path ids, unique per SVG when several share a page */
  idPrefix?: string;
}

/** vehicle colours, egos first; red is kept for verdicts and limits */
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
const EVENT_COLOR = '#6a3d9a';
const LIMIT_COLOR = '#c62828';
const MARGIN = { left: 70, right: 24 };
const PANEL = { head: 44, plot: 150, foot: 26 };

interface Panel {
  title: string;
  yLabel: string;
  axis: { lo: number; hi: number; ticks: number[] };
  series: Array<{ key: string; label: string; color: string; width: number; dashed: boolean; y: ReadonlyArray<number | null> }>;
  limits: Array<{ y: number; label: string }>;
  marks: Array<{ t: number; y: number; label: string; color: string; cross: boolean }>;
}

export function renderAttemptSvg(result: AttemptResult, trace: AttemptTrace | TraceJson, opts: SvgOptions = {}): string {
  const tj = trace instanceof AttemptTrace ? trace.toJSON() : trace;
  const width = opts.widthPx ?? 960;
  const clip = opts.ttcClip ?? 10;
  const id = opts.idPrefix ?? 'attempt';
  const out: string[] = [];
  const bannerH = banner(result, tj, opts.title ?? '', width, out);

  const tFirst = tj.t.length ? tj.t[0] : result.start_s;
  const tLast = tj.t.length ? tj.t[tj.t.length - 1] : result.start_s;
  const x = niceAxis(Math.min(tFirst, result.start_s), Math.max(tLast, result.end_s ?? tLast, tFirst + 1e-3), 10);
  const panels = buildPanels(result, tj, clip);
  const starts = eventStarts(result, tj);

  let top = bannerH + 12;
  panels.forEach((p, i) => {
    const last = i === panels.length - 1;
    const f = new Frame(MARGIN.left, top + PANEL.head, width - MARGIN.left - MARGIN.right, PANEL.plot, x.lo, x.hi, p.axis.lo, p.axis.hi);
    const clipId = `${id}-clip${i}`;
    const cp = `clip-path="url(#${clipId})"`;
    out.push(`<g class="panel">`, ...frameSvg(f, { title: p.title, yLabel: p.yLabel, xLabel: last ? 'time [s]' : null, xTicks: x.ticks, yTicks: p.axis.ticks, clipId }));
    const legend: LegendEntry[] = p.series.map((s) => ({ text: s.label, color: s.color, dashed: s.dashed, width: s.width }));
    for (const l of p.limits) {
      const y = f.py(l.y);
      // the failing side of a minimum: from the axis bottom up to the limit
      out.push(`<rect x="${f.left}" y="${y.toFixed(1)}" width="${f.width}" height="${Math.max(0, f.bottom - y).toFixed(1)}" fill="${LIMIT_COLOR}" fill-opacity="0.08" ${cp}/>`);
      out.push(`<line x1="${f.left}" y1="${y.toFixed(1)}" x2="${f.right}" y2="${y.toFixed(1)}" stroke="${LIMIT_COLOR}" stroke-width="1.4" stroke-dasharray="6 4" ${cp}/>`);
      legend.push({ text: l.label, color: LIMIT_COLOR, dashed: true });
    }
    for (const e of starts) {
      const ex = f.px(e.t).toFixed(1);
      out.push(`<line x1="${ex}" y1="${f.top}" x2="${ex}" y2="${f.bottom}" stroke="${e.end ? '#333' : EVENT_COLOR}" stroke-width="1.2" stroke-dasharray="${e.end ? '2 2' : '4 3'}"/>`);
    }
    // egos drawn last, on top of an actor at the same speed
    for (const s of [...p.series].sort((a, b) => a.width - b.width)) {
      const dash = s.dashed ? ' stroke-dasharray="6 3"' : '';
      for (const pts of polylinePoints(tj.t, s.y, f, p.axis.lo - 0.02 * (p.axis.hi - p.axis.lo), p.axis.hi + 0.02 * (p.axis.hi - p.axis.lo))) {
        out.push(`<polyline data-series="${escapeXml(s.key)}" fill="none" stroke="${s.color}" stroke-width="${s.width}"${dash} stroke-linejoin="round" ${cp} points="${pts}"/>`);
      }
    }
    for (const mk of p.marks) markSvg(f, mk, out);
    if (i === 0) eventLabels(f, starts, out);
    out.push(...legendSvg(legend, f.left, top + PANEL.head - 8), '</g>');
    top += PANEL.head + PANEL.plot + (last ? PANEL.foot + 20 : PANEL.foot);
  });

  const height = Math.ceil(top + 6);
  const ns = opts.standalone === false ? '' : ' xmlns="http://www.w3.org/2000/svg"';
  return [
    `<svg${ns} width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#fafafa"/>`,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}

/** The status band and one line per criterion; returns its height. */
function banner(r: AttemptResult, tj: TraceJson, title: string, width: number, out: string[]): number {
  const band = 46;
  out.push(`<rect x="0" y="0" width="${width}" height="${band}" fill="${STATUS_COLOR[r.status]}"/>`);
  out.push(`<text x="16" y="31" font-size="22" font-weight="bold" fill="#fff">${STATUS_LABEL[r.status]}</text>`);
  const span = `story ${fixed(r.start_s)}–${r.end_s === null ? '…' : fixed(r.end_s)} s`;
  const ended = r.ended_by && r.ended_by !== r.reason ? `ended: ${r.ended_by}` : '';
  // bold capitals are wider than textWidth's average letter
  const x0 = 16 + 0.74 * 22 * STATUS_LABEL[r.status].length + 20;
  const sub = clipText([r.reason, ended, span, tj.stride > 1 ? `plotted 1 sample in ${tj.stride}` : ''].filter(Boolean).join(' · '), Math.floor((width - x0 - 8) / 6.5));
  if (title) out.push(`<text x="${x0}" y="20" font-size="14" font-weight="bold" fill="#fff">${escapeXml(title)}</text>`);
  out.push(`<text x="${x0}" y="${title ? 38 : 29}" font-size="12" fill="#fff">${escapeXml(sub)}</text>`);
  let y = band + 20;
  if (r.criteria.length === 0) {
    out.push(`<text x="16" y="${y}" font-size="12" fill="#555">no criteria</text>`);
    return y + 6;
  }
  for (const c of r.criteria) {
    const cols: Array<[number, string, string, boolean]> = [
      [16, verdictLabel(c.verdict), VERDICT_COLOR[c.verdict], true],
      [96, c.name === c.kind ? c.name : `${c.name} (${c.kind})`, '#222', false],
      [330, valueText(c), '#222', true],
      [440, limitText(c) ? `limit ${limitText(c)}` : '', '#555', false],
      [560, atText(c), '#555', false],
      [650, c.detail === valueText(c) ? '' : clipText(c.detail, Math.floor((width - 660) / 6.5)), '#555', false],
    ];
    for (const [cx, text, color, bold] of cols) {
      if (text) out.push(`<text x="${cx}" y="${y}" font-size="12" fill="${color}"${bold ? ' font-weight="bold"' : ''}>${escapeXml(text)}</text>`);
    }
    y += 18;
  }
  return y - 6;
}

function clipText(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}

function buildPanels(r: AttemptResult, tj: TraceJson, clip: number): Panel[] {
  const color = (v: string) => PALETTE[tj.vehicles.indexOf(v) % PALETTE.length];
  const isEgo = (v: string) => tj.egos.includes(v);
  const kmh = (col: ReadonlyArray<number | null>) => col.map((v) => (v === null ? null : v * 3.6));
  const speeds = tj.vehicles.map((v) => ({ key: `speed:${v}`, label: isEgo(v) ? `${v} (ego)` : v, color: color(v), width: isEgo(v) ? 2.4 : 1.7, dashed: false, y: kmh(tj.speed[v] ?? []) }));
  const several = tj.egos.length > 1;
  const pairLabel = (p: TraceJson['pairs'][number]) => (several ? `${p.ego} → ${p.other}` : p.other);
  const pairStyle = (p: TraceJson['pairs'][number]) => ({ color: color(p.other), width: 1.8, dashed: tj.egos.indexOf(p.ego) > 0 });
  // pairs between two egos are drawn from the first one only
  const pairs = tj.pairs.filter((p) => !(isEgo(p.other) && tj.egos.indexOf(p.other) < tj.egos.indexOf(p.ego)));
  const gaps = pairs.map((p) => ({ key: `gap:${p.ego}:${p.other}`, label: pairLabel(p), ...pairStyle(p), y: p.gap }));
  const ttcs = pairs.map((p) => ({ key: `ttc:${p.ego}:${p.other}`, label: pairLabel(p), ...pairStyle(p), y: p.ttc }));

  const maxOf = (cols: ReadonlyArray<ReadonlyArray<number | null>>, init: number) => cols.reduce<number>((m, c) => c.reduce<number>((a, v) => (v !== null && v > a ? v : a), m), init);
  const minOf = (cols: ReadonlyArray<ReadonlyArray<number | null>>, init: number) => cols.reduce<number>((m, c) => c.reduce<number>((a, v) => (v !== null && v < a ? v : a), m), init);
  const crit = (kind: string) => r.criteria.filter((c) => c.kind === kind && c.limit !== null);
  const limitOf = (c: CriterionResult, what: string) => ({ y: c.limit!, label: `${c.name}: ${what} ${limitText(c)}` });
  const markOf = (c: CriterionResult, label: string) => (typeof c.value === 'number' && c.at_s !== null ? [{ t: c.at_s, y: c.value, label, color: VERDICT_COLOR[c.verdict], cross: false }] : []);

  const gapLimits = crit('min_distance').map((c) => limitOf(c, 'box gap'));
  const gapMarks = crit('min_distance').flatMap((c) => markOf(c, `min ${valueText(c)}`));
  for (const c of r.criteria) {
    if (c.kind === 'no_collision' && c.verdict === 'fail' && c.at_s !== null) gapMarks.push({ t: c.at_s, y: 0, label: valueText(c), color: VERDICT_COLOR.fail, cross: true });
  }
  const gapHi = Math.max(maxOf(gaps.map((s) => s.y), 1), ...gapLimits.map((l) => l.y));
  const gapLo = Math.min(0, minOf(gaps.map((s) => s.y), 0));
  const ttcLimits = crit('min_ttc').map((c) => limitOf(c, 'TTC'));
  const ttcMarks = crit('min_ttc').flatMap((c) => markOf(c, `min ${valueText(c)}`)).filter((mk) => mk.y <= clip);
  const ttcTicks = niceAxis(0, clip, 5);
  return [
    { title: 'Speed', yLabel: 'speed [km/h]', axis: niceAxis(0, Math.max(10, maxOf(speeds.map((s) => s.y), 0)), 5), series: speeds, limits: [], marks: [] },
    { title: "Gap, bumper to bumper along the ego's lane (other ahead)", yLabel: 'gap [m]', axis: niceAxis(gapLo, gapHi, 5), series: gaps, limits: gapLimits, marks: gapMarks },
    { title: `Time to collision, in the ego's path (clipped at ${clip} s)`, yLabel: 'TTC [s]', axis: { lo: 0, hi: clip, ticks: ttcTicks.ticks.filter((t) => t <= clip) }, series: ttcs, limits: ttcLimits, marks: ttcMarks },
  ];
}

interface Marker {
  t: number;
  label: string;
  end: boolean;
}

/** Each event start (every execution) and the attempt's end. */
function eventStarts(r: AttemptResult, tj: TraceJson): Marker[] {
  const out: Marker[] = tj.happenings.filter((h) => h.kind === 'event_started').map((h) => ({ t: h.t, label: h.id, end: false }));
  // a trace that missed them (capped, or recorded without happenings): the result's first starts
  for (const e of r.events) if (e.started_s !== null && !out.some((m) => m.label === e.id)) out.push({ t: e.started_s, label: e.id, end: false });
  out.sort((a, b) => a.t - b.t);
  if (r.end_s !== null) out.push({ t: r.end_s, label: 'end', end: true });
  return out;
}

/** Event labels at the top of the first panel, moved down a row where they would overlap. */
function eventLabels(f: Frame, ms: readonly Marker[], out: string[]): void {
  const rowsEnd: number[] = [];
  for (const m of ms) {
    const text = `${m.label} ${fixed(m.t)} s`;
    const w = textWidth(text, 11) + 6;
    const x = f.px(m.t);
    // right of the line, or left of it near the right edge
    const left = x + w + 3 > f.right ? x - w - 3 : x + 3;
    let row = rowsEnd.findIndex((end) => end < left);
    if (row < 0) row = rowsEnd.push(0) - 1;
    rowsEnd[row] = left + w;
    const y = f.top + 4 + row * 15;
    out.push(`<rect x="${left.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="13" fill="#fff" fill-opacity="0.85"/>`);
    out.push(`<text class="event" x="${(left + 3).toFixed(1)}" y="${y + 10}" font-size="11" fill="${m.end ? '#333' : EVENT_COLOR}">${escapeXml(text)}</text>`);
  }
}

function markSvg(f: Frame, mk: Panel['marks'][number], out: string[]): void {
  if (mk.y < f.y0 || mk.y > f.y1 || mk.t < f.x0 || mk.t > f.x1) return;
  const x = f.px(mk.t), y = f.py(mk.y);
  if (mk.cross) out.push(`<path d="M${x - 5},${y - 5}L${x + 5},${y + 5}M${x - 5},${y + 5}L${x + 5},${y - 5}" stroke="${mk.color}" stroke-width="2.5"/>`);
  else out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4.5" fill="none" stroke="${mk.color}" stroke-width="2"/>`);
  const w = textWidth(mk.label, 11);
  const lx = x + 8 + w > f.right ? x - 8 - w : x + 8;
  const ly = y - 8 < f.top + 12 ? y + 16 : y - 8;
  out.push(`<text x="${lx.toFixed(1)}" y="${ly.toFixed(1)}" font-size="11" font-weight="bold" fill="${mk.color}">${escapeXml(mk.label)}</text>`);
}
