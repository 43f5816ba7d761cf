/**
 * Paces a scene in real time: simulation time follows the wall clock while running and stands still while
 * paused. Every 1/publish_hz s the runner advances the scene to the current simulation time (running the
 * 0.1 s policy steps due) and hands a frame to its sinks; while paused or stopped, sinks get a frame saying
 * so once a second. One loop, one Pacer on one Clock (src/time): changing the rate re-anchors the schedule
 * and never restarts or starves it. Simulated egos that tick faster than frames are published (a plant at
 * 200 Hz talking VDS1 to a control stack) ask for a tick rate of their own (setMinTickHz): the runner then
 * advances the scene several times per frame, on a grid the publish grid is part of, and publishes on every
 * n-th tick, so their STATE leaves paced instead of in a burst per frame.
 */
import type { SceneSnapshot } from '../scene/index.js';
import { POLICY_DT } from '../traffic/engine.js';
import { createSystemClock, type Clock } from '../time/clock.js';
import { Pacer } from '../time/pacer.js';
import type { RunState } from '../protocol/index.js';


/** The scene as the runner drives it (a SceneSession): advanced and reset through its one entry, read directly. */
export interface RunnerScene {
  readonly time: number;
  readonly nextStepTime: number;
  advanceTo(t: number): Promise<number> | number;
  reset(): void;
  snapshot(t?: number): SceneSnapshot;
}

export interface PublishedFrame {
  readonly snapshot: SceneSnapshot;
  readonly state: RunState;
  /** wall-clock time at which simulation time was the frame's time, seconds since the Unix epoch */
  readonly wallTimeS: number;
}

/** Where frames go: WebSocket clients now; recorders and other protocols plug in the same way. */
export interface FrameSink {
  publish(frame: PublishedFrame): void;
}

export interface RunnerOptions {
  publishHz?: number;
  clock?: Clock;
  /** epoch seconds (default Date.now()/1000), injectable for tests */
  epochNow?: () => number;
  onError?: (err: unknown) => void;
  /** how far behind the scene may be caught up in one tick after a stall [s] (default DEFAULT_MAX_CATCH_UP_S) */
  maxCatchUpS?: () => number;
}

export const MIN_PUBLISH_HZ = 10;
export const MAX_PUBLISH_HZ = 50;
/** the fastest the runner advances a scene (simulated egos at 1 kHz) */
export const MAX_TICK_HZ = 1000;
/** While paused or stopped, a frame saying so this often [s]. */
const IDLE_FRAME_PERIOD_S = 1;
/**
 * Behind by at most this after a stall, the tick runs the policy steps it missed in one burst, so the scene is
 * where real time puts it (a real car cannot wait; a test case's actors must be where the car's stack expects
 * them); further behind, simulation time slips instead (a debugger, a blocked process) and the stall is counted.
 */
export const DEFAULT_MAX_CATCH_UP_S = 1;
/** How far past a grid point (in periods) align() still takes that point as the next tick's. */
const ALIGN_SLACK_PERIODS = 1e-3;
/** A scene left further behind the tick's time than this was held by the time conductor [s]. */
const HELD_EPS_S = 1e-5;

export interface RunnerStats {
  ticks: number;
  overruns: number;
  skippedTicks: number;
  /** frames handed to the sinks */
  frames: number;
  /** simulation time given up after stalls longer than the catch-up allows [s], and how many */
  slippedS: number;
  slips: number;
  /** simulation time run late, in bursts after shorter stalls, to be where real time puts the scene [s], and how many */
  caughtUpS: number;
  catchUps: number;
  /** simulation time given up because the time conductor held the scene (lockstep / afap with a slow asset) [s] */
  heldS: number;
  /** ticks at which it did */
  heldTicks: number;
  stepErrors: number;
}

export class SceneRunner {
  private readonly clock: Clock;
  private readonly pacer: Pacer;
  private readonly sinks = new Set<FrameSink>();
  private runState: RunState = 'stopped';
  private simAnchor = 0;
  private wallAnchor = 0;
  private lastIdleFrame = -Infinity;
  private closed = false;
  private readonly done: Promise<void>;
  private slippedS = 0;
  private slips = 0;
  private caughtUpS = 0;
  private catchUps = 0;
  private heldS = 0;
  private heldTicks = 0;
  private frames = 0;
  private stepErrors = 0;
  private hz: number;
  /** ticks per published frame (1 unless setMinTickHz asked for more) */
  private ticksPerFrame = 1;
  private minTickHz: number | null = null;
  /** index on the tick grid (multiples of the tick period since time 0) of the next tick */
  private tickIndex = 0;
  private ticking: Promise<void> = Promise.resolve();
  private wake: () => void = () => {};
  /** epoch seconds − clock seconds */
  private readonly epochOffset: number;
  /** the simulation time at which the scene ends (a served scenario's duration; setEnd), null: never */
  private end: { t: number; onEnd: (t: number) => void } | null = null;
  /** the end has been reached since the last reset (it is not reached again until a reset) */
  private endReached = false;

  constructor(readonly scene: RunnerScene, private readonly opts: RunnerOptions = {}) {
    this.clock = opts.clock ?? createSystemClock({ spinS: 0 });
    const epochNow = opts.epochNow ?? (() => (performance.timeOrigin + performance.now()) / 1000);
    this.epochOffset = epochNow() - this.clock.now();
    this.hz = checkHz(opts.publishHz ?? MIN_PUBLISH_HZ);
    this.pacer = new Pacer(1 / this.hz);
    this.pacer.start(this.clock.now());
    this.done = this.loop();
  }

  get state(): RunState {
    return this.runState;
  }

  get publishHz(): number {
    return this.hz;
  }

  get stats(): RunnerStats {
    const p = this.pacer.stats;
    return {
      ticks: p.ticks, overruns: p.overruns, skippedTicks: p.skippedTicks, frames: this.frames, slippedS: this.slippedS, slips: this.slips,
      caughtUpS: this.caughtUpS, catchUps: this.catchUps, heldS: this.heldS, heldTicks: this.heldTicks, stepErrors: this.stepErrors,
    };
  }

  addSink(sink: FrameSink): void {
    this.sinks.add(sink);
  }

  removeSink(sink: FrameSink): void {
    this.sinks.delete(sink);
  }

  /** The server's wall clock, seconds since the Unix epoch, on the runner's clock (as frames are stamped). */
  epochNow(): number {
    return this.epochOffset + this.clock.now();
  }

  /**
   * The current simulation time: what an input arriving now is stamped with. (Between a reset and the tick that
   * starts the scene again it is 0: the anchor is that tick, still ahead.)
   */
  simNow(): number {
    return this.runState === 'running' ? this.simAnchor + Math.max(0, this.clock.now() - this.wallAnchor) : this.simAnchor;
  }

  setPublishHz(hz: number): void {
    this.hz = checkHz(hz);
    this.ticksPerFrame = this.minTickHz === null ? 1 : Math.max(1, Math.ceil(this.minTickHz / this.hz - 1e-9));
    this.align();
  }

  /** Ticks at least this often (several ticks per frame; null: one tick per frame). */
  setMinTickHz(hz: number | null): void {
    if (hz !== null && !(hz > 0 && hz <= MAX_TICK_HZ)) throw new RangeError(`tick rate must be within 0–${MAX_TICK_HZ} Hz, got ${hz}`);
    this.minTickHz = hz;
    this.setPublishHz(this.hz);
  }

  /**
   * Ends the scene at simulation time `t` (a served scenario's duration): the tick that reaches it advances the
   * scene to exactly `t`, pauses, publishes that frame (state paused) and calls `onEnd(t)` — which may reset and
   * start the scene again (a loop). Reached once per reset: started again after it, the scene runs on past `t`.
   * null: no end.
   */
  setEnd(t: number | null, onEnd: (t: number) => void = () => {}): void {
    if (t !== null && !(Number.isFinite(t) && t > 0)) throw new RangeError(`end time must be > 0 s, got ${t}`);
    this.end = t === null ? null : { t, onEnd };
  }

  /** Whether the end (setEnd) was reached since the last reset. */
  get ended(): boolean {
    return this.endReached;
  }

  /** The rate at which the scene is advanced [Hz] (publish_hz unless simulated egos asked for more). */
  get tickHz(): number {
    return this.hz * this.ticksPerFrame;
  }

  start(): void {
    if (this.runState === 'running') return;
    this.anchor(this.simAnchor);
    this.runState = 'running';
    this.align();
  }

  /**
   * Puts the ticks on the simulation-time grid of the publish period (multiples of 1/publish_hz), so with
   * a rate that divides 10 Hz every policy step runs on a tick, at the moment it is due.
   */
  private align(): void {
    const period = 1 / (this.hz * this.ticksPerFrame);
    const now = this.clock.now();
    const sim = this.runState === 'running' ? this.simAnchor + (now - this.wallAnchor) : this.simAnchor;
    // a grid point the clock passed a moment ago (the microseconds since start() anchored) is still the next tick,
    // due now: rounding it up would put the first tick a whole period away
    this.tickIndex = Math.ceil(sim / period - ALIGN_SLACK_PERIODS);
    const next = this.tickIndex * period;
    this.pacer.setPeriod(period);
    this.pacer.start(now + (this.runState === 'running' ? next - sim : 0));
    this.wake();
  }

  pause(): void {
    if (this.runState !== 'running') return;
    this.simAnchor = this.simNow();
    this.runState = 'paused';
    this.lastIdleFrame = -Infinity;
  }

  /**
   * The scene back to time 0 (see LiveScene.reset) once the step under way is done; the run state stays. Running,
   * the schedule goes on untouched: the scene starts again at time 0 on the next tick due, so a reset (or a storm of
   * them) never holds the step for more than one period (issue 44). Restarting the schedule here instead put time 0
   * on the grid's next point a period away — the clock had moved on by a few microseconds — and each reset pushed
   * the next tick a whole period back: resets every < 100 ms kept the step at 0 for seconds.
   */
  async reset(): Promise<void> {
    await this.ticking;
    this.scene.reset();
    this.endReached = false;
    if (this.runState === 'running') {
      this.simAnchor = 0;
      this.wallAnchor = this.pacer.due;
      this.tickIndex = 0;
    } else {
      this.anchor(0);
      this.align();
    }
  }

  private anchor(simTime: number): void {
    this.simAnchor = simTime;
    this.wallAnchor = this.clock.now();
  }

  /** Ends the loop (after the tick under way). */
  async close(): Promise<void> {
    this.closed = true;
    this.runState = 'stopped';
    this.wake();
    await this.done;
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      // a re-aligned schedule (a new rate, a start) wakes the loop instead of letting it sleep to the old tick
      const wake = new Promise<void>((resolve) => (this.wake = resolve));
      await Promise.race([this.clock.sleepUntil(this.pacer.due), wake]);
      if (this.closed) break;
      if (this.clock.now() < this.pacer.due) continue;
      const due = this.pacer.due;
      const periods = this.pacer.begin(this.clock.now());
      // a frame when the ticks this one stands for include one of the publish grid
      const n = this.ticksPerFrame;
      const first = this.tickIndex;
      this.tickIndex += periods;
      const frame = n === 1 || Math.floor((first + periods - 1) / n) > Math.floor((first - 1) / n);
      // the tick stands for the latest point of the schedule's grid it has reached
      this.ticking = this.tick(due + (periods - 1) * this.pacer.period, frame).catch((err: unknown) => {
        this.stepErrors++;
        this.opts.onError?.(err);
      });
      await this.ticking;
    }
  }

  private async tick(gridWall: number, frame: boolean): Promise<void> {
    if (this.runState !== 'running') {
      const now = this.clock.now();
      if (now - this.lastIdleFrame >= IDLE_FRAME_PERIOD_S) {
        this.lastIdleFrame = now;
        this.publish(this.scene.snapshot(this.simAnchor), this.epochOffset + now);
      }
      return;
    }
    let t = this.simAnchor + (gridWall - this.wallAnchor);
    const rate = this.hz * this.ticksPerFrame;
    const onGrid = Math.round(t * rate) / rate;
    if (Math.abs(onGrid - t) < 1e-6) t = onGrid; // the grid point itself, free of clock rounding
    const behind = t - this.scene.nextStepTime;
    if (behind > (this.opts.maxCatchUpS?.() ?? DEFAULT_MAX_CATCH_UP_S) + POLICY_DT) {
      // a long stall (a blocked process, a debugger): give the time up rather than run a long burst of steps
      const slip = behind - POLICY_DT;
      this.slippedS += slip;
      this.slips++;
      this.wallAnchor += slip;
      t -= slip;
    } else if (behind > POLICY_DT + 1e-9) {
      // a short one: the steps it missed, now, so the scene is where real time puts it
      this.caughtUpS += behind;
      this.catchUps++;
    }
    const end = this.end !== null && !this.endReached ? this.end : null;
    if (end && t > end.t) t = end.t; // never past the end
    await this.scene.advanceTo(t);
    if (this.runState !== 'running') return; // paused or closed while the step ran
    const held = t - this.scene.time;
    if (held > HELD_EPS_S) {
      // the time conductor stopped short (an asset held the core): the time is given up like a stall's, and
      // the frame shows the scene where it is
      this.heldS += held;
      this.heldTicks++;
      this.wallAnchor += held;
      t = this.scene.time;
    }
    if (end && t >= end.t - HELD_EPS_S) {
      // the end: paused at it, the frame says so, then whatever the owner does at the end
      const wallTimeS = this.epochOffset + this.wallAnchor + (t - this.simAnchor);
      this.endReached = true;
      this.simAnchor = end.t;
      this.runState = 'paused';
      this.lastIdleFrame = this.clock.now();
      this.publish(this.scene.snapshot(end.t), wallTimeS);
      end.onEnd(end.t); // (it must not await a reset here: the reset waits for this tick)
      return;
    }
    if (!frame) return;
    // stamped with the wall-clock time at which simulation time was t (not when the step finished)
    this.publish(this.scene.snapshot(t), this.epochOffset + this.wallAnchor + (t - this.simAnchor));
  }

  private publish(snapshot: SceneSnapshot, wallTimeS: number): void {
    const frame: PublishedFrame = { snapshot, state: this.runState, wallTimeS };
    this.frames++;
    for (const s of this.sinks) s.publish(frame);
  }
}

function checkHz(hz: number): number {
  if (!(hz >= MIN_PUBLISH_HZ && hz <= MAX_PUBLISH_HZ)) throw new RangeError(`publish_hz must be within ${MIN_PUBLISH_HZ}–${MAX_PUBLISH_HZ}, got ${hz}`);
  return hz;
}
