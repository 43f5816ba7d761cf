/**
 * What a signal plan is: its phases of group states, the optional actuated timing, and the limits every plan —
 * default, from a scenario or set live — is held to. The shapes on their own, so that the rooms that make, check
 * and run plans all read them from one place below them.
 *
 * A plan is a cycle of phases; each phase gives every signal group of the junction a state, one character per
 * group in the junction's group order: `G` green, `g` green that must give way, `y` yellow, `r` red, `o` off.
 */

/** (the state codes are the handoff's vocabulary, the rules read them too) */
export { GROUP_STATE_CODES, type GroupStateCode } from '../junction-kit/handoff.js';

export interface SignalPhase {
  duration_s: number;
  /** one character per group of the junction, in the junction's group order */
  states: string;
  /**
   * optional: one character per walk group of the junction (walk-layout.ts order): `W` people may walk in this
   * phase, `r` they may not. Absent: a walk runs wherever no protected green crosses it (walk-signals.ts). A `W`
   * while a vehicle group whose protected green crosses the crosswalk is green or yellow is refused (walk-check.ts).
   */
  walks?: string;
}

export interface SignalPlan {
  /** junction id */
  junction: string;
  cycle_s: number;
  /** the cycle starts at simulation time offset_s (a green wave shifts neighbours' offsets) */
  offset_s: number;
  phases: SignalPhase[];
  /** yellow and all-red clearance the controller uses when it has to end a green by itself (live input) [s] */
  yellow_s: number;
  all_red_s: number;
  source: 'default' | 'scenario' | 'api';
  /**
   * Vehicle-actuated timing (as SUMO's `actuated` programs and NEMA controllers run): each green phase lasts from
   * min_s to max_s, ending early when no vehicle arrives within gap_s (gap-out) and only when another group has a
   * call; a green phase nobody calls is skipped. One entry per phase, null for the fixed ones (yellows, all-reds).
   * Absent: fixed time, the phases' durations.
   */
  actuated?: ActuatedTiming;
}

export interface ActuatedTiming {
  /** a green is extended while a vehicle will reach its line within this [s] */
  gap_s: number;
  phases: Array<{ min_s: number; max_s: number } | null>;
}

export const PLAN_LIMITS = {
  minPhaseS: 1,
  maxPhaseS: 300,
  minGreenS: 3,
  minYellowS: 3,
  maxYellowS: 6,
  maxCycleS: 300,
  defaultMainGreenS: 25,
  defaultLeftGreenS: 10,
  minCycleS: 60,
  maxCycleS2: 120,
  maxGapS: 10,
} as const;

/** an actuated default plan's shortest green (SUMO's minDur) and its gap (SUMO's max-gap) [s] */
export const ACTUATED_MIN_GREEN_S = 5;
export const ACTUATED_GAP_S = 3;

/**
 * The plan made vehicle-actuated: every green phase may end after ACTUATED_MIN_GREEN_S (or its own duration, if
 * shorter) and run up to its duration stretched so that a cycle of longest greens lasts `maxCycleS` (never less
 * than the duration). Fixed phases keep their times.
 */
export function actuatePlan(plan: SignalPlan, maxCycleS: number = PLAN_LIMITS.maxCycleS2): SignalPlan {
  // a phase with a yellow in it (beside a green that carries on) is a clearance: fixed
  const green = (st: string) => /[Gg]/.test(st) && !st.includes('y');
  const greenSum = plan.phases.reduce((a, p) => a + (green(p.states) ? p.duration_s : 0), 0);
  const fixed = plan.cycle_s - greenSum;
  const stretch = greenSum > 0 ? Math.max(1, (maxCycleS - fixed) / greenSum) : 1;
  const phases = plan.phases.map((p) => {
    if (!green(p.states)) return null;
    return { min_s: Math.max(PLAN_LIMITS.minGreenS, Math.min(ACTUATED_MIN_GREEN_S, p.duration_s)), max_s: Math.min(PLAN_LIMITS.maxPhaseS, Math.round(p.duration_s * stretch * 2) / 2) };
  });
  return { ...plan, actuated: { gap_s: ACTUATED_GAP_S, phases } };
}
