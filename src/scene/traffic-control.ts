/**
 * Traffic control of one live scene: the layout of its map (junction-kit), a plan per signalised junction (the
 * default, or a scenario's override) and the signal controller (signals/), the NPC rules and the junction figures
 * (rules/), behind one object the scene calls once per policy step. The one place that holds both rooms: it runs
 * the signals, hands their per-movement states to the rules (and the detectors' readings back to the signals), and
 * the rules fill the scene's StopConstraints, which the scene hands to the engine's step.
 */
import type { LoadedMap } from '../map/scene-json.js';
import type { TrafficEngine } from '../traffic/engine.js';
import { StopConstraints } from '../traffic/stops.js';
import type { StopLine } from '../vehicle/index.js';
import { InputError } from './errors.js';
import { SignalController, type SignalGroupState } from './signals/controller.js';
import { derivePlans } from './signals/derived-plans.js';
import { MovementSignals } from './signals/movement-signals.js';
import { buildTrafficLayout, type TrafficLayout } from './junction-kit/layout.js';
import { MovementIndex } from './junction-kit/movement-index.js';
import { StopLineWatch } from './rules/line-watch.js';
import { JunctionMetrics } from './rules/metrics.js';
import { actuatePlan, PLAN_LIMITS, validatePlan, type SignalPhase, type SignalPlan } from './signals/plan.js';
import { TrafficRules } from './rules/rules.js';
import { crosswalksOf } from '../map/traffic-control.js';
import { buildWalkLayout, type WalkLayout } from './signals/walk-layout.js';
import { WalkSignals } from './signals/walk-signals.js';

/** A scenario's (or the API's) change to a junction's plan. */
export interface SignalPlanOverride {
  junction: string;
  /** the cycle starts at this simulation time (a green wave shifts neighbours) [s] */
  offset_s?: number;
  /** the whole program: phases in order, each with its states by group id (or one char per group) */
  phases?: Array<{ duration_s: number; states: string | Record<string, string>; walks?: string }>;
  /** or the default program with these green times, one per green phase in order [s] */
  green_s?: number[];
  yellow_s?: number;
  all_red_s?: number;
  /** vehicle-actuated greens (true: between 5 s and their durations; false: fixed time); default: as the plan was, fixed where greens are given */
  actuated?: boolean;
}

export interface TrafficControlOptions {
  /** NPCs obey the signals, signs and right of way (default true); signals run either way */
  rules?: boolean;
  plans?: readonly SignalPlanOverride[];
  /** signals on every junction (default plans), not only where the map has heads */
  signalAll?: boolean;
  /** default plans of junctions not coordinated with a neighbour are vehicle-actuated (default false: fixed time) */
  actuated?: boolean;
  /** the NPCs expected on the map: default plans are timed for the flows they make (Webster); without, default greens */
  expectedNpcs?: number;
}

export class TrafficControl {
  readonly layout: TrafficLayout;
  readonly controller: SignalController;
  /** the signals' output each step: every movement's state (the rules' one view of the signals) */
  readonly movementSignals: MovementSignals;
  readonly rules: TrafficRules;
  /** where each NPC must stop this step: the scene's, filled by the rules (and the crosswalk give-way), handed to the engine's step */
  readonly stops: StopConstraints;
  /** red-light and stop-sign violations from geometry, whether the rules run or not */
  readonly watch: StopLineWatch;
  readonly metrics: JunctionMetrics;
  /** walk groups of the crosswalks at signalised junctions, and their states (walk-signals.ts) */
  readonly walkLayout: WalkLayout;
  readonly walks: WalkSignals;
  enabled: boolean;

  /** `stops`: the scene's stop constraints (a fresh set where not given) */
  constructor(map: LoadedMap, private readonly engine: TrafficEngine, opts: TrafficControlOptions = {}, stops?: StopConstraints) {
    const lanes = engine.lanes;
    this.stops = stops ?? new StopConstraints(engine.world.capacity);
    this.layout = buildTrafficLayout(lanes.lanes, map.trafficControl, (id) => lanes.laneById(id), { signalAll: opts.signalAll });
    const crosswalks = crosswalksOf(map.trafficControl);
    this.walkLayout = buildWalkLayout(this.layout, lanes.lanes, crosswalks, map.trafficControl.signals);
    // the derived plans: default timing, every crosswalk's walk time, neighbours in step (derived-plans.ts)
    const { plans } = derivePlans(this.layout, lanes.lanes, this.walkLayout, { expectedNpcs: opts.expectedNpcs, actuated: opts.actuated });
    for (const o of opts.plans ?? []) {
      const base = plans.get(o.junction);
      if (!base) throw new InputError(`signal plan for ${o.junction}: no signalised junction of that id (signalised: ${[...plans.keys()].join(', ') || 'none'})`);
      plans.set(o.junction, this.applyOverride(base, o, 'scenario'));
    }
    this.controller = new SignalController(this.layout, plans, this.walkLayout);
    this.walks = new WalkSignals(this.walkLayout, this.controller, crosswalks.length);
    const index = new MovementIndex(this.layout, lanes);
    this.movementSignals = new MovementSignals(this.layout, index, this.controller);
    this.rules = new TrafficRules(this.layout, index, this.movementSignals, lanes, engine, this.stops);
    this.watch = new StopLineWatch(this.layout, lanes, engine.world.capacity);
    this.metrics = new JunctionMetrics(this.rules, this.watch);
    this.enabled = opts.rules ?? true;
  }

  /** A plan from an override of `base`, validated whole (InputError with every reason). */
  applyOverride(base: SignalPlan, o: SignalPlanOverride, source: SignalPlan['source']): SignalPlan {
    const cj = this.layout.junctions.find((c) => c.junction.id === base.junction)!;
    const groups = this.layout.groups;
    const ids = cj.groups.map((g) => groups[g].id);
    let phases: SignalPhase[] = base.phases.map((p) => ({ ...p }));
    if (o.phases && o.green_s) throw new InputError(`signal plan for ${o.junction}: give phases or green_s, not both`);
    if (o.phases) {
      if (!Array.isArray(o.phases) || o.phases.length === 0) throw new InputError(`signal plan for ${o.junction}: phases must be a non-empty list`);
      phases = o.phases.map((p, i) => {
        let states: string;
        if (typeof p.states === 'string') states = p.states;
        else if (p.states && typeof p.states === 'object') {
          const chars = ids.map(() => 'r');
          for (const [id, v] of Object.entries(p.states)) {
            const k = ids.indexOf(id);
            if (k < 0) throw new InputError(`signal plan for ${o.junction}, phase ${i + 1}: unknown signal group "${id}" (its groups: ${ids.join(', ')})`);
            chars[k] = String(v);
          }
          states = chars.join('');
        } else throw new InputError(`signal plan for ${o.junction}, phase ${i + 1}: states must be a string or a map by group id`);
        return p.walks === undefined ? { duration_s: Number(p.duration_s), states } : { duration_s: Number(p.duration_s), states, walks: p.walks };
      });
    } else if (o.green_s) {
      const greens = phases.filter((p) => /[Gg]/.test(p.states));
      if (o.green_s.length !== greens.length) throw new InputError(`signal plan for ${o.junction}: green_s needs ${greens.length} values (one per green phase), got ${o.green_s.length}`);
      greens.forEach((p, k) => (p.duration_s = Number(o.green_s![k])));
    }
    if (o.yellow_s !== undefined) for (const p of phases) if (/y/.test(p.states)) p.duration_s = Number(o.yellow_s);
    // the all-red phases (of a derived plan: not its pedestrian interval with every vehicle red, walk-plan.ts, longer than them)
    if (o.all_red_s !== undefined) for (const p of phases) if (/^[ro]+$/.test(p.states) && (o.phases !== undefined || Math.abs(p.duration_s - base.all_red_s) < 1e-9)) p.duration_s = Number(o.all_red_s);
    const cycle = phases.reduce((a, p) => a + p.duration_s, 0);
    let plan: SignalPlan = {
      junction: base.junction, cycle_s: Math.round(cycle * 1000) / 1000, offset_s: o.offset_s ?? base.offset_s, phases,
      yellow_s: o.yellow_s ?? base.yellow_s, all_red_s: o.all_red_s ?? base.all_red_s, source,
    };
    // new greens are the plan's own (fixed) unless asked to actuate, and then they are its longest
    const regreened = o.phases !== undefined || o.green_s !== undefined;
    if (o.actuated !== false && !regreened && base.actuated && base.phases.length === phases.length) plan.actuated = base.actuated;
    if (o.actuated === true && !plan.actuated) {
      if (phases.every((p) => !/[Gg]/.test(p.states) || p.duration_s >= PLAN_LIMITS.minGreenS)) plan = actuatePlan(plan, regreened ? plan.cycle_s : PLAN_LIMITS.maxCycleS2);
    }
    const j = this.layout.junctions.indexOf(cj);
    const errs = validatePlan(plan, cj, groups, this.walkLayout.byJunction[j].map((w) => this.walkLayout.groups[w]));
    if (errs.length) throw new InputError(`signal plan for ${o.junction} refused: ${errs.join('; ')}`);
    return plan;
  }

  /**
   * Before the policy step at simulation time t: signals to t, every NPC's stop line, the figures (the violations
   * whether the rules run or not). withMetrics false: the junction figures wait for observeMetrics (the scene calls
   * it once the crosswalk give-way has added its stops, so that a stand shows the hold that made it).
   */
  beforeStep(t: number, withMetrics = true): void {
    if (this.enabled) {
      // the rules place the vehicles, the signals step (an actuated plan on what its detectors see there), and the
      // rules decide on the signals' states of the step
      this.rules.locate(t);
      this.controller.update(t, this.controller.actuated ? this.rules.detect() : this.rules.detection);
      this.movementSignals.update();
      this.rules.decide();
    } else {
      this.stops.clear();
      this.controller.update(t);
    }
    this.walks.update(t);
    this.watch.observe(this.engine.world, t, this.codeOf);
    if (withMetrics) this.observeMetrics(t);
  }

  /** The junction figures at time t (after every layer wrote its stops). */
  observeMetrics(t: number): void {
    if (this.enabled) this.metrics.observe(this.engine.world, t);
  }

  /**
   * Every movement that must not be entered now for its signal (red; yellow flagged): entry, exit and length,
   * for drivers outside the NPC world (a simulated ego's autopilot). Rebuilt only when a state changes.
   */
  signalStops(): readonly StopLine[] {
    if (this.controller.version === this.stopsVersion) return this.closed;
    this.stopsVersion = this.controller.version;
    const out: StopLine[] = [];
    for (const cj of this.layout.junctions) {
      for (const m of cj.movements) {
        const g = cj.groupOfMovement[m.index];
        if (g < 0) continue;
        const code = this.controller.code(g);
        if (code !== 'r' && code !== 'y') continue;
        out.push({ x: m.entry.x, y: m.entry.y, yaw: m.entry.yaw, exitX: m.exit.x, exitY: m.exit.y, length: m.length, yellow: code === 'y' });
      }
    }
    this.closed = out;
    return out;
  }

  /** the signal state of a group, for the line watch (one function, not one per step) */
  private readonly codeOf = (g: number) => this.controller.code(g);
  private stopsVersion = -1;
  private closed: readonly StopLine[] = [];

  /** Every signal group's state: the vehicle groups, then the walk groups (marked `walk`, with their crosswalk). */
  signals(t?: number): SignalGroupState[] {
    const vehicles = this.controller.states(t);
    return this.walkLayout.groups.length ? vehicles.concat(this.walks.states()) : vehicles;
  }

  /**
   * The people side's per-step query: each crosswalk's state, indexed like the map's traffic_control.crosswalks —
   * CROSSWALK_NONE (unsignalised), CROSSWALK_DONT_WALK, CROSSWALK_FLASHING, CROSSWALK_WALK (walk-signals.ts). The
   * same Uint8Array every call, updated in beforeStep; read it, do not keep a copy across steps.
   */
  crosswalkStates(): Uint8Array {
    return this.walks.crosswalkStates;
  }

  reset(): void {
    this.controller.reset();
    this.walks.reset();
    this.rules.reset();
    this.watch.reset();
    this.metrics.reset();
    this.stops.clear();
  }
}
