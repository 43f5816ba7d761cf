/**
 * An absolute tick schedule: tick k is due at t0 + k·period, so timer jitter never accumulates into drift.
 * A tick that starts a whole period or more late is an overrun: it is counted and the ticks it missed are
 * skipped (the schedule stays on its grid), never run back to back to catch up. Pure arithmetic: the loop
 * that sleeps on a Clock until `due` and calls `begin` is the caller's.
 */
export interface PacerStats {
  ticks: number;
  overruns: number;
  skippedTicks: number;
  /** largest lateness of a tick start behind its schedule [s] */
  maxLateS: number;
  /** time between the last two tick starts [s] */
  lastPeriodS: number;
}

export class Pacer {
  private t0 = 0;
  private k = 0;
  private lastStart = NaN;
  readonly stats: PacerStats = { ticks: 0, overruns: 0, skippedTicks: 0, maxLateS: 0, lastPeriodS: 0 };

  /**
   * @param periodS seconds between ticks
   * @param maxLagTicks whole periods a tick may start late before it counts as an overrun (default 1)
   */
  constructor(private periodS: number, private readonly maxLagTicks = 1) {
    Pacer.check(periodS);
  }

  private static check(periodS: number): void {
    if (!(periodS > 0) || !Number.isFinite(periodS)) throw new RangeError(`period must be a positive number of seconds, got ${periodS}`);
  }

  get period(): number {
    return this.periodS;
  }

  /** When the next tick is due [s, on the caller's clock]. */
  get due(): number {
    return this.t0 + this.k * this.periodS;
  }

  /** Starts the schedule: the first tick is due at `now`. */
  start(now: number): void {
    this.t0 = now;
    this.k = 0;
    this.lastStart = NaN;
  }

  /**
   * A tick starts at `now`: records its lateness, skips the ticks an overrun missed, and moves `due` to the
   * next tick. Returns the number of periods this tick stands for (1, or more after an overrun).
   */
  begin(now: number): number {
    const late = now - this.due;
    if (late > this.stats.maxLateS) this.stats.maxLateS = late;
    if (!Number.isNaN(this.lastStart)) this.stats.lastPeriodS = now - this.lastStart;
    this.lastStart = now;
    this.stats.ticks++;
    let periods = 1;
    const behind = Math.floor(late / this.periodS);
    if (behind >= this.maxLagTicks) {
      this.stats.overruns++;
      this.stats.skippedTicks += behind;
      periods += behind;
    }
    this.k += periods;
    return periods;
  }

  /** Changes the period from the next due tick on (the schedule is re-anchored there, never restarted). */
  setPeriod(periodS: number): void {
    Pacer.check(periodS);
    this.t0 = this.due;
    this.k = 0;
    this.periodS = periodS;
  }
}
