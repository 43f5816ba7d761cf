/**
 * Lane and vehicle geometry for the story: poses along lanes without allocating, projection onto one given
 * lane, moving along the lane graph (forward by successors, backward by predecessors), and the measures the
 * triggers and criteria use, all between box edges (freespace):
 *
 * - along a direction θ (the follower's lane direction where it is): `lon` centre to centre, `gap` = lon minus
 *   both boxes' half extents along θ (bumper to bumper, negative when they overlap along θ), `closing` = the
 *   follower's speed along θ minus the other's;
 * - TTC = gap / closing when the other is ahead (lon > 0) and closing > 0; 0 once gap ≤ 0; Infinity otherwise
 *   (constant speeds, longitudinal only: a car in the next lane ahead has a TTC, as in OpenSCENARIO's
 *   TimeToCollisionCondition with relativeDistanceType longitudinal in lane coordinates; criteria add the
 *   in-path test, the boxes overlapping across θ);
 * - time headway = gap / the follower's speed along θ (Infinity when it is not moving forward or the other is behind);
 * - box gap = the Euclidean distance between the two oriented boxes (0 when they overlap).
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { obbOverlap } from '../../traffic/obb.js';
import type { StoryVehicle } from './world.js';
import type { Pose } from '../../vehicle/index.js';

/** The centre-line pose at s (clamped to the lane) into `out`: the lane network's own point and direction. */
export function lanePoseInto(net: LaneNetwork, lane: number, s: number, out: Pose): void {
  net.pointInto(lane, s, out);
  out.yaw = net.headingAt(lane, s);
}

export interface LaneProjection {
  s: number;
  /** signed, left of the centre line positive */
  offset: number;
}

/** The nearest point of one lane to (x, y): its s and the signed offset (left positive). */
export function projectOnLane(net: LaneNetwork, lane: number, x: number, y: number, out: LaneProjection): void {
  const { xs, ys, cum } = net.lanes[lane];
  let best = Infinity;
  for (let i = 1; i < xs.length; i++) {
    const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1];
    const len2 = dx * dx + dy * dy || 1e-12;
    const t = Math.min(1, Math.max(0, ((x - xs[i - 1]) * dx + (y - ys[i - 1]) * dy) / len2));
    const px = xs[i - 1] + t * dx, py = ys[i - 1] + t * dy;
    const d = Math.hypot(x - px, y - py);
    if (d < best) {
      best = d;
      out.s = cum[i - 1] + t * Math.sqrt(len2);
      out.offset = dx * (y - py) - dy * (x - px) >= 0 ? d : -d;
    }
  }
}

/** Predecessor lists of every lane (the network keeps only successors). */
export function predecessors(net: LaneNetwork): number[][] {
  const prev: number[][] = net.lanes.map(() => []);
  net.lanes.forEach((L, i) => {
    for (const n of L.next) prev[n].push(i);
  });
  return prev;
}

function endHeading(net: LaneNetwork, lane: number): number {
  const { xs, ys } = net.lanes[lane];
  const k = xs.length - 1;
  return Math.atan2(ys[k] - ys[k - 1], xs[k] - xs[k - 1]);
}

function startHeading(net: LaneNetwork, lane: number): number {
  const { xs, ys } = net.lanes[lane];
  return Math.atan2(ys[1] - ys[0], xs[1] - xs[0]);
}

/**
 * The lane after `lane`: `preferred` when it is a successor (a route's next lane), else the successor that
 * turns least (deterministic; the NPCs' fork choice is random, a script's must not be). −1 at a dead end.
 */
export function nextLane(net: LaneNetwork, lane: number, preferred = -1): number {
  const next = net.lanes[lane].next;
  if (next.length === 0) return -1;
  if (preferred >= 0 && next.includes(preferred)) return preferred;
  if (next.length === 1) return next[0];
  const h = endHeading(net, lane);
  let best = next[0], bestCos = -Infinity;
  for (const n of next) {
    const c = Math.cos(startHeading(net, n) - h);
    if (c > bestCos) {
      bestCos = c;
      best = n;
    }
  }
  return best;
}

/** The predecessor that turns least into `lane`; −1 when none. */
function prevLane(net: LaneNetwork, prev: readonly number[][], lane: number): number {
  const ps = prev[lane];
  if (ps.length === 0) return -1;
  const h = startHeading(net, lane);
  let best = ps[0], bestCos = -Infinity;
  for (const p of ps) {
    const c = Math.cos(endHeading(net, p) - h);
    if (c > bestCos) {
      bestCos = c;
      best = p;
    }
  }
  return best;
}

/** Moves ds metres (negative: backwards) from (lane, s) along the lane graph into `out`; false if the graph ends first. */
export function travel(net: LaneNetwork, prev: readonly number[][], lane: number, s: number, ds: number, out: { lane: number; s: number }): boolean {
  let li = lane, pos = s + ds;
  for (let hops = 0; hops < 256; hops++) {
    const len = net.lanes[li].length;
    if (pos >= 0 && pos <= len) {
      out.lane = li;
      out.s = pos;
      return true;
    }
    const nx = pos > len ? nextLane(net, li) : prevLane(net, prev, li);
    if (nx < 0) return false;
    pos = pos > len ? pos - len : pos + net.lanes[nx].length;
    li = nx;
  }
  return false;
}

/** Measures of `b` seen from `a` along the direction θ (see the header). */
export interface Along {
  lon: number;
  lat: number;
  gap: number;
  closing: number;
  /** a's speed along θ */
  va: number;
  /** the boxes overlap across θ (b is in a's path) */
  inPath: boolean;
}

export function along(a: StoryVehicle, b: StoryVehicle, theta: number, out: Along): Along {
  const ux = Math.cos(theta), uy = Math.sin(theta);
  const dx = b.x - a.x, dy = b.y - a.y;
  out.lon = dx * ux + dy * uy;
  out.lat = -dx * uy + dy * ux;
  const ca = Math.cos(a.yaw - theta), sa = Math.sin(a.yaw - theta);
  const cb = Math.cos(b.yaw - theta), sb = Math.sin(b.yaw - theta);
  const halfA = 0.5 * (Math.abs(ca) * a.length + Math.abs(sa) * a.width);
  const halfB = 0.5 * (Math.abs(cb) * b.length + Math.abs(sb) * b.width);
  const wideA = 0.5 * (Math.abs(sa) * a.length + Math.abs(ca) * a.width);
  const wideB = 0.5 * (Math.abs(sb) * b.length + Math.abs(cb) * b.width);
  out.gap = Math.abs(out.lon) - halfA - halfB;
  out.va = a.speed * ca;
  out.closing = out.va - b.speed * cb;
  out.inPath = Math.abs(out.lat) < wideA + wideB;
  return out;
}

export function ttcOf(m: Along): number {
  if (m.lon <= 0) return Infinity;
  if (m.gap <= 0) return 0;
  return m.closing > 0 ? m.gap / m.closing : Infinity;
}

export function headwayOf(m: Along): number {
  if (m.lon <= 0 || m.va <= 0) return Infinity;
  return Math.max(0, m.gap) / m.va;
}

const ca = new Float64Array(8), cb = new Float64Array(8);

function corners(v: StoryVehicle, out: Float64Array): void {
  const c = Math.cos(v.yaw), s = Math.sin(v.yaw);
  const hl = v.length / 2, hw = v.width / 2;
  for (let k = 0; k < 4; k++) {
    const l = k === 0 || k === 3 ? hl : -hl;
    const w = k < 2 ? hw : -hw;
    out[2 * k] = v.x + l * c - w * s;
    out[2 * k + 1] = v.y + l * s + w * c;
  }
}

function pointToEdges(px: number, py: number, c: Float64Array): number {
  let best = Infinity;
  for (let k = 0; k < 4; k++) {
    const ax = c[2 * k], ay = c[2 * k + 1];
    const bx = c[(2 * k + 2) % 8], by = c[(2 * k + 3) % 8];
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy || 1e-12;
    const t = Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2));
    best = Math.min(best, Math.hypot(px - ax - t * dx, py - ay - t * dy));
  }
  return best;
}

/** The distance between two vehicles' boxes (0 when they overlap: src/traffic/obb.ts). */
export function boxGap(a: StoryVehicle, b: StoryVehicle): number {
  if (overlaps(a, b)) return 0;
  corners(a, ca);
  corners(b, cb);
  let best = Infinity;
  for (let k = 0; k < 4; k++) {
    best = Math.min(best, pointToEdges(ca[2 * k], ca[2 * k + 1], cb), pointToEdges(cb[2 * k], cb[2 * k + 1], ca));
  }
  return best;
}

export function overlaps(a: StoryVehicle, b: StoryVehicle): boolean {
  return obbOverlap(a.x, a.y, a.yaw, a.length / 2, a.width / 2, b.x, b.y, b.yaw, b.length / 2, b.width / 2);
}
