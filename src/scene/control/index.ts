/**
 * src/scene/control — traffic control at junctions: the map's signal heads, stop lines and signs bound to the
 * junctions derived from its lanes (layout), fixed-time signal plans (plan), signal states on simulation time with
 * live input from the roadside (controller), the rules NPCs obey (rules), the junction figures (metrics), and the
 * walk signals of the crosswalks at signalised junctions (walk-layout, walk-signals, and the walk time in derived plans: walk-plan, derived-plans).
 */
export * from './layout.js';
export * from './plan.js';
export * from './coordination.js';
export * from './controller.js';
export * from './rules.js';
export * from './metrics.js';
export * from './traffic-control.js';
export * from './walk-layout.js';
export * from './walk-signals.js';
export * from './walk-plan.js';
export * from './derived-plans.js';
