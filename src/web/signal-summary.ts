/**
 * The signals in words for the status bar and the labels (a group's time to change; the summary of a frame's
 * signals), apart from the drawing (signals.ts) so that tests in Node can hold them without the DOM.
 */
import { SIGNAL_COLOURS } from './signal-colours.js';
import type { SignalColour, SignalState } from './types.js';
import { walkStateOf } from './walk-states.js';

/** A group's time to change as a label shows it: "4.5 s", "12 s", "live" while set live, else nothing. */
export function ttcText(st: SignalState): string {
  const t = st.time_to_change_s;
  if (typeof t === 'number' && Number.isFinite(t)) return `${t.toFixed(t < 10 ? 1 : 0)} s`;
  return st.source === 'live' ? 'live' : '';
}

/**
 * A short summary of the signals for the status bar: each group (a few), else the counts by state; walk groups (the
 * crosswalks' signals) counted apart, by what they show people.
 */
export function signalSummary(all: readonly SignalState[] | undefined): { html: string; text: string } | null {
  if (!all || all.length === 0) return null;
  const signals = all.filter((s) => s.crosswalks === undefined);
  const walks = all.length - signals.length;
  if (walks > 0) {
    const w = crosswalkWalkCounts(all);
    const vehicles = signals.length > 0 ? signalSummary(signals) : null;
    const text = `${walks} walk signals: ${w.walk} walk · ${w.flashing} flashing · ${w.dont_walk} don't walk`;
    return { html: `${vehicles ? `${vehicles.html} · ` : ''}${text.replace(/'/g, '&#39;')}`, text: `${vehicles ? `${vehicles.text} · ` : ''}${text}` };
  }
  const esc = (s: string) => s.replace(/[<&>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  // classes, not style attributes: the page's Content-Security-Policy allows no inline style (style.css has the colours)
  const dot = (state: SignalColour) => `<i class="sig ${state in SIGNAL_COLOURS ? state : 'unknown'}"></i>`;
  const word: Record<SignalColour, string> = { green: 'green', green_yield: 'green (give way)', yellow: 'yellow', red: 'red', off: 'off' };
  if (signals.length <= 4) {
    const parts = signals.map((s) => {
      const t = ttcText(s);
      const ttc = t ? ` ${t}` : '';
      return { html: `${dot(s.state)}${esc(s.id)} ${word[s.state] ?? s.state}${ttc}`, text: `${s.id} ${word[s.state] ?? s.state}${ttc}` };
    });
    return { html: parts.map((p) => p.html).join(' · '), text: parts.map((p) => p.text).join(' · ') };
  }
  const order: SignalColour[] = ['green', 'green_yield', 'yellow', 'red', 'off'];
  const counts = order.map((c) => [c, signals.filter((s) => s.state === c).length] as const).filter(([, n]) => n > 0);
  const live = signals.filter((s) => s.source === 'live' || s.source === 'transition').length;
  const tail = live ? ` · ${live} set live` : '';
  return {
    html: `${signals.length} groups: ${counts.map(([c, n]) => `${dot(c)}${n} ${word[c]}`).join(' · ')}${tail}`,
    text: `${signals.length} groups: ${counts.map(([c, n]) => `${n} ${word[c]}`).join(' · ')}${tail}`,
  };
}

/** Walk groups by what they show people (walk-states.ts reading). */
function crosswalkWalkCounts(signals: readonly SignalState[]): Record<'walk' | 'flashing' | 'dont_walk', number> {
  const out = { walk: 0, flashing: 0, dont_walk: 0 };
  for (const s of signals) {
    if (s.crosswalks === undefined) continue;
    const w = walkStateOf(s);
    if (w !== null) out[w]++;
  }
  return out;
}
