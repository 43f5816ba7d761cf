/**
 * How each junction of a map is controlled: its junctions (derived from the lanes the NPCs drive), the map's
 * signal heads, stop lines and signs bound to their approaches, and from those a control per junction:
 *
 * - `signal`: a vehicle signal head controls one of its approaches. Every approach of the junction gets a
 *   signal group (two where its heads have a left arrow: through/right and left); groups are what a plan
 *   switches, what the API reports and what the roadside sets.
 * - `all_way_stop`: every approach has a stop sign; `stop` / `yield`: some approaches have one (they are minor);
 * - `priority`: none of these; the approach of the higher class goes first, else the one from the right.
 *
 * A mapped stop line crossing a movement's lane just before its entry moves the entry there (vehicles stop at
 * the paint); otherwise the derived entry stands. Pure: records and lanes in, layout out.
 */
import { ConflictKind, deriveJunctions, type Junction, type JunctionLane, type Movement, type MovementPiece } from '../../map/junctions.js';
import { controlsVehicles, type TrafficControlRecords } from '../../map/traffic-control.js';
import { wrapPi } from '../../geo/frame.js';
import { poseAlong } from '../../traffic/lanes.js';
import { BIND_BACK_M, OPPOSITE_COS, STOP_LINE_AHEAD_M, STOP_LINE_BACK_M } from './kit-params.js';

export type JunctionControl = 'signal' | 'all_way_stop' | 'stop' | 'yield' | 'priority';

/** A lane as the layout sees it (LaneNetwork's lanes satisfy it). */
export interface LayoutLane extends JunctionLane {
  readonly cum: ArrayLike<number>;
  readonly length: number;
  /** m/s; NaN when unknown */
  readonly speedLimit: number;
}

export interface SignalGroup {
  /** `<junction>.<approach letter>`, `<junction>.<approach letter>.left` for an approach's arrow-controlled left turns */
  readonly id: string;
  /** 1, 2, … over the whole map (for consumers that need integer ids, as Autoware's traffic-light groups) */
  readonly numericId: number;
  readonly junction: number;
  readonly approach: number;
  /** movement indices in the junction */
  readonly movements: readonly number[];
  /** the protected-left group of an approach whose heads have a left arrow */
  readonly left: boolean;
  /** ids of the mapped heads that show it */
  readonly heads: readonly string[];
  /** ids of the lanes its movements start on */
  readonly lanes: readonly string[];
  /** where its vehicles stop: the entry points of its movements (map frame) */
  readonly stopLine: ReadonlyArray<{ readonly x: number; readonly y: number }>;
  /** painted: a mapped stop line moved its movements' entries there; derived: none did (where the lanes enter the junction) */
  readonly stopLineSource: 'painted' | 'derived';
}

/** A line where vehicles stop that the map does not paint: a signal group's or a stop or yield sign's approach without one. */
export interface DerivedStopLine {
  /** the group's id, or `<junction>.<approach letter>` for a sign's approach */
  readonly id: string;
  readonly junction: string;
  readonly kind: 'signal' | 'stop' | 'yield';
  readonly points: ReadonlyArray<{ readonly x: number; readonly y: number }>;
}

export interface ApproachControl {
  /** letter used in signal-group ids: A, B, … clockwise from north */
  readonly letter: string;
  readonly sign: 'stop' | 'yield' | null;
  /** class of the approach for priority (higher goes first): speed limit band, then lane count */
  readonly rank: number;
  /** ids of the heads and signs bound to it */
  readonly heads: readonly string[];
  readonly signs: readonly string[];
}

export interface ControlledJunction {
  readonly junction: Junction;
  /** the junction's movements with entries moved to mapped stop lines */
  readonly movements: readonly Movement[];
  readonly control: JunctionControl;
  readonly approaches: readonly ApproachControl[];
  /** global indices of its signal groups (empty unless signalised) */
  readonly groups: readonly number[];
  /** per movement: its global signal-group index, −1 when unsignalised */
  readonly groupOfMovement: Int32Array;
  /** where movement a meets b, as distances from a's entry (moved to a stop line), as Junction.zoneStart/End */
  readonly zoneStart: Float32Array;
  readonly zoneEnd: Float32Array;
  /**
   * per movement pair (a·n + b): 1 when a must give way to b where both may go (a left turn to oncoming traffic
   * in a permissive phase; at an unsignalised junction by sign, class, then the right-hand rule)
   */
  readonly yields: Uint8Array;
}

export interface TrafficLayout {
  readonly junctions: readonly ControlledJunction[];
  readonly groups: readonly SignalGroup[];
  /** the lines vehicles stop at that no paint marks (drawn and exported like painted ones) */
  readonly derivedStopLines: readonly DerivedStopLine[];
  /** records that could not be placed (a head whose lanes feed no junction, …), for the operator */
  readonly unbound: { readonly heads: readonly string[]; readonly stopLines: readonly string[]; readonly signs: readonly string[] };
}



/** Where a polyline crosses a lane's centre line: distance along the lane, or NaN. */
function crossingOnLane(L: LayoutLane, line: ReadonlyArray<{ x: number; y: number }>): number {
  for (let i = 1; i < L.xs.length; i++) {
    const ax = L.xs[i - 1], ay = L.ys[i - 1], bx = L.xs[i], by = L.ys[i];
    for (let k = 1; k < line.length; k++) {
      const cx = line[k - 1].x, cy = line[k - 1].y, dx = line[k].x, dy = line[k].y;
      const den = (bx - ax) * (dy - cy) - (by - ay) * (dx - cx);
      if (Math.abs(den) < 1e-12) continue;
      const t = ((cx - ax) * (dy - cy) - (cy - ay) * (dx - cx)) / den;
      const u = ((cx - ax) * (by - ay) - (cy - ay) * (bx - ax)) / den;
      if (t >= 0 && t <= 1 && u >= -0.05 && u <= 1.05) return L.cum[i - 1] + t * (L.cum[i] - L.cum[i - 1]);
    }
  }
  return NaN;
}

/** Lanes leading to a point: the lane and its predecessors, each with the distance from its end to (lane, s). */
function lanesBefore(lanes: readonly LayoutLane[], prev: readonly number[][], lane: number, s: number, maxBack: number): Map<number, number> {
  const out = new Map<number, number>([[lane, -s]]);
  const stack: Array<[number, number]> = [[lane, s]];
  while (stack.length) {
    const [l, back] = stack.pop()!;
    for (const p of prev[l]) {
      if (back > maxBack || out.has(p)) continue;
      out.set(p, back);
      stack.push([p, back + lanes[p].length]);
    }
  }
  return out;
}

/** The movement with its entry moved back (or on) to (lane, s): `chain` lanes from there to the old entry lane. */
function withEntry(m: Movement, lanes: readonly LayoutLane[], chain: readonly number[], s: number): Movement {
  const pieces: MovementPiece[] = [];
  for (let k = 0; k < chain.length - 1; k++) pieces.push({ lane: chain[k], s0: k === 0 ? s : 0, s1: lanes[chain[k]].length });
  const first = m.pieces[0];
  const rest = m.pieces.slice(1);
  if (chain.length === 1) pieces.push({ lane: first.lane, s0: s, s1: first.s1 });
  else pieces.push({ lane: first.lane, s0: 0, s1: first.s1 });
  pieces.push(...rest);
  const p = poseAlong(lanes[chain[0]], s);
  const length = pieces.reduce((a, q) => a + (q.s1 - q.s0), 0);
  return { ...m, pieces, entry: { lane: chain[0], s, x: p.x, y: p.y, yaw: lanes[chain[0]].xs.length > 1 ? p.yaw : m.entry.yaw }, length };
}

/**
 * `signalAll`: give every junction signals (a test of the plans over every junction of a map, or a scenario that
 * wants every crossing signalised).
 */
export function buildTrafficLayout(lanes: readonly LayoutLane[], records: TrafficControlRecords, laneIndexOf: (id: string) => number, opts: { junctions?: readonly Junction[]; signalAll?: boolean } = {}): TrafficLayout {
  const junctions = opts.junctions ?? deriveJunctions(lanes);
  const prev: number[][] = lanes.map(() => []);
  lanes.forEach((L, a) => L.next.forEach((b) => prev[b]?.push(a)));
  const usedHeads = new Set<string>(), usedLines = new Set<string>(), usedSigns = new Set<string>();

  // stop lines per lane, with where they cross it
  const stopOnLane = new Map<number, Array<{ id: string; s: number }>>();
  for (const sl of records.stop_lines) {
    const candidates = sl.lanes.map(laneIndexOf).filter((l) => l >= 0);
    for (const l of candidates) {
      const s = crossingOnLane(lanes[l], sl.geometry);
      if (Number.isNaN(s)) continue;
      let list = stopOnLane.get(l);
      if (!list) stopOnLane.set(l, (list = []));
      list.push({ id: sl.id, s });
    }
  }

  // heads and signs: each binds to the movement entries its lanes lead to, nearest first
  interface Binding { junction: number; approach: number; distance: number }
  const bindLanes = (ids: readonly string[], jl: ReadonlyArray<readonly Movement[]>): Binding | null => {
    let best: Binding | null = null;
    for (const id of ids) {
      const l = laneIndexOf(id);
      if (l < 0) continue;
      jl.forEach((ms, j) => {
        for (const m of ms) {
          let d = Infinity;
          // on the movement's own lanes (an intersection lane, as K-City's heads name): before its entry
          if (m.pieces.some((p) => p.lane === l)) d = -1;
          else {
            const before = lanesBefore(lanes, prev, m.entry.lane, m.entry.s, BIND_BACK_M);
            const back = before.get(l);
            if (back !== undefined) d = back;
          }
          if (d < Infinity && (!best || d < best.distance)) best = { junction: j, approach: m.approach, distance: d };
        }
      });
    }
    return best;
  };

  // movements with entries moved to the stop lines painted for them (and which were)
  const painted = new Set<Movement>();
  const movesByJunction: Movement[][] = junctions.map((J) => J.movements.map((m) => {
    const before = lanesBefore(lanes, prev, m.entry.lane, m.entry.s, STOP_LINE_BACK_M);
    let pick: { lane: number; s: number; back: number; id: string } | null = null;
    for (const [l, back] of before) {
      for (const st of stopOnLane.get(l) ?? []) {
        // distance from the stop line to the derived entry (positive: before it)
        const dist = l === m.entry.lane ? m.entry.s - st.s : back + (lanes[l].length - st.s);
        if (dist < -STOP_LINE_AHEAD_M || dist > STOP_LINE_BACK_M) continue;
        if (l === m.entry.lane && st.s > m.pieces[0].s1) continue;
        if (!pick || Math.abs(dist) < Math.abs(pick.back)) pick = { lane: l, s: st.s, back: dist, id: st.id };
      }
    }
    if (!pick) return m;
    usedLines.add(pick.id);
    const moved = movedTo(m, pick);
    if (moved) painted.add(moved);
    return moved ?? m;
  }));
  function movedTo(m: Movement, pick: { lane: number; s: number }): Movement | null {
    if (pick.lane === m.entry.lane) return withEntry(m, lanes, [m.entry.lane], pick.s);
    // the chain of lanes from the stop line's lane to the entry lane
    const chain = [pick.lane];
    let at = pick.lane;
    for (let hops = 0; hops < 6 && at !== m.entry.lane; hops++) {
      const nx = lanes[at].next.find((n) => n === m.entry.lane || lanesBefore(lanes, prev, m.entry.lane, m.entry.s, STOP_LINE_BACK_M).has(n));
      if (nx === undefined) return null;
      chain.push(nx);
      at = nx;
    }
    if (at !== m.entry.lane) return null;
    return withEntry(m, lanes, chain, pick.s);
  }

  const headsAt = new Map<string, string[]>(), arrowAt = new Set<string>(), signAt = new Map<string, { kind: 'stop' | 'yield'; ids: string[] }>();
  const key = (j: number, a: number) => `${j}:${a}`;
  for (const h of records.signals) {
    if (!controlsVehicles(h)) continue;
    const b = bindLanes(h.lanes, movesByJunction);
    if (!b) continue;
    usedHeads.add(h.id);
    const k = key(b.junction, b.approach);
    headsAt.set(k, [...(headsAt.get(k) ?? []), h.id]);
    if (h.left_arrow) arrowAt.add(k);
  }
  for (const sg of records.signs) {
    if (sg.kind !== 'stop' && sg.kind !== 'yield') continue;
    const b = bindLanes(sg.lanes, movesByJunction);
    if (!b) continue;
    usedSigns.add(sg.id);
    const k = key(b.junction, b.approach);
    const cur = signAt.get(k);
    // a stop sign outranks a yield sign on the same approach
    signAt.set(k, { kind: cur?.kind === 'stop' || sg.kind === 'stop' ? 'stop' : 'yield', ids: [...(cur?.ids ?? []), sg.id] });
  }

  const groups: SignalGroup[] = [];
  const derivedStopLines: DerivedStopLine[] = [];
  const out: ControlledJunction[] = junctions.map((J, j) => {
    const movements = movesByJunction[j];
    const n = movements.length;
    // approach letters clockwise from north (by the direction the approach comes from)
    const order = J.approaches.map((a) => a.index).sort((p, q) => bearingFrom(J.approaches[p].yaw) - bearingFrom(J.approaches[q].yaw));
    const letter = new Map(order.map((a, k) => [a, String.fromCharCode(65 + (k % 26)) + (k >= 26 ? String(Math.floor(k / 26)) : '')]));
    const approaches: ApproachControl[] = J.approaches.map((a) => ({
      letter: letter.get(a.index)!,
      sign: signAt.get(key(j, a.index))?.kind ?? null,
      rank: approachRank(a.movements.map((m) => movements[m]), lanes),
      heads: headsAt.get(key(j, a.index)) ?? [],
      signs: signAt.get(key(j, a.index))?.ids ?? [],
    }));
    const signalled = opts.signalAll === true || approaches.some((a) => a.heads.length > 0);
    const signed = approaches.filter((a) => a.sign !== null);
    const control: JunctionControl = signalled ? 'signal'
      : signed.length > 0 && signed.length === approaches.length && approaches.length > 1 && signed.every((a) => a.sign === 'stop') ? 'all_way_stop'
      : signed.some((a) => a.sign === 'stop') ? 'stop'
      : signed.length > 0 ? 'yield' : 'priority';
    const groupOfMovement = new Int32Array(n).fill(-1);
    const mine: number[] = [];
    if (control === 'signal') {
      for (const a of order) {
        const ap = J.approaches[a];
        const arrow = arrowAt.has(key(j, a));
        const lefts = arrow ? ap.movements.filter((m) => movements[m].turn === 'left' || movements[m].turn === 'uturn') : [];
        const rest = ap.movements.filter((m) => !lefts.includes(m));
        for (const [ms, left] of [[rest, false], [lefts, true]] as const) {
          if (ms.length === 0) continue;
          const g = groups.length;
          const ids = [...new Set(ms.map((m) => lanes[movements[m].entry.lane].id))];
          const stopLine = stopLineOf(ms.map((m) => movements[m]));
          const stopLineSource = ms.some((m) => painted.has(movements[m])) ? 'painted' : 'derived';
          const id = `${J.id}.${letter.get(a)}${left ? '.left' : ''}`;
          groups.push({ id, numericId: g + 1, junction: j, approach: a, movements: ms, left, heads: approaches[a].heads, lanes: ids, stopLine, stopLineSource });
          if (stopLineSource === 'derived') derivedStopLines.push({ id, junction: J.id, kind: 'signal', points: stopLine });
          for (const m of ms) groupOfMovement[m] = g;
          mine.push(g);
        }
      }
    }
    // a stop or yield sign's approach without paint: where its vehicles stop, drawn as a line
    if (control !== 'signal') {
      J.approaches.forEach((ap, a) => {
        const sign = approaches[a].sign;
        if (!sign || ap.movements.some((m) => painted.has(movements[m]))) return;
        derivedStopLines.push({ id: `${J.id}.${letter.get(a)}`, junction: J.id, kind: sign, points: stopLineOf(ap.movements.map((m) => movements[m])) });
      });
    }
    const yields = new Uint8Array(n * n);
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        if (a === b || J.conflicts[a * n + b] === ConflictKind.None) continue;
        yields[a * n + b] = givesWay(movements[a], movements[b], approaches, J.conflicts[a * n + b]) ? 1 : 0;
      }
    }
    // two movements never both give way to each other: the lower index goes first
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (yields[a * n + b] && yields[b * n + a]) yields[a * n + b] = 0;
    // zones measured from the entries the movements have now (moved back to a stop line: further along)
    const zoneStart = Float32Array.from(J.zoneStart), zoneEnd = Float32Array.from(J.zoneEnd);
    for (let a = 0; a < n; a++) {
      const shift = movements[a].length - J.movements[a].length;
      if (shift === 0) continue;
      for (let b = 0; b < n; b++) {
        zoneStart[a * n + b] += shift;
        zoneEnd[a * n + b] += shift;
      }
    }
    return { junction: J, movements, control, approaches, groups: mine, groupOfMovement, yields, zoneStart, zoneEnd };
  });

  return {
    junctions: out,
    groups,
    derivedStopLines,
    unbound: {
      heads: records.signals.filter((h) => controlsVehicles(h) && !usedHeads.has(h.id)).map((h) => h.id),
      stopLines: records.stop_lines.filter((s) => !usedLines.has(s.id)).map((s) => s.id),
      signs: records.signs.filter((s) => (s.kind === 'stop' || s.kind === 'yield') && !usedSigns.has(s.id)).map((s) => s.id),
    },
  };
}

/** Compass bearing [0, 2π) of where an approach comes from (north 0, clockwise). */
function bearingFrom(yaw: number): number {
  // the approach heads along yaw: it comes from yaw + π; compass bearing = π/2 − angle (map frame: x east, y north)
  const from = yaw + Math.PI;
  const b = Math.PI / 2 - from;
  return ((b % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
}

function approachRank(ms: readonly Movement[], lanes: readonly LayoutLane[]): number {
  let limit = 0;
  const entryLanes = new Set<number>();
  for (const m of ms) {
    entryLanes.add(m.entry.lane);
    const v = lanes[m.entry.lane].speedLimit;
    if (Number.isFinite(v)) limit = Math.max(limit, v);
  }
  // 10 km/h bands first, then the number of lanes
  return Math.round((limit * 3.6) / 10) * 10 + Math.min(9, entryLanes.size);
}

/** Where the movements' vehicles stop, as a line across their entries (ordered across the road). */
function stopLineOf(ms: readonly Movement[]): Array<{ x: number; y: number }> {
  if (ms.length === 0) return [];
  const c = Math.cos(ms[0].entry.yaw), s = Math.sin(ms[0].entry.yaw);
  const pts = [...new Map(ms.map((m) => [`${m.entry.x.toFixed(2)},${m.entry.y.toFixed(2)}`, m.entry])).values()];
  pts.sort((p, q) => (-p.x * s + p.y * c) - (-q.x * s + q.y * c));
  // half a lane beyond the outer entries
  const first = pts[0], last = pts[pts.length - 1];
  return [
    { x: first.x + 1.6 * s, y: first.y - 1.6 * c },
    ...pts.slice(1, -1).map((p) => ({ x: p.x, y: p.y })),
    { x: last.x - 1.6 * s, y: last.y + 1.6 * c },
  ];
}

/**
 * Does movement a give way to b where both may go? Signs first (a stop or yield approach gives way to one
 * without), then: a left or U-turn to traffic from the opposite approach; the approach of lower class; a merging
 * movement that turns more; else the one whose partner comes from its right.
 */
function givesWay(a: Movement, b: Movement, approaches: readonly ApproachControl[], kind: number): boolean {
  if (a.approach === b.approach) {
    // two lanes of one approach merging: the one turning more gives way (a lane drop ends in the through lane)
    return Math.abs(turnAngle(a)) > Math.abs(turnAngle(b)) + 0.05;
  }
  const sa = approaches[a.approach].sign, sb = approaches[b.approach].sign;
  const level = (s: 'stop' | 'yield' | null) => (s === 'stop' ? 2 : s === 'yield' ? 1 : 0);
  if (level(sa) !== level(sb)) return level(sa) > level(sb);
  const opposite = Math.cos(a.entry.yaw - b.entry.yaw) < OPPOSITE_COS;
  if (opposite) {
    const turnsA = a.turn === 'left' || a.turn === 'uturn', turnsB = b.turn === 'left' || b.turn === 'uturn';
    if (turnsA !== turnsB) return turnsA;
  }
  const ra = approaches[a.approach].rank, rb = approaches[b.approach].rank;
  if (ra !== rb) return ra < rb;
  if (kind === ConflictKind.Merge && Math.abs(Math.abs(turnAngle(a)) - Math.abs(turnAngle(b))) > 0.3) return Math.abs(turnAngle(a)) > Math.abs(turnAngle(b));
  // the right-hand rule: b comes from a's right when b heads about 90° to the left of a's heading
  const rel = wrapPi(b.entry.yaw - a.entry.yaw);
  return rel > Math.PI / 4 && rel < (3 * Math.PI) / 4;
}

function turnAngle(m: Movement): number {
  return wrapPi(m.exit.yaw - m.entry.yaw);
}
