/**
 * A campaign's summary: one row per attempt with its case, its parameters (the union of every attempt's, in
 * first-seen order; blank where an attempt has none), its status, and per criterion (by name, across cases)
 * the measured value and the verdict; then the totals by status. Markdown and HTML carry a totals line under
 * the table; the CSV stays one row per attempt (a totals row would be read as an attempt by every CSV tool),
 * its totals are in `totals`.
 */
import type { AttemptResult, Verdict } from '../world.js';
import { STATUS_COLOR, VERDICT_COLOR, totals, totalsText, valueText, type CriterionResult } from './format.js';
import { escapeXml } from './plot.js';
import { identicalRowNotes, type EgoLimits } from './identical.js';

export interface CampaignRow {
  case: string;
  params: Record<string, number | string>;
  result: AttemptResult;
  /** the run's simulated egos' own limits (its resolved vehicles and drivers): what explains rows that read the same */
  limits?: readonly EgoLimits[];
}

export interface CampaignTable {
  markdown: string;
  csv: string;
  html: string;
  totals: ReturnType<typeof totals>;
  /** rows that read the same whatever was swept, and why (identical.ts); under the tables */
  notes: string[];
}

export function campaignTable(rows: readonly CampaignRow[]): CampaignTable {
  const paramKeys: string[] = [];
  const critNames: string[] = [];
  for (const r of rows) {
    for (const k of Object.keys(r.params)) if (!paramKeys.includes(k)) paramKeys.push(k);
    for (const c of r.result.criteria) if (!critNames.includes(c.name)) critNames.push(c.name);
  }
  const crit = (r: CampaignRow, name: string): CriterionResult | undefined => r.result.criteria.find((c) => c.name === name);
  const t = totals(rows.map((r) => r.result.status));
  const summary = totalsText(t);
  const notes = identicalRowNotes(rows);

  // CSV: raw numbers (full precision) and unit-free values; criteria as <name> value, <name> verdict
  const csvHead = ['attempt', 'case', ...paramKeys, 'status', 'reason', ...critNames.flatMap((n) => [`${n} value`, `${n} verdict`])];
  const csvRows = rows.map((r, i) => [
    String(i + 1), csvCell(r.case), ...paramKeys.map((k) => csvCell(r.params[k])), r.result.status, csvCell(r.result.reason),
    ...critNames.flatMap((n) => {
      const c = crit(r, n);
      // a criterion with no figure says so in words ('no contact', 'not measured'), never an empty cell
      return c ? [csvCell(c.value ?? valueText(c)), c.verdict] : ['', ''];
    }),
  ].join(','));
  const csv = [csvHead.map(csvCell).join(','), ...csvRows].join('\n') + '\n';

  // Markdown: one cell per criterion, 'FAIL 0.00 m'
  const mdHead = ['#', 'case', ...paramKeys, 'status', ...critNames];
  const mdRows = rows.map((r, i) => [
    String(i + 1), md(r.case), ...paramKeys.map((k) => md(plain(r.params[k]))), r.result.status.replace('_', ' '),
    ...critNames.map((n) => {
      const c = crit(r, n);
      return c ? md(`${verdictWord(c.verdict)} ${valueText(c)}`) : '';
    }),
  ]);
  const markdown = [
    `| ${mdHead.map(md).join(' | ')} |`,
    `|${['---:', '---', ...paramKeys.map((k) => (numericColumn(rows, k) ? '---:' : '---')), '---', ...critNames.map(() => '---')].join('|')}|`,
    ...mdRows.map((c) => `| ${c.join(' | ')} |`),
    '',
    `**Totals:** ${summary}`,
    '',
    ...notes.flatMap((n) => [`**Identical rows:** ${md(n)}`, '']),
  ].join('\n');

  const e = escapeXml;
  const th = mdHead.map((h) => `<th>${e(h)}</th>`).join('');
  const trs = rows.map((r, i) => {
    const cells = [
      `<td class="num">${i + 1}</td>`, `<td>${e(r.case)}</td>`,
      ...paramKeys.map((k) => (typeof r.params[k] === 'number' ? `<td class="num">${e(plain(r.params[k]))}</td>` : `<td>${e(plain(r.params[k]))}</td>`)),
      `<td style="color:${STATUS_COLOR[r.result.status]};font-weight:bold">${e(r.result.status.replace('_', ' '))}</td>`,
      ...critNames.map((n) => {
        const c = crit(r, n);
        return c ? `<td><b style="color:${VERDICT_COLOR[c.verdict]}">${verdictWord(c.verdict)}</b> ${e(valueText(c))}</td>` : '<td></td>';
      }),
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  const html = [
    '<table class="campaign">',
    `<thead><tr>${th}</tr></thead>`,
    '<tbody>', ...trs, '</tbody>',
    `<tfoot><tr><td colspan="${mdHead.length}"><b>Totals:</b> ${e(summary)}</td></tr>${notes.map((n) => `<tr><td colspan="${mdHead.length}"><b>Identical rows:</b> ${e(n)}</td></tr>`).join('')}</tfoot>`,
    '</table>',
    '',
  ].join('\n');
  return { markdown, csv, html, totals: t, notes };
}

function verdictWord(v: Verdict): string {
  return v === 'pass' ? 'pass' : v === 'fail' ? 'FAIL' : 'pending';
}

function plain(v: number | string | undefined): string {
  return v === undefined ? '' : String(v);
}

function numericColumn(rows: readonly CampaignRow[], key: string): boolean {
  return rows.every((r) => r.params[key] === undefined || typeof r.params[key] === 'number');
}

/** A Markdown table cell: pipes escaped, one line. */
function md(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * A CSV field (RFC 4180 quoting). Text starting with = + - @ or a tab is prefixed with ' so a spreadsheet
 * does not run it as a formula (case names and parameters come from users' files); numbers stay numbers.
 */
function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
