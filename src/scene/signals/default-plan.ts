/**
 * The default fixed-time plan every signalised junction gets, generated from its conflict table as SUMO's
 * netconvert guesses programs (../shared/spec/test-cases.md), with greens shared by the flows NPCs can be
 * expected to bring. One algorithm: phases from the approaches, clearances from the speeds, greens from the flows.
 *
 * Opposite approaches form an axis and share a phase (their left turns give way to the oncoming traffic); where
 * an approach's heads have a left arrow, its left turns get a protected phase of their own; every green ends in a
 * yellow of 3–4 s (ITE: 1 s + v / (2 · 3 m/s²) at the fastest approach speed) and an all-red clearance of 1–3 s
 * (crossing the junction plus a car length at that speed); greens share the cycle so that it lasts 60–120 s.
 */
import type { Movement } from '../../map/junctions.js';
import type { ControlledJunction, LayoutLane, SignalGroup, TrafficLayout } from '../junction-kit/layout.js';
import { groupsConflict, turning } from './movement-states.js';
import { PLAN_LIMITS, type GroupStateCode, type SignalPhase, type SignalPlan } from './plan-spec.js';
import { timeToCover } from '../junction-kit/kinematics.js';
import { DEFAULT_SPEED_LIMIT_MPS, GO_ACCEL, OPPOSITE_COS } from '../junction-kit/kit-params.js';
import {
  CRUISE_SHARE, LEFT_TURN_FACTOR, MAX_FLOW_RATIO, MIN_LEFT_GREEN_S, MIN_MAIN_GREEN_S, QUEUE_STORAGE_M, RIGHT_TURN_FACTOR, SATURATION_VPS,
  TARGET_SATURATION,
} from './signal-params.js';

/**
 * The start-up time a group's green loses because its queue cannot stand before its line: where the road from the
 * junction before it is shorter than QUEUE_STORAGE_M, the vehicles wait at that junction's line (the box rule) and
 * the first of them needs, at the green, the time to drive through that junction and the road between from a
 * standstill [s] (FMTC's J3, approach D: 11.7 m after J4, whose movements into it are 18–25 m long: 6–7 s).
 */
export function queueStartUpS(cj: ControlledJunction, group: SignalGroup, layout: TrafficLayout, lanes: readonly LayoutLane[]): number {
  let worst = 0;
  for (const mi of group.movements) {
    const m = cj.movements[mi];
    const v = Number.isFinite(lanes[m.entry.lane].speedLimit) ? lanes[m.entry.lane].speedLimit : DEFAULT_SPEED_LIMIT_MPS;
    // back from the line along the lanes, as far as QUEUE_STORAGE_M, to the exit of another junction's movement
    const stack: Array<{ lane: number; s: number; back: number }> = [{ lane: m.entry.lane, s: m.entry.s, back: 0 }];
    let guard = 0;
    while (stack.length && guard++ < 64) {
      const { lane, s, back } = stack.pop()!;
      let nearest: { back: number; length: number } | null = null;
      for (const other of layout.junctions) {
        if (other === cj) continue;
        for (const om of other.movements) {
          if (om.exit.lane !== lane || om.exit.s > s + 1e-6) continue;
          const b = back + s - om.exit.s;
          if (b < QUEUE_STORAGE_M && (!nearest || b < nearest.back || (b === nearest.back && om.length > nearest.length))) nearest = { back: b, length: om.length };
        }
      }
      if (nearest) {
        worst = Math.max(worst, timeToCover(nearest.back + nearest.length, 0, GO_ACCEL, v));
        continue;
      }
      const further = back + s;
      if (further >= QUEUE_STORAGE_M) continue;
      for (let p = 0; p < lanes.length; p++) if (lanes[p].next.includes(lane)) stack.push({ lane: p, s: lanes[p].length, back: further });
    }
  }
  return worst;
}

/**
 * The flow each lane can expect from NPCs on random routes: the stationary flow of a random walk over the lane
 * graph (at a fork each successor alike, as routes choose them; a trip's end drives on along a new route, so only
 * the end of the road takes a vehicle out, and it starts again anywhere by length, as the population spawns).
 * Relative (summing to 1) without `npcs`; with the number of NPCs expected, vehicles per second: each NPC enters
 * lanes at the rate its mean time per lane allows, cruising at CRUISE_SHARE of the limit.
 */
export function laneFlows(lanes: readonly LayoutLane[], npcs?: number): Float64Array {
  const n = lanes.length;
  const total = lanes.reduce((a, l) => a + l.length, 0) || 1;
  let f = Float64Array.from(lanes, (l) => l.length / total);
  let g = new Float64Array(n);
  // a lazy walk (half stays) converges where the graph has cycles of one length only
  for (let it = 0; it < 400; it++) {
    g.fill(0);
    let restart = 0;
    for (let a = 0; a < n; a++) {
      const next = lanes[a].next;
      if (next.length === 0) restart += f[a];
      else for (const b of next) g[b] += f[a] / next.length;
    }
    for (let a = 0; a < n; a++) g[a] = 0.5 * f[a] + 0.5 * (g[a] + (restart * lanes[a].length) / total);
    [f, g] = [g, f];
  }
  if (npcs === undefined) return f;
  let hopS = 0;
  for (let a = 0; a < n; a++) {
    const v = Number.isFinite(lanes[a].speedLimit) ? lanes[a].speedLimit : DEFAULT_SPEED_LIMIT_MPS;
    hopS += (f[a] * lanes[a].length) / (CRUISE_SHARE * v);
  }
  const scale = hopS > 0 ? npcs / hopS : 0;
  for (let a = 0; a < n; a++) f[a] *= scale;
  return f;
}

/**
 * A phase's demand: its busiest entry lane (the flows of the phase's movements summed per lane they start from, in
 * through-car equivalents: a turn takes longer to discharge, by HCM's turn factors).
 */
function phaseDemand(cj: ControlledJunction, groups: readonly SignalGroup[], on: readonly number[], flows: Float64Array): number {
  const perLane = new Map<number, number>();
  for (const g of on) {
    for (const m of groups[g].movements) {
      const mv = cj.movements[m];
      // a movement's own flow: the least along its pieces (an intersection lane carries only this movement)
      let f = Infinity;
      for (const p of mv.pieces) f = Math.min(f, flows[p.lane]);
      const factor = mv.turn === 'right' ? RIGHT_TURN_FACTOR : mv.turn === 'straight' ? 1 : LEFT_TURN_FACTOR;
      perLane.set(mv.entry.lane, (perLane.get(mv.entry.lane) ?? 0) + (Number.isFinite(f) ? f / factor : 0));
    }
  }
  let worst = 0;
  for (const v of perLane.values()) worst = Math.max(worst, v);
  return worst;
}

/**
 * Do an approach's left (and U) turns start from a lane its other movements also start from? The lane a movement
 * is fed by: its entry lane, or for a movement entering on an intersection lane, the lane before it.
 */
function leftsShareLanes(cj: ControlledJunction, approach: number, lanes: readonly LayoutLane[]): boolean {
  const feeder = (m: Movement): number => {
    const e = m.entry.lane;
    if (m.entry.s > 0.5 || !lanes[e].internal) return e;
    const prev = lanes.findIndex((L) => L.next.includes(e));
    return prev >= 0 ? prev : e;
  };
  const ms = cj.junction.approaches[approach].movements.map((i) => cj.movements[i]);
  const leftLanes = new Set(ms.filter(turning).map(feeder));
  return ms.some((m) => !turning(m) && leftLanes.has(feeder(m)));
}

/** The fastest approach speed of a junction (its entry lanes' limits; 50 km/h where unknown) [m/s]. */
function approachSpeed(cj: ControlledJunction, lanes: readonly LayoutLane[]): number {
  let v = 0;
  for (const m of cj.movements) {
    const l = lanes[m.entry.lane].speedLimit;
    v = Math.max(v, Number.isFinite(l) && l > 0 ? l : DEFAULT_SPEED_LIMIT_MPS);
  }
  return v || DEFAULT_SPEED_LIMIT_MPS;
}

/** Yellow (ITE kinematic: 1 s reaction + v / (2 · 3 m/s²), 3–4 s) and all-red (crossing plus a car length, 1–3 s), to 0.5 s. */
export function clearanceTimes(cj: ControlledJunction, lanes: readonly LayoutLane[]): { yellow: number; allRed: number } {
  const v = approachSpeed(cj, lanes);
  const yellow = Math.min(4, Math.max(3, Math.ceil((1 + v / 6) * 2) / 2));
  const crossing = Math.max(...cj.movements.map((m) => m.length));
  const allRed = Math.min(3, Math.max(1, Math.ceil(((crossing + 5) / v) * 2) / 2));
  return { yellow, allRed };
}

/** Webster's cycle for flow ratios y and the lost time, grown so no phase passes TARGET_SATURATION; its greens. */
function websterGreens(y: readonly number[], minGreens: readonly number[], lost: number): number[] {
  const Y = y.reduce((a, b) => a + b, 0);
  const need = (c: number) => y.map((yi, i) => Math.max(minGreens[i], (yi * c) / TARGET_SATURATION));
  let cycle = Math.min(PLAN_LIMITS.maxCycleS2, Math.max(PLAN_LIMITS.minCycleS, (1.5 * lost + 5) / (1 - Math.min(MAX_FLOW_RATIO, Y))));
  for (let it = 0; it < 50; it++) {
    const c = Math.min(PLAN_LIMITS.maxCycleS2, lost + need(cycle).reduce((a, b) => a + b, 0));
    if (c <= cycle + 1e-6) break;
    cycle = c;
  }
  const greens = need(cycle);
  const spare = cycle - lost - greens.reduce((a, b) => a + b, 0);
  if (spare >= 0) return greens.map((g, i) => g + (Y > 0 ? (spare * y[i]) / Y : spare / y.length));
  return fitGreens(greens, minGreens, PLAN_LIMITS.maxCycleS2 - lost);
}

/** Default greens shared by `demand` (equally without), the cycle lost time plus default greens. */
function defaultGreens(phaseSets: ReadonlyArray<{ left: boolean }>, demand: readonly number[] | null, minGreen: (p: { left: boolean }) => number, lost: number): number[] {
  const mains = phaseSets.filter((p) => !p.left).length;
  const lefts = phaseSets.length - mains;
  const cycle0 = Math.min(PLAN_LIMITS.maxCycleS2, Math.max(PLAN_LIMITS.minCycleS, lost + mains * PLAN_LIMITS.defaultMainGreenS + lefts * PLAN_LIMITS.defaultLeftGreenS));
  const greenTotal = cycle0 - lost;
  const d = demand ?? phaseSets.map((p) => (p.left ? PLAN_LIMITS.defaultLeftGreenS : PLAN_LIMITS.defaultMainGreenS));
  const sum = d.reduce((a, b) => a + b, 0);
  const greens = phaseSets.map((p, i) => Math.max(minGreen(p), sum > 0 ? (greenTotal * d[i]) / sum : greenTotal / phaseSets.length));
  return fitGreens(greens, phaseSets.map(minGreen), PLAN_LIMITS.maxCycleS2 - lost);
}

/** Greens whose minimums pushed them over `total`, taken back from the phases above their minimum. */
function fitGreens(greens: number[], minGreens: readonly number[], total: number): number[] {
  let over = greens.reduce((a, b) => a + b, 0) - total;
  for (let pass = 0; pass < 4 && over > 1e-6; pass++) {
    const room = greens.map((g, i) => Math.max(0, g - minGreens[i]));
    const roomSum = room.reduce((a, b) => a + b, 0);
    if (roomSum <= 0) break;
    for (let i = 0; i < greens.length; i++) greens[i] -= (over * room[i]) / roomSum;
    over = greens.reduce((a, b) => a + b, 0) - total;
  }
  return greens;
}

/** The default fixed-time plan of a signalised junction. */
export function defaultPlan(cj: ControlledJunction, layout: TrafficLayout, lanes: readonly LayoutLane[], flows?: Float64Array, flowsPerS = false): SignalPlan {
  const groups = layout.groups;
  const J = cj.junction;
  const local = cj.groups;
  const k = local.length;
  // axes: opposite approaches together, the busier axis first
  const aps = J.approaches.map((a) => a.index);
  const paired = new Set<number>();
  const axes: number[][] = [];
  const byRank = [...aps].sort((p, q) => cj.approaches[q].rank - cj.approaches[p].rank || J.approaches[q].movements.length - J.approaches[p].movements.length || p - q);
  for (const a of byRank) {
    if (paired.has(a)) continue;
    paired.add(a);
    const opp = byRank.find((b) => !paired.has(b) && Math.cos(J.approaches[a].yaw - J.approaches[b].yaw) < OPPOSITE_COS);
    if (opp !== undefined) {
      paired.add(opp);
      axes.push([a, opp]);
    } else axes.push([a]);
  }
  // candidate phases: each axis's through groups, then its protected lefts; where an approach's left turns share a
  // lane with its other movements, a left turner waiting for its arrow would hold up the lane behind it, so each
  // approach of that axis gets a phase of its own with all its movements (the split phasing Korean signals use)
  const candidates: Array<{ groups: number[]; left: boolean }> = [];
  for (const axis of axes) {
    const main = local.filter((g) => axis.includes(groups[g].approach) && !groups[g].left);
    const lefts = local.filter((g) => axis.includes(groups[g].approach) && groups[g].left);
    if (lefts.length && axis.some((a) => leftsShareLanes(cj, a, lanes))) {
      for (const a of axis) {
        const all = local.filter((g) => groups[g].approach === a);
        if (all.length) candidates.push({ groups: all, left: false });
      }
      continue;
    }
    if (main.length) candidates.push({ groups: main, left: false });
    if (lefts.length) candidates.push({ groups: lefts, left: true });
  }
  // split a candidate whose groups conflict (greedy colouring, permissive lefts allowed)
  const phaseSets: Array<{ groups: number[]; left: boolean }> = [];
  for (const c of candidates) {
    const colours: number[][] = [];
    for (const g of c.groups) {
      const fit = colours.find((set) => set.every((h) => !groupsConflict(cj, groups, g, h, true) && !groupsConflict(cj, groups, h, g, true)));
      if (fit) fit.push(g);
      else colours.push([g]);
    }
    for (const set of colours) phaseSets.push({ groups: set, left: c.left });
  }
  const { yellow, allRed } = clearanceTimes(cj, lanes);
  // nothing conflicts (the heads guard a crossing VILS has no pedestrians for): one phase, green throughout
  if (phaseSets.length === 1) {
    return { junction: J.id, cycle_s: PLAN_LIMITS.minCycleS, offset_s: 0, phases: [{ duration_s: PLAN_LIMITS.minCycleS, states: 'G'.repeat(k) }], yellow_s: yellow, all_red_s: allRed, source: 'default' };
  }
  // the cycle: with flows in vehicles per second, Webster's optimum (1.5·L + 5) / (1 − Y) from the lost time L and
  // the phases' critical flow ratios y (Y their sum), long enough that every phase's green keeps its degree of
  // saturation y·C/g at most TARGET_SATURATION above its minimum green; the greens get the rest by flow ratio.
  // Without flows per second: the lost time plus default greens (lefts short), shared by the relative flows where
  // they are known, equally otherwise. Within 60–120 s.
  const lost = phaseSets.length * (yellow + allRed);
  const minGreen = (p: { left: boolean }) => (p.left ? MIN_LEFT_GREEN_S : MIN_MAIN_GREEN_S);
  let greens = flows && flowsPerS ? websterGreens(phaseSets.map((p) => phaseDemand(cj, groups, p.groups, flows) / SATURATION_VPS), phaseSets.map(minGreen), lost) : defaultGreens(phaseSets, flows ? phaseSets.map((p) => phaseDemand(cj, groups, p.groups, flows)) : null, minGreen, lost);
  // a phase whose queue waits at the junction before it loses the time its first vehicle needs to come up: added
  // to that phase's green (the others keep theirs, within the longest cycle)
  const startUp = phaseSets.map((p) => Math.max(0, ...p.groups.map((g) => queueStartUpS(cj, groups[g], layout, lanes))));
  if (startUp.some((t) => t > 0)) greens = fitGreens(greens.map((g, i) => g + startUp[i]), phaseSets.map((p, i) => minGreen(p) + startUp[i]), PLAN_LIMITS.maxCycleS2 - lost);
  for (let i = 0; i < greens.length; i++) greens[i] = Math.max(minGreen(phaseSets[i]), Math.round(greens[i] * 2) / 2);
  const phases: SignalPhase[] = [];
  const stateOf = (on: readonly number[], ch: GroupStateCode) => local.map((g) => (on.includes(g) ? ch : 'r')).join('');
  for (const [i, p] of phaseSets.entries()) {
    phases.push({ duration_s: greens[i], states: stateOf(p.groups, 'G') });
    phases.push({ duration_s: yellow, states: stateOf(p.groups, 'y') });
    phases.push({ duration_s: allRed, states: 'r'.repeat(k) });
  }
  const cycle = phases.reduce((a, p) => a + p.duration_s, 0);
  return { junction: J.id, cycle_s: Math.round(cycle * 1000) / 1000, offset_s: 0, phases, yellow_s: yellow, all_red_s: allRed, source: 'default' };
}
