/**
 * Real-time (free-run) mode (VDSim RealTimeRunner): ticks the session on an absolute wall-clock schedule,
 * next = start + k·dt/time_scale, so timing errors never accumulate. When no command has arrived for
 * cmd_timeout_s the fail-safe command (throttle 0, brake 0.3, steer 0, gear 1) is latched, and re-latched every
 * tick until a command arrives (an ECU watchdog). A tick that falls more than maxLagTicks behind is counted as
 * an overrun and the ticks it missed are skipped instead of run in a burst (the shared Pacer of src/time).
 */
import type { SimSession } from '../session.js';
import type { DriverCommand } from '../types.js';
import { type Clock, systemClock } from '../../time/clock.js';
import { Pacer } from '../../time/pacer.js';

export const FAILSAFE_COMMAND: Readonly<DriverCommand> = Object.freeze({ steer: 0, throttle: 0, brake: 0.3, gear: 1, handbrake: false });

export interface RealTimeOptions {
  /** Sim step [s] (default 0.005). */
  dt?: number;
  /** Seconds without a command before the fail-safe latches (default 0.1; ≤ 0 disables). */
  cmdTimeoutS?: number;
  failsafe?: Readonly<DriverCommand>;
  /** Wall-clock speed-up, clamped to [0.05, 10] (default 1). */
  timeScale?: number;
  /** Stop once the sim time reaches this [s] (default: run until stop()). */
  tEndS?: number;
  /** Ticks of lag tolerated before the schedule is reset (default 10). */
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
  readonly stats: RealTimeStats = { ticks: 0, overruns: 0, maxLateS: 0, failsafeActive: false, failsafeTicks: 0 };
  private readonly clock: Clock;
  private readonly opts: RealTimeOptions;
  private timeScale_: number;
  private running = false;
  private lastInputAt = 0;
  private seenInputs = 0;

  constructor(session: SimSession, opts: RealTimeOptions = {}) {
    this.session = session;
    this.opts = opts;
    this.dt = opts.dt ?? 0.005;
    if (!(this.dt > 0)) throw new RangeError(`dt must be > 0, got ${this.dt}`);
    this.cmdTimeoutS = opts.cmdTimeoutS ?? 0.1;
    this.failsafe = opts.failsafe ?? FAILSAFE_COMMAND;
    this.clock = opts.clock ?? systemClock;
    this.lastInputAt = this.clock.now();
    this.timeScale_ = 1;
    this.timeScale = opts.timeScale ?? 1;
  }

  get timeScale(): number {
    return this.timeScale_;
  }

  /** Live time scale, clamped to [0.05, 10]; takes effect from the next tick. */
  set timeScale(v: number) {
    this.timeScale_ = Number.isFinite(v) ? Math.min(10, Math.max(0.05, v)) : 1;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Latches a command and restarts the watchdog (commands sent straight to the session count too). */
  setInput(cmd: Readonly<Partial<DriverCommand>>): void {
    this.session.setInput(cmd);
    this.lastInputAt = this.clock.now();
    this.seenInputs = this.session.inputCount;
    this.stats.failsafeActive = false;
  }

  /** Wall-clock seconds since the last command (the watchdog's input). */
  secondsSinceLastInput(): number {
    return this.clock.now() - this.lastInputAt;
  }

  stop(): void {
    this.running = false;
  }

  /** Runs until stop() or t_end; resolves with the statistics. */
  async run(): Promise<RealTimeStats> {
    if (this.running) throw new Error('RealTimeRunner is already running');
    this.running = true;
    const clock = this.clock;
    const session = this.session;
    const pacer = new Pacer(this.dt / this.timeScale_, Math.max(1, this.opts.maxLagTicks ?? 10));
    pacer.start(clock.now());
    this.lastInputAt = pacer.due;
    this.seenInputs = session.inputCount;
    try {
      while (this.running) {
        const period = this.dt / this.timeScale_;
        if (period !== pacer.period) pacer.setPeriod(period);
        await clock.sleepUntil(pacer.due);
        if (!this.running) break;
        const now = clock.now();
        pacer.begin(now);
        this.stats.overruns = pacer.stats.overruns;
        this.stats.maxLateS = pacer.stats.maxLateS;
        if (session.inputCount !== this.seenInputs) {
          this.seenInputs = session.inputCount;
          this.lastInputAt = now;
          this.stats.failsafeActive = false;
        }
        if (this.cmdTimeoutS > 0 && now - this.lastInputAt > this.cmdTimeoutS) {
          session.setInput(this.failsafe);
          this.seenInputs = session.inputCount;
          this.stats.failsafeActive = true;
          this.stats.failsafeTicks++;
        }
        session.tick(this.dt);
        this.stats.ticks++;
        this.opts.onTick?.(session);
        if (this.opts.tEndS !== undefined && session.simTime >= this.opts.tEndS - 1e-12) break;
      }
    } finally {
      this.running = false;
    }
    return this.stats;
  }
}

