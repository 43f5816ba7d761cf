/**
 * Junctions derived from lane geometry. A junction is not a layer of the maps (NGII has none, the demo track's
 * crossing is two lanes drawn across each other): it is where lanes whose paths cross or merge meet. Every map
 * gets its junctions the same way, at load time, from the lanes NPCs drive:
 *
 * 1. Conflicts. Each lane is sampled every metre; wherever a sample of one lane lies within CLOSE_M of another
 *    lane (a vehicle on each would touch), the two lanes conflict there. The stretches are classified: lanes
 *    that leave one point together diverge (no conflict: the vehicles queue on one lane), lanes that end at one
 *    point or feed one successor merge, anything else crosses. A lane and its successor, and two lanes running
 *    side by side in opposite directions, are not conflicts.
 * 2. Junctions. The stretches of a conflict, stretches of one lane close together and stretches that continue
 *    across a lane's end into its successor are clustered: each cluster is one junction.
 * 3. Movements. A movement is one path through a junction: a chain of lane stretches, from its entry (where a
 *    vehicle stops: at the start of an intersection lane such as NGII's LinkType 1, else ENTRY_MARGIN_M before
 *    the first conflict) to its exit. Movements are grouped into approaches (entries side by side, heading the
 *    same way); each has a turn (straight, left, right, U-turn) and a table says which pairs conflict (cross or
 *    merge) and where along each.
 *
 * Pure: no I/O, lanes in, junctions out (map frame, metres).
 */
import KDBush from 'kdbush';
import { wrapPi } from '../geo/frame.js';

export interface JunctionLane {
  readonly id: string;
  readonly xs: ArrayLike<number>;
  readonly ys: ArrayLike<number>;
  /** successor lanes (indices into the same list) */
  readonly next: readonly number[];
  /** left / right neighbour in the same direction (index, or −1) */
  readonly left?: number;
  readonly right?: number;
  /** the lane runs inside an intersection (NGII LinkType 1): a movement onto it stops at its start */
  readonly internal?: boolean;
  /** 1 on a bridge, in a tunnel or an underpass (another level: see deriveJunctions' separateLevels) */
  readonly level?: number;
}

export const ConflictKind = { None: 0, Cross: 1, Merge: 2 } as const;
export type ConflictKindId = (typeof ConflictKind)[keyof typeof ConflictKind];

export type Turn = 'straight' | 'left' | 'right' | 'uturn';

/** A stretch of one lane that a movement drives, s0 → s1 [m along the lane]. */
export interface MovementPiece {
  readonly lane: number;
  readonly s0: number;
  readonly s1: number;
}

export interface Movement {
  /** index in its junction */
  readonly index: number;
  /** `<junction id>.<index>` */
  readonly id: string;
  /** from entry to exit */
  readonly pieces: readonly MovementPiece[];
  /** where a vehicle stops (its front) before entering: the first piece's start */
  readonly entry: { readonly lane: number; readonly s: number; readonly x: number; readonly y: number; readonly yaw: number };
  /** where it has left the junction: the last piece's end */
  readonly exit: { readonly lane: number; readonly s: number; readonly x: number; readonly y: number; readonly yaw: number };
  /** entry → exit along the pieces [m] */
  readonly length: number;
  readonly approach: number;
  readonly turn: Turn;
  /** an intersection path that crosses and merges with nothing, joined to the junction its siblings make (joinFreePaths) */
  readonly joined?: boolean;
}

export interface Approach {
  readonly index: number;
  readonly movements: readonly number[];
  /** the lanes the approach's entries lie on */
  readonly lanes: readonly number[];
  /** mean entry point and heading */
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

export interface Junction {
  /** `J<n>`, numbered in the order of the lanes that make them */
  readonly id: string;
  readonly index: number;
  readonly x: number;
  readonly y: number;
  /** convex hull of the movements from entry to exit, widened by half a lane [m, map frame] */
  readonly polygon: ReadonlyArray<{ readonly x: number; readonly y: number }>;
  readonly movements: readonly Movement[];
  readonly approaches: readonly Approach[];
  /** movement × movement (row-major): ConflictKind */
  readonly conflicts: Uint8Array;
  /**
   * Where movement a meets movement b, as distances from a's entry: zoneStart[a·n + b] .. zoneEnd[a·n + b]
   * (NaN where they do not conflict).
   */
  readonly zoneStart: Float32Array;
  readonly zoneEnd: Float32Array;
}

/** centre lines closer than this carry vehicles that would touch (two 2 m cars and a margin) [m] */
export const CLOSE_M = 2.4;
const SAMPLE_M = 1;
/** close samples further apart than this along a lane start a new stretch [m] */
const RUN_GAP_M = 3;
/** "at the end" / "at the start" of a lane [m] */
const END_TOL_M = 2.5;
/** two lane ends closer than this are one point [m] */
const SAME_POINT_M = 1.0;
/** stretches closer than this along a lane (or across a lane's end) are one junction [m] */
const CLUSTER_GAP_M = 8;
/** a movement starts this far before its first conflict (where there is no intersection lane) [m] */
export const ENTRY_MARGIN_M = 3;
/** … and ends this far after its last one [m] */
const EXIT_MARGIN_M = 2;
/** side by side in opposite directions (a two-way road): not a junction */
export const OPPOSED_COS = Math.cos((150 * Math.PI) / 180);
/** opposed lanes whose centre lines come closer than this cannot be driven both ways at once (two 1.9 m cars) [m] */
export const PASSING_GAP_M = 2.0;
/** … and the same way: a taper or lanes drawn close, not a crossing */
const SAME_WAY_COS = Math.cos((25 * Math.PI) / 180);
/** entries closer than this and heading within APPROACH_ANGLE of each other are one approach */
const APPROACH_M = 12;
const APPROACH_COS = Math.cos((30 * Math.PI) / 180);
const LANE_HALF_WIDTH_M = 1.75;

interface LaneGeom {
  cum: Float64Array;
  length: number;
  prev: number[];
}

interface Stretch {
  lane: number;
  s0: number;
  s1: number;
}

interface Conflict {
  kind: ConflictKindId;
  a: Stretch;
  b: Stretch;
}


function geometry(lanes: readonly JunctionLane[]): LaneGeom[] {
  const g: LaneGeom[] = lanes.map((L) => {
    const n = L.xs.length;
    const cum = new Float64Array(n);
    for (let i = 1; i < n; i++) cum[i] = cum[i - 1] + Math.hypot(L.xs[i] - L.xs[i - 1], L.ys[i] - L.ys[i - 1]);
    return { cum, length: n > 0 ? cum[n - 1] : 0, prev: [] };
  });
  lanes.forEach((L, a) => {
    for (const b of L.next) if (b >= 0 && b < lanes.length) g[b].prev.push(a);
  });
  return g;
}

/** Point and heading at distance s along a lane. */
export function lanePoint(L: JunctionLane, cum: ArrayLike<number>, s: number): { x: number; y: number; yaw: number } {
  const n = L.xs.length;
  const sc = Math.min(Math.max(s, 0), cum[n - 1]);
  let i = 1;
  while (i < n - 1 && cum[i] < sc) i++;
  const seg = cum[i] - cum[i - 1] || 1;
  const t = (sc - cum[i - 1]) / seg;
  return { x: L.xs[i - 1] + t * (L.xs[i] - L.xs[i - 1]), y: L.ys[i - 1] + t * (L.ys[i] - L.ys[i - 1]), yaw: Math.atan2(L.ys[i] - L.ys[i - 1], L.xs[i] - L.xs[i - 1]) };
}

class UnionFind {
  readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]];
      i = this.parent[i];
    }
    return i;
  }
  union(a: number, b: number): void {
    const ra = this.find(a), rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Every pair of lanes that conflict, with where along each. */
function findConflicts(lanes: readonly JunctionLane[], g: readonly LaneGeom[], separateLevels: boolean): Conflict[] {
  const sl: number[] = [], ss: number[] = [], sx: number[] = [], sy: number[] = [], sh: number[] = [];
  lanes.forEach((L, li) => {
    const n = Math.max(1, Math.ceil(g[li].length / SAMPLE_M));
    for (let k = 0; k <= n; k++) {
      const p = lanePoint(L, g[li].cum, (k / n) * g[li].length);
      sl.push(li); ss.push((k / n) * g[li].length); sx.push(p.x); sy.push(p.y); sh.push(p.yaw);
    }
  });
  if (sl.length === 0) return [];
  const index = new KDBush(sl.length, 64, Float64Array);
  for (let i = 0; i < sl.length; i++) index.add(sx[i], sy[i]);
  index.finish();
  const successor = (a: number, b: number) => lanes[a].next.includes(b);
  // per ordered pair a < b: the close samples (s on a, s on b, heading cosine, distance)
  const hits = new Map<number, number[]>();
  const N = lanes.length;
  for (let p = 0; p < sl.length; p++) {
    const a = sl[p];
    for (const q of index.within(sx[p], sy[p], CLOSE_M)) {
      const b = sl[q];
      if (b <= a || successor(a, b) || successor(b, a) || (separateLevels && (lanes[a].level ?? 0) !== (lanes[b].level ?? 0))) continue;
      const key = a * N + b;
      let list = hits.get(key);
      if (!list) hits.set(key, (list = []));
      list.push(ss[p], ss[q], Math.cos(sh[p] - sh[q]), Math.hypot(sx[p] - sx[q], sy[p] - sy[q]));
    }
  }
  const out: Conflict[] = [];
  const end = (li: number) => ({ x: lanes[li].xs[lanes[li].xs.length - 1], y: lanes[li].ys[lanes[li].ys.length - 1] });
  const start = (li: number) => ({ x: lanes[li].xs[0], y: lanes[li].ys[0] });
  const near = (p: { x: number; y: number }, q: { x: number; y: number }) => Math.hypot(p.x - q.x, p.y - q.y) <= SAME_POINT_M;
  for (const [key, list] of hits) {
    const a = Math.floor(key / N), b = key % N;
    // runs along a (sorted by s on a)
    const order = Array.from({ length: list.length / 4 }, (_, k) => k).sort((i, j) => list[4 * i] - list[4 * j] || list[4 * i + 1] - list[4 * j + 1]);
    let run: number[] = [];
    const flush = () => {
      if (run.length === 0) return;
      let sa0 = Infinity, sa1 = -Infinity, sb0 = Infinity, sb1 = -Infinity, cos = 0, gap = Infinity;
      for (const k of run) {
        sa0 = Math.min(sa0, list[4 * k]); sa1 = Math.max(sa1, list[4 * k]);
        sb0 = Math.min(sb0, list[4 * k + 1]); sb1 = Math.max(sb1, list[4 * k + 1]);
        cos += list[4 * k + 2];
        gap = Math.min(gap, list[4 * k + 3]);
      }
      cos /= run.length;
      run = [];
      const la = g[a].length, lb = g[b].length;
      const atStartA = sa0 <= END_TOL_M, atStartB = sb0 <= END_TOL_M;
      const atEndA = sa1 >= la - END_TOL_M, atEndB = sb1 >= lb - END_TOL_M;
      // leaving one point together: the vehicles are in one queue until they part
      if (atStartA && atStartB && (near(start(a), start(b)) || g[a].prev.some((p) => g[b].prev.includes(p)))) return;
      // one lane's end is the other's start (a link the lane graph lacks): one path
      if ((atEndA && atStartB && near(end(a), start(b))) || (atEndB && atStartA && near(end(b), start(a)))) return;
      // side by side, opposite ways, over a stretch: a two-way road, not a crossing — unless they come closer than
      // two cars can pass (one strip of road driven both ways, as a turn drawn over the opposite lane): head on
      if (cos < OPPOSED_COS && sa1 - sa0 > 2 * CLOSE_M && gap >= PASSING_GAP_M) return;
      const merge = atEndA && atEndB && (near(end(a), end(b)) || lanes[a].next.some((n) => lanes[b].next.includes(n)));
      // side by side the same way (a taper, lanes drawn close together): no crossing; where one ends in the
      // other it is a merge
      if (!merge && cos > SAME_WAY_COS) return;
      out.push({ kind: merge ? ConflictKind.Merge : ConflictKind.Cross, a: { lane: a, s0: sa0, s1: sa1 }, b: { lane: b, s0: sb0, s1: sb1 } });
    };
    let last = -Infinity;
    for (const k of order) {
      if (list[4 * k] - last > RUN_GAP_M) flush();
      run.push(k);
      last = list[4 * k];
    }
    flush();
  }
  return out;
}

/**
 * Derives the junctions of a lane network. `separateLevels`: lanes on different levels (a bridge over a road) never
 * meet. Off by default: the NPC world is flat (GPUDrive's collisions are 2-D), so vehicles on a bridge and on the
 * road under it do meet where their lanes cross in plan, and giving way there is what keeps them apart.
 */
export function deriveJunctions(lanes: readonly JunctionLane[], opts: { separateLevels?: boolean } = {}): Junction[] {
  const g = geometry(lanes);
  const conflicts = findConflicts(lanes, g, opts.separateLevels === true);
  if (conflicts.length === 0) return [];
  // stretches 2k, 2k+1 are conflict k's sides
  const stretches: Stretch[] = [];
  for (const c of conflicts) stretches.push(c.a, c.b);
  const uf = new UnionFind(stretches.length);
  for (let k = 0; k < conflicts.length; k++) uf.union(2 * k, 2 * k + 1);
  const byLane = new Map<number, number[]>();
  stretches.forEach((st, i) => {
    let l = byLane.get(st.lane);
    if (!l) byLane.set(st.lane, (l = []));
    l.push(i);
  });
  for (const [, list] of byLane) {
    list.sort((i, j) => stretches[i].s0 - stretches[j].s0);
    let reach = -Infinity, at = -1;
    for (const i of list) {
      if (at >= 0 && stretches[i].s0 - reach < CLUSTER_GAP_M) uf.union(at, i);
      if (stretches[i].s1 > reach) {
        reach = stretches[i].s1;
        at = i;
      }
    }
  }
  // across a lane's end into its successor
  for (const [lane, list] of byLane) {
    for (const i of list) {
      const tail = g[lane].length - stretches[i].s1;
      if (tail >= CLUSTER_GAP_M) continue;
      for (const nx of lanes[lane].next) {
        for (const j of byLane.get(nx) ?? []) if (tail + stretches[j].s0 < CLUSTER_GAP_M) uf.union(i, j);
      }
    }
  }
  const clusters = new Map<number, number[]>();
  stretches.forEach((_, i) => {
    const r = uf.find(i);
    let l = clusters.get(r);
    if (!l) clusters.set(r, (l = []));
    l.push(i);
  });
  // numbered by their lowest lane index (map order), then position
  const ordered = [...clusters.values()].sort((p, q) => Math.min(...p.map((i) => stretches[i].lane)) - Math.min(...q.map((i) => stretches[i].lane)));
  // (after the numbering: a path that joins a junction never renames it)
  joinFreePaths(lanes, g, stretches, byLane, (i) => clusters.get(uf.find(i))!);
  const out: Junction[] = [];
  for (const members of ordered) {
    const j = buildJunction(out.length, members, stretches, conflicts, lanes, g, 2 * conflicts.length);
    if (j) out.push(j);
  }
  return out;
}

/**
 * An intersection path (NGII LinkType 1) that crosses and merges with nothing — a free right turn, a slip lane —
 * makes no conflict, so no junction would hold it, and a vehicle on it would pass the junction's stop line with
 * no signal or sign to govern it. It belongs to the junction of the intersection paths that start beside it (the
 * same lane before them): it joins that junction whole, as its own movement of that approach.
 */
function joinFreePaths(lanes: readonly JunctionLane[], g: readonly LaneGeom[], stretches: Stretch[], byLane: Map<number, number[]>, clusterOf: (stretch: number) => number[]): void {
  for (let l = 0; l < lanes.length; l++) {
    if (!lanes[l].internal || byLane.has(l) || g[l].length <= 0) continue;
    // a sibling: another intersection path from the same lane, already in a junction
    let home: number[] | null = null;
    for (const p of g[l].prev) {
      for (const sib of lanes[p].next) {
        if (sib === l || !lanes[sib].internal) continue;
        const st = byLane.get(sib);
        if (st) {
          home = clusterOf(st[0]);
          break;
        }
      }
      if (home) break;
    }
    if (!home) continue;
    const i = stretches.length;
    stretches.push({ lane: l, s0: 0, s1: g[l].length });
    byLane.set(l, [i]);
    home.push(i);
  }
}

/** `firstJoined`: stretches from this index on are free paths joined whole (joinFreePaths), not conflict sides */
function buildJunction(index: number, members: number[], stretches: Stretch[], conflicts: Conflict[], lanes: readonly JunctionLane[], g: readonly LaneGeom[], firstJoined: number): Junction | null {
  const joinedLanes = new Set(members.filter((i) => i >= firstJoined).map((i) => stretches[i].lane));
  // each lane's span in the junction
  const span = new Map<number, { s0: number; s1: number }>();
  for (const i of members) {
    const st = stretches[i];
    const sp = span.get(st.lane);
    if (sp) {
      sp.s0 = Math.min(sp.s0, st.s0);
      sp.s1 = Math.max(sp.s1, st.s1);
    } else span.set(st.lane, { s0: st.s0, s1: st.s1 });
  }
  // intersection lanes are inside from end to end
  for (const [lane, sp] of span) {
    if (lanes[lane].internal) {
      sp.s0 = 0;
      sp.s1 = g[lane].length;
    }
  }
  const continues = (a: number, b: number) => {
    const sa = span.get(a), sb = span.get(b);
    return !!sa && !!sb && g[a].length - sa.s1 + sb.s0 < CLUSTER_GAP_M;
  };
  // chains of spans: a movement starts at a span no predecessor's span runs into
  const starts = [...span.keys()].filter((l) => !g[l].prev.some((p) => continues(p, l))).sort((a, b) => a - b);
  const chains: number[][] = [];
  const walk = (chain: number[]) => {
    const last = chain[chain.length - 1];
    const nexts = lanes[last].next.filter((n) => continues(last, n) && !chain.includes(n));
    if (nexts.length === 0 || chain.length >= 8) {
      chains.push(chain);
      return;
    }
    for (const n of nexts) walk([...chain, n]);
  };
  for (const s of starts) walk([s]);
  if (chains.length === 0) return null;
  const id = `J${index + 1}`;
  const movements: Movement[] = chains.map((chain, mi) => {
    const first = chain[0], last = chain[chain.length - 1];
    const spFirst = span.get(first)!, spLast = span.get(last)!;
    const entryS = lanes[first].internal ? 0 : Math.max(0, spFirst.s0 - ENTRY_MARGIN_M);
    const exitS = lanes[last].internal ? g[last].length : Math.min(g[last].length, spLast.s1 + EXIT_MARGIN_M);
    const pieces: MovementPiece[] = chain.map((lane, k) => ({
      lane,
      s0: k === 0 ? entryS : 0,
      s1: k === chain.length - 1 ? exitS : g[lane].length,
    }));
    const e = lanePoint(lanes[first], g[first].cum, entryS);
    const x = lanePoint(lanes[last], g[last].cum, exitS);
    // the turn: the heading a little inside each end (the very ends of a polyline can be kinked)
    const hIn = lanePoint(lanes[first], g[first].cum, Math.min(entryS + 1, pieces[0].s1)).yaw;
    const hOut = lanePoint(lanes[last], g[last].cum, Math.max(exitS - 1, pieces[pieces.length - 1].s0)).yaw;
    const dh = wrapPi(hOut - hIn);
    const turn: Turn = Math.abs(dh) > (150 * Math.PI) / 180 ? 'uturn' : dh > (35 * Math.PI) / 180 ? 'left' : dh < (-35 * Math.PI) / 180 ? 'right' : 'straight';
    const length = pieces.reduce((acc, p) => acc + (p.s1 - p.s0), 0);
    const m: Movement = { index: mi, id: `${id}.${mi}`, pieces, entry: { lane: first, s: entryS, ...e }, exit: { lane: last, s: exitS, ...x }, length, approach: -1, turn };
    return chain.every((l) => joinedLanes.has(l)) ? { ...m, joined: true } : m;
  });
  const n = movements.length;
  // approaches: the same entry lane, entry lanes side by side, or entries close together heading the same way
  const uf = new UnionFind(n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const ea = movements[a].entry, eb = movements[b].entry;
      const la = lanes[ea.lane], lb = lanes[eb.lane];
      const sameWay = Math.cos(ea.yaw - eb.yaw) > APPROACH_COS;
      const sameLane = ea.lane === eb.lane;
      const sideBySide = la.left === eb.lane || la.right === eb.lane;
      const samePred = g[ea.lane].prev.some((p) => g[eb.lane].prev.includes(p));
      if (sameLane || (sameWay && (sideBySide || samePred || Math.hypot(ea.x - eb.x, ea.y - eb.y) < APPROACH_M))) uf.union(a, b);
    }
  }
  const roots = [...new Set(movements.map((_, a) => uf.find(a)))];
  const approaches: Approach[] = roots.map((r, ai) => {
    const ms = movements.filter((_, a) => uf.find(a) === r).map((m) => m.index);
    let x = 0, y = 0, c = 0, s = 0;
    for (const m of ms) {
      x += movements[m].entry.x; y += movements[m].entry.y;
      c += Math.cos(movements[m].entry.yaw); s += Math.sin(movements[m].entry.yaw);
    }
    return { index: ai, movements: ms, lanes: [...new Set(ms.map((m) => movements[m].entry.lane))], x: x / ms.length, y: y / ms.length, yaw: Math.atan2(s, c) };
  });
  const withApproach: Movement[] = movements.map((m) => ({ ...m, approach: approaches.findIndex((ap) => ap.movements.includes(m.index)) }));

  // the conflict table: every conflict of the junction's stretches, on every pair of movements driving them
  const conflictsOut = new Uint8Array(n * n);
  const zoneStart = new Float32Array(n * n).fill(NaN);
  const zoneEnd = new Float32Array(n * n).fill(NaN);
  const memberSet = new Set(members);
  /** distance from movement m's entry to s on `lane`, if m drives that point */
  const along = (m: Movement, lane: number, s: number): number => {
    let d = 0;
    for (const p of m.pieces) {
      if (p.lane === lane && s >= p.s0 - 0.5 && s <= p.s1 + 0.5) return d + Math.min(Math.max(s - p.s0, 0), p.s1 - p.s0);
      d += p.s1 - p.s0;
    }
    return NaN;
  };
  conflicts.forEach((c, k) => {
    if (!memberSet.has(2 * k)) return;
    for (const ma of withApproach) {
      const a0 = along(ma, c.a.lane, c.a.s0), a1 = along(ma, c.a.lane, c.a.s1);
      if (Number.isNaN(a0) && Number.isNaN(a1)) continue;
      for (const mb of withApproach) {
        if (mb.index === ma.index) continue;
        const b0 = along(mb, c.b.lane, c.b.s0), b1 = along(mb, c.b.lane, c.b.s1);
        if (Number.isNaN(b0) && Number.isNaN(b1)) continue;
        mark(ma.index, mb.index, a0, a1, c.kind);
        mark(mb.index, ma.index, b0, b1, c.kind);
      }
    }
  });
  function mark(a: number, b: number, d0: number, d1: number, kind: ConflictKindId) {
    const k = a * n + b;
    const lo = Math.min(Number.isNaN(d0) ? d1 : d0, Number.isNaN(d1) ? d0 : d1);
    const hi = Math.max(Number.isNaN(d0) ? d1 : d0, Number.isNaN(d1) ? d0 : d1);
    if (conflictsOut[k] === ConflictKind.None || kind === ConflictKind.Cross) conflictsOut[k] = conflictsOut[k] === ConflictKind.Cross ? ConflictKind.Cross : kind;
    zoneStart[k] = Number.isNaN(zoneStart[k]) ? lo : Math.min(zoneStart[k], lo);
    zoneEnd[k] = Number.isNaN(zoneEnd[k]) ? hi : Math.max(zoneEnd[k], hi);
  }
  // movements sharing a first stretch (they part later) never conflict: they queue on one lane
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const pa = withApproach[a].pieces[0], pb = withApproach[b].pieces[0];
      if (a !== b && pa.lane === pb.lane) {
        conflictsOut[a * n + b] = ConflictKind.None;
        zoneStart[a * n + b] = NaN;
        zoneEnd[a * n + b] = NaN;
      }
    }
  }

  // outline: convex hull of the movements' paths, half a lane either side
  const pts: Array<[number, number]> = [];
  let cx = 0, cy = 0, cn = 0;
  for (const m of withApproach) {
    for (const p of m.pieces) {
      const L = lanes[p.lane];
      const steps = Math.max(1, Math.ceil((p.s1 - p.s0) / 2));
      for (let k = 0; k <= steps; k++) {
        const q = lanePoint(L, g[p.lane].cum, p.s0 + ((p.s1 - p.s0) * k) / steps);
        const nx = -Math.sin(q.yaw) * LANE_HALF_WIDTH_M, ny = Math.cos(q.yaw) * LANE_HALF_WIDTH_M;
        pts.push([q.x + nx, q.y + ny], [q.x - nx, q.y - ny]);
        cx += q.x; cy += q.y; cn++;
      }
    }
  }
  const polygon = convexHull(pts).map(([x, y]) => ({ x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 }));
  return { id, index, x: cx / cn, y: cy / cn, polygon, movements: withApproach, approaches, conflicts: conflictsOut, zoneStart, zoneEnd };
}

/** Andrew's monotone chain; counter-clockwise, no repeated first point. */
export function convexHull(points: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p.map(([x, y]) => [x, y]);
  const cross = (o: readonly number[], a: readonly number[], b: readonly number[]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Array<[number, number]> = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push([q[0], q[1]]);
  }
  const upper: Array<[number, number]> = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
    upper.push([q[0], q[1]]);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

/** Is (x, y) inside a convex polygon (counter-clockwise)? */
export function insideConvex(polygon: ReadonlyArray<{ readonly x: number; readonly y: number }>, x: number, y: number): boolean {
  const n = polygon.length;
  if (n < 3) return false;
  for (let i = 0; i < n; i++) {
    const a = polygon[i], b = polygon[(i + 1) % n];
    if ((b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x) < 0) return false;
  }
  return true;
}
