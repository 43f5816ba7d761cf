/**
 * Gridlocks: NPCs stopped in a ring, each held back by the next (four cars nosed into a junction from four
 * sides). No one of them will move first, so the population recycles one NPC per ring. Pure: plain data in,
 * ids out.
 */

/** the longest ring looked for */
export const MAX_RING = 12;

export interface GridlockInput {
  /** the NPCs present */
  readonly ids: readonly number[];
  /** what NPC `id` waits for: another NPC's id, or a negative number (nothing, or a vehicle that is not an NPC) */
  heldBy(id: number): number;
  /** has NPC `id` stood long enough to count? */
  stoppedLongEnough(id: number): boolean;
  /** may NPC `id` be recycled (an auto NPC)? */
  recyclable(id: number): boolean;
}

/**
 * One NPC per ring of NPCs that have all stood long enough, each held by the next: the first recyclable one
 * found. A queue behind an ego or a vehicle that moves is no ring.
 */
export function gridlockedNpcs(input: GridlockInput): number[] {
  const out: number[] = [];
  const removed = new Set<number>();
  for (const id of input.ids) {
    if (!input.recyclable(id) || !input.stoppedLongEnough(id)) continue;
    let cur = input.heldBy(id);
    for (let hop = 0; hop < MAX_RING && cur >= 0 && cur !== id; hop++) {
      if (removed.has(cur) || !input.stoppedLongEnough(cur)) {
        cur = -1;
        break;
      }
      cur = input.heldBy(cur);
    }
    if (cur === id) {
      out.push(id);
      removed.add(id);
    }
  }
  return out;
}
