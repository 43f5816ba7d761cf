/**
 * src/session — what runs a scene, apart from how it is served: the room that owns the scene, its input log
 * (inputs.ts), its time conductor (scene-time.ts: the NPC world, simulated egos and external assets), and the
 * optional test case and simulated egos attached to it (story-desk.ts, sim-egos.ts), with one entry per tick,
 * advanceTo(t). `vils serve` paces it in real time (runner.ts) and serves it (src/server); `vils drive` steps it
 * headless; `vils run`'s world steps the same ConductedWorld (src/scenario/conducted-world.ts); replay re-makes
 * its logged calls on a scene (src/record/replay.ts).
 *
 * The tick: runner → here → scene-time → the conductor (src/time) → the world asset (src/scenario/assets.ts)
 * → the logged inputs → the scene. Nothing on it calls back up: the world asset steps the scene through the
 * inputs' logged advance, and the conductor's time is moved on here, after the world's steps.
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
   * The one entry per tick: everything that runs the scene (the world's policy steps, the simulated egos, the
   * test case, external assets) advanced to simulation time t. Returns the logged advance's steps.
   */
  advanceTo(t: number): Promise<number> {
    return this.conductor.advanceTo(t);
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
