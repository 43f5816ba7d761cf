/**
 * Words and numbers the reports share (SVG banner, HTML tables, campaign tables), so a criterion reads the
 * same everywhere: its value with its unit, its limit with the side that passes, the status in capitals.
 */
import { figureAgainst } from '../figures.js';
import type { AttemptResult, AttemptStatus, Verdict } from '../world.js';

export type CriterionResult = AttemptResult['criteria'][number];

export const STATUS_LABEL: Record<AttemptStatus, string> = {
  passed: 'PASSED', failed: 'FAILED', not_started: 'NOT STARTED', aborted: 'ABORTED', running: 'RUNNING', invalid: 'INVALID',
};

/** banner fills: green, red, grey, orange (aborted is neither a pass nor a fail of the system), blue */
export const STATUS_COLOR: Record<AttemptStatus, string> = {
  passed: '#2e7d32', failed: '#c62828', not_started: '#757575', aborted: '#ef6c00', running: '#1565c0', invalid: '#6a1b9a',
};

export const VERDICT_COLOR: Record<Verdict, string> = { pass: '#2e7d32', fail: '#c62828', pending: '#757575' };

/** A number for people: 2 decimals, trailing zeros kept (columns line up). */
export function fixed(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

/**
 * The measured value with its unit: '1.23 s' (with the decimals it takes to sit on its side of the limit: a
 * failed 0.9996 s against 1 s reads '0.9996 s', never '1.00 s'), 'hit lead', 'no contact', 'not measured'.
 */
export function valueText(c: CriterionResult): string {
  if (c.kind === 'no_collision') return c.value === null ? (c.verdict === 'pending' ? 'no contact so far' : 'no contact') : `hit ${String(c.value)}`;
  if (c.value === null) return 'not measured';
  if (typeof c.value === 'string') return c.value;
  const x = figureAgainst(c.value, c.limit === null ? [] : [c.limit]);
  return c.unit ? `${x} ${c.unit}` : x;
}

/** The limit with the side that passes: '≥ 1.5 s' for a minimum, '≤ 10 m/s²' for a maximum. */
export function limitText(c: CriterionResult): string {
  if (c.limit === null) return '';
  const side = c.kind === 'peak_decel' || c.kind === 'reach' ? '≤' : '≥';
  return `${side} ${c.limit}${c.unit ? ` ${c.unit}` : ''}`;
}

/** 'at 3.40 s' or '' */
export function atText(c: CriterionResult): string {
  return c.at_s === null ? '' : `at ${fixed(c.at_s)} s`;
}

export function verdictLabel(v: Verdict): string {
  return v === 'pass' ? 'PASS' : v === 'fail' ? 'FAIL' : 'PENDING';
}

/** Counts of attempts by status. */
export function totals(statuses: readonly AttemptStatus[]): Record<AttemptStatus, number> & { attempts: number } {
  const t = { attempts: statuses.length, passed: 0, failed: 0, not_started: 0, aborted: 0, running: 0, invalid: 0 };
  for (const s of statuses) t[s]++;
  return t;
}

/** '5 attempts: 3 passed, 1 failed, 1 not started' (aborted and running only when there are some) */
export function totalsText(t: ReturnType<typeof totals>): string {
  const parts = [`${t.passed} passed`, `${t.failed} failed`, `${t.not_started} not started`];
  if (t.invalid) parts.push(`${t.invalid} invalid`);
  if (t.aborted) parts.push(`${t.aborted} aborted`);
  if (t.running) parts.push(`${t.running} running`);
  return `${t.attempts} attempt${t.attempts === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * The attempt as a terminal shows it (vils run): the status with its reason and end, each event, and each
 * criterion with its value against its limit, when, and its detail — a criterion with no value says so in words.
 */
export function attemptLines(r: AttemptResult): string {
  const ended = r.ended_by !== null && r.ended_by !== r.reason ? `; ended: ${r.ended_by}` : '';
  const lines = [`  story: ${STATUS_LABEL[r.status]} (${r.reason || 'no reason yet'}${ended}${r.end_s !== null ? ` at ${r.end_s.toFixed(1)} s` : ''})`];
  for (const e of r.events) lines.push(`    event ${e.id}: ${e.started_s === null ? 'never started' : `started ${e.started_s.toFixed(1)} s${e.done_s !== null ? `, done ${e.done_s.toFixed(1)} s` : ''}`}`);
  for (const c of r.criteria) {
    const limit = limitText(c);
    const at = atText(c);
    lines.push(`    ${c.verdict === 'fail' ? 'FAIL' : c.verdict}  ${c.name}: ${valueText(c)}${limit ? ` (pass if ${limit})` : ''}${at ? ` ${at}` : ''}${c.detail && c.detail !== valueText(c) ? ` — ${c.detail}` : ''}`);
  }
  if (r.status === 'invalid' && r.criteria_said) lines.push(`    (on the data as it was the criteria would say ${r.criteria_said}: not a verdict)`);
  for (const g of r.quality ?? []) if (!g.ok) lines.push(`    DATA  ${g.gate}: ${g.detail}${g.from_s !== null ? ` (${g.to_s !== null && g.to_s > g.from_s ? `${g.from_s.toFixed(2)}–${g.to_s.toFixed(2)} s` : `at ${g.from_s.toFixed(2)} s`})` : ''}`);
  return lines.join('\n');
}
