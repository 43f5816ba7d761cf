/**
 * The attempt's readable report: one HTML file that opens anywhere offline — inline CSS, the SVG inline, no
 * script, and a Content-Security-Policy that forbids every fetch should anything slip in. Every string that
 * came from a user's file (case name, parameters, event and criterion names, details) is escaped. The date is
 * the caller's: nothing here reads a clock.
 */
import type { AttemptResult } from '../world.js';
import { STATUS_COLOR, STATUS_LABEL, VERDICT_COLOR, atText, fixed, limitText, valueText, verdictLabel } from './format.js';
import { escapeXml } from './plot.js';
import { renderAttemptSvg } from './svg.js';
import { AttemptTrace, type TraceJson } from './trace.js';

export interface ReportMeta {
  /** the case's name (its file, or its title) */
  caseName: string;
  seed?: number | string | null;
  /** every override that shaped the run: `vils run --set`, a campaign's swept values */
  params?: Record<string, number | string>;
  /** where they came from, said under the table ('--set', 'the campaign's axes') */
  paramsSource?: string;
  /** when it ran, as the caller wants it written (an ISO date) */
  date?: string;
  /** free lines under the title (the scenario file, the system under test, …) */
  notes?: readonly string[];
  ttcClip?: number;
}

const CSS = `
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:24px;color:#222;background:#fff;max-width:1000px}
h1{font-size:22px;margin:0 0 6px} h2{font-size:16px;margin:24px 0 8px}
.status{display:inline-block;color:#fff;font-weight:bold;padding:3px 10px;border-radius:4px;margin-right:8px}
.meta{color:#555;margin:4px 0} .meta b{color:#222}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-weight:bold} .figure{margin:16px 0;overflow-x:auto}
`.trim();

/** CSP: no network at all; the inline style and the inline SVG are the page */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Overrides as the Parameters table shows them: numbers and words as given, anything else as JSON. */
export function reportParams(o: Readonly<Record<string, unknown>>): Record<string, number | string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'string' ? v : JSON.stringify(v)]));
}

export function renderAttemptHtml(result: AttemptResult, trace: AttemptTrace | TraceJson, meta: ReportMeta): string {
  const tj = trace instanceof AttemptTrace ? trace.toJSON() : trace;
  const e = escapeXml;
  const metaBits: string[] = [];
  if (meta.seed !== undefined && meta.seed !== null) metaBits.push(`<b>seed</b> ${e(String(meta.seed))}`);
  if (meta.date) metaBits.push(`<b>date</b> ${e(meta.date)}`);
  metaBits.push(`<b>story</b> ${fixed(result.start_s)}–${result.end_s === null ? '…' : fixed(result.end_s)} s`);
  if (result.status === 'failed' || result.status === 'invalid' || !result.ended_by) metaBits.push(`<b>reason</b> ${e(result.reason || '–')}`);
  if (result.criteria_said) metaBits.push(`<b>the criteria alone</b> ${e(result.criteria_said)} (not a verdict: the data did not hold)`);
  if (result.ended_by) metaBits.push(`<b>ended</b> ${e(result.ended_by)}`);

  const params = Object.entries(meta.params ?? {});
  const paramTable = params.length === 0
    ? '<p class="meta">none: the case ran as its file says (no --set, no campaign axis)</p>'
    : `${table(['parameter', 'value'], params.map(([k, v]) => [e(k), cell(v)]))}${meta.paramsSource ? `<p class="meta">from ${e(meta.paramsSource)}, over the case file's own values</p>` : ''}`;

  const events = result.events.length === 0 ? '<p class="meta">no events</p>' : table(
    ['event', 'started [s]', 'done [s]', 'executions'],
    result.events.map((ev) => [e(ev.id), num(ev.started_s), num(ev.done_s), { n: String(ev.executions) }]),
  );
  const criteria = result.criteria.length === 0 ? '<p class="meta">no criteria</p>' : table(
    ['criterion', 'kind', 'verdict', 'value', 'limit', 'when', 'detail'],
    result.criteria.map((c) => [
      e(c.name),
      e(c.kind),
      `<span class="verdict" style="color:${VERDICT_COLOR[c.verdict]}">${verdictLabel(c.verdict)}</span>`,
      e(valueText(c)),
      e(limitText(c)),
      e(atText(c)),
      c.detail === valueText(c) ? '' : e(c.detail),
    ]),
  );
  // a real car under test: whether the data held, gate by gate (absent from headless runs: nothing to gate)
  const quality = !result.quality ? '' : `<h2>Data quality</h2>\n${table(
    ['gate', 'held', 'value', 'limit', 'from [s]', 'to [s]', 'detail'],
    result.quality.map((g) => [e(g.gate), g.ok ? 'yes' : '<span class="verdict" style="color:#c62828">NO</span>', g.value === null ? '' : { n: `${fixed(g.value)}${g.unit ? ` ${g.unit}` : ''}` }, g.limit === null ? '' : { n: `${g.limit}${g.unit ? ` ${g.unit}` : ''}` }, num(g.from_s), num(g.to_s), e(g.detail)]),
  )}`;
  const kept = tj.happenings.filter((h) => h.kind !== 'action_done');
  const happenings = kept.length === 0 ? '<p class="meta">none recorded</p>' : table(
    ['t [s]', 'what', 'id', 'detail'],
    kept.map((h) => [num(h.t), e(h.kind.replace(/_/g, ' ')), e(h.id), e(h.detail)]),
  );
  const sampling = `${tj.samples} samples${tj.stride > 1 ? `, plotted 1 in ${tj.stride} (the trace's row cap)` : ''}${tj.happenings_dropped ? `; ${tj.happenings_dropped} later happenings not kept` : ''}`;
  const svg = renderAttemptSvg(result, tj, { title: meta.caseName, standalone: false, ttcClip: meta.ttcClip, idPrefix: 'report' });

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${e(meta.caseName)}: ${STATUS_LABEL[result.status]}</title>
<style>
${CSS}
</style>
</head>
<body>
<h1><span class="status" style="background:${STATUS_COLOR[result.status]}">${STATUS_LABEL[result.status]}</span>${e(meta.caseName)}</h1>
<p class="meta">${metaBits.join(' · ')}</p>
${(meta.notes ?? []).map((n) => `<p class="meta">${e(n)}</p>`).join('\n')}
<h2>Criteria</h2>
${criteria}
${quality}
<div class="figure">
${svg}</div>
<h2>Parameters</h2>
${paramTable}
<h2>Events</h2>
${events}
<h2>What happened</h2>
${happenings}
<p class="meta">${e(sampling)}</p>
</body>
</html>
`;
}

/** a table cell: escaped HTML, or a number (right-aligned) */
type Cell = string | { n: string };

function table(head: readonly string[], rows: ReadonlyArray<readonly Cell[]>): string {
  const th = head.map((h) => `<th>${escapeXml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => (typeof c === 'string' ? `<td>${c}</td>` : `<td class="num">${c.n}</td>`)).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/** a time [s]: 2 decimals, so a column lines up */
function num(x: number | null): Cell {
  return x === null ? '–' : { n: fixed(x) };
}

/** a parameter as given (not rounded) */
function cell(v: number | string): Cell {
  return typeof v === 'number' ? { n: String(v) } : escapeXml(v);
}
