/**
 * src/scenario/story — scripted test cases (the `story:` block of a scenario): actors, events with start
 * triggers and actions, pass/fail criteria and the end condition, on OpenSCENARIO's storyboard semantics. Pure:
 * no I/O, no clock; the host feeds StoryWorld snapshots and applies the actors' poses and the commands.
 */
export * from './spec.js';
export * from './parse.js';
export * from './world.js';
export * from './runner.js';
export { checkGated, gateRunner, startLineOf } from './gate.js';
export { STANDSTILL_MPS } from './conditions.js';
export { CriterionRun, type CriterionResult } from './criteria.js';
