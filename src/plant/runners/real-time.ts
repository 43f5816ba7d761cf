/**
 * Real-time (free-run) mode (VDSim RealTimeRunner): ticks the session on an absolute wall-clock schedule,
 * next = start + k·dt/time_scale, so timing errors never accumulate. When no command has arrived for
 * cmd_timeout_s the fail-safe command (throttle 0, brake 0.3, steer 0, gear 1) is latched, and re-latched every
 * tick until a command arrives (an ECU watchdog). A tick that falls more than maxLagTicks behind is counted as
 * an overrun and the ticks it missed are skipped instead of run in a burst (the shared Pacer of src/time).
 *
 * The pieces are reusable on their own: RealTimeLoop is the paced loop (any tick body), CommandWatchdog the
 * per-session fail-safe. RealTimeRunner is one of each around one session; the co-simulation runner
 * (src/cosim) drives a fleet with one loop and a watchdog per vehicle.
 */
import type { SimSession } from '../session.js';
import { type DriverCommand, copyCommand, neutralCommand } from '../types.js';
import { type Clock, systemClock } from '../../time/clock.js';
import { Pacer } from '../../time/pacer.js';

export const FAILSAFE_COMMAND: Readonly<DriverCommand> = Object.freeze({ steer: 0, throttle: 0, brake: 0.3, gear: 1, handbrake: false });

/**
 * What the fail-safe does with the steering: 'zero' is VDSim's "brake and go straight" (steer 0); 'hold' keeps
 * the last commanded road-wheel angle, as the AutoHYU bridge contract asks (seed 002 §8).
 */
export type FailsafeSteer = 'zero' | 'hold';

export interface WatchdogOptions {
  /** Seconds without a command before the fail-safe latches (default 0.1; ≤ 0 disables). */
  cmdTimeoutS?: number;
  failsafe?: Readonly<DriverCommand>;
  failsafeSteer?: FailsafeSteer;
}

/**
 * The command watchdog of one session. `input` latches a command and restarts the timer at the time it
 * arrived; `check`, called just before each tick, latches the fail-safe once more than cmd_timeout has passed
 * since the last command (and re-latches it every tick while stale). Commands written straight to the session
 * count as input too: they are noticed at the next check. Allocation-free.
 */
export class CommandWatchdog {
  readonly cmdTimeoutS: number;
  readonly failsafe: Readonly<DriverCommand>;
  readonly failsafeSteer: FailsafeSteer;
  /** True while the fail-safe is latched. */
  active = false;
  /** Ticks run under the fail-safe. */
  ticks = 0;
  /** Times the fail-safe was entered. */
  entries = 0;
  /** Clock time of the last fail-safe entry [s] (NaN before the first). */
  lastEntryAt = NaN;
  /** Clock time of the last command [s]. */
  lastInputAt: number;
  private seenInputs: number;
  private readonly latched: DriverCommand = neutralCommand();

  constructor(
    readonly session: SimSession,
    opts: WatchdogOptions = {},
    now = 0,
  ) {
    this.cmdTimeoutS = opts.cmdTimeoutS ?? 0.1;
    this.failsafe = opts.failsafe ?? FAILSAFE_COMMAND;
    this.failsafeSteer = opts.failsafeSteer ?? 'zero';
    this.lastInputAt = now;
    this.seenInputs = session.inputCount;
    this.lastEntryAt = NaN;
  }

  /** Restarts the timer (e.g. when the loop starts), as if a command had arrived at `now`. */
  restart(now: number): void {
    this.lastInputAt = now;
    this.seenInputs = this.session.inputCount;
  }

  /** Latches a command that arrived at `now` and releases the fail-safe. */
  input(cmd: Readonly<Partial<DriverCommand>>, now: number): void {
    this.session.setInput(cmd);
    this.lastInputAt = now;
    this.seenInputs = this.session.inputCount;
    this.active = false;
  }

  /** Before a tick at `now`: latches the fail-safe when the command is stale. Returns whether it is active. */
  check(now: number): boolean {
    const session = this.session;
    if (session.inputCount !== this.seenInputs) {
      this.seenInputs = session.inputCount;
      this.lastInputAt = now;
      this.active = false;
    }
    if (this.cmdTimeoutS > 0 && now - this.lastInputAt > this.cmdTimeoutS) {
      if (!this.active) {
        copyCommand(this.latched, this.failsafe);
        if (this.failsafeSteer === 'hold') this.latched.steer = session.latchedCommand.steer;
        this.entries++;
        this.lastEntryAt = now;
      }
      session.setInput(this.latched);
      this.seenInputs = session.inputCount;
      this.active = true;
      this.ticks++;
    }
    return this.active;
  }

  /** Seconds since the last command at `now`. */
  age(now: number): number {
    return now - this.lastInputAt;
  }
}

export interface RealTimeLoopOptions {
  /** Sim step [s]; the wall-clock period is dt / timeScale. */
  dt: number;
  /** Wall-clock speed-up, clamped to [0.05, 10] (default 1). */
  timeScale?: number;
  /**
   * Whole periods a tick may start late before it counts as an overrun and the ticks it missed are skipped
   * (default 1: no tick ever runs back to back to catch up).
   */
  maxLagTicks?: number;
  clock?: Clock;
}

export interface RealTimeLoopStats {
  ticks: number;
  /** Ticks that started at least maxLagTicks periods late (the missed ticks were skipped). */
  overruns: number;
  skippedTicks: number;
  /** Largest lateness of a tick start behind its schedule [s]. */
  maxLateS: number;
  /** Lateness of the last tick start [s]. */
  lastLateS: number;
}

/**
 * The paced loop of real-time mode: `body(now)` runs once per period on the Pacer's absolute schedule, with
 * `now` the clock time the tick started; it returns false to stop. Missed ticks are skipped, not burst.
 */
export class RealTimeLoop {
  readonly dt: number;
  readonly clock: Clock;
  readonly stats: RealTimeLoopStats = { ticks: 0, overruns: 0, skippedTicks: 0, maxLateS: 0, lastLateS: 0 };
  private readonly maxLagTicks: number;
  private timeScale_ = 1;
  private running = false;

  constructor(
    opts: RealTimeLoopOptions,
    private readonly body: (now: number) => boolean | void,
  ) {
    this.dt = opts.dt;
    if (!(this.dt > 0) || !Number.isFinite(this.dt)) throw new RangeError(`dt must be > 0, got ${this.dt}`);
    this.clock = opts.clock ?? systemClock;
    this.maxLagTicks = Math.max(1, opts.maxLagTicks ?? 1);
    this.timeScale = opts.timeScale ?? 1;
  }

  get timeScale(): number {
    return this.timeScale_;
  }

  /** Live time scale, clamped to [0.05, 10]; takes effect from the next tick. */
  set timeScale(v: number) {
    this.timeScale_ = Number.isFinite(v) ? Math.min(10, Math.max(0.05, v)) : 1;
  }

  /** Wall-clock seconds between ticks. */
  get period(): number {
    return this.dt / this.timeScale_;
  }

  get isRunning(): boolean {
    return this.running;
  }

  stop(): void {
    this.running = false;
  }

  /** Runs until stop() or the body returns false; resolves with the statistics. */
  async run(): Promise<RealTimeLoopStats> {
    if (this.running) throw new Error('the real-time loop is already running');
    this.running = true;
    const clock = this.clock;
    const stats = this.stats;
    const pacer = new Pacer(this.period, this.maxLagTicks);
    pacer.start(clock.now());
    try {
      while (this.running) {
        const period = this.period;
        if (period !== pacer.period) pacer.setPeriod(period);
        await clock.sleepUntil(pacer.due);
        if (!this.running) break;
        const now = clock.now();
        stats.lastLateS = now - pacer.due;
        pacer.begin(now);
        stats.ticks = pacer.stats.ticks;
        stats.overruns = pacer.stats.overruns;
        stats.skippedTicks = pacer.stats.skippedTicks;
        stats.maxLateS = pacer.stats.maxLateS;
        if (this.body(now) === false) break;
      }
    } finally {
      this.running = false;
    }
    return stats;
  }
}

export interface RealTimeOptions extends WatchdogOptions {
  /** Sim step [s] (default 0.005). */
  dt?: number;
  /** Wall-clock speed-up, clamped to [0.05, 10] (default 1). */
  timeScale?: number;
  /** Stop once the sim time reaches this [s] (default: run until stop()). */
  tEndS?: number;
  /** Ticks of lag tolerated before the schedule skips the missed ticks (default 10). */
  maxLagTicks?: number;
  clock?: Clock;
  /** Called after every tick (e.g. to publish the state). */
  onTick?: (session: SimSession) => void;
}

export interface RealTimeStats {
  ticks: number;
  /** Times the schedule fell more than maxLagTicks behind (the missed ticks were skipped). */
  overruns: number;
  /** Largest lateness of a tick start behind its schedule [s]. */
  maxLateS: number;
  failsafeActive: boolean;
  failsafeTicks: number;
}

export class RealTimeRunner {
  readonly session: SimSession;
  readonly dt: number;
  readonly cmdTimeoutS: number;
  readonly failsafe: Readonly<DriverCommand>;
  readonly watchdog: CommandWatchdog;
  readonly stats: RealTimeStats = { ticks: 0, overruns: 0, maxLateS: 0, failsafeActive: false, failsafeTicks: 0 };
  private readonly clock: Clock;
  private readonly opts: RealTimeOptions;
  private readonly loop: RealTimeLoop;

  constructor(session: SimSession, opts: RealTimeOptions = {}) {
    this.session = session;
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.loop = new RealTimeLoop({ dt: opts.dt ?? 0.005, timeScale: opts.timeScale, maxLagTicks: opts.maxLagTicks ?? 10, clock: this.clock }, (now) => this.tick(now));
    this.dt = this.loop.dt;
    this.watchdog = new CommandWatchdog(session, opts, this.clock.now());
    this.cmdTimeoutS = this.watchdog.cmdTimeoutS;
    this.failsafe = this.watchdog.failsafe;
  }

  get timeScale(): number {
    return this.loop.timeScale;
  }

  /** Live time scale, clamped to [0.05, 10]; takes effect from the next tick. */
  set timeScale(v: number) {
    this.loop.timeScale = v;
  }

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  /** Latches a command and restarts the watchdog (commands sent straight to the session count too). */
  setInput(cmd: Readonly<Partial<DriverCommand>>): void {
    this.watchdog.input(cmd, this.clock.now());
    this.stats.failsafeActive = false;
  }

  /** Wall-clock seconds since the last command (the watchdog's input). */
  secondsSinceLastInput(): number {
    return this.watchdog.age(this.clock.now());
  }

  stop(): void {
    this.loop.stop();
  }

  private tick(now: number): boolean {
    const stats = this.stats;
    const ls = this.loop.stats;
    stats.overruns = ls.overruns;
    stats.maxLateS = ls.maxLateS;
    stats.failsafeActive = this.watchdog.check(now);
    stats.failsafeTicks = this.watchdog.ticks;
    this.session.tick(this.dt);
    stats.ticks++;
    this.opts.onTick?.(this.session);
    return !(this.opts.tEndS !== undefined && this.session.simTime >= this.opts.tEndS - 1e-12);
  }

  /** Runs until stop() or t_end; resolves with the statistics. */
  async run(): Promise<RealTimeStats> {
    if (this.loop.isRunning) throw new Error('RealTimeRunner is already running');
    this.watchdog.restart(this.clock.now());
    await this.loop.run();
    return this.stats;
  }
}
