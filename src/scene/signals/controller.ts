/**
 * Signal states on simulation time. Each signalised junction runs its fixed-time plan; an authorised client (the
 * test site's roadside unit, an operator) may set its groups' states live, for `timeout_s`, after which the
 * junction goes back to its plan. Going to a live state or back to the plan never skips a clearance: a green
 * that must end turns yellow for the plan's yellow time, then red, and a group turns green only when every group
 * it conflicts with has been red for the all-red time (as a controller serves a pre-emption).
 *
 * `update(t, detection)` is called with the time of every policy step; states between steps are those of the last
 * one. An actuated plan (plan.ts) reads the detection — per signal group, whether a vehicle calls for it and when the
 * next one reaches its line, as loop detectors would tell a real controller — and runs as fixed time on its
 * phases' durations where there is none (the rules off). No clock: the same plans, inputs and detections at the
 * same times give the same states, so a recording replays bit for bit. Live inputs and plan changes are validated first and applied whole, or refused with the reason.
 */
import { InputError } from '../errors.js';
import { actuatedTarget, actuatedTimeToChange, type SignalDetection } from './actuated.js';

export { SignalDetection } from '../junction-kit/handoff.js';
import type { ControlledJunction, SignalGroup, TrafficLayout } from '../junction-kit/layout.js';
import { GROUP_STATE_CODES, groupsConflict, PLAN_LIMITS, stateConflicts, validatePlan, type GroupStateCode, type SignalPlan } from './plan.js';
import type { WalkLayout } from './walk-layout.js';
import { LIVE_TIMEOUT_DEFAULT_S, LIVE_TIMEOUT_MAX_S } from './signal-params.js';

export type SignalColour = 'green' | 'green_yield' | 'yellow' | 'red' | 'off';

export interface SignalGroupState {
  id: string;
  numeric_id: number;
  junction: string;
  /** G, g, y, r, o */
  code: GroupStateCode;
  state: SignalColour;
  /** seconds until the state changes (plan); null while it is set live */
  time_to_change_s: number | null;
  /** what drives it: the plan, a live input, or the clearance between the two */
  source: 'plan' | 'live' | 'transition';
  left: boolean;
  lanes: readonly string[];
  /** a walk group (walk-signals.ts): what it shows people — absent for vehicle groups */
  walk?: 'walk' | 'flashing' | 'dont_walk';
  /** a walk group's crosswalk (the map's traffic_control.crosswalks id) */
  crosswalks?: readonly string[];
}

export interface LiveSignalInput {
  /** junction id */
  junction: string;
  /** states by group id (groups left out keep red), or … */
  states?: Record<string, string>;
  /** … a phase of the junction's plan (0-based) */
  phase?: number;
  /** back to the plan after this long without a new input [s] */
  timeout_s?: number;
}

/** the least all-red a plan has between conflicting greens (one phase) [s] */
const MIN_ALL_RED_S = PLAN_LIMITS.minPhaseS;

const COLOUR: Record<GroupStateCode, SignalColour> = { G: 'green', g: 'green_yield', y: 'yellow', r: 'red', o: 'off' };

interface JunctionRun {
  readonly cj: ControlledJunction;
  plan: SignalPlan;
  /** the states shown now, one char per group */
  shown: string[];
  /** simulation time each group's shown state began */
  since: Float64Array;
  live: { states: string; until: number } | null;
  /** going back to the plan after a live input (clearances still running) */
  returning: boolean;
  /** an actuated plan running on detection: the phase it is in and when that began; null otherwise */
  act: { phase: number; start: number } | null;
  /** an actuated green is extended until this time by the vehicles last detected (−Infinity: not) */
  extUntil: number;
}

export class SignalController {
  private readonly runs: JunctionRun[] = [];
  private readonly byJunction = new Map<string, JunctionRun>();
  /** global group index → its junction run and position in it */
  private readonly groupAt: Array<{ run: JunctionRun; k: number }> = [];
  private time = 0;
  /** counts changes of any shown state (and resets): what is shown is the same while it is */
  version = 0;

  constructor(readonly layout: TrafficLayout, plans: ReadonlyMap<string, SignalPlan>, readonly walks?: WalkLayout) {
    layout.junctions.forEach((cj, j) => {
      if (cj.control !== 'signal') return;
      const plan = plans.get(cj.junction.id);
      if (!plan) throw new Error(`no signal plan for ${cj.junction.id}`);
      const errs = validatePlan(plan, cj, layout.groups, this.walksAt(j));
      if (errs.length) throw new InputError(`signal plan of ${cj.junction.id}: ${errs.join('; ')}`);
      const run: JunctionRun = { cj, plan, shown: [], since: new Float64Array(cj.groups.length), live: null, returning: false, act: null, extUntil: -Infinity };
      run.shown = [...this.planStates(run, 0)];
      this.runs.push(run);
      this.byJunction.set(cj.junction.id, run);
      cj.groups.forEach((g, k) => (this.groupAt[g] = { run, k }));
    });
  }

  /** The walk groups of junction j (layout index), for the plan checks. */
  private walksAt(j: number) {
    return this.walks ? this.walks.byJunction[j].map((w) => this.walks!.groups[w]) : undefined;
  }

  /**
   * At least how long group `group` (global index) stays without green from now [s] (walk-signals.ts times the
   * pedestrian clearance by it): 0 while it is green or yellow or the junction is changing over; from a fixed plan,
   * exactly when its next green starts; actuated, the earliest (greens at their shortest); under a live input that
   * holds it red, until the input runs out.
   */
  redFor(group: number): number {
    const at = this.groupAt[group];
    if (!at) return Infinity;
    const { run, k } = at;
    const cur = run.shown[k];
    if (cur !== 'r' && cur !== 'o') return 0;
    if (run.live) return run.live.states[k] === 'r' || run.live.states[k] === 'o' ? Math.max(0, run.live.until - this.time) : 0;
    if (run.returning) return 0;
    return this.runTimeToChange(run, k, this.time) ?? Infinity;
  }

  /** What drives a junction's states now (as SignalGroupState.source). */
  sourceOf(junction: string): 'plan' | 'live' | 'transition' {
    const run = this.byJunction.get(junction);
    if (!run) return 'plan';
    return run.live ? (run.shown.join('') === run.live.states ? 'live' : 'transition') : run.returning ? 'transition' : 'plan';
  }

  /** How long group `group` has shown its present state [s]. */
  shownFor(group: number): number {
    const at = this.groupAt[group];
    return at ? this.time - at.run.since[at.k] : 0;
  }

  /** The phase of its plan a junction is in (by id), or −1 while a live input or a change-over drives it. */
  phaseIndex(junction: string): number {
    const run = this.byJunction.get(junction);
    if (!run || run.live || run.returning) return -1;
    if (run.act) return run.act.phase;
    const p = run.plan;
    let tc = (this.time - p.offset_s) % p.cycle_s;
    if (tc < 0) tc += p.cycle_s;
    for (let i = 0; i < p.phases.length; i++) {
      if (tc < p.phases[i].duration_s - 1e-9) return i;
      tc -= p.phases[i].duration_s;
    }
    return p.phases.length - 1;
  }

  get groups(): readonly SignalGroup[] {
    return this.layout.groups;
  }

  plan(junction: string): SignalPlan | undefined {
    return this.byJunction.get(junction)?.plan;
  }

  /** some junction runs a vehicle-actuated plan (it reads the detection) */
  get actuated(): boolean {
    for (const r of this.runs) if (r.plan.actuated) return true;
    return false;
  }

  get plans(): SignalPlan[] {
    return this.runs.map((r) => r.plan);
  }

  /** Back to time 0: plans as they are, no live inputs. */
  reset(): void {
    this.time = 0;
    this.version++;
    for (const r of this.runs) {
      r.live = null;
      r.returning = false;
      r.act = null;
      r.shown = [...this.planStates(r, 0)];
      r.since.fill(0);
    }
  }

  /** The group's state code as shown now (global group index). */
  code(group: number): GroupStateCode {
    const at = this.groupAt[group];
    return at ? (at.run.shown[at.k] as GroupStateCode) : 'o';
  }

  /**
   * Seconds until a group's state changes as far as it is known: from the plan; Infinity while a live input holds it
   * (the roadside may change it any time, but nothing here will); the yellow left while it clears.
   */
  timeToChange(group: number): number {
    const at = this.groupAt[group];
    if (!at) return Infinity;
    const { run, k } = at;
    if (run.shown[k] === 'y') return Math.max(0, run.plan.yellow_s - (this.time - run.since[k]));
    if (run.live) return run.shown.join('') === run.live.states ? Infinity : 0;
    if (run.returning) return 0;
    return this.runTimeToChange(run, k, this.time) ?? Infinity;
  }

  private runTimeToChange(run: JunctionRun, k: number, t: number): number | null {
    return run.act ? actuatedTimeToChange(run, k, t) : this.planTimeToChange(run, k, t);
  }

  /** The shown states of a junction, one char per group (cj.groups order). */
  junctionStates(cj: ControlledJunction): string {
    const run = this.byJunction.get(cj.junction.id);
    return run ? run.shown.join('') : '';
  }

  private planStates(run: JunctionRun, t: number): string {
    const p = run.plan;
    let tc = (t - p.offset_s) % p.cycle_s;
    if (tc < 0) tc += p.cycle_s;
    for (const ph of p.phases) {
      if (tc < ph.duration_s - 1e-9) return ph.states;
      tc -= ph.duration_s;
    }
    return p.phases[p.phases.length - 1].states;
  }

  /** Seconds from t until group k of the plan changes state (the plan cycles, so it always does unless constant). */
  private planTimeToChange(run: JunctionRun, k: number, t: number): number | null {
    const p = run.plan;
    let tc = (t - p.offset_s) % p.cycle_s;
    if (tc < 0) tc += p.cycle_s;
    let i = 0;
    while (i < p.phases.length - 1 && tc >= p.phases[i].duration_s - 1e-9) {
      tc -= p.phases[i].duration_s;
      i++;
    }
    const now = p.phases[i].states[k];
    let left = p.phases[i].duration_s - tc;
    for (let j = 1; j <= p.phases.length; j++) {
      const ph = p.phases[(i + j) % p.phases.length];
      if (ph.states[k] !== now) return Math.max(0, left);
      left += ph.duration_s;
    }
    return null;
  }

  /**
   * Advances every junction to simulation time t (the time of a policy step). The shown states always move toward
   * the target (the live input, else the plan) through the clearances: with a valid plan alone that is the plan
   * itself (its yellows and all-reds are at least the minimum), and after a live input it is the plan's yellow and
   * all-red times.
   */
  update(t: number, detection?: SignalDetection): void {
    this.time = t;
    for (const run of this.runs) {
      if (run.live && t >= run.live.until - 1e-9) {
        run.live = null;
        run.returning = true;
      }
      const actuated = !run.live && !run.returning && run.plan.actuated !== undefined && detection !== undefined;
      if (!actuated && run.act) {
        // from actuated to fixed time (the rules turned off): through the clearances
        run.act = null;
        if (!run.live) run.returning = true;
      }
      const target = run.live ? run.live.states : actuated ? actuatedTarget(run, t, detection) : this.planStates(run, t);
      const managed = run.live !== null || run.returning;
      this.transition(run, target, t, managed ? run.plan.yellow_s : PLAN_LIMITS.minYellowS, managed ? run.plan.all_red_s : MIN_ALL_RED_S);
      if (run.returning && run.shown.join('') === target) run.returning = false;
    }
  }

  /** One step of the way from the shown states to the target without skipping a clearance. */
  private transition(run: JunctionRun, target: string, t: number, yellowS: number, allRedS: number): void {
    const { cj } = run;
    const groups = this.layout.groups;
    // greens that must end, and yellows that have run their time
    for (let k = 0; k < run.shown.length; k++) {
      const cur = run.shown[k], tgt = target[k];
      if (cur === tgt) continue;
      if ((cur === 'G' || cur === 'g') && (tgt === 'r' || tgt === 'o' || tgt === 'y')) this.show(run, k, 'y', t);
      else if (cur === 'G' && tgt === 'g') this.show(run, k, 'g', t);
      else if (cur === 'y' && tgt !== 'y' && t - run.since[k] >= yellowS - 1e-9) this.show(run, k, 'r', t);
      else if (cur === 'o' && tgt === 'r') this.show(run, k, 'r', t);
    }
    // greens that may start: every conflicting group red (or off) for the all-red time
    for (let k = 0; k < run.shown.length; k++) {
      const cur = run.shown[k], tgt = target[k];
      if (cur === tgt || !(tgt === 'G' || tgt === 'g') || !(cur === 'r' || cur === 'o' || (cur === 'g' && tgt === 'G'))) continue;
      let clear = true;
      for (let j = 0; j < run.shown.length && clear; j++) {
        if (j === k || !groupsConflict(cj, groups, cj.groups[k], cj.groups[j], true)) continue;
        const sj = run.shown[j];
        if (!((sj === 'r' || sj === 'o') && t - run.since[j] >= allRedS - 1e-9)) clear = false;
      }
      if (clear) this.show(run, k, tgt, t);
    }
  }

  private show(run: JunctionRun, k: number, ch: string, t: number): void {
    if (run.shown[k] === ch) return;
    run.shown[k] = ch;
    run.since[k] = t;
    this.version++;
  }

  /**
   * Sets a junction's groups live (validated whole first: unknown ids, conflicting greens and absurd timeouts are
   * refused with the reason). Returns what will be shown once the clearances have run.
   */
  setLive(input: LiveSignalInput): { junction: string; states: Record<string, GroupStateCode>; until_s: number; clearance: boolean } {
    const run = this.byJunction.get(input.junction);
    if (!run) {
      const known = this.runs.map((r) => r.cj.junction.id);
      throw new InputError(`unknown junction "${input.junction}"${known.length ? ` (signalised junctions: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''})` : ' (this map has no signalised junction)'}`);
    }
    const { cj } = run;
    const groups = this.layout.groups;
    const timeout = input.timeout_s ?? LIVE_TIMEOUT_DEFAULT_S;
    if (!(Number.isFinite(timeout) && timeout > 0 && timeout <= LIVE_TIMEOUT_MAX_S)) throw new InputError(`timeout_s ${input.timeout_s} must be a number of seconds in (0, ${LIVE_TIMEOUT_MAX_S}]`);
    let states: string;
    if (input.phase !== undefined) {
      if (input.states !== undefined) throw new InputError('give either states or phase, not both');
      if (!Number.isInteger(input.phase) || input.phase < 0 || input.phase >= run.plan.phases.length) throw new InputError(`phase ${input.phase} does not exist: ${cj.junction.id}'s plan has phases 0–${run.plan.phases.length - 1}`);
      states = run.plan.phases[input.phase].states;
    } else if (input.states && typeof input.states === 'object') {
      const chars = cj.groups.map(() => 'r');
      for (const [id, v] of Object.entries(input.states)) {
        const k = cj.groups.findIndex((g) => groups[g].id === id);
        if (k < 0) throw new InputError(`unknown signal group "${id}" at ${cj.junction.id} (its groups: ${cj.groups.map((g) => groups[g].id).join(', ')})`);
        const ch = typeof v === 'string' ? (v.length === 1 ? v : LONG_NAMES[v.toLowerCase()]) : undefined;
        if (!ch || !(GROUP_STATE_CODES as readonly string[]).includes(ch)) throw new InputError(`state "${String(v)}" of ${id}: use G (green), g (green, give way), y (yellow), r (red) or o (off)`);
        chars[k] = ch;
      }
      states = chars.join('');
    } else throw new InputError('a live signal input needs states (by group id) or phase');
    const conflicts = stateConflicts(cj, groups, states);
    if (conflicts.length) throw new InputError(`refused: ${conflicts.join('; ')}`);
    run.live = { states, until: this.time + timeout };
    run.returning = false;
    run.act = null;
    const clearance = [...states].some((ch, k) => ch !== run.shown[k]);
    const out: Record<string, GroupStateCode> = {};
    cj.groups.forEach((g, k) => (out[groups[g].id] = states[k] as GroupStateCode));
    return { junction: cj.junction.id, states: out, until_s: run.live.until, clearance };
  }

  /** Ends a live input now: the junction goes back to its plan (through the clearances). */
  clearLive(junction: string): boolean {
    const run = this.byJunction.get(junction);
    if (!run) throw new InputError(`unknown junction "${junction}"`);
    if (!run.live) return false;
    run.live = null;
    run.returning = true;
    return true;
  }

  /** Replaces a junction's plan (validated whole; refused with every reason). Takes effect at the next update. */
  setPlan(plan: SignalPlan): void {
    const run = this.byJunction.get(plan.junction);
    if (!run) throw new InputError(`unknown junction "${plan.junction}"`);
    const errs = validatePlan(plan, run.cj, this.layout.groups, this.walksAt(this.layout.junctions.indexOf(run.cj)));
    if (errs.length) throw new InputError(`signal plan refused: ${errs.join('; ')}`);
    run.plan = plan;
    // a new plan starts through the clearances, as after a live input
    run.returning = true;
    run.act = null;
  }

  /** Every group's state at simulation time t (≥ the last update; states are those of the last update). */
  states(t = this.time): SignalGroupState[] {
    const groups = this.layout.groups;
    const out: SignalGroupState[] = [];
    for (const run of this.runs) {
      const source = run.live ? (run.shown.join('') === run.live.states ? 'live' : 'transition') : run.returning ? 'transition' : 'plan';
      run.cj.groups.forEach((g, k) => {
        const code = run.shown[k] as GroupStateCode;
        let ttc: number | null = null;
        if (source === 'plan') {
          const p = this.runTimeToChange(run, k, t);
          ttc = p === null ? null : Math.round(p * 10) / 10;
        } else if (code === 'y') ttc = Math.max(0, Math.round((run.plan.yellow_s - (t - run.since[k])) * 10) / 10);
        out.push({ id: groups[g].id, numeric_id: groups[g].numericId, junction: run.cj.junction.id, code, state: COLOUR[code], time_to_change_s: ttc, source, left: groups[g].left, lanes: groups[g].lanes });
      });
    }
    return out;
  }
}

const LONG_NAMES: Record<string, string> = { green: 'G', green_yield: 'g', permissive: 'g', yellow: 'y', amber: 'y', red: 'r', off: 'o' };
