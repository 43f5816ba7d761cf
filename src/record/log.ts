/**
 * The scene-call log: every call that changes a live scene, in the order it happened, with what it needs to
 * be made again — the replay input of a recording. Calls are numbered (`n`, contiguous from 0, so a gap is
 * seen) and carry the policy steps the scene had taken when the call was made (`at_step`), which replay
 * checks before making it again.
 *
 *   advance    scene.advanceTo(t) by the runner; `steps` = the scene's steps after it
 *   reset      scene.reset()
 *   ego        scene.updateEgo(report, t): the report in the map frame, `t` the simulation time it arrived at
 *   remove_ego scene.removeEgo(id)
 *   spawn      scene.spawnNpc(request) → id
 *   remove_npc scene.removeNpc(id)
 *   remove_all scene.removeAllNpcs()
 *   configure  scene.configure(patch) (the scene's own settings; serving settings are in the config log)
 *
 * Results (ids, booleans, counts) and refusals (InputError messages) are kept so replay can check them too:
 * a refused spawn may still have drawn from the scene's random numbers.
 */
import type { EgoReport, LiveScene, SceneConfig, SpawnRequest } from '../scene/index.js';
import { InputError } from '../scene/index.js';
import { exactNum, exactObject, fromExactNum, fromExactObject } from './exact.js';

export type SceneCallKind = 'advance' | 'reset' | 'ego' | 'remove_ego' | 'spawn' | 'remove_npc' | 'remove_all' | 'configure';

/** One call, as the live side makes it (plain numbers, before JSON). */
export type SceneCall =
  | { kind: 'advance'; t: number }
  | { kind: 'reset' }
  | { kind: 'ego'; report: EgoReport; t: number }
  | { kind: 'remove_ego'; egoId: string }
  | { kind: 'spawn'; request: SpawnRequest }
  | { kind: 'remove_npc'; id: number }
  | { kind: 'remove_all' }
  | { kind: 'configure'; patch: Partial<SceneConfig> };

export type SceneCallResult = number | boolean | null;

/** A call as recorded (JSON, numbers −0-safe). */
export interface SceneCallRecord {
  /** call number, contiguous from 0 within a session */
  n: number;
  kind: SceneCallKind;
  /** policy steps taken when the call was made (after it, for advance: `steps`) */
  at_step: number;
  /** wall-clock time of the call, seconds since the Unix epoch (for people; replay ignores it) */
  wall_time: number;
  args: Record<string, unknown>;
  result: SceneCallResult;
  /** the InputError message when the scene refused the call */
  error: string | null;
}

/** Makes a call on a scene: its result, or the refusal (InputError) it met. Other errors are thrown. */
export function applySceneCall(scene: LiveScene, call: SceneCall): { result: SceneCallResult; error: string | null } | Promise<{ result: SceneCallResult; error: string | null }> {
  if (call.kind === 'advance') return scene.advanceTo(call.t).then(() => ({ result: scene.steps, error: null }));
  try {
    switch (call.kind) {
      case 'reset': scene.reset(); return { result: null, error: null };
      case 'ego': scene.updateEgo(call.report, call.t); return { result: null, error: null };
      case 'remove_ego': return { result: scene.removeEgo(call.egoId), error: null };
      case 'spawn': return { result: scene.spawnNpc(call.request), error: null };
      case 'remove_npc': return { result: scene.removeNpc(call.id), error: null };
      case 'remove_all': return { result: scene.removeAllNpcs(), error: null };
      case 'configure': scene.configure(call.patch); return { result: null, error: null };
    }
  } catch (err) {
    if (err instanceof InputError) return { result: null, error: err.message };
    throw err;
  }
}

export function encodeCallArgs(call: SceneCall): Record<string, unknown> {
  switch (call.kind) {
    case 'advance': return { t: exactNum(call.t) };
    case 'reset': case 'remove_all': return {};
    case 'ego': {
      const { egoId, clientTimestamp, ...pose } = call.report;
      return { ego_id: egoId, client_timestamp: clientTimestamp ?? null, pose: exactObject(pose), t: exactNum(call.t) };
    }
    case 'remove_ego': return { ego_id: call.egoId };
    case 'spawn': return { request: exactObject(call.request) };
    case 'remove_npc': return { id: call.id };
    case 'configure': return { patch: exactObject(call.patch) };
  }
}

const obj = (v: unknown, what: string): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError(`${what}: expected an object`);
  return v as Record<string, unknown>;
};

/** A recorded call back as a call to make. Throws TypeError on a malformed record. */
export function decodeCall(r: SceneCallRecord): SceneCall {
  const a = obj(r.args, `call ${r.n} args`);
  switch (r.kind) {
    case 'advance': return { kind: 'advance', t: fromExactNum(a.t, 'advance t') };
    case 'reset': return { kind: 'reset' };
    case 'remove_all': return { kind: 'remove_all' };
    case 'ego': {
      if (typeof a.ego_id !== 'string') throw new TypeError(`call ${r.n}: ego_id`);
      const pose = fromExactObject(obj(a.pose, `call ${r.n} pose`)) as Omit<EgoReport, 'egoId' | 'clientTimestamp'>;
      const ct = a.client_timestamp;
      return { kind: 'ego', t: fromExactNum(a.t, 'ego t'), report: { ...pose, egoId: a.ego_id, clientTimestamp: typeof ct === 'number' ? ct : null } };
    }
    case 'remove_ego':
      if (typeof a.ego_id !== 'string') throw new TypeError(`call ${r.n}: ego_id`);
      return { kind: 'remove_ego', egoId: a.ego_id };
    case 'spawn': return { kind: 'spawn', request: fromExactObject(obj(a.request, `call ${r.n} request`)) as unknown as SpawnRequest };
    case 'remove_npc': return { kind: 'remove_npc', id: fromExactNum(a.id, 'npc id') };
    case 'configure': return { kind: 'configure', patch: fromExactObject(obj(a.patch, `call ${r.n} patch`)) as Partial<SceneConfig> };
    default: throw new TypeError(`call ${r.n}: unknown kind ${JSON.stringify(r.kind)}`);
  }
}

/** Simulation-time frame as recorded on /vils/frame: what replay compares and --play sends. */
export interface FrameRecord {
  /** frame number within the session */
  f: number;
  /** the scene-call count when the frame was taken: calls n < this came before it */
  calls: number;
  t: number | string;
  step: number;
  state: 'running' | 'paused' | 'stopped';
  wall_time: number;
  /** NPC states, packed float64 columns (exact.ts), base64 */
  npcs: string;
  egos: Array<Record<string, unknown>>;
  timings: Record<string, number> | null;
}
