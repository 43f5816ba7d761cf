/**
 * src/session — what runs a scene, apart from how it is served: the room that owns the scene, its input log
 * (inputs.ts), its time conductor (scene-time.ts: the NPC world, simulated egos and external assets), and the
 * optional test case and simulated egos attached to it (story-desk.ts, sim-egos.ts), with one entry per tick,
 * advanceTo(t). `vils serve` paces it in real time (runner.ts) and serves it (src/server); `vils drive` steps it
 * headless; `vils run`'s world advances the same conductor (a ConductedWorld: src/scenario/conducted-world.ts);
 * replay makes a recording's logged calls again through the input log (inputs.apply, src/record/replay.ts).
 *
 * The tick: runner → here → the conductor (src/time/timed-world.ts, session.ts) → the world asset
 * (src/scenario/assets.ts) → the logged inputs → the scene. Nothing on it calls back up: the world asset steps
 * the scene through the inputs' logged advance, and the scene's time is moved on here, after the world's steps.
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
   * The one entry per tick: everything that runs the scene (the world's policy steps through the logged inputs,
   * the simulated egos within half a tick, the test case, external assets) advanced to simulation time t; then
   * each ego reported as it is now, and the scene's time moved on to where the conductor reached, short of a
   * policy step the world asset has not taken. Returns the policy steps that last move ran (none: 0).
   */
  async advanceTo(t: number): Promise<number> {
    const period = this.conductor.periodS;
    const world = this.conductor.world;
    const r = await world.advance(Math.round(t * 1e6), { budgetS: period / 2, maxWaitS: period });
    const reached = r.held ? r.tcUs / 1e6 : t;
    // each ego as it is now, for the frame (one left behind at its own time: the scene moves it on)
    for (const e of this.conductor.egos) world.reportNow(e);
    const to = Math.min(reached, this.scene.nextStepTime - 2e-6);
    return to > this.scene.time + 1e-9 ? this.inputs.advance(to) : 0;
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
