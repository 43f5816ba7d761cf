/**
 * The time conductor of a hosted scene (src/time/session.ts): the NPC world, the simulated egos of a scenario
 * (sim-egos.ts) and external simulators that register over the UDP asset protocol are assets of one
 * TimeSession (one ConductedWorld, src/scenario/conducted-world.ts, as `vils run`'s world has): this is its
 * set-up — what is attached, the asset port, the status — and the session's tick (scene-session.ts) advances
 * its world; the world asset steps the scene through the logged inputs (inputs.ts), never back through here.
 *
 * Modes (`time:` of the scenario, or `vils serve --time-mode`):
 *   - realtime (default): the runner's clock is the wall clock and the master: a wall-clock asset is dragged to
 *     the tick's time, the world takes the policy steps due as it always did (the frame is its output), the
 *     simulated egos step within half a publish period, and nothing — no ego, no external asset — can hold
 *     the tick. An asset more than dmax behind is reported (status, log, web map); the world then uses its last
 *     report, which the scene extrapolates along the ego's heading at its speed.
 *   - afap / lockstep: the runner still paces the scene (at most real time), but the conductor's rule holds
 *     it: an advance waits for the assets up to one publish period and then stops short; the runner gives the
 *     time up (RunnerStats.heldS) and publishes the frame where the scene is. lockstep steps every asset by the
 *     same step (every asset sees every step); afap lets them run up to dmax apart.
 *
 * The world joins at 0 having taken the policy step at 0, through the logged advance, so a recording
 * replays exactly as before. Between the world's steps the runner's last advance only moves the scene's time
 * (never to a policy step the world asset has not taken: that would run a step behind the conductor's back).
 */
import { POLICY_DT } from '../traffic/engine.js';
import type { StoryHook } from '../scenario/assets.js';
import { ConductedWorld, type WorldSet } from '../scenario/conducted-world.js';
import type { StopLine } from '../vehicle/index.js';
import type { SimEgo } from '../scenario/sim-ego.js';
import type { EgoReport } from '../scene/egos.js';
import type { LiveScene, SceneSnapshot } from '../scene/scene.js';
import type { Clock } from '../time/clock.js';
import { openAssetPort, sessionStatusJson, type AssetServer, type RunnerEvent, type TimeSession, type TimeSettings } from '../time/index.js';
import type { SceneInputs } from './inputs.js';

export interface SceneTimeOptions {
  readonly settings: TimeSettings;
  readonly clock?: Clock;
  /** the runner's publish period [s] now (a realtime tick's budget, an afap/lockstep tick's wait) */
  readonly periodS: () => number;
  readonly onEvent?: (e: RunnerEvent) => void;
}

/**
 * Egos that are not assets of the session (a served scenario's plants in their own thread, sim-ego-thread.ts):
 * they hear of every policy step's snapshot and the stop lines closed then, after the step.
 */
export type TrafficObserver = (tS: number, snap: SceneSnapshot, stops: readonly StopLine[]) => void;

interface Attached {
  egos: readonly SimEgo[];
  report: (r: EgoReport, tS: number) => void;
  onReset: () => void;
  observe: TrafficObserver | null;
}

export class SceneTime {
  readonly settings: TimeSettings;
  /** the world (and the simulated egos, once attached) on the conductor: the session's tick advances it */
  readonly world: ConductedWorld;
  private readonly scene: LiveScene;
  /** the simulated egos stepped in-process (attached at a reset) */
  private attached: readonly SimEgo[] = [];
  private onReset: (() => void) | null = null;
  /** egos to attach at the next reset (between two ticks, never under one) */
  private pending: Attached | null = null;
  /** egos outside the session that observe the world's steps */
  private observer: TrafficObserver | null = null;
  private port: { server: AssetServer; port: number } | null = null;
  /** a served test case, stepped with the world (set before the reset that attaches it) */
  private story: StoryHook | null = null;

  constructor(private readonly inputs: SceneInputs, private readonly opts: SceneTimeOptions) {
    this.settings = opts.settings;
    this.scene = inputs.scene;
    this.world = new ConductedWorld(this.settings, this.set([], () => undefined), { clock: opts.clock, onEvent: opts.onEvent });
  }

  /** the conductor (external assets attach to it over the asset port) */
  get session(): TimeSession {
    return this.world.session;
  }

  /** The world asset steps the scene through the logged inputs. */
  private set(egos: readonly SimEgo[], report: (r: EgoReport, tS: number) => void): WorldSet {
    return { scene: this.inputs.stepped, egos, report, story: this.hook() };
  }

  /** The world's hook around each policy step: the test case, then the observer (the egos' thread) after it. */
  private hook(): StoryHook | null {
    const story = this.story;
    const observe = this.observer;
    if (!observe) return story;
    return {
      beforeBoundary: (ts) => story?.beforeBoundary(ts),
      afterBoundary: (ts, snap) => {
        story?.afterBoundary(ts, snap);
        observe(ts, snap, this.scene.signalStops());
      },
      reset: () => story?.reset?.(),
    };
  }

  /** A test case steps with the world from the next reset on (the caller resets the runner next). */
  setStory(story: StoryHook): void {
    this.story = story;
    this.pending ??= { egos: this.attached, report: this.report, onReset: this.onReset ?? (() => undefined), observe: this.observer };
  }

  private report: (r: EgoReport, tS: number) => void = () => undefined;

  /**
   * Simulated egos join the conductor at the next scene reset (the caller resets the runner next; the swap
   * happens between two ticks, never under one): the world is replaced by one that waits for them. `report`
   * hands an ego report to the scene inputs; `onReset` puts the egos back at their starts after every reset;
   * `observe` hears of every policy step (egos that run outside the session: `egos` is then empty).
   * Throws TimeSettingsError when their steps do not fit the settings.
   */
  attachEgos(egos: readonly SimEgo[], report: (r: EgoReport, tS: number) => void, onReset: () => void, observe: TrafficObserver | null = null): void {
    this.world.checkSet(this.set(egos, report));
    this.pending = { egos, report, onReset, observe };
  }

  private swapIn({ egos, report, onReset, observe }: Attached): void {
    this.observer = observe;
    this.world.replaceSet(this.set(egos, report), 'replaced');
    this.attached = egos;
    this.report = report;
    this.onReset = onReset;
  }

  /** Detaches the simulated egos (their assets leave; the world no longer waits for them). */
  detachEgos(): void {
    this.observer = null;
    this.world.replaceSet(this.set([], () => undefined), 'detached');
    this.attached = [];
    this.onReset = null;
  }

  /** Opens the external-asset port if the settings give one; returns its port. */
  async open(): Promise<number | null> {
    if (this.port || this.settings.asset_port === null) return this.port?.port ?? null;
    this.port = await openAssetPort(this.session, this.settings);
    return this.port?.port ?? null;
  }

  async close(): Promise<void> {
    await this.port?.server.close();
    this.port = null;
  }

  get assetPort(): number | null {
    return this.port?.port ?? null;
  }

  /** the simulated egos on the conductor now (reported to the scene after each tick) */
  get egos(): readonly SimEgo[] {
    return this.attached;
  }

  /** a tick's budget and wait [s]: the runner's publish period now */
  get periodS(): number {
    return this.opts.periodS();
  }

  /** After the scene's reset: egos attached since join, the conductor back to 0, the egos at their starts. */
  afterReset(): void {
    const p = this.pending;
    this.pending = null;
    if (p) this.swapIn(p);
    this.world.reset();
    this.onReset?.();
  }

  /** GET /api/status `time`. */
  status(): Record<string, unknown> {
    return { ...sessionStatusJson(this.session), asset_port: this.port?.port ?? null, policy_step_ms: Math.round(POLICY_DT * 1000) };
  }
}
