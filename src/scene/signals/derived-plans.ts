/**
 * The plans the server derives for a map's signalised junctions, in one place (TrafficControl, the junction report
 * and the tests use the same): the default plan timed for the expected flows (default-plan.ts), the walk time of
 * every crosswalk (walk-plan.ts), neighbours in step (coordination.ts), and optionally vehicle-actuated greens for
 * junctions running alone. Pure.
 */
import { coordinatePlans } from './coordination.js';
import type { LayoutLane, TrafficLayout } from '../junction-kit/layout.js';
import { actuatePlan, defaultPlan, laneFlows, type SignalPlan } from './plan.js';
import type { WalkLayout } from './walk-layout.js';
import { withWalkTime, type WalkPlanResult } from './walk-plan.js';

export interface DerivedPlanOptions {
  /** the NPCs expected on the map: greens timed for their flows (Webster); without, default greens */
  expectedNpcs?: number;
  /** junctions not coordinated with a neighbour run vehicle-actuated greens */
  actuated?: boolean;
  /** neighbours in step (default true) */
  coordinate?: boolean;
}

export interface DerivedPlans {
  plans: Map<string, SignalPlan>;
  /** per junction id: what the walk time changed (walk-plan.ts) */
  walkTime: Map<string, Omit<WalkPlanResult, 'plan'>>;
}

export function derivePlans(layout: TrafficLayout, lanes: readonly LayoutLane[], walks: WalkLayout, opts: DerivedPlanOptions = {}): DerivedPlans {
  let plans = new Map<string, SignalPlan>();
  const walkTime = new Map<string, Omit<WalkPlanResult, 'plan'>>();
  const flows = laneFlows(lanes, opts.expectedNpcs);
  layout.junctions.forEach((cj, j) => {
    if (cj.control !== 'signal') return;
    const base = defaultPlan(cj, layout, lanes, flows, opts.expectedNpcs !== undefined);
    const { plan, lengthened, interval } = withWalkTime(base, cj, walks.byJunction[j].map((w) => walks.groups[w]));
    plans.set(cj.junction.id, plan);
    walkTime.set(cj.junction.id, { lengthened, interval });
  });
  const uncoordinated = new Map(plans);
  if (opts.coordinate ?? true) plans = coordinatePlans(layout, lanes, plans, flows);
  // a junction running alone is vehicle-actuated (a green wave needs fixed times); with one phase there is nothing to actuate
  if (opts.actuated ?? false) {
    for (const [id, p] of plans) if (p === uncoordinated.get(id) && p.phases.length > 1) plans.set(id, actuatePlan(p));
  }
  return { plans, walkTime };
}

