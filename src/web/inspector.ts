/**
 * The inspector panel of the selected NPC or ego: pose, heading, speed, size, goal, flags, and for an NPC why it
 * waits ("Waiting: red light (J1.A)"). A test case's scripted actor says so ("scripted actor cutter of test case
 * cut_in") and has no goal and no Delete: the story places and removes it (the panel's Reset takes it away).
 */
import type { MapHandle } from './map-handle.js';
import { $, compassDeg, setHtml, setText } from './dom.js';
import { findEgo } from './draw.js';
import { HOLD_WORDS, type SignalLayer } from './signals.js';
import type { NpcDetail, NpcFrameEntry, SignalState } from './types.js';

/** Why an NPC stands or slows, in words: the rule that holds it (with the signal group), or the queue it is in. */
export function holdText(n: NpcFrameEntry, d: NpcDetail | undefined, signals: readonly SignalState[] | undefined, sl: SignalLayer | null): { text: string; cls?: string } | null {
  const hold = d?.hold;
  if (hold === undefined) return null;
  if (hold === 'none') return { text: n.speed < 0.5 ? 'standing, no rule holds it' : 'not held' };
  let words = HOLD_WORDS[hold] ?? hold.replace(/_/g, ' ');
  if ((hold === 'red' || hold === 'yellow') && sl) {
    const g = sl.groupAhead(n.x, n.y, n.yaw, signals, (s) => s?.state === hold);
    if (g) words += ` (${g})`;
  } else if (hold === 'queue' && sl) {
    // the queue's head: the nearest signal ahead that does not show green
    const g = sl.groupAhead(n.x, n.y, n.yaw, signals, (s) => s !== undefined && s.state !== 'green' && s.state !== 'green_yield', 150);
    const st = g ? signals?.find((s) => s.id === g) : undefined;
    words = g && st && st.state !== 'green' && st.state !== 'green_yield' ? `in the queue at ${g} (${st.state})` : 'in a queue behind a waiting vehicle';
  }
  const standing = n.speed < 0.5;
  return { text: `${standing ? 'Waiting' : 'Slowing'}: ${words}`, cls: hold === 'red' || hold === 'box' ? 'bad' : 'warn' };
}

/** Fills the inspector for the page's selection, or hides it. */
export function updateInspector(page: MapHandle): void {
  const panel = $('inspector');
  const sel = page.selected;
  if (!sel) {
    panel.hidden = true;
    return;
  }
  const state = page.state;
  const rows: Array<[string, string, string?]> = [];
  const conv = page.data.mapReply?.convergence_deg ?? 0;
  const heading = (yaw: number) => `${compassDeg(yaw, conv).toFixed(1)}° (yaw ${yaw.toFixed(3)} rad)`;
  const del = $('insp-delete');
  if (sel.kind === 'npc') {
    const n = state.npc(sel.id);
    if (!n) return;
    const d = state.details.get(sel.id);
    const actor = n.actor;
    if (actor !== undefined) {
      setText($('insp-title'), `Actor ${actor} · ${n.id}`);
      const kase = page.story.caseName();
      rows.push(['role', `scripted actor ${actor} of test case ${kase ?? '…'}`, 'actor']);
    } else {
      const what = n.kind === 'pedestrian' ? 'Pedestrian' : n.kind === 'cyclist' ? 'Cyclist' : 'NPC';
      setText($('insp-title'), `${what} ${n.id}${d ? (d.auto ? ' · auto' : ' · spawned on request') : ''}`);
    }
    rows.push(['kind', n.kind ?? 'vehicle', n.kind === 'pedestrian' || n.kind === 'cyclist' ? 'person' : undefined]);
    rows.push(['position', `x ${n.x.toFixed(2)} m, y ${n.y.toFixed(2)} m`]);
    rows.push(['heading', heading(n.yaw)]);
    rows.push(['speed', `${n.speed.toFixed(2)} m/s (${(n.speed * 3.6).toFixed(1)} km/h)`]);
    rows.push(['size', `${n.length.toFixed(1)} × ${n.width.toFixed(1)} m`]);
    if (actor === undefined) rows.push(['goal', d ? `x ${d.goal_x.toFixed(1)}, y ${d.goal_y.toFixed(1)} · ${Math.hypot(d.goal_x - n.x, d.goal_y - n.y).toFixed(1)} m away` : '…']);
    rows.push(['flags', n.collided && n.offroad ? 'collided, off-road' : n.collided ? 'collided' : n.offroad ? 'off-road' : 'none', n.collided ? 'bad' : n.offroad ? 'warn' : undefined]);
    const hold = holdText(n, d, state.frame?.signals, page.signals.layer);
    if (hold) rows.push(['hold', hold.text, hold.cls]);
    setText(del, 'Delete NPC');
    del.hidden = actor !== undefined;
    $('insp-follow').hidden = true;
  } else {
    const e = findEgo(state, sel.id);
    if (!e) return;
    setText($('insp-title'), `Ego ${e.ego_id}`);
    rows.push(['position', `x ${e.x.toFixed(2)} m, y ${e.y.toFixed(2)} m`]);
    rows.push(['heading', heading(e.yaw)]);
    const hs = e.heading_source;
    const sources: Record<string, string> = { reported: 'the car (GNSS heading)', course: 'course over ground', held: 'held (standing or slow)', lane: 'the lane (no course yet)', none: 'unknown (north shown)' };
    if (hs) rows.push([`heading from`, sources[hs] ?? hs, hs === 'lane' || hs === 'none' ? 'warn' : undefined]);
    rows.push(['speed', `${e.speed.toFixed(2)} m/s (${(e.speed * 3.6).toFixed(1)} km/h)`]);
    if (e.accel !== undefined) rows.push(['motion', `${e.accel.toFixed(2)} m/s², yaw rate ${(((e.yaw_rate ?? 0) * 180) / Math.PI).toFixed(1)}°/s (from its fixes)`]);
    if (e.clock_source !== undefined) {
      const how: Record<string, string> = { probe: 'measured (clock probes)', synced: 'taken as synchronised', fixes: 'from its fixes alone: least latency unseen', none: 'no stamps: placed at arrival' };
      rows.push(['clock', `${(e.clock_offset_s ?? 0).toFixed(3)} s off, ${how[e.clock_source] ?? e.clock_source}`, e.clock_source === 'fixes' || e.clock_source === 'none' ? 'warn' : undefined]);
      const extra = [e.out_of_order ? `${e.out_of_order} out of order` : '', e.clock_jumps ? `${e.clock_jumps} clock jump${e.clock_jumps === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
      rows.push(['latency', `${((e.latency_s ?? 0) * 1000).toFixed(0)} ms (fix to server)${extra ? ` · ${extra}` : ''}`, e.clock_jumps ? 'warn' : undefined]);
    }
    rows.push(['size', `${(e.length ?? 4.5).toFixed(1)} × ${(e.width ?? 2).toFixed(1)} m`]);
    rows.push(['state', e.stale ? 'stale: no update lately, NPCs do not see it' : 'live', e.stale ? 'warn' : undefined]);
    rows.push(['flags', e.collided ? 'collided' : 'none', e.collided ? 'bad' : undefined]);
    setText(del, 'Forget ego');
    del.hidden = false;
    $('insp-follow').hidden = false;
  }
  setHtml($('insp-fields'), rows.map(([k, v, cls]) => `<dt>${k}</dt><dd${cls ? ` class="${cls}"` : ''}>${v.replace(/[<&>]/g, '')}</dd>`).join(''));
  panel.hidden = false;
}
