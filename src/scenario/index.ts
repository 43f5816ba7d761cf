/**
 * src/scenario — configuration-only runs (seed 001): scenario, map and campaign YAML naming the vehicle, tire,
 * sensor and comms files; simulated egos (a vehicle plant with a driver) in the live scene; the Simulation API;
 * the one metrics registry; batch sweeps in worker threads or on a BullMQ queue.
 */
export * from './refs.js';
export * from './line.js';
export * from './map.js';
export * from './config.js';
export * from './trace.js';
export * from './metrics.js';
export * from './drivers.js';
export * from './sim-ego.js';
export * from './sensors.js';
export * from './world.js';
export * from './simulation.js';
export * from './comms-link.js';
export * from './batch/campaign.js';
export * from './batch/run-job.js';
export * from './batch/runner.js';
export * from './batch/local.js';
export * from './batch/queue.js';
export * from './story-host.js';
export { parseStory, StoryRunner, StoryRefused, type AttemptResult, type StorySpec } from './story/index.js';
export { renderAttemptSvg, renderAttemptHtml, reportParams, campaignTable, identicalRowNotes, AttemptTrace, attemptLines } from './story/report/index.js';
