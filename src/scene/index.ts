/**
 * src/scene — the live scene on simulation time, with no clock and no sockets: the NPC population (spawns,
 * goals, respawn), the egos (injected real or simulated vehicles with a life cycle), quality metrics, and
 * the one set-up chain (map → geo frame → policy → scene). Runners and protocol adapters live in src/server.
 * Traffic control (traffic-control.ts) runs two rooms with a one-way handoff: signals/ produces every movement's
 * state each step, rules/ reads it and fills the scene's stop constraints; junction-kit/ is below both.
 */
export * from './config.js';
export * from './errors.js';
export * from './events.js';
export * from './egos.js';
export * from './population.js';
export * from './quality.js';
export * from './scene.js';
export * from './settings.js';
export * from './setup.js';
