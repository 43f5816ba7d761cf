/** A clock for live-server tests that moves only when the test lets it: the runner's sleep waits for release(). */
import type { Clock } from '../../src/time/clock.js';

export class SteppedClock implements Clock {
  t = 0;
  private waiting: { t: number; resolve: () => void } | null = null;
  now(): number {
    return this.t;
  }
  sleepUntil(t: number): Promise<void> {
    if (t <= this.t) return new Promise((r) => setImmediate(r));
    return new Promise((resolve) => (this.waiting = { t, resolve }));
  }
  /**
   * Lets the sleeper wake (its time comes), `lateS` after its time (a server that froze that long); false when
   * nothing sleeps yet.
   */
  release(lateS = 0): boolean {
    const w = this.waiting;
    if (!w) return false;
    this.waiting = null;
    this.t = w.t + lateS;
    w.resolve();
    return true;
  }
}
