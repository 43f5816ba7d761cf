/**
 * Walk signals on simulation time, read per step by the people side. After the vehicle signals are updated for a
 * step, each walk group (walk-layout.ts) moves through don't walk → walk → flashing → don't walk:
 *
 * - walk starts when a vehicle group of its junction that does not conflict with it is green (the phase parallel to
 *   it runs) or the plan's phase grants it (`walks` W: a pedestrian interval, walk-plan.ts), every conflicting group (a protected green across it) has been red for the plan's all-red time, the
 *   plan's phase allows it (a phase's `walks`, when given), and the conflicting groups stay red long enough for a
 *   steady walk and the clearance: SignalController.redFor ≥ all-red + WALK_MIN_S + length ÷ WALK_SPEED_MPS (the
 *   manual's entry time, WALK_ENTRY_S = 7 s, where the phase leaves it: the steady walk lasts as long as it can);
 * - flashing starts when what is left before a conflicting group can turn green, less the all-red, is the clearance
 *   (length ÷ WALK_SPEED_MPS: the pedestrian green = entry time + length ÷ walking speed of the Korean manual, see
 *   walk-layout.ts), and lasts the clearance;
 * - don't walk at once, whatever it showed, while a conflicting group is green or yellow (a live input can do that).
 *
 * So the walks run inside the vehicle phases and never change them. A fixed-time plan gives the same walk every
 * cycle; an actuated one walks only where its shortest greens leave the time.
 *
 * THE PER-STEP QUERY for the people side: `TrafficControl.crosswalkStates()` (traffic-control.ts) returns
 * `WalkSignals.crosswalkStates`, a Uint8Array reused for the whole run, indexed like the map's
 * `traffic_control.crosswalks`, holding CROSSWALK_NONE (0, not signalised), CROSSWALK_DONT_WALK (1),
 * CROSSWALK_FLASHING (2) or CROSSWALK_WALK (3); CROSSWALK_STATE_NAMES[v] gives 'none' | 'dont_walk' | 'flashing' |
 * 'walk'. It is updated in TrafficControl.beforeStep, after the vehicle signals; nothing is allocated per step.
 */
import type { SignalController, SignalGroupState } from './controller.js';
import { PLAN_LIMITS } from './plan-spec.js';
import type { WalkLayout } from './walk-layout.js';

/**
 * The shortest steady walk shown [s]: the vehicle phases are not lengthened for people, so where a phase leaves less
 * than the manual's entry time (WALK_ENTRY_S) before the clearance, the walk is shorter — but never shorter than the
 * shortest vehicle green a plan may have (PLAN_LIMITS.minGreenS), and the clearance is always whole.
 */
export const WALK_MIN_S = PLAN_LIMITS.minGreenS;

export const CROSSWALK_NONE = 0;
export const CROSSWALK_DONT_WALK = 1;
export const CROSSWALK_FLASHING = 2;
export const CROSSWALK_WALK = 3;
export const CROSSWALK_STATE_NAMES = ['none', 'dont_walk', 'flashing', 'walk'] as const;
export type CrosswalkState = (typeof CROSSWALK_STATE_NAMES)[number];

const CODE = ['o', 'r', 'y', 'G'] as const;
const COLOUR = ['off', 'red', 'yellow', 'green'] as const;

export class WalkSignals {
  /** per crosswalk of the map (traffic_control.crosswalks order): CROSSWALK_* */
  readonly crosswalkStates: Uint8Array;
  /** per walk group: CROSSWALK_DONT_WALK, _FLASHING or _WALK */
  readonly groupStates: Uint8Array;
  /** simulation time each walk group's state began */
  private readonly since: Float64Array;
  /** per walk group: its junction's vehicle groups (global) that do not conflict with it */
  private readonly parallel: Int32Array[];
  private readonly junctionIds: string[];
  /** per walk group: its index among its junction's walk groups (a phase's `walks` character) */
  private readonly slot: Int32Array;
  private time = 0;
  /** counts changes of any walk state */
  version = 0;

  constructor(readonly walks: WalkLayout, private readonly controller: SignalController, crosswalkCount: number) {
    const layout = controller.layout;
    this.crosswalkStates = new Uint8Array(crosswalkCount);
    this.groupStates = new Uint8Array(walks.groups.length);
    this.since = new Float64Array(walks.groups.length);
    this.slot = new Int32Array(walks.groups.length);
    walks.byJunction.forEach((ws) => ws.forEach((w, n) => (this.slot[w] = n)));
    this.parallel = walks.groups.map((w) => Int32Array.from(layout.junctions[w.junction].groups.filter((g) => !w.conflicts.some((c) => c.group === g))));
    this.junctionIds = walks.groups.map((w) => layout.junctions[w.junction].junction.id);
    this.reset();
  }

  /** Back to time 0: every walk group don't walk. */
  reset(): void {
    this.time = 0;
    this.groupStates.fill(CROSSWALK_DONT_WALK);
    this.since.fill(0);
    this.crosswalkStates.fill(CROSSWALK_NONE);
    for (const w of this.walks.groups) this.crosswalkStates[w.crosswalk] = CROSSWALK_DONT_WALK;
    this.version++;
  }

  /** To simulation time t, after the vehicle signals have been updated to it. */
  update(t: number): void {
    this.time = t;
    const ctl = this.controller;
    const groups = this.walks.groups;
    for (let w = 0; w < groups.length; w++) {
      const g = groups[w];
      const plan = ctl.plan(this.junctionIds[w]);
      const allRed = plan ? plan.all_red_s : 0;
      let conflictNow = false, clearedAllRed = true, bound = Infinity;
      for (const c of g.conflicts) {
        const code = ctl.code(c.group);
        if (code === 'G' || code === 'g' || code === 'y') conflictNow = true;
        else if (ctl.shownFor(c.group) < allRed - 1e-9) clearedAllRed = false;
        const r = ctl.redFor(c.group);
        if (r < bound) bound = r;
      }
      const cur = this.groupStates[w];
      let next = cur;
      if (conflictNow) next = CROSSWALK_DONT_WALK;
      else {
        const phase = plan ? ctl.phaseIndex(this.junctionIds[w]) : -1;
        const ws = phase >= 0 ? plan!.phases[phase].walks : undefined;
        const allowed = ws === undefined || ws[this.slot[w]] === 'W';
        const left = bound - allRed;
        if (cur === CROSSWALK_DONT_WALK) {
          let parallelGreen = false;
          for (const p of this.parallel[w]) {
            const code = ctl.code(p);
            if (code === 'G' || code === 'g') { parallelGreen = true; break; }
          }
          // a phase that grants the walk explicitly starts it with no vehicle green (a pedestrian interval)
          if ((parallelGreen || ws !== undefined) && clearedAllRed && allowed && left >= WALK_MIN_S + g.clearanceS - 1e-9) next = CROSSWALK_WALK;
        } else if (cur === CROSSWALK_WALK) {
          if (!allowed || left <= g.clearanceS + 1e-9) next = CROSSWALK_FLASHING;
        } else if (t - this.since[w] >= g.clearanceS - 1e-9) next = CROSSWALK_DONT_WALK;
      }
      if (next !== cur) {
        this.groupStates[w] = next;
        this.since[w] = t;
        this.crosswalkStates[g.crosswalk] = next;
        this.version++;
      }
    }
  }

  /** Seconds until walk group w changes as far as it is known (null: not known). */
  private timeToChange(w: number): number | null {
    const g = this.walks.groups[w];
    const st = this.groupStates[w];
    if (st === CROSSWALK_FLASHING) return Math.max(0, g.clearanceS - (this.time - this.since[w]));
    if (st === CROSSWALK_WALK) {
      const plan = this.controller.plan(this.junctionIds[w]);
      let bound = Infinity;
      for (const c of g.conflicts) bound = Math.min(bound, this.controller.redFor(c.group));
      return Number.isFinite(bound) ? Math.max(0, bound - (plan?.all_red_s ?? 0) - g.clearanceS) : null;
    }
    return null;
  }

  /** Every walk group as a signal-group entry (marked `walk`, with its crosswalk), after the vehicle groups. */
  states(): SignalGroupState[] {
    return this.walks.groups.map((g, w) => {
      const st = this.groupStates[w];
      const ttc = this.timeToChange(w);
      return {
        id: g.id, numeric_id: g.numericId, junction: this.junctionIds[w], code: CODE[st], state: COLOUR[st],
        time_to_change_s: ttc === null ? null : Math.round(ttc * 10) / 10, source: this.controller.sourceOf(this.junctionIds[w]),
        left: false, lanes: [], walk: CROSSWALK_STATE_NAMES[st] as Exclude<CrosswalkState, 'none'>, crosswalks: [g.crosswalkId],
      };
    });
  }
}
