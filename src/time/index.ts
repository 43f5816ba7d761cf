/**
 * src/time: simulation time for VILS, at the bottom of the layering (imports nothing else of the project).
 * One Clock and one Pacer for every paced loop; the Hakoniwa-style conductor that keeps every simulator
 * (the NPC world, each plant, each external simulator) within dmax of the core time, with its one hub (the
 * session) and the driver of sessions without a loop of their own; the UDP protocol and server through which
 * simulators in other processes join; the shared-memory worker assets of `vils time-grid`.
 */
export * from './clock.js';
export * from './pacer.js';
export * from './conductor.js';
export * from './asset-protocol.js';
export * from './asset-server.js';
export * from './asset-shm.js';
export * from './session.js';
export * from './run-session.js';
export * from './timed-world.js';
export * from './settings.js';
export * from './asset-port.js';
export * from './status-json.js';
