/**
 * The inputs of a hosted scene, in one place: every call that changes the scene (ego reports, NPC and ego
 * commands, settings, and the runner's own advanceTo and reset) goes through here, so it can be logged with
 * the simulation time and the policy step at which it took effect — what an exact replay needs — and raw
 * inputs (ego_state messages as received, REST commands) can be observed by a recorder.
 *
 * Inputs take effect between policy steps. advanceTo awaits the policy's inference, and while it does,
 * socket and HTTP handlers run; an input arriving then is held and applied as soon as that advanceTo has
 * finished (before the frame is taken), in arrival order. An ego report keeps the simulation time it arrived
 * at. So the log is exactly: advance(t) … calls … advance(t') …, and replaying it against a scene stepped
 * with advanceTo gives the same NPC states bit for bit.
 *
 * The runner must drive the scene through `runnerView()` (SceneHost does), and every other caller through
 * the methods here: a change made on `host.scene` directly is not in the log, and replay will find the
 * difference it causes.
 */
import type { EgoReport, LiveScene, SceneConfig, SpawnRequest } from '../scene/index.js';
import type { LiveSignalInput, SignalPlan, SignalPlanOverride } from '../scene/control/index.js';
import { releaseSignal, setSignalLive, setSignalPlan, type LiveSignalResult, type SceneCall, type SceneCallResult } from '../record/log.js';

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

interface Held {
  run: () => void;
}

const epochNow = () => (performance.timeOrigin + performance.now()) / 1000;

/**
 * Something that drives the runner's steps itself (the simulated egos of a scenario, src/server/sim-egos.ts):
 * the runner's advanceTo(t) goes to it, with the logged advance to call for the scene's own steps, and it hears
 * of every reset. Its ego reports go through `updateEgo` like any other input, so they are logged in order.
 */
export interface StepDriver {
  advanceTo(t: number, advance: (t: number) => Promise<number>): Promise<number>;
  afterReset?(): void;
}

export class SceneInputs {
  private advancing = false;
  private held: Held[] = [];
  private readonly callListeners: Array<Listener<SceneCallEvent>> = [];
  private readonly rawListeners: Array<Listener<RawInput>> = [];
  /** calls made so far (the log's length) */
  calls = 0;
  /** inputs that had to wait for a policy step to finish */
  heldInputs = 0;
  private view: LiveScene | null = null;
  /** set by a scenario with simulated egos */
  driver: StepDriver | null = null;

  constructor(readonly scene: LiveScene, private readonly onListenerError: (err: unknown) => void = () => {}) {}

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

  /** True while a runner's advanceTo is under way (an input now is held until it ends). */
  get stepping(): boolean {
    return this.advancing;
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

  /**
   * The scene as a runner drives it: the same object, except that advanceTo and reset are logged and
   * advanceTo holds inputs while it runs.
   */
  runnerView(): LiveScene {
    if (this.view) return this.view;
    const scene = this.scene;
    const advanceTo = async (t: number): Promise<number> => {
      if (this.advancing) throw new Error('advanceTo is already running (a runner must await it)');
      this.advancing = true;
      let ran = 0;
      let error: string | null = null;
      try {
        ran = await scene.advanceTo(t);
        return ran;
      } catch (err) {
        error = (err as Error).message;
        throw err;
      } finally {
        this.advancing = false;
        this.log({ kind: 'advance', t }, scene.steps, error);
        this.releaseHeld();
      }
    };
    const reset = (): void => {
      if (this.advancing) throw new Error('reset during a policy step: wait for advanceTo to finish');
      scene.reset();
      this.log({ kind: 'reset' }, null, null);
      this.driver?.afterReset?.();
    };
    const driven = (t: number): Promise<number> => (this.driver ? this.driver.advanceTo(t, advanceTo) : advanceTo(t));
    this.view = new Proxy(scene, {
      get(target, prop) {
        if (prop === 'advanceTo') return driven;
        if (prop === 'reset') return reset;
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    return this.view;
  }

  private releaseHeld(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) h.run();
  }

  /** Makes a call now, or right after the advanceTo under way; logs it with its result or error. */
  submit<T>(call: SceneCall, apply: () => T, resultOf: (v: T) => SceneCallResult = () => null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        let value: T;
        try {
          value = apply();
        } catch (err) {
          this.log(call, null, (err as Error).message ?? String(err));
          reject(err);
          return;
        }
        this.log(call, resultOf(value), null);
        resolve(value);
      };
      if (this.advancing) {
        this.heldInputs++;
        this.held.push({ run });
      } else {
        run();
      }
    });
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
