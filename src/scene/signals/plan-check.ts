/**
 * The checks any signal plan must pass before it runs — from a scenario, the API or a live input — each problem
 * named by junction, phase and group: phases that fit the cycle, no conflicting greens at once, a yellow after
 * every green, an all-red before a conflicting green, greens long enough, a sound actuated timing, and no walk
 * granted across a protected green (walk-check.ts).
 */
import type { ControlledJunction, SignalGroup } from '../junction-kit/layout.js';
import { groupsConflict, stateConflicts } from './movement-states.js';
import { GROUP_STATE_CODES, PLAN_LIMITS, type SignalPlan } from './plan-spec.js';
import { validateWalks } from './walk-check.js';
import type { WalkGroup } from './walk-layout.js';

/** Checks a plan for a junction (and its walk groups, when given); returns every problem found (empty: valid). */
export function validatePlan(plan: SignalPlan, cj: ControlledJunction, groups: readonly SignalGroup[], walks?: readonly WalkGroup[]): string[] {
  const errs: string[] = [];
  const k = cj.groups.length;
  const L = PLAN_LIMITS;
  const name = cj.junction.id;
  if (!Array.isArray(plan.phases) || plan.phases.length === 0) return [`${name}: a plan needs at least one phase`];
  if (!(plan.offset_s >= 0 && plan.offset_s < Math.max(plan.cycle_s, 1e-9))) errs.push(`${name}: offset_s ${plan.offset_s} must lie in [0, cycle ${plan.cycle_s})`);
  const sum = plan.phases.reduce((a, p) => a + p.duration_s, 0);
  if (Math.abs(sum - plan.cycle_s) > 1e-6) errs.push(`${name}: the phases last ${round(sum)} s but cycle_s is ${plan.cycle_s}`);
  if (!(sum <= L.maxCycleS)) errs.push(`${name}: a cycle of ${round(sum)} s is longer than ${L.maxCycleS} s`);
  if (!(plan.yellow_s >= L.minYellowS && plan.yellow_s <= L.maxYellowS)) errs.push(`${name}: yellow_s ${plan.yellow_s} outside ${L.minYellowS}–${L.maxYellowS} s`);
  if (!(plan.all_red_s >= 0 && plan.all_red_s <= 10)) errs.push(`${name}: all_red_s ${plan.all_red_s} outside 0–10 s`);
  plan.phases.forEach((p, i) => {
    if (typeof p.states !== 'string' || p.states.length !== k) {
      errs.push(`${name} phase ${i + 1}: states "${p.states}" must have one character per signal group (${k}: ${cj.groups.map((g) => groups[g].id).join(', ')})`);
      return;
    }
    for (const ch of p.states) if (!(GROUP_STATE_CODES as readonly string[]).includes(ch)) errs.push(`${name} phase ${i + 1}: unknown state "${ch}" (use G, g, y, r or o)`);
    if (!(p.duration_s >= L.minPhaseS && p.duration_s <= L.maxPhaseS)) errs.push(`${name} phase ${i + 1}: duration_s ${p.duration_s} outside ${L.minPhaseS}–${L.maxPhaseS} s`);
    for (const c of stateConflicts(cj, groups, p.states)) errs.push(`${name} phase ${i + 1}: ${c}`);
  });
  if (plan.actuated) errs.push(...validateActuation(plan, name));
  errs.push(...validateWalks(plan, cj, groups, walks ?? []));
  if (errs.length) return errs;
  // clearance: a green ends in a yellow of minYellow–maxYellow s, then red; a group turns green only after
  // every group it conflicts with has been red for a whole phase
  const n = plan.phases.length;
  for (let gi = 0; gi < k; gi++) {
    const gid = groups[cj.groups[gi]].id;
    for (let i = 0; i < n; i++) {
      const cur = plan.phases[i].states[gi], nxt = plan.phases[(i + 1) % n].states[gi];
      if ((cur === 'G' || cur === 'g') && (nxt === 'r' || nxt === 'o')) errs.push(`${name}: ${gid} goes from green to red without yellow after phase ${i + 1}`);
      if (cur === 'y' && (nxt === 'G' || nxt === 'g')) errs.push(`${name}: ${gid} goes from yellow back to green after phase ${i + 1}`);
      if (cur !== 'y' && nxt === 'y' && cur !== 'G' && cur !== 'g') errs.push(`${name}: ${gid} turns yellow from red after phase ${i + 1}`);
      if (cur === 'y' && nxt !== 'y') {
        // the yellow run ending here
        let len = 0;
        for (let j = i, steps = 0; plan.phases[j].states[gi] === 'y' && steps < n; j = (j - 1 + n) % n, steps++) len += plan.phases[j].duration_s;
        if (len < L.minYellowS - 1e-9 || len > L.maxYellowS + 1e-9) errs.push(`${name}: ${gid}'s yellow ending with phase ${i + 1} lasts ${round(len)} s (${L.minYellowS}–${L.maxYellowS} s)`);
      }
      if ((nxt === 'G' || nxt === 'g') && cur !== 'G' && cur !== 'g') {
        for (let gj = 0; gj < k; gj++) {
          if (gj === gi) continue;
          const prevState = plan.phases[i].states[gj];
          if ((prevState === 'G' || prevState === 'g' || prevState === 'y') && groupsConflict(cj, groups, cj.groups[gi], cj.groups[gj], nxt === 'g')) {
            errs.push(`${name}: ${gid} turns green in phase ${(i + 1) % n + 1} while ${groups[cj.groups[gj]].id}, which it conflicts with, was not red in phase ${i + 1} (no all-red clearance)`);
          }
        }
      }
    }
    // a green that is too short
    for (let i = 0; i < n; i++) {
      const s = plan.phases[i].states[gi];
      const prev = plan.phases[(i - 1 + n) % n].states[gi];
      if ((s === 'G' || s === 'g') && prev !== 'G' && prev !== 'g') {
        let len = 0;
        for (let j = i, steps = 0; (plan.phases[j].states[gi] === 'G' || plan.phases[j].states[gi] === 'g') && steps < n; j = (j + 1) % n, steps++) len += plan.phases[j].duration_s;
        if (len < L.minGreenS - 1e-9) errs.push(`${name}: ${gid}'s green from phase ${i + 1} lasts ${round(len)} s (at least ${L.minGreenS} s)`);
      }
    }
  }
  return errs;
}

const round = (v: number) => Math.round(v * 100) / 100;

function validateActuation(plan: SignalPlan, name: string): string[] {
  const a = plan.actuated!;
  const L = PLAN_LIMITS;
  const errs: string[] = [];
  if (!(a.gap_s > 0 && a.gap_s <= L.maxGapS)) errs.push(`${name}: actuated gap_s ${a.gap_s} outside (0, ${L.maxGapS}] s`);
  if (!Array.isArray(a.phases) || a.phases.length !== plan.phases.length) return [...errs, `${name}: actuated timing needs one entry per phase (${plan.phases.length})`];
  let any = false;
  a.phases.forEach((t, i) => {
    if (t === null) return;
    any = true;
    if (!/[Gg]/.test(plan.phases[i].states)) errs.push(`${name} phase ${i + 1}: only a phase with a green can be actuated`);
    if (!(t.min_s >= L.minGreenS && t.min_s <= t.max_s && t.max_s <= L.maxPhaseS)) errs.push(`${name} phase ${i + 1}: actuated green ${t.min_s}–${t.max_s} s must satisfy ${L.minGreenS} ≤ min ≤ max ≤ ${L.maxPhaseS}`);
  });
  if (!any) errs.push(`${name}: an actuated plan needs at least one actuated green phase`);
  const longest = plan.phases.reduce((s, p, i) => s + (a.phases[i]?.max_s ?? p.duration_s), 0);
  if (!(longest <= L.maxCycleS)) errs.push(`${name}: a cycle of longest greens lasts ${round(longest)} s, more than ${L.maxCycleS} s`);
  return errs;
}
