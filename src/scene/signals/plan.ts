/**
 * Signal plans, as one import: what a plan is and its limits (plan-spec.ts), what group states mean for the
 * movements (movement-states.ts), the checks every plan must pass (plan-check.ts) and the default plan a
 * signalised junction gets (default-plan.ts).
 */
export * from './plan-spec.js';
export { groupsConflict, movementStates, permissiveAgainst, stateConflicts, type MovementState } from './movement-states.js';
export { validatePlan } from './plan-check.js';
export { clearanceTimes, defaultPlan, laneFlows, queueStartUpS } from './default-plan.js';
