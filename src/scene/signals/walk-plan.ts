/**
 * Walk time in a derived (default) plan: every walk group of the junction gets, once per cycle, a window with its
 * protected-green conflicts red long enough for the Korean pedestrian green — the entry time WALK_ENTRY_S steady, then
 * the flashing clearance length ÷ WALK_SPEED_MPS (walk-layout.ts) — between the all-red after the last conflicting
 * green and the all-red before the next. As a signal engineer times a plan (and as SUMO's netconvert gives a
 * crossing its `tls.crossing-min.time` inside the phase parallel to it): the walk runs in the vehicle phases whose
 * greens do not cross it under protection (right turns and permissive lefts give way to the people), and
 *
 * 1. where such phases exist but are too short, the green of the first of them is lengthened (the cycle grows);
 * 2. where every phase has a protected green across it (a road both of whose approaches run in every phase but the
 *    arrows'), a pedestrian interval is added after the phase that loses least: the conflicting groups turn yellow
 *    and red, the others of that phase keep their green through it, then yellow and all-red as any phase ends. With
 *    nothing left green, the interval's phases grant the walk explicitly (`walks`, plan-spec.ts), which starts it.
 *
 * Pure: a default plan (green / yellow / all-red triples, or one all-green phase) in, a plan that passes
 * validatePlan out. Plans given by a scenario or the API are never passed through here (see walkReport).
 */
import type { ControlledJunction } from '../junction-kit/layout.js';
import { PLAN_LIMITS, type SignalPhase, type SignalPlan } from './plan-spec.js';
import { pedestrianGreenS, type WalkGroup } from './walk-layout.js';
import { WALK_MIN_S } from './walk-signals.js';

interface Block {
  /** local group indices green in this block */
  green: Set<number>;
  /** its green phase [s] */
  greenS: number;
  /** a pedestrian interval: its groups carry their green on from the block before (no yellow between) */
  carry: boolean;
}

const halfUp = (v: number) => Math.ceil(v * 2 - 1e-9) / 2;

/** The blocks of a default plan (each green phase with its yellow and all-red), or null if it is not one. */
function blocksOf(plan: SignalPlan): Block[] | null {
  const ph = plan.phases;
  const greenSet = (st: string) => new Set([...st].flatMap((c, k) => (c === 'G' || c === 'g' ? [k] : [])));
  if (ph.length === 1) {
    if (!/^[Gg]+$/.test(ph[0].states)) return null;
    const greenS = ph[0].duration_s - plan.yellow_s - plan.all_red_s;
    return greenS >= PLAN_LIMITS.minGreenS ? [{ green: greenSet(ph[0].states), greenS, carry: false }] : null;
  }
  if (ph.length % 3 !== 0) return null;
  const out: Block[] = [];
  for (let i = 0; i < ph.length; i += 3) {
    const [g, y, r] = [ph[i], ph[i + 1], ph[i + 2]];
    if (!/[Gg]/.test(g.states) || /[Gg]/.test(y.states) || /[Gg]/.test(r.states) || !/^[ro]+$/.test(r.states)) return null;
    out.push({ green: greenSet(g.states), greenS: g.duration_s, carry: false });
  }
  return out;
}

/** The plan's phases from its blocks: green, yellow (a carried group stays green), all-red (likewise). */
function phasesOf(blocks: readonly Block[], k: number, yellowS: number, allRedS: number): SignalPhase[] {
  const phases: SignalPhase[] = [];
  blocks.forEach((b, i) => {
    const next = blocks[(i + 1) % blocks.length];
    const carried = (g: number) => next.carry && next.green.has(g);
    const st = (f: (g: number) => string) => Array.from({ length: k }, (_, g) => f(g)).join('');
    // a pedestrian interval with no vehicle green has no yellow to show: its time is the interval's
    if (b.green.size === 0) phases.push({ duration_s: b.greenS + yellowS, states: 'r'.repeat(k) });
    else {
      phases.push({ duration_s: b.greenS, states: st((g) => (b.green.has(g) ? 'G' : 'r')) });
      phases.push({ duration_s: yellowS, states: st((g) => (b.green.has(g) ? (carried(g) ? 'G' : 'y') : 'r')) });
    }
    phases.push({ duration_s: allRedS, states: st((g) => (carried(g) ? 'G' : 'r')) });
  });
  return phases;
}

/** Local indices of the walk's conflicting groups. */
function conflictsOf(w: WalkGroup, cj: ControlledJunction): number[] {
  return w.conflicts.map((c) => cj.groups.indexOf(c.group)).filter((x) => x >= 0);
}

/**
 * The longest window a walk gets: over each run of consecutive blocks free of its conflicts (cyclic), from the
 * first block's green (its conflicts have then been red for the all-red) to the all-red before the next
 * conflicting green [s]; with the block it starts in. Infinity when no block has a conflict green.
 */
function bestWindow(blocks: readonly Block[], conf: readonly number[], yellowS: number, allRedS: number): { windowS: number; start: number } {
  const n = blocks.length;
  const free = blocks.map((b) => conf.every((g) => !b.green.has(g)));
  if (free.every(Boolean)) return { windowS: Infinity, start: 0 };
  let best = { windowS: -Infinity, start: -1 };
  for (let i = 0; i < n; i++) {
    if (!free[i] || free[(i - 1 + n) % n]) continue;
    let sum = 0;
    for (let j = i; free[j % n]; j++) sum += blocks[j % n].greenS + yellowS + allRedS;
    if (sum - allRedS > best.windowS) best = { windowS: sum - allRedS, start: i };
  }
  return best;
}

export interface WalkPlanResult {
  plan: SignalPlan;
  /** walk groups whose phase green was lengthened, and by how much [s] */
  lengthened: Array<{ walk: string; byS: number }>;
  /** walk groups that got a pedestrian interval (no phase was free of their conflicts) */
  interval: string[];
}

/**
 * A default plan with the walk time of every walk group of its junction (see the top comment). `walks`: the
 * junction's walk groups in walk-layout order. A plan that is not a default plan's shape is returned as it is.
 */
export function withWalkTime(plan: SignalPlan, cj: ControlledJunction, walks: readonly WalkGroup[]): WalkPlanResult {
  const none: WalkPlanResult = { plan, lengthened: [], interval: [] };
  if (walks.length === 0) return none;
  const blocks = blocksOf(plan);
  if (!blocks) return none;
  const k = cj.groups.length;
  const y = plan.yellow_s, ar = plan.all_red_s;
  const confs = walks.map((w) => conflictsOf(w, cj));
  const isFree = (b: Block, c: readonly number[]) => c.every((g) => !b.green.has(g));
  const interval: string[] = [];
  // 2. pedestrian intervals for the walks no block is free for; each hosts every such walk its kept greens allow
  let homeless = walks.map((_, i) => i).filter((i) => !blocks.some((b) => isFree(b, confs[i])));
  while (homeless.length) {
    let best: { after: number; keep: Set<number>; hosts: number[] } | null = null;
    blocks.forEach((b, i) => {
      if (b.carry) return;
      // keep what no homeless walk's seed conflicts with: one seed at a time, and all of them at once
      const seeds = [...homeless.map((w) => confs[w]), homeless.flatMap((w) => confs[w])];
      for (const c of seeds) {
        const keep = new Set([...b.green].filter((g) => !c.includes(g)));
        const hosts = homeless.filter((w) => confs[w].every((g) => !keep.has(g)));
        if (!best || hosts.length > best.hosts.length || (hosts.length === best.hosts.length && keep.size > best.keep.size)) best = { after: i, keep, hosts };
      }
    });
    const pick = best!;
    blocks.splice(pick.after + 1, 0, { green: pick.keep, greenS: PLAN_LIMITS.minGreenS, carry: true });
    for (const w of pick.hosts) interval.push(walks[w].id);
    homeless = homeless.filter((w) => !pick.hosts.includes(w));
  }
  // 1. every walk's longest window made as long as its pedestrian green: the deficit goes to the window's first block
  const lengthened: WalkPlanResult['lengthened'] = [];
  walks.forEach((w, i) => {
    const { windowS, start } = bestWindow(blocks, confs[i], y, ar);
    const need = pedestrianGreenS(w.length);
    if (windowS >= need - 1e-9) return;
    const by = halfUp(need - windowS);
    blocks[start].greenS += by;
    lengthened.push({ walk: w.id, byS: by });
  });
  if (!interval.length && !lengthened.length) return none;
  const phases = phasesOf(blocks, k, y, ar);
  // a pedestrian interval with no vehicle green starts its walks by the phases' grant (walk-signals.ts)
  if (blocks.some((b) => b.green.size === 0)) {
    for (const p of phases) p.walks = confs.map((c) => (c.every((g) => p.states[g] === 'r' || p.states[g] === 'o') ? 'W' : 'r')).join('');
  }
  const cycle = Math.round(phases.reduce((a, p) => a + p.duration_s, 0) * 1000) / 1000;
  return { plan: { ...plan, phases, cycle_s: cycle }, lengthened, interval };
}

/**
 * Per walk group, the longest time a plan's fixed cycle (phase durations) leaves it, as walk-signals.ts runs it:
 * from a moment a phase with a vehicle green free of its conflicts (or granting it, `walks` W) runs and its
 * conflicts have been red for the all-red, to the all-red before the next conflicting green [s]; Infinity where no
 * phase has a conflicting green, 0 where none leaves it any. A walk group with less than WALK_MIN_S + its clearance
 * never walks: a plan given by a scenario or the API is not changed for it, it is reported (walksNeverWalking).
 */
export function walkWindowsS(plan: SignalPlan, cj: ControlledJunction, walks: readonly WalkGroup[]): number[] {
  const ph = plan.phases;
  const n = ph.length;
  const starts: number[] = [];
  let t = 0;
  for (const p of ph) { starts.push(t); t += p.duration_s; }
  const C = t;
  const green = (c: string) => c === 'G' || c === 'g' || c === 'y';
  return walks.map((w, slot) => {
    const conf = conflictsOf(w, cj);
    const blocked = ph.map((p) => conf.some((g) => green(p.states[g])));
    if (!blocked.some(Boolean)) return Infinity;
    let best = 0;
    for (let i = 0; i < n; i++) {
      const p = ph[i];
      if (blocked[i]) continue;
      const grant = p.walks !== undefined ? p.walks[slot] === 'W' : false;
      if (p.walks !== undefined && !grant) continue;
      const parallel = [...p.states].some((c, g) => (c === 'G' || c === 'g') && !conf.includes(g));
      if (!parallel && !grant) continue;
      // back to the end of the last conflicting phase, forward to the next
      let back = 0;
      for (let j = (i - 1 + n) % n; !blocked[j]; j = (j - 1 + n) % n) back += ph[j].duration_s;
      let ahead = p.duration_s;
      for (let j = (i + 1) % n; !blocked[j]; j = (j + 1) % n) ahead += ph[j].duration_s;
      const start = Math.max(0, plan.all_red_s - back);
      if (start < p.duration_s) best = Math.max(best, ahead - start - plan.all_red_s);
    }
    return Math.min(best, C);
  });
}

/** The walk groups a plan never lets walk (see walkWindowsS), by id. */
export function walksNeverWalking(plan: SignalPlan, cj: ControlledJunction, walks: readonly WalkGroup[]): string[] {
  const win = walkWindowsS(plan, cj, walks);
  return walks.filter((w, i) => win[i] < WALK_MIN_S + w.clearanceS - 1e-9).map((w) => w.id);
}
