/**
 * The test-case panel's words from GET /api/story (story-panel.ts polls it): the attempt's number and a badge of
 * its state or status, what the state means for the operator, the vehicle under test and the actors, each event
 * (ticked once started, with its time), each criterion's live verdict with its value against its limit, the
 * last few happenings and the earlier attempts. Pure functions of the reply, so they are tested without a page.
 */
import { figureAgainst } from '../scenario/story/figures.js';
import type { AttemptStatus, StoryView } from './types.js';

const esc = (s: string) => s.replace(/[<&>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const sec = (t: number | null | undefined) => (t === null || t === undefined || !Number.isFinite(t) ? '–' : `${t.toFixed(1)} s`);

export const STATUS_WORDS: Record<AttemptStatus, string> = { running: 'running', passed: 'passed', failed: 'failed', not_started: 'not started', aborted: 'aborted', invalid: 'invalid (data did not hold)' };

/** How a criterion's value compares with its limit when it passes (the kinds of src/scenario/story/criteria.ts). */
const COMPARE: Record<string, string> = { min_ttc: '≥', min_distance: '≥', stopped_before: '≥', peak_decel: '≤', reach: '≤' };

/**
 * The badge: `armed` and `running` while an attempt is under way (blue: its status is still "running"), then
 * its status (passed green, failed red, not started grey, aborted orange); grey "no attempt" before the first.
 */
export function storyBadge(v: StoryView): { cls: string; text: string } {
  if (v.attempt === 0 || !v.result) return { cls: 'none', text: 'no attempt' };
  if (v.state === 'armed') return { cls: 'armed', text: 'armed' };
  if (v.state === 'running') return { cls: 'running', text: 'running' };
  const s = v.result.status;
  return { cls: s, text: STATUS_WORDS[s] ?? s };
}

/** What the state means, in a line: what the operator waits for or can do. */
export function stateLine(v: StoryView): string {
  const r = v.result;
  switch (v.state) {
    case 'idle':
      if (v.attempt === 0) return v.auto_arm ? 'idle: an attempt is armed at the next reset' : 'idle: press Arm when the car is where the test begins';
      return `idle: no attempt under way${v.auto_arm ? ' (Arm, or reset the scene, for the next)' : ' (Arm for the next)'}`;
    case 'armed':
      return r?.reason.startsWith('waiting at the start gate') ? `armed at ${sec(v.armed_at_s)}: waiting for the car at the start gate` : `armed at ${sec(v.armed_at_s)}: actors placed, waiting for the first trigger`;
    case 'running': {
      const first = r?.events.map((e) => e.started_s).filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
      return `running: the first event fired at ${sec(first)}`;
    }
    case 'ended':
      return `ended at ${sec(r?.end_s)}${r?.reason ? `: ${r.reason}` : ''}`;
    default:
      return String(v.state);
  }
}

function events(v: StoryView): string {
  const list = v.result?.events ?? [];
  if (!list.length) return '';
  const rows = list.map((e) => {
    const started = e.started_s !== null;
    const when = started ? `<span class="t">${sec(e.started_s)}</span>${e.done_s !== null ? `<span class="muted"> · done ${sec(e.done_s)}</span>` : ''}${e.executions > 1 ? `<span class="muted"> · ×${e.executions}</span>` : ''}` : '<span class="muted">waiting</span>';
    return `<li class="${started ? 'started' : 'waiting'}" data-event="${esc(e.id)}"><span class="tick">${started ? '✓' : '○'}</span><span class="name">${esc(e.id)}</span>${when}</li>`;
  });
  return `<h4>Events</h4><ul class="story-events">${rows.join('')}</ul>`;
}

function criteria(v: StoryView): string {
  const list = v.result?.criteria ?? [];
  if (!list.length) return '';
  const rows = list.map((c) => {
    const unit = c.unit ? ` ${esc(c.unit)}` : '';
    // as many decimals as it takes for the figure to sit on its side of the limit (0.9996 s never reads 1.00 s)
    const figure = c.value !== null && Number.isFinite(c.value) ? figureAgainst(c.value, c.limit === null ? [] : [c.limit]) : '';
    const value = figure ? `${figure}${unit}${c.at_s !== null ? ` <span class="muted">at ${sec(c.at_s)}</span>` : ''}` : `<span class="muted">${esc(c.detail || 'not measured')}</span>`;
    const limit = c.limit !== null ? `${COMPARE[c.kind] ?? 'limit'} ${c.limit}${unit}` : '';
    const title = c.detail ? ` title="${esc(c.detail)}"` : '';
    return `<tr class="${c.verdict}" data-criterion="${esc(c.name)}"${title}><td class="name">${esc(c.name)}</td><td class="verdict">${c.verdict}</td><td class="value">${value}</td><td class="limit">${limit}</td></tr>`;
  });
  const head = '<tr><th></th><th></th><th title="the measured value (the worst so far) and when">value</th><th title="the value passes when it is">pass if</th></tr>';
  return `<h4>Criteria</h4><table class="story-criteria">${head}${rows.join('')}</table>`;
}

/**
 * The data-quality gates of an attempt with a real car: one line saying they all held, or each failed gate with
 * its figure and when — the reason an attempt is invalid, shown as soon as it fails (while the attempt runs).
 */
function quality(v: StoryView): string {
  const gates = v.result?.quality;
  if (!gates?.length) return '';
  const bad = gates.filter((g) => !g.ok);
  if (!bad.length) return `<h4>Data</h4><div class="story-quality ok">every gate held (${gates.map((g) => esc(g.gate.replace(/_/g, ' '))).join(', ')})</div>`;
  const when = (g: (typeof bad)[number]) => (g.from_s === null ? '' : g.to_s !== null && g.to_s > g.from_s ? ` <span class="muted">${sec(g.from_s)}–${sec(g.to_s)}</span>` : ` <span class="muted">at ${sec(g.from_s)}</span>`);
  const rows = bad.map((g) => `<li class="bad" data-gate="${esc(g.gate)}"><b>${esc(g.gate.replace(/_/g, ' '))}</b>${when(g)} ${esc(g.detail)}</li>`);
  const said = v.result?.criteria_said ? `<div class="muted">the criteria alone would say ${esc(v.result.criteria_said)}: not a verdict</div>` : '';
  return `<h4>Data: did not hold</h4><ul class="story-quality">${rows.join('')}</ul>${said}`;
}

/** the last few happenings, newest first */
function happenings(v: StoryView, keep = 5): string {
  const list = v.happenings.slice(-keep).reverse();
  if (!list.length) return '';
  const rows = list.map((h) => `<li class="${esc(h.kind)}"><span class="t">${sec(h.t)}</span> ${esc(h.kind.replace(/_/g, ' '))}${h.id ? ` <b>${esc(h.id)}</b>` : ''}${h.detail ? ` <span class="muted">${esc(h.detail)}</span>` : ''}</li>`);
  return `<h4>What happened</h4><ul class="story-happenings">${rows.join('')}</ul>`;
}

/** the attempts before this one, the latest few */
function earlier(v: StoryView, keep = 6): string {
  const list = v.attempts.filter((a) => a.attempt !== v.attempt).slice(-keep);
  if (!list.length) return '';
  const items = list.map((a) => `<span class="st-${esc(a.status)}" title="${esc(a.reason)}">${a.attempt} ${esc(STATUS_WORDS[a.status as AttemptStatus] ?? a.status)}</span>`);
  return `<div class="story-earlier"><span class="muted">earlier:</span> ${items.join(' · ')}</div>`;
}

/** The panel's body (the caller sets it only when it changed). */
export function storyPanelHtml(v: StoryView): string {
  const badge = storyBadge(v);
  const who = v.auto_arm ? `${esc(v.ego)} <span class="muted">(simulated; armed at every reset)</span>` : `${esc(v.ego)} <span class="muted">(the real car${v.story_ego !== v.ego ? ` as ${esc(v.story_ego)}` : ''}; armed by the operator)</span>`;
  return `<div class="story-head"><span id="story-attempt">attempt ${v.attempt}</span> <span id="story-badge" class="badge ${badge.cls}">${badge.text}</span></div>` +
    `<div id="story-state" class="story-state" data-state="${v.state}">${esc(stateLine(v))}</div>` +
    `<dl class="story-who"><dt>under test</dt><dd>${who}</dd><dt>actors</dt><dd class="actors">${v.actors.map(esc).join(', ') || '–'}</dd></dl>` +
    events(v) + criteria(v) + quality(v) + happenings(v) + earlier(v);
}
