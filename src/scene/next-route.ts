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
import { FORK_PROBE_M, LANES_AHEAD_M } from './tuning.js';

/**
 * `ahead`: a route's lanes from the one the NPC is on, which it is `s` m along; returns them followed by the
 * straightest successors until `reach` m from the NPC are covered (or the lane graph ends).
 */
export function committedLanes(net: LaneNetwork, ahead: readonly number[], s: number, reach = LANES_AHEAD_M): number[] {
  const out = ahead.slice();
  let covered = -s;
  for (const l of out) covered += net.lanes[l].length;
  while (covered < reach && out.length < 64) {
    const best = straightestNext(net, out[out.length - 1]);
    if (best < 0) break;
    out.push(best);
    covered += net.lanes[best].length;
  }
  return out;
}

/**
 * committedLanes(net, route.slice(from), s, reach) written into the scratch `into` (nothing allocated once it
 * is large enough): returns a view of it holding exactly those lanes (one view per length, made once).
 */
export function committedLanesInto(net: LaneNetwork, route: readonly number[], from: number, s: number, into: LaneScratch, reach = LANES_AHEAD_M): Int32Array {
  into.reserve(route.length - from + 64);
  const out = into.lanes;
  let count = 0;
  let covered = -s;
  for (let k = from; k < route.length; k++) {
    out[count++] = route[k];
    covered += net.lanes[route[k]].length;
  }
  while (covered < reach && count < 64) {
    const best = straightestNext(net, out[count - 1]);
    if (best < 0) break;
    out[count++] = best;
    covered += net.lanes[best].length;
  }
  return into.view(count);
}

/** A reused list of lanes, handed out as views of one buffer by length. */
export class LaneScratch {
  lanes = new Int32Array(128);
  private views: Int32Array[] = [];

  reserve(n: number): void {
    if (n <= this.lanes.length) return;
    this.lanes = new Int32Array(Math.max(n, 2 * this.lanes.length));
    this.views = [];
  }

  /** the first n lanes */
  view(n: number): Int32Array {
    while (this.views.length <= n) this.views.push(this.lanes.subarray(0, this.views.length));
    return this.views[n];
  }
}

/** The successor of a lane its end runs straightest into (the first of equals); −1 at a dead end. */
function straightestNext(net: LaneNetwork, last: number): number {
  const next = net.lanes[last].next;
  if (next.length === 0) return -1;
  const from = net.headingAt(last, net.lanes[last].length);
  let best = next[0], bestTurn = Infinity;
  for (const n of next) {
    let d = net.headingAt(n, Math.min(FORK_PROBE_M, net.lanes[n].length)) - from;
    d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
    if (Math.abs(d) < bestTurn) { bestTurn = Math.abs(d); best = n; }
  }
  return best;
}
