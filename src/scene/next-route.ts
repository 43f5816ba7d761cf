/**
 * The lanes an NPC keeps to beyond the end of its route: the straightest fork at each junction, as far as
 * `LANES_AHEAD_M`. Its plan (what the shield predicts it along, and steers it along) runs on along them
 * before the route ends, and the next trip's route starts with them. A trip's end is often just before a
 * fork: a new route picked from scratch there (a fresh lane search, a random fork) sent NPCs at full speed
 * into a sharp turn they could not take, wide across the lanes beside it; and while the plan stopped at the
 * route's end, neither the NPC nor the others saw it coming into the junction beyond (FMTC: contacts with
 * oncoming and crossing traffic).
 */
import type { LaneNetwork } from '../traffic/lanes.js';

/** how far ahead an NPC's lanes are known (the shield's path reaches v·3 s + 20 m, at least 60 m) [m] */
export const LANES_AHEAD_M = 80;
/** a fork's direction is taken this far along it [m] */
const FORK_PROBE_M = 10;

/**
 * `ahead`: a route's lanes from the one the NPC is on, which it is `s` m along; returns them followed by the
 * straightest successors until `reach` m from the NPC are covered (or the lane graph ends).
 */
export function committedLanes(net: LaneNetwork, ahead: readonly number[], s: number, reach = LANES_AHEAD_M): number[] {
  const out = ahead.slice();
  let covered = -s;
  for (const l of out) covered += net.lanes[l].length;
  while (covered < reach && out.length < 64) {
    const last = out[out.length - 1];
    const next = net.lanes[last].next;
    if (next.length === 0) break;
    const from = net.headingAt(last, net.lanes[last].length);
    let best = next[0], bestTurn = Infinity;
    for (const n of next) {
      let d = net.headingAt(n, Math.min(FORK_PROBE_M, net.lanes[n].length)) - from;
      d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
      if (Math.abs(d) < bestTurn) { bestTurn = Math.abs(d); best = n; }
    }
    out.push(best);
    covered += net.lanes[best].length;
  }
  return out;
}
