/**
 * src/scene/rules — the rule room: what NPC drivers obey at junctions. Where every vehicle is among the movements
 * (vehicle-places), giving way (right-of-way), room past the exit (exit-room), what the rules remember of each
 * vehicle (rule-memory), the stop each NPC must make (rules), what the signals' detectors see (detectors),
 * violations from geometry (line-watch), the junction figures (metrics), and the numbers all of it is tuned by
 * (rule-params). It reads the signals' per-movement states (../junction-kit/handoff.ts) and never the controller;
 * its stops go into the scene's StopConstraints, which the scene hands to the engine's step.
 */
export * from './rules.js';
export * from './metrics.js';
export * from './line-watch.js';
