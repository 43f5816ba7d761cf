/**
 * The calls that change a live scene, as the session's input log (inputs.ts) makes them and replay makes them
 * again (src/record/replay.ts): one vocabulary, and one place where a call is applied to a scene.
 *
 *   advance    scene.advanceTo(t) by the session; its result is the scene's steps after it
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
