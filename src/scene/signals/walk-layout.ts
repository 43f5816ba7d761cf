/**
 * Walk signal groups: each crosswalk (map traffic_control.crosswalks) at a signalised junction gets one, with the
 * vehicle groups it must never run with. Pure: the traffic layout, lanes and crosswalk records in, walk groups out.
 *
 * A crosswalk belongs to the junction whose movements drive across it: sampled every 0.5 m along each movement's
 * pieces (entry — at the painted stop line, which in Korea lies before the crossing — to exit), the movement crosses
 * it when a sample lies inside the outline; a crosswalk no movement's pieces cross may still belong to the junction
 * whose movements cross it within EXIT_REACH_M after their exit (a far-side crossing just past the junction box) or
 * before their entry (where no stop line is painted and the entry is derived at the junction's edge).
 * Ties go to the junction with more crossing movements.
 *
 * Which vehicle groups conflict: a group whose movement crosses the crosswalk under a PROTECTED green — a straight
 * movement, or a turn of a protected-left (arrow) group. Right turns, and left or U-turns of a through group
 * (permissive, 비보호), cross it but give way to the people on it (도로교통법 제27조 ①: a driver stops for people
 * crossing a crosswalk); the NPC rule side makes them do so. So the walk runs with the vehicle phase parallel to it,
 * never with a protected green across it.
 *
 * Timing (walk-signals.ts): pedestrian green = entry time + crossing length ÷ walking speed, the rule of 경찰청
 * 교통신호기 설치·관리 매뉴얼 as Seoul's signal office states it (wooritvnews.com 2013-07-05, etoday.co.kr 757957:
 * "보행진입시간 7초 + 횡단보도 1m당 1초", i.e. 1.0 m/s; 0.8 m/s where many children, elderly or disabled people
 * cross); the walking speed of 1.0 m/s is the police agency's since 1992 (hankyung.com 1992-05-27). The steady
 * walk is the entry time (at least), the flashing clearance the crossing length ÷ WALK_SPEED_MPS.
 *
 * Pedestrian heads (C1 Type 11, 보행등) are attached to the crosswalk in line with them (src/map/crosswalks.ts
 * crosswalkOfHead) and named in the group; the timing does not depend on them.
 */
import { insideRing } from '../../map/crosswalks.js';
import { crosswalkOfHead } from '../../map/crosswalks.js';
import type { CrosswalkRecord, SignalHeadRecord } from '../../map/traffic-control.js';
import type { Movement } from '../../map/junctions.js';
import { poseAlong } from '../../traffic/lanes.js';
import type { LayoutLane, TrafficLayout } from '../junction-kit/layout.js';
import { EXIT_REACH_M, WALK_ENTRY_S, WALK_SAMPLE_M, WALK_SPEED_MPS } from './signal-params.js';


/** The flashing clearance of a crossing: its length at the walking speed [s]. */
export function walkClearanceS(lengthM: number): number {
  return lengthM / WALK_SPEED_MPS;
}

/** The pedestrian green the rule asks for: entry time + length ÷ walking speed [s]. */
export function pedestrianGreenS(lengthM: number): number {
  return WALK_ENTRY_S + walkClearanceS(lengthM);
}

export interface WalkConflict {
  /** global vehicle group index */
  readonly group: number;
  /** the first movement that crosses under its protected green: lane it starts on, and its turn */
  readonly lane: string;
  readonly turn: string;
}

export interface WalkGroup {
  /** `<junction>.walk.<n>`, n = 1, 2, … clockwise from north around the junction */
  readonly id: string;
  /** continues the vehicle groups' numeric ids */
  readonly numericId: number;
  /** index in layout.junctions */
  readonly junction: number;
  /** index in the map's traffic_control.crosswalks */
  readonly crosswalk: number;
  readonly crosswalkId: string;
  /** crossing length [m] and its flashing clearance [s] */
  readonly length: number;
  readonly clearanceS: number;
  /** vehicle groups whose protected green crosses it (never green or yellow while people may walk) */
  readonly conflicts: readonly WalkConflict[];
  /** vehicle groups whose movements cross it but give way (right turns, permissive left turns) */
  readonly giveWay: readonly number[];
  /** pedestrian heads (C1 Type 11) that show it */
  readonly heads: readonly string[];
}

export interface WalkLayout {
  readonly groups: readonly WalkGroup[];
  /** per junction (layout index): its walk groups (indices into groups) */
  readonly byJunction: ReadonlyArray<readonly number[]>;
  /** per crosswalk (map index): its walk group, −1 when unsignalised */
  readonly groupOfCrosswalk: Int32Array;
}

/**
 * Samples of a movement's path (entry to exit), then of its exit lane up to EXIT_REACH_M further and of its entry
 * lane up to EXIT_REACH_M before the entry (outside = true: a crossing the approach drives over before its line,
 * where the map paints none and the entry is derived inside the junction).
 */
function forEachSample(m: Movement, lanes: readonly LayoutLane[], visit: (x: number, y: number, outside: boolean) => boolean): void {
  const E = lanes[m.entry.lane];
  for (let s = Math.max(0, m.entry.s - EXIT_REACH_M); s < m.entry.s - 1e-6; s += WALK_SAMPLE_M) {
    const q = poseAlong(E, s);
    if (visit(q.x, q.y, true)) return;
  }
  for (const p of m.pieces) {
    for (let s = p.s0; s <= p.s1 + 1e-6; s += WALK_SAMPLE_M) {
      const q = poseAlong(lanes[p.lane], s);
      if (visit(q.x, q.y, false)) return;
    }
  }
  const L = lanes[m.exit.lane];
  const end = Math.min(L.length, m.exit.s + EXIT_REACH_M);
  for (let s = m.exit.s + WALK_SAMPLE_M; s <= end + 1e-6; s += WALK_SAMPLE_M) {
    const q = poseAlong(L, s);
    if (visit(q.x, q.y, true)) return;
  }
}

/** Does the movement's protected green cross it (straight, or a turn under an arrow)? A right turn or a permissive left gives way. */
function protectedAcross(m: Movement, leftGroup: boolean): boolean {
  if (m.turn === 'right') return false;
  if (m.turn === 'left' || m.turn === 'uturn') return leftGroup;
  return true;
}

export function buildWalkLayout(layout: TrafficLayout, lanes: readonly LayoutLane[], crosswalks: readonly CrosswalkRecord[], heads: readonly SignalHeadRecord[] = []): WalkLayout {
  const rings = crosswalks.map((c) => c.polygon.map((p) => [p.x, p.y] as [number, number]));
  const boxes = rings.map((r) => {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const [x, y] of r) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
    return [x0, y0, x1, y1];
  });
  // per crosswalk: the signalised junctions' movements crossing it (inside the pieces, or just past the exit)
  const hits = crosswalks.map(() => new Map<number, { inside: number[]; after: number[] }>());
  layout.junctions.forEach((cj, j) => {
    if (cj.control !== 'signal') return;
    for (const m of cj.movements) {
      const seen = new Set<number>();
      forEachSample(m, lanes, (x, y, after) => {
        for (let c = 0; c < crosswalks.length; c++) {
          if (seen.has(c)) continue;
          const b = boxes[c];
          if (x < b[0] || x > b[2] || y < b[1] || y > b[3] || !insideRing([x, y], rings[c])) continue;
          seen.add(c);
          let h = hits[c].get(j);
          if (!h) hits[c].set(j, (h = { inside: [], after: [] }));
          (after ? h.after : h.inside).push(m.index);
        }
        return false;
      });
    }
  });
  const ownerOf = hits.map((per) => {
    let best = -1, bestScore = -1;
    for (const [j, h] of per) {
      // crossing inside a junction's movements outranks crossing past another's exit
      const score = h.inside.length * 1000 + h.after.length;
      if (score > bestScore || (score === bestScore && j < best)) { best = j; bestScore = score; }
    }
    return best;
  });
  const headOf = new Map<number, string[]>();
  for (const h of heads) {
    if (h.kind !== 'pedestrian') continue;
    const c = crosswalkOfHead(h, crosswalks);
    if (c >= 0) headOf.set(c, [...(headOf.get(c) ?? []), h.id]);
  }
  const groups: WalkGroup[] = [];
  const byJunction: number[][] = layout.junctions.map(() => []);
  const groupOfCrosswalk = new Int32Array(crosswalks.length).fill(-1);
  layout.junctions.forEach((cj, j) => {
    const mine = crosswalks.map((_, c) => c).filter((c) => ownerOf[c] === j);
    // clockwise from north around the junction centre
    const bearing = (c: number) => {
      const cx = (crosswalks[c].a.x + crosswalks[c].b.x) / 2 - cj.junction.x, cy = (crosswalks[c].a.y + crosswalks[c].b.y) / 2 - cj.junction.y;
      return (Math.atan2(cx, cy) + 2 * Math.PI) % (2 * Math.PI);
    };
    mine.sort((p, q) => bearing(p) - bearing(q) || p - q);
    mine.forEach((c, n) => {
      const h = hits[c].get(j)!;
      const conflicts: WalkConflict[] = [];
      const giveWay: number[] = [];
      for (const mi of [...h.inside, ...h.after]) {
        const g = cj.groupOfMovement[mi];
        if (g < 0) continue;
        const m = cj.movements[mi];
        if (protectedAcross(m, layout.groups[g].left)) {
          if (!conflicts.some((k) => k.group === g)) conflicts.push({ group: g, lane: lanes[m.entry.lane].id, turn: m.turn });
        } else if (!giveWay.includes(g)) giveWay.push(g);
      }
      const cw = crosswalks[c];
      const w = groups.length;
      groups.push({
        id: `${cj.junction.id}.walk.${n + 1}`, numericId: layout.groups.length + w + 1, junction: j, crosswalk: c, crosswalkId: cw.id,
        length: cw.length, clearanceS: walkClearanceS(cw.length),
        conflicts: conflicts.sort((p, q) => p.group - q.group), giveWay: giveWay.filter((g) => !conflicts.some((k) => k.group === g)).sort((p, q) => p - q),
        heads: headOf.get(c) ?? [],
      });
      byJunction[j].push(w);
      groupOfCrosswalk[c] = w;
    });
  });
  return { groups, byJunction, groupOfCrosswalk };
}
