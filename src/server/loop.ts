/**
 * Paces a step function to the wall clock on an absolute schedule: tick k is due at t0 + k·period, so
 * timer jitter never accumulates into drift. A step that ends after the next tick was due is an overrun:
 * it is counted and the missed ticks are skipped (the next tick is the next one still in the future),
 * never run back to back.
 */
export interface LoopStats {
  ticks: number;
  overruns: number;
  skippedTicks: number;
  lastPeriodMs: number;
}

export class PacedLoop {
  private timer: NodeJS.Timeout | null = null;
  private t0 = 0;
  private k = 0;
  private lastTickAt = 0;
  private running = false;
  private inStep = false;
  readonly stats: LoopStats = { ticks: 0, overruns: 0, skippedTicks: 0, lastPeriodMs: 0 };

  constructor(
    private periodMs: number,
    private readonly step: (nowMs: number) => Promise<void>,
    private readonly now: () => number = () => performance.now(),
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  setPeriod(periodMs: number): void {
    this.periodMs = periodMs;
    if (this.running) {
      // restart the schedule from the next tick with the new period
      this.t0 = this.now();
      this.k = 0;
      this.schedule();
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.t0 = this.now();
    this.k = 0;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (!this.running) return;
    const due = this.t0 + (this.k + 1) * this.periodMs;
    this.timer = setTimeout(() => void this.tick(), Math.max(0, due - this.now()));
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (!this.running || this.inStep) return;
    this.inStep = true;
    const start = this.now();
    if (this.lastTickAt > 0) this.stats.lastPeriodMs = start - this.lastTickAt;
    this.lastTickAt = start;
    this.k++;
    try {
      await this.step(start);
    } catch (err) {
      this.onError(err);
    } finally {
      this.inStep = false;
    }
    this.stats.ticks++;
    const end = this.now();
    const nextDue = this.t0 + (this.k + 1) * this.periodMs;
    if (end > nextDue) {
      this.stats.overruns++;
      const behind = Math.floor((end - this.t0) / this.periodMs) - this.k;
      this.stats.skippedTicks += behind;
      this.k += behind;
    }
    this.schedule();
  }
}

/** p50/p99/max over the last `size` samples (a fixed ring; summary() sorts a copy, for status replies). */
export class RollingStats {
  private readonly ring: Float64Array;
  private n = 0;
  private i = 0;

  constructor(size: number) {
    this.ring = new Float64Array(size);
  }

  push(v: number): void {
    this.ring[this.i] = v;
    this.i = (this.i + 1) % this.ring.length;
    if (this.n < this.ring.length) this.n++;
  }

  summary(): { p50: number; p99: number; max: number; n: number } {
    if (this.n === 0) return { p50: 0, p99: 0, max: 0, n: 0 };
    const s = Array.from(this.ring.subarray(0, this.n)).sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
    const r = (v: number) => Math.round(v * 1000) / 1000;
    return { p50: r(at(0.5)), p99: r(at(0.99)), max: r(s[s.length - 1]), n: this.n };
  }
}
