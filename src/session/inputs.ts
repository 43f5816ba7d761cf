/**
 * The inputs of a session's scene, in one place: every call that changes the scene (ego reports, NPC and ego
 * commands, settings, and the session's own advances and resets) goes through here, so it can be logged with
 * the simulation time and the policy step at which it took effect — what an exact replay needs — and raw
 * inputs (ego_state messages as received, REST commands) can be observed by a recorder.
 *
 * A policy step is synchronous (src/traffic/policy-step.ts): no socket or HTTP handler runs in the middle of
 * one, so every input takes effect between two steps, when it arrives, and the log is exactly
 * advance(t) … calls … advance(t') …; replaying it against a scene stepped with advanceTo gives the same NPC
 * states bit for bit. (While the time conductor waits for an external asset, inputs still arrive between the
 * world's steps, each of which is its own logged advance.)
 *
 * The session (scene-session.ts) advances and resets the scene through here too, and the world asset of its
 * time conductor steps the scene through `stepped` (the logged advance): a change made on the scene directly is
 * not in the log, and replay will find the difference it causes.
 */
import type { SteppedScene } from '../scenario/assets.js';
import type { EgoReport, LiveScene, SceneConfig, SpawnRequest } from '../scene/index.js';
import type { LiveSignalInput, SignalPlan } from '../scene/signals/index.js';
import type { SignalPlanOverride } from '../scene/traffic-control.js';
import { applySceneCall, releaseSignal, setSignalLive, setSignalPlan, type LiveSignalResult, type SceneCall, type SceneCallResult } from './calls.js';

export interface SceneCallEvent {
  call: SceneCall;
  /** policy steps taken when the call was made (after it, for advance) */
  atStep: number;
  result: SceneCallResult;
  /** the error's message when the call threw */
  error: string | null;
  /** epoch seconds */
  wallTime: number;
}

/** An input as it arrived, before the scene saw it (for the record; `outcome` says what became of it). */
export type RawInput =
  | { kind: 'stream'; text: string; client: number; arrivalWall: number; simTime: number; outcome: string }
  | { kind: 'rest'; method: string; url: string; body: unknown; status: number; reply: string; arrivalWall: number; simTime: number };

type Listener<T> = (e: T) => void;

const epochNow = () => (performance.timeOrigin + performance.now()) / 1000;

export class SceneInputs {
  private readonly callListeners: Array<Listener<SceneCallEvent>> = [];
  private readonly rawListeners: Array<Listener<RawInput>> = [];
  /** calls made so far (the log's length) */
  calls = 0;
  /** the scene as the time conductor's world asset steps it: advanceTo is the logged advance */
  readonly stepped: SteppedScene;

  constructor(readonly scene: LiveScene, private readonly onListenerError: (err: unknown) => void = () => {}) {
    this.stepped = {
      get time() {
        return scene.time;
      },
      get nextStepTime() {
        return scene.nextStepTime;
      },
      advanceTo: (t) => this.advance(t),
      snapshot: (t) => scene.snapshot(t),
      signalStops: () => scene.signalStops(),
    };
  }

  /** Every scene call, in order, as it is made. */
  onCall(listener: Listener<SceneCallEvent>): () => void {
    this.callListeners.push(listener);
    return () => this.callListeners.splice(this.callListeners.indexOf(listener) >>> 0, 1);
  }

  /** Raw inputs as they arrive. */
  onRaw(listener: Listener<RawInput>): () => void {
    this.rawListeners.push(listener);
    return () => this.rawListeners.splice(this.rawListeners.indexOf(listener) >>> 0, 1);
  }

  received(input: RawInput): void {
    for (const l of this.rawListeners) {
      try {
        l(input);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  private log(call: SceneCall, result: SceneCallResult, error: string | null): void {
    const e: SceneCallEvent = { call, atStep: this.scene.steps, result, error, wallTime: epochNow() };
    this.calls++;
    for (const l of this.callListeners) {
      try {
        l(e);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /** The scene advanced to t (a logged call, with the policy steps taken by then). */
  advance(t: number): number {
    let error: string | null = null;
    try {
      return this.scene.advanceTo(t);
    } catch (err) {
      error = (err as Error).message;
      throw err;
    } finally {
      this.log({ kind: 'advance', t }, this.scene.steps, error);
    }
  }

  /** The scene back to time 0 (a logged call). */
  reset(): void {
    this.scene.reset();
    this.log({ kind: 'reset' }, null, null);
  }

  /** Makes a call now; logs it with its result or error. */
  submit<T>(call: SceneCall, apply: () => T, resultOf: (v: T) => SceneCallResult = () => null): Promise<T> {
    let value: T;
    try {
      value = apply();
    } catch (err) {
      this.log(call, null, (err as Error).message ?? String(err));
      return Promise.reject(err);
    }
    this.log(call, resultOf(value), null);
    return Promise.resolve(value);
  }

  /**
   * A recorded call made again (replay, src/record/replay.ts): applied to the scene and logged as the live side
   * made it. Its result, or the refusal (InputError) it met; other errors are thrown.
   */
  apply(call: SceneCall): { result: SceneCallResult; error: string | null } {
    const out = applySceneCall(this.scene, call);
    this.log(call, out.result, out.error);
    return out;
  }

  // ---- the inputs ----

  /** An ego report (map frame) that arrived at simulation time t. */
  updateEgo(report: EgoReport, t: number): Promise<void> {
    return this.submit({ kind: 'ego', report, t }, () => this.scene.updateEgo(report, t));
  }

  removeEgo(egoId: string): Promise<boolean> {
    return this.submit({ kind: 'remove_ego', egoId }, () => this.scene.removeEgo(egoId), (v) => v);
  }

  spawnNpc(request: SpawnRequest): Promise<number> {
    return this.submit({ kind: 'spawn', request }, () => this.scene.spawnNpc(request), (v) => v);
  }

  removeNpc(id: number): Promise<boolean> {
    return this.submit({ kind: 'remove_npc', id }, () => this.scene.removeNpc(id), (v) => v);
  }

  removeAllNpcs(): Promise<number> {
    return this.submit({ kind: 'remove_all' }, () => this.scene.removeAllNpcs(), (v) => v);
  }

  /**
   * Scene settings, logged as the scene's part of a settings change; `apply` makes the whole change (the
   * host's serving settings too), all or nothing.
   */
  configure<T>(patch: Partial<SceneConfig>, apply: () => T): Promise<T> {
    return this.submit({ kind: 'configure', patch }, apply);
  }

  /** A junction's signal groups set live (the roadside, an operator); logged with the time the input ends. */
  setSignalLive(input: LiveSignalInput): Promise<LiveSignalResult> {
    const copy: LiveSignalInput = { junction: input.junction };
    if (input.states !== undefined) copy.states = { ...input.states };
    if (input.phase !== undefined) copy.phase = input.phase;
    if (input.timeout_s !== undefined) copy.timeout_s = input.timeout_s;
    return this.submit({ kind: 'signal_live', input: copy }, () => setSignalLive(this.scene, copy), (v) => v.until_s);
  }

  /** A junction's live input ended: back to its plan. */
  releaseSignal(junction: string): Promise<boolean> {
    return this.submit({ kind: 'signal_release', junction }, () => releaseSignal(this.scene, junction), (v) => v);
  }

  /** A junction's plan changed by an override of its current one; logged with the new cycle. */
  setSignalPlan(override: SignalPlanOverride): Promise<SignalPlan> {
    const copy = structuredClone(override);
    return this.submit({ kind: 'signal_plan', override: copy }, () => setSignalPlan(this.scene, copy), (v) => v.cycle_s);
  }
}
