/** The log lines of a hosted scene: its egos' life cycle and red-light runs, and its time assets joining and lagging. */
import type { SceneEvent } from '../scene/index.js';
import type { RunnerEvent } from '../time/index.js';

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function logSceneEvent(log: Logger, scene: string, e: SceneEvent): void {
  // an NPC's red run is counted (status, /metrics) and recorded, not logged: with the rules off there are many
  if (e.type === 'npc_ran_line') return;
  const ctx = { scene, ego_id: e.egoId, sim_time_s: Math.round(e.t * 1000) / 1000 };
  switch (e.type) {
    case 'ego_connected': return log.info(ctx, `ego ${e.egoId} connected`);
    case 'ego_resumed': return log.info(ctx, `ego ${e.egoId} is live again`);
    case 'ego_stale': return log.warn({ ...ctx, age_s: e.ageS }, `ego ${e.egoId} is stale (no update for ${e.ageS.toFixed(1)} s): NPCs no longer see it`);
    case 'ego_forgotten': return log.info({ ...ctx, reason: e.reason }, `ego ${e.egoId} forgotten (${e.reason})`);
    case 'ego_collided': return log.warn({ ...ctx, npcs: e.npcIds }, `ego ${e.egoId} collided${e.npcIds.length ? ` with NPC ${e.npcIds.join(', ')}` : ''}`);
    case 'ego_ran_red': return log.warn({ ...ctx, junction: e.junction, group: e.group }, `ego ${e.egoId} crossed the stop line of ${e.group} on red`);
    case 'test_case': return log.info({ ...ctx, case: e.case, attempt: e.attempt, status: e.status }, e.state === 'armed' ? `test case ${e.case}: attempt ${e.attempt} armed for ${e.egoId}` : `test case ${e.case}: attempt ${e.attempt} ${e.status.replace('_', ' ').toUpperCase()} (${e.reason})`);
  }
}

export function logTimeEvent(log: Logger, scene: string, e: RunnerEvent): void {
  const ctx = { scene, asset: 'name' in e ? e.name : undefined };
  switch (e.type) {
    case 'joined': return log.info({ ...ctx, step_ms: e.status.stepUs / 1000 }, `time asset ${e.name} joined (step ${e.status.stepUs / 1000} ms)`);
    case 'left': return e.reason === 'replaced' ? undefined : log.info({ ...ctx, reason: e.reason }, `time asset ${e.name} left (${e.reason})`);
    case 'lagging': return log.warn({ ...ctx, skew_ms: e.skewUs / 1000 }, `time asset ${e.name} is ${(e.skewUs / 1000).toFixed(0)} ms behind Tc (more than dmax): its outputs are stale; the scene does not wait for it`);
    case 'in_sync': return log.info(ctx, `time asset ${e.name} is in sync again`);
    case 'violation': return log.error({ scene, invariant: e.violation.invariant }, `time invariant ${e.violation.invariant} broken: ${e.violation.detail}`);
    case 'refused': return; // counted per asset in the status; a burst of them would flood the log
  }
}
