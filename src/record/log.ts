/**
 * The scene-call log as recorded: every call that changes a live scene (src/session/calls.ts names them and says
 * what each does), in the order it happened, with what it needs to be made again — the replay input of a
 * recording. Calls are numbered (`n`, contiguous from 0, so a gap is seen) and carry the policy steps the scene
 * had taken when the call was made (`at_step`), which replay checks before making it again.
 */
import type { EgoReport, SceneConfig, SpawnRequest } from '../scene/index.js';
import type { LiveSignalInput } from '../scene/signals/index.js';
import type { SignalPlanOverride } from '../scene/traffic-control.js';
import type { SceneCall, SceneCallKind, SceneCallResult } from '../session/calls.js';
import { exactNum, exactObject, fromExactNum, fromExactObject } from './exact.js';

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
    case 'signal_live': {
      const { junction, states, phase, timeout_s } = call.input;
      return { junction, states: states ?? null, phase: phase === undefined ? null : exactNum(phase), timeout_s: timeout_s === undefined ? null : exactNum(timeout_s) };
    }
    case 'signal_release': return { junction: call.junction };
    case 'signal_plan': {
      const { junction, offset_s, phases, green_s, yellow_s, all_red_s, actuated } = call.override;
      const num = (v: number | undefined) => (v === undefined ? null : exactNum(v));
      return { junction, offset_s: num(offset_s), phases: phases ?? null, green_s: green_s ?? null, yellow_s: num(yellow_s), all_red_s: num(all_red_s), actuated: actuated ?? null };
    }
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
    case 'signal_live': {
      if (typeof a.junction !== 'string') throw new TypeError(`call ${r.n}: junction`);
      const input: LiveSignalInput = { junction: a.junction };
      // the states exactly as given (strings, never numbers: no −0 decoding)
      if (a.states !== null && a.states !== undefined) input.states = a.states as Record<string, string>;
      if (a.phase !== null && a.phase !== undefined) input.phase = fromExactNum(a.phase, 'phase');
      if (a.timeout_s !== null && a.timeout_s !== undefined) input.timeout_s = fromExactNum(a.timeout_s, 'timeout_s');
      return { kind: 'signal_live', input };
    }
    case 'signal_release':
      if (typeof a.junction !== 'string') throw new TypeError(`call ${r.n}: junction`);
      return { kind: 'signal_release', junction: a.junction };
    case 'signal_plan': {
      if (typeof a.junction !== 'string') throw new TypeError(`call ${r.n}: junction`);
      const o: SignalPlanOverride = { junction: a.junction };
      const num = (v: unknown, what: string) => (v === null || v === undefined ? undefined : fromExactNum(v, what));
      const offset = num(a.offset_s, 'offset_s'), yellow = num(a.yellow_s, 'yellow_s'), allRed = num(a.all_red_s, 'all_red_s');
      if (offset !== undefined) o.offset_s = offset;
      if (yellow !== undefined) o.yellow_s = yellow;
      if (allRed !== undefined) o.all_red_s = allRed;
      if (a.phases !== null && a.phases !== undefined) o.phases = a.phases as SignalPlanOverride['phases'];
      if (a.green_s !== null && a.green_s !== undefined) o.green_s = a.green_s as number[];
      if (typeof a.actuated === 'boolean') o.actuated = a.actuated;
      return { kind: 'signal_plan', override: o };
    }
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
  /**
   * frame format: absent (1) in recordings made before signals; 2 adds `signals` and each NPC's hold in the
   * flags column (exact.ts), 3 each NPC's kind (vehicle, pedestrian, cyclist) in the flags column
   */
  v?: number;
  /** signal group states, packed float64 columns (exact.ts SIGNAL_COLUMNS), base64; from frame format 2 */
  signals?: string;
}
