/**
 * The time-sync panel of the web map: GET /api/status `time` (src/time/status-json.ts) as a table — every asset
 * of the scene's conductor (the wall clock, the NPC world, simulated egos, external simulators) with its time,
 * its skew to Tc now and at worst, and how often it was held — plus a one-line summary for the status bar. A
 * lagging asset (realtime: more than dmax behind, its outputs stale) is shown in red, in both.
 *
 * The wall-clock asset (kind `wallclock`: the runner's clock, standing for the real cars' GNSS streams) is the
 * real car: a car on a track cannot be paused, so the conductor never holds it and dmax does not bound its skew
 * (dmax and the invariants are about the simulated assets). Its row says so — "real car (wall clock, never
 * held)" — and its skew is shown as it is, never in red: a skew there is not a violation.
 */
import type { TimeAsset, TimeStatus } from './types.js';

const esc = (s: string) => s.replace(/[<&>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const n1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');

/** The status bar's words: mode, Tc and the lagging assets. */
export function timeSummary(t: TimeStatus | undefined): { text: string; bad: boolean } {
  if (!t) return { text: '–', bad: false };
  const lag = t.lagging.length;
  return { text: `${t.mode} · Tc ${t.tc_s.toFixed(2)} s · ${t.assets.length} assets${lag ? ` · ${lag} lagging` : ''}`, bad: lag > 0 || t.violations > 0 };
}

/** The kind column of the wall-clock asset, the real car. */
export const REAL_CAR_LABEL = 'real car (wall clock, never held)';

function row(a: TimeAsset): string {
  const wall = a.kind === 'wallclock';
  const where = wall ? REAL_CAR_LABEL : a.external ? 'external' : 'in-process';
  // a real car is never held and never lagging: its skew is shown for what it is, not as a fault
  const lagging = a.lagging && !wall;
  const cls = wall ? ' class="wallclock"' : lagging ? ' class="lagging"' : '';
  const title = wall
    ? ' title="the real car: a wall-clock asset, never held (a car cannot be paused); dmax bounds the simulated assets, not its skew, and its skew is no violation"'
    : lagging ? ' title="more than dmax behind Tc: its outputs are stale (extrapolated); nothing waits for it"' : '';
  return `<tr${cls}${title}><td>${esc(a.name)}</td><td>${where}</td><td>${n1(a.step_ms)}</td><td>${a.t_s.toFixed(3)}</td>` +
    `<td>${n1(a.skew_ms)}</td><td>${n1(a.skew_max_ms)}</td><td>${a.held}</td><td>${a.held_core}</td></tr>`;
}

/** The panel's HTML (the caller sets it only when it changed). */
export function timePanelHtml(t: TimeStatus | undefined): string {
  if (!t) return '<p class="muted">The server sends no time status.</p>';
  const head = `<div class="time-head"><b>${esc(t.mode)}</b> · Tc <b>${t.tc_s.toFixed(3)} s</b> · dmax ${n1(t.dmax_ms)} ms · step ${t.core_step_ms} ms` +
    `${t.asset_port ? ` · UDP ${t.asset_port}` : ''} · ${t.violations ? `<span class="bad">${t.violations} violations</span>` : '0 violations'}` +
    `${t.assets.some((a) => a.kind === 'wallclock') ? ' <span class="muted" title="dmax and the invariants bound the simulated assets; the real car (wall clock) is never held">(dmax: simulated assets)</span>' : ''}</div>`;
  const table = '<table><thead><tr><th>asset</th><th></th><th>step ms</th><th>T s</th><th title="Tc − T now">skew ms</th><th title="largest Tc − T so far">max</th>' +
    '<th title="count-ups it could not make: it waited for Tc">held</th><th title="core count-ups it held back">held core</th></tr></thead>' +
    `<tbody>${t.assets.map(row).join('')}</tbody></table>`;
  const gone = t.departed.length ? `<div class="muted">left: ${t.departed.slice(-4).map((d) => `${esc(d.name)} (${esc(d.reason)}, at ${d.at_s.toFixed(1)} s)`).join(', ')}</div>` : '';
  return head + table + gone;
}
