/**
 * Neighbouring signals in step. Where a movement leaving one signalised junction reaches a stop line of another
 * within COORDINATE_M, the two run one cycle (the longer of theirs: the shorter plan's greens stretch to it) and the
 * downstream junction's offset is chosen so that its green for those movements overlaps most with the upstream
 * green shifted by the travel time between them (a green wave, weighted by the NPCs' expected flows). Without it,
 * two fixed-time plans can keep a short link's outflow red whenever its inflow is green, and the vehicles queued
 * between them never get through. Pure: plans in, plans out.
 */
import type { ControlledJunction, LayoutLane, TrafficLayout } from '../junction-kit/layout.js';
import type { SignalPlan } from './plan.js';
import { COORDINATE_M, TRAVEL_SPEED_SHARE } from './signal-params.js';


interface Link {
  up: number;
  upGroup: number;
  down: number;
  downGroup: number;
  /** seconds from the upstream stop line to the downstream one */
  travel: number;
  weight: number;
}

/** The greens of a group in a plan, as [start, end) within the cycle. */
function greenWindows(plan: SignalPlan, k: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let t = 0;
  for (const ph of plan.phases) {
    const c = ph.states[k];
    if (c === 'G' || c === 'g') out.push([t, t + ph.duration_s]);
    t += ph.duration_s;
  }
  return out;
}

/** Overlap of two sets of windows on a circle of length C, the second shifted by `shift`. */
function overlap(a: Array<[number, number]>, b: Array<[number, number]>, shift: number, C: number): number {
  let sum = 0;
  for (const [a0, a1] of a) {
    for (const [b0, b1] of b) {
      for (const k of [-1, 0, 1]) {
        const s0 = b0 + shift + k * C, s1 = b1 + shift + k * C;
        sum += Math.max(0, Math.min(a1, s1) - Math.max(a0, s0));
      }
    }
  }
  return sum;
}

/** a phase with a green and no yellow (a yellow beside a green that carries on, walk-plan.ts, keeps its time) */
const stretchable = (p: { states: string }) => /[Gg]/.test(p.states) && !p.states.includes('y');

/** The plan stretched to cycle C: the extra time goes to its greens, in proportion. */
function stretched(plan: SignalPlan, C: number): SignalPlan {
  const extra = C - plan.cycle_s;
  if (extra <= 1e-9) return plan;
  const greens = plan.phases.filter(stretchable);
  const total = greens.reduce((a, p) => a + p.duration_s, 0) || 1;
  const phases = plan.phases.map((p) => (stretchable(p) ? { ...p, duration_s: Math.round((p.duration_s + (extra * p.duration_s) / total) * 10) / 10 } : { ...p }));
  // rounding: the last green takes what is left
  const sum = phases.reduce((a, p) => a + p.duration_s, 0);
  const last = [...phases].reverse().find(stretchable);
  if (last) last.duration_s = Math.round((last.duration_s + C - sum) * 1000) / 1000;
  return { ...plan, phases, cycle_s: C };
}

export function coordinatePlans(layout: TrafficLayout, lanes: readonly LayoutLane[], plans: Map<string, SignalPlan>, flows: Float64Array): Map<string, SignalPlan> {
  const J = layout.junctions;
  const signalised = J.map((cj, j) => (cj.control === 'signal' ? j : -1)).filter((j) => j >= 0);
  if (signalised.length < 2) return plans;
  // stop lines by lane: (junction, movement, s)
  const entries = new Map<number, Array<{ j: number; m: number; s: number }>>();
  for (const j of signalised) J[j].movements.forEach((mv, m) => {
    let l = entries.get(mv.entry.lane);
    if (!l) entries.set(mv.entry.lane, (l = []));
    l.push({ j, m, s: mv.entry.s });
  });
  const links: Link[] = [];
  for (const u of signalised) {
    const cu = J[u];
    cu.movements.forEach((mv, mu) => {
      const gu = cu.groupOfMovement[mu];
      if (gu < 0) return;
      const v = Math.max(5, (Number.isFinite(lanes[mv.entry.lane].speedLimit) ? lanes[mv.entry.lane].speedLimit : 50 / 3.6) * TRAVEL_SPEED_SHARE);
      const weight = Math.min(...mv.pieces.map((p) => flows[p.lane]));
      // walk the lanes from the exit (every branch) to the next stop lines of other signalised junctions
      const stack: Array<[number, number, number]> = [[mv.exit.lane, mv.exit.s, mv.length]];
      const seen = new Set<number>();
      while (stack.length) {
        const [lane, s, d] = stack.pop()!;
        if (d > COORDINATE_M + mv.length || seen.has(lane)) continue;
        seen.add(lane);
        let found = false;
        for (const e of entries.get(lane) ?? []) {
          if (e.j === u || e.s < s - 1e-6) continue;
          const gd = J[e.j].groupOfMovement[e.m];
          if (gd < 0) continue;
          links.push({ up: u, upGroup: gu, down: e.j, downGroup: gd, travel: (d + e.s - s) / v, weight: weight * 1e6 + 1 });
          found = true;
        }
        if (found) continue;
        for (const nx of lanes[lane].next) stack.push([nx, 0, d + lanes[lane].length - s]);
      }
    });
  }
  if (links.length === 0) return plans;
  // clusters of coordinated junctions
  const parent = new Map<number, number>(signalised.map((j) => [j, j]));
  const find = (j: number): number => (parent.get(j) === j ? j : find(parent.get(j)!));
  for (const l of links) parent.set(find(l.up), find(l.down));
  const out = new Map(plans);
  const clusters = new Map<number, number[]>();
  for (const j of signalised) {
    const r = find(j);
    clusters.set(r, [...(clusters.get(r) ?? []), j]);
  }
  const planOf = (j: number) => out.get(J[j].junction.id)!;
  const localIndex = (cj: ControlledJunction, g: number) => cj.groups.indexOf(g);
  for (const members of clusters.values()) {
    if (members.length < 2) continue;
    const C = Math.max(...members.map((j) => planOf(j).cycle_s));
    for (const j of members) out.set(J[j].junction.id, stretched(planOf(j), C));
    // offsets: from the busiest junction outward, each neighbour where its greens meet the arriving platoons
    const weightOf = (j: number) => links.filter((l) => l.up === j || l.down === j).reduce((a, l) => a + l.weight, 0);
    const root = [...members].sort((a, b) => weightOf(b) - weightOf(a) || a - b)[0];
    const done = new Set<number>([root]);
    out.set(J[root].junction.id, { ...planOf(root), offset_s: 0 });
    for (let pass = 0; pass < members.length; pass++) {
      for (const j of members) {
        if (done.has(j)) continue;
        const mine = links.filter((l) => (l.down === j && done.has(l.up)) || (l.up === j && done.has(l.down)));
        if (mine.length === 0) continue;
        let best = 0, bestScore = -1;
        for (let off = 0; off < C; off += 0.5) {
          let score = 0;
          for (const l of mine) {
            const upPlan = l.up === j ? { ...planOf(j), offset_s: off } : planOf(l.up);
            const downPlan = l.down === j ? { ...planOf(j), offset_s: off } : planOf(l.down);
            const a = greenWindows(upPlan, localIndex(J[l.up], l.upGroup)).map(([s, e]): [number, number] => {
              const s0 = s + upPlan.offset_s + l.travel;
              const wrap = C * Math.floor(s0 / C);
              return [s0 - wrap, e + upPlan.offset_s + l.travel - wrap];
            });
            const b = greenWindows(downPlan, localIndex(J[l.down], l.downGroup));
            score += l.weight * overlap(a, b, downPlan.offset_s, C);
          }
          if (score > bestScore + 1e-9) {
            bestScore = score;
            best = off;
          }
        }
        out.set(J[j].junction.id, { ...planOf(j), offset_s: best });
        done.add(j);
      }
    }
  }
  return out;
}
