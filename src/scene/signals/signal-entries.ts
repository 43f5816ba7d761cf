/**
 * A signal group's state as every exit shows it: the JSON frame's `signals` (and through it the binary clients'
 * signal_states), the Foxglove /vils/signals channel and the REST API. Built once per set of states (a frame's, or
 * the API's at its own time) by whichever exit asks first; the others read the same entries.
 */
import type { SignalFrameEntry } from '../../protocol/index.js';
import type { SignalGroupState } from './controller.js';

/** A signal group's state as frames, the REST API and the Foxglove channel show it (its one definition: the protocol's signalEntrySchema). */
export type SignalEntry = SignalFrameEntry;

const r1 = (v: number) => Math.round(v * 10) / 10;

export function signalEntry(g: SignalGroupState): SignalEntry {
  const e: SignalEntry = {
    id: g.id, numeric_id: g.numeric_id, junction: g.junction, state: g.state, code: g.code,
    time_to_change_s: g.time_to_change_s === null ? null : r1(g.time_to_change_s), source: g.source, left: g.left, lanes: g.lanes,
  };
  if (g.walk !== undefined) {
    e.walk = g.walk;
    e.crosswalks = g.crosswalks ?? [];
  }
  return e;
}

/** the entries of each set of states, while that set is alive (a snapshot's `signals`) */
const built = new WeakMap<readonly SignalGroupState[], SignalEntry[]>();

/** Every group's entry, built once per set of states; the same array for every exit (read it, do not change it). */
export function signalEntries(states: readonly SignalGroupState[]): SignalEntry[] {
  let entries = built.get(states);
  if (!entries) {
    entries = states.map(signalEntry);
    built.set(states, entries);
  }
  return entries;
}
