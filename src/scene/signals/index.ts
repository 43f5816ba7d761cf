/**
 * src/scene/signals — the signal room: what a junction's signals show on simulation time. Signal plans (plan: what
 * a plan is, its checks, the default timing), neighbours in step (coordination), vehicle-actuated greens
 * (actuated), the controller with live input from the roadside (controller), the walk signals of the crosswalks at
 * signalised junctions (walk-layout, walk-signals, walk-plan, derived-plans), the map's junction report
 * (junction-report), and the room's one output to the rules: every movement's state each step (movement-signals).
 * It never reads the rules; the rules never read the controller (the handoff: ../junction-kit/handoff.ts).
 */
export * from './plan.js';
export * from './coordination.js';
export * from './controller.js';
export * from './movement-signals.js';
export * from './walk-layout.js';
export * from './walk-signals.js';
export * from './walk-plan.js';
export * from './derived-plans.js';
export * from './signal-entries.js';
export * from './signal-params.js';
