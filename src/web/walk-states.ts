/**
 * How the web map reads walk signals for the crosswalks (GET /api/map traffic_control.crosswalks): the state of the
 * walk signal that governs each, when the frames give one — walk (green), flashing (the clearance: the fill
 * blinks), don't walk (red); none for an unsignalised crosswalk or one whose group the frames do not mention.
 *
 * A walk group is any entry of the frames' `signals` that names crosswalks (`crosswalks: [ids]`). Its pedestrian
 * state is read tolerantly: `walk` ('walk' | 'flashing' | 'dont_walk' | 'none') when the entry has it, else from
 * its `state` — green walk, yellow (or 'flashing') the flashing clearance, red don't walk, anything else no state.
 * Apart from the drawing (crosswalks.ts) so that tests in Node can hold it without the DOM.
 */
import type { SignalState } from './types.js';

export type WalkState = 'walk' | 'flashing' | 'dont_walk';

export const WALK_COLOURS: Record<WalkState, string> = {
  walk: '#22d65f',
  flashing: '#22d65f',
  dont_walk: '#ff3030',
};

/** A walk group's state in pedestrian terms, or null when it says none. */
export function walkStateOf(s: Pick<SignalState, 'state'> & { walk?: string }): WalkState | null {
  switch (s.walk) {
    case 'walk': case 'flashing': case 'dont_walk': return s.walk;
    case 'none': return null;
    default: break;
  }
  const st = s.state as string;
  if (st === 'green' || st === 'green_yield' || st === 'walk') return 'walk';
  if (st === 'yellow' || st === 'flashing' || st === 'flashing_green') return 'flashing';
  if (st === 'red' || st === 'dont_walk') return 'dont_walk';
  return null;
}

/** Each governed crosswalk's state by crosswalk id, from a frame's signals (a crosswalk two groups name: the first). */
export function crosswalkStates(signals: readonly SignalState[] | undefined): Map<string, WalkState> {
  const out = new Map<string, WalkState>();
  for (const s of signals ?? []) {
    if (!Array.isArray(s.crosswalks)) continue;
    const w = walkStateOf(s);
    if (w === null) continue;
    for (const id of s.crosswalks) if (!out.has(id)) out.set(id, w);
  }
  return out;
}

