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
 *   signal_live    scene.control.controller.setLive(input) → until_s (a junction's signal groups set live)
 *   signal_release scene.control.controller.clearLive(junction) → whether a live input was active
 *   signal_plan    the junction's plan replaced by applyOverride(its plan, override, 'api') → the new cycle_s
 *
 * Results (ids, booleans, counts) and refusals (InputError messages) are kept so replay can check them too:
 * a refused spawn may still have drawn from the scene's random numbers.
 */
import type { EgoReport, LiveScene, SceneConfig, SpawnRequest } from '../scene/index.js';
import { InputError } from '../scene/index.js';
import type { LiveSignalInput, SignalPlan } from '../scene/signals/index.js';
import type { SignalPlanOverride } from '../scene/traffic-control.js';
import { exactNum, exactObject, fromExactNum, fromExactObject } from './exact.js';

export type SceneCallKind = 'advance' | 'reset' | 'ego' | 'remove_ego' | 'spawn' | 'remove_npc' | 'remove_all' | 'configure' | 'signal_live' | 'signal_release' | 'signal_plan';

/** One call, as the live side makes it (plain numbers, before JSON). */
export type SceneCall =
  | { kind: 'advance'; t: number }
  | { kind: 'reset' }
  | { kind: 'ego'; report: EgoReport; t: number }
  | { kind: 'remove_ego'; egoId: string }
  | { kind: 'spawn'; request: SpawnRequest }
  | { kind: 'remove_npc'; id: number }
  | { kind: 'remove_all' }
  | { kind: 'configure'; patch: Partial<SceneConfig> }
  | { kind: 'signal_live'; input: LiveSignalInput }
  | { kind: 'signal_release'; junction: string }
  | { kind: 'signal_plan'; override: SignalPlanOverride };

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

export type LiveSignalResult = ReturnType<LiveScene['control']['controller']['setLive']>;

/** A junction's signal groups set live (the live server and replay make the same call). */
export function setSignalLive(scene: LiveScene, input: LiveSignalInput): LiveSignalResult {
  return scene.control.controller.setLive(input);
}

/** A junction's live input ended (back to its plan through the clearances); false when none was active. */
export function releaseSignal(scene: LiveScene, junction: string): boolean {
  return scene.control.controller.clearLive(junction);
}

/** A junction's plan replaced by an override of its current plan (validated whole; InputError with every reason). */
export function setSignalPlan(scene: LiveScene, override: SignalPlanOverride): SignalPlan {
  const control = scene.control;
  const base = control.controller.plan(override.junction);
  if (!base) {
    const known = control.controller.plans.map((p) => p.junction);
    throw new InputError(`unknown junction "${override.junction}"${known.length ? ` (signalised junctions: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''})` : ' (this map has no signalised junction)'}`);
  }
  const plan = control.applyOverride(base, override, 'api');
  control.controller.setPlan(plan);
  return plan;
}

/** Makes a call on a scene: its result, or the refusal (InputError) it met. Other errors are thrown. */
export function applySceneCall(scene: LiveScene, call: SceneCall): { result: SceneCallResult; error: string | null } {
  try {
    switch (call.kind) {
      case 'advance': scene.advanceTo(call.t); return { result: scene.steps, error: null };
      case 'reset': scene.reset(); return { result: null, error: null };
      case 'ego': scene.updateEgo(call.report, call.t); return { result: null, error: null };
      case 'remove_ego': return { result: scene.removeEgo(call.egoId), error: null };
      case 'spawn': return { result: scene.spawnNpc(call.request), error: null };
      case 'remove_npc': return { result: scene.removeNpc(call.id), error: null };
      case 'remove_all': return { result: scene.removeAllNpcs(), error: null };
      case 'configure': scene.configure(call.patch); return { result: null, error: null };
      case 'signal_live': return { result: setSignalLive(scene, call.input).until_s, error: null };
      case 'signal_release': return { result: releaseSignal(scene, call.junction), error: null };
      case 'signal_plan': return { result: setSignalPlan(scene, call.override).cycle_s, error: null };
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
