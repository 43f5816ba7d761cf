/**
 * Vehicle-actuated signal timing (SUMO's `actuated` programs, NEMA controllers): the phase an actuated junction
 * shows, from its plan, the detection of the step and where it stands (its phase and since when), and the
 * earliest time a group's state can change. Pure functions over the junction's run; the controller
 * (controller.ts) keeps the clearances whatever they choose.
 */
import type { ControlledJunction } from '../junction-kit/layout.js';
import type { SignalPlan } from './plan.js';
import { SignalDetection } from '../junction-kit/handoff.js';
import { JAM_S } from './signal-params.js';

/** (what the detectors report: the kit's handoff, filled by the rules' places) */
export { SignalDetection };


/** What the actuated timing reads and moves of a junction's run. */
export interface ActuatedRun {
  readonly cj: ControlledJunction;
  readonly plan: SignalPlan;
  /** the phase it is in and when that began; null until it runs on detection */
  act: { phase: number; start: number } | null;
  /** a green is extended until this time by the vehicles last detected (−Infinity: not) */
  extUntil: number;
}

/**
 * An actuated junction's time until group k changes, at the earliest: each green phase at its minimum (a green
 * being extended lasts at least the gap), fixed phases at their durations.
 */
export function actuatedTimeToChange(run: ActuatedRun, k: number, t: number): number | null {
  const p = run.plan, A = p.actuated!, act = run.act!;
  const n = p.phases.length;
  const cur = p.phases[act.phase].states[k];
  const spec = A.phases[act.phase];
  let left = spec ? Math.max(0, act.start + spec.min_s - t) : Math.max(0, act.start + p.phases[act.phase].duration_s - t);
  if (spec && (cur === 'G' || cur === 'g') && run.extUntil > t) left = Math.max(left, Math.min(act.start + spec.max_s, run.extUntil) - t);
  for (let j = 1; j <= n; j++) {
    const i = (act.phase + j) % n;
    if (p.phases[i].states[k] !== cur) return left;
    left += A.phases[i]?.min_s ?? p.phases[i].duration_s;
  }
  return null;
}

/**
 * One step of an actuated junction's phases (NEMA-like): a fixed phase runs its duration; a green phase ends
 * once another group calls and either its longest green has run or, after its shortest, no vehicle reaches its
 * lines within the gap (a standing queue counts for the first JAM_S of the green); with no other call it rests
 * in green. A green phase that nobody calls, reached after an all-red, is skipped.
 */
export function actuatedTarget(run: ActuatedRun, t: number, det: SignalDetection): string {
  const p = run.plan, A = p.actuated!, n = p.phases.length;
  if (!run.act) {
    // from where the fixed-time plan is at t
    let tc = (t - p.offset_s) % p.cycle_s;
    if (tc < 0) tc += p.cycle_s;
    let i = 0;
    while (i < n - 1 && tc >= p.phases[i].duration_s - 1e-9) {
      tc -= p.phases[i].duration_s;
      i++;
    }
    run.act = { phase: i, start: t - tc };
  }
  const act = run.act;
  for (let guard = 0; guard < 2 * n; guard++) {
    const ph = p.phases[act.phase], spec = A.phases[act.phase];
    const elapsed = t - act.start;
    if (!spec) {
      if (elapsed < ph.duration_s - 1e-9) break;
      advance(run, act.start + ph.duration_s, det);
      continue;
    }
    let ext = -Infinity;
    for (let k = 0; k < ph.states.length; k++) {
      const c = ph.states[k];
      if (c !== 'G' && c !== 'g') continue;
      const g = run.cj.groups[k];
      if (det.arrive[g] <= A.gap_s) ext = Math.max(ext, t + Math.max(det.arrive[g], 0.5));
      if (det.queued[g] && elapsed < JAM_S) ext = Math.max(ext, t + 0.5);
    }
    run.extUntil = ext;
    if (!calls(run, act.phase, det, false)) break; // rest in green
    if (elapsed >= spec.max_s - 1e-9 || (elapsed >= spec.min_s - 1e-9 && ext <= t)) {
      advance(run, t, det);
      continue;
    }
    break;
  }
  return p.phases[act.phase].states;
}

/** Does a group green in phase i (own) or one not green in it (!own) call? */
function calls(run: ActuatedRun, i: number, det: SignalDetection, own: boolean): boolean {
  const st = run.plan.phases[i].states;
  for (let k = 0; k < st.length; k++) {
    const green = st[k] === 'G' || st[k] === 'g';
    if (green === own && det.call[run.cj.groups[k]]) return true;
  }
  return false;
}

function advance(run: ActuatedRun, at: number, det: SignalDetection): void {
  const p = run.plan, A = p.actuated!, n = p.phases.length;
  const act = run.act!;
  run.extUntil = -Infinity;
  let i = (act.phase + 1) % n;
  // skip green phases nobody calls when coming from an all-red (their clearances with them), up to one that is called
  if (A.phases[i] && /^[ro]*$/.test(p.phases[act.phase].states) && !calls(run, i, det, true) && calls(run, i, det, false)) {
    for (let j = 1; j < n; j++) {
      const c = (i + j) % n;
      if (A.phases[c] && calls(run, c, det, true)) {
        i = c;
        break;
      }
    }
  }
  act.phase = i;
  act.start = at;
}
