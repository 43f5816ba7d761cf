/**
 * src/session — what runs a scene, apart from how it is served: the room that owns the scene, its input log
 * (inputs.ts), its time conductor (scene-time.ts: the NPC world, simulated egos and external assets), and the
 * optional test case and simulated egos attached to it (story-desk.ts, sim-egos.ts), with one entry per tick,
 * advanceTo(t). `vils serve` paces it in real time (runner.ts) and serves it (src/server); `vils drive` steps it
 * headless; `vils run`'s world takes the same one advance (ConductedWorld.advanceTo,
 * src/scenario/conducted-world.ts) without an input log; replay makes a recording's logged calls again through
 * the input log (inputs.apply, src/record/replay.ts): the advances among them are that advance's scene steps.
 *
 * The tick: runner → here → the conductor's advance (src/scenario/conducted-world.ts → src/time/timed-world.ts,
 * session.ts) → the world asset (src/scenario/assets.ts) → the logged inputs → the scene. Nothing on it calls
 * back up: the world asset steps the scene through the inputs' logged advance, and the scene's time is moved on
 * by the same advance, after the world's steps.
 * scene-time.ts is the conductor's set-up (what is attached to it), not a step on the way.
 */
import type { LiveScene, SceneSnapshot } from '../scene/index.js';
import type { Clock } from '../time/clock.js';
import type { RunnerEvent, TimeSettings } from '../time/index.js';
import { SceneInputs } from './inputs.js';
import type { RunnerScene } from './runner.js';
import { SceneTime } from './scene-time.js';

export interface SceneSessionOptions {
  /** the time conductor's settings */
  readonly time: TimeSettings;
  readonly clock?: Clock;
  /** a tick's period now [s] (a realtime tick's budget, an afap/lockstep tick's wait) */
  readonly periodS: () => number;
  readonly onTimeEvent?: (e: RunnerEvent) => void;
  /** a listener of the input log that threw */
  readonly onListenerError?: (err: unknown) => void;
}

export class SceneSession implements RunnerScene {
  readonly scene: LiveScene;
  /** every input that changes the scene goes through here (logged for recording and exact replay) */
  readonly inputs: SceneInputs;
  /** the time conductor: the world, simulated egos and external simulators as assets */
  readonly conductor: SceneTime;

  constructor(scene: LiveScene, opts: SceneSessionOptions) {
    this.scene = scene;
    this.inputs = new SceneInputs(scene, opts.onListenerError);
    this.conductor = new SceneTime(this.inputs, { settings: opts.time, clock: opts.clock, periodS: opts.periodS, onEvent: opts.onTimeEvent });
  }

  /** the scene's time [s] */
  get time(): number {
    return this.scene.time;
  }

  /** the time of the scene's next policy step [s] */
  get nextStepTime(): number {
    return this.scene.nextStepTime;
  }

  /**
   * The one entry per tick: the conductor's one advance (ConductedWorld.advanceTo, the same `vils run`'s world
   * takes) to simulation time t, within half a tick's budget and waiting at most a tick: the world's policy steps
   * through the logged inputs, the simulated egos, the test case and external assets; each ego reported as it is
   * now; the scene's time moved on to where the conductor reached. Returns the policy steps that last move ran.
   */
  async advanceTo(t: number): Promise<number> {
    const period = this.conductor.periodS;
    return (await this.conductor.world.advanceTo(t, { budgetS: period / 2, maxWaitS: period })).steps;
  }

  /** Back to time 0 (logged), then the conductor and whatever is attached to it. */
  reset(): void {
    this.inputs.reset();
    this.conductor.afterReset();
  }

  snapshot(t?: number): SceneSnapshot {
    return this.scene.snapshot(t);
  }

  /** Closes the conductor's asset port. */
  close(): Promise<void> {
    return this.conductor.close();
  }
}
