/** The status bar's figures (run state, step, time, publish rate, timings, counts, shield, time sync and its panel, signals, drawing rate) and the toolbar buttons' state. */
import type { MapHandle } from './map-handle.js';
import { $, fmt, setHtml, setText } from './dom.js';
import { signalSummary } from './signals.js';
import { timePanelHtml, timeSummary } from './time-panel.js';
import type { ServerStatus } from './types.js';

/** Shield interventions from the status: a count (`shield_overrides`), else the share of NPC-steps (`shield_override_share`), else "–". */
export function shieldText(st: ServerStatus | null): string {
  const q = st?.quality;
  const n = q?.shield_overrides;
  if (typeof n === 'number' && Number.isFinite(n)) return String(n);
  const share = q?.shield_override_share;
  if (typeof share === 'number' && Number.isFinite(share)) return `${(share * 100).toFixed(1)} % of steps`;
  return '–';
}

/**
 * The figures the status bar takes from the latest frame — step, time, timings, NPCs, egos, signals — written in
 * the animation frame that draws that frame on the map (map-canvas.ts), so the two never show different frames:
 * at the 4 Hz of the rest of the bar, the signal line lagged the map by up to a quarter of a second, more on a
 * busy machine, and read "J1.A red 0.1 s" while the map had turned J1.A green.
 */
export function updateFrameFigures(page: MapHandle): void {
  const f = page.state.frame;
  setText($('st-step'), f ? String(f.step) : '–');
  setText($('st-time'), f?.sim_time_s !== undefined ? `${f.sim_time_s.toFixed(1)} s` : '–');
  const m = f?.metrics;
  setText($('st-timings'), m && m.total_time_ms > 0 ? `sim ${fmt(m.sim_time_ms)} · policy ${fmt(m.policy_time_ms)} · total ${fmt(m.total_time_ms)} ms` : '–');
  // a test case's scripted actors are listed among the NPCs of the frames, but the policy does not drive them; nor
  // does it drive the ambient people (K-City × 63 with 20 people read "83 NPCs")
  let actors = 0, people = 0;
  for (const n of f?.npcs ?? []) {
    if (n.actor !== undefined) actors++;
    else if (n.kind === 'pedestrian' || n.kind === 'cyclist') people++;
  }
  setText($('st-npcs'), f ? `${f.npcs.length - actors - people}${actors ? ` + ${actors} actor${actors === 1 ? '' : 's'}` : ''}` : '–');
  setText($('st-people'), String(people));
  $('st-people-item').hidden = people === 0;
  const egos = f?.egos ?? [];
  const stale = egos.filter((e) => e.stale).length;
  setText($('st-egos'), f ? `${egos.length}${stale ? ` (${stale} stale)` : ''}` : '–');
  updateSignals(page);
  $('btn-follow').setAttribute('aria-pressed', String(page.canvas.follow !== null));
}

export function updateStatusBar(page: MapHandle, now: number): void {
  const st = page.data.status;
  const state = page.runState();
  const stateEl = $('st-state');
  setText(stateEl, state ?? '–');
  stateEl.className = `state ${state ?? ''}`;
  const run = $('btn-run');
  run.className = state ?? '';
  setText($('btn-run-label'), state === 'running' ? 'Pause' : 'Start');
  updateFrameFigures(page);
  const rate = page.state.publishRate(now);
  const hz = st?.publish_hz ?? page.data.config?.publish_hz;
  setText($('st-rate'), `${state === 'running' && rate !== null ? `${rate.toFixed(1)} Hz` : '–'}${hz ? ` (${hz})` : ''}`);
  setText($('st-overruns'), st?.loop?.overruns !== undefined ? String(st.loop.overruns) : '–');
  setText($('st-clients'), st?.clients !== undefined ? String(st.clients) : '–');
  setText($('st-shield'), shieldText(st));
  updateTimeSync(st);
  const ft = page.canvas.frameTimes.slice(-60);
  const mean = ft.length ? ft.reduce((a, b) => a + b, 0) / ft.length : 0;
  setText($('st-fps'), mean > 0 ? `${(1000 / mean).toFixed(0)} fps` : '–');
  $('btn-add').classList.toggle('active', page.spawn.mode !== 'idle');
}

/** The status bar's time-sync summary and, when open, the panel of assets (time, skew to Tc, held counts). */
function updateTimeSync(st: ServerStatus | null): void {
  const sum = timeSummary(st?.time);
  const el = $('st-sync');
  setText(el, sum.text);
  el.className = `v${sum.bad ? ' bad' : ''}`;
  const panel = $('time-panel');
  if (panel.hidden) return;
  setHtml($('time-body'), timePanelHtml(st?.time));
}

/** Y, the status bar's time sync, the panel's ×: opens or closes the time-sync panel. */
export function toggleTimePanel(st: ServerStatus | null, show?: boolean): void {
  const panel = $('time-panel');
  panel.hidden = !(show ?? panel.hidden);
  updateTimeSync(st);
}

/** The status bar's signals: each group's state and time to change (a few), else the counts by state. */
function updateSignals(page: MapHandle): void {
  const sum = signalSummary(page.state.frame?.signals);
  const item = $('st-signals-item');
  const groups = page.signals.layer?.groups.length ?? 0;
  item.hidden = sum === null && groups === 0;
  if (!sum) {
    setText($('st-signals'), '–');
    return;
  }
  setHtml($('st-signals'), sum.html);
}
