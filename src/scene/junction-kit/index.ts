/**
 * src/scene/junction-kit — what the signal room (../signals) and the rule room (../rules) both stand on: the
 * junctions of the map bound to its signal heads, stop lines and signs (layout), the movements numbered once
 * (movement-index), the kinematic helpers and numbers both use (kinematics, kit-params), and the one-way handoff
 * between them (handoff: per-movement signal states to the rules, detector readings to the signals).
 */
export * from './layout.js';
export * from './movement-index.js';
export * from './kinematics.js';
export * from './kit-params.js';
export * from './handoff.js';
