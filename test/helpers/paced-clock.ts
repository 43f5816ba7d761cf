/**
 * A clock for live-server tests that must keep about real time (a page watches the scene) yet decide what the
 * scene does alone: it wakes each sleeper no earlier than the wall clock allows, and then reads exactly the time it
 * slept until. A busy machine makes the scene run slower than real time, never differently: no tick is ever late
 * on this clock, so none is skipped, caught up in a burst or given up, as on the system clock under load.
 */
import type { Clock } from '../../src/time/clock.js';

export class PacedClock implements Clock {
  private t = 0;
  private readonly wall0 = performance.now();

  now(): number {
    return this.t;
  }

  async sleepUntil(t: number): Promise<void> {
    const aheadMs = (t - this.t) * 1000 - (performance.now() - this.wall0 - this.t * 1000);
    await new Promise<void>((resolve) => (aheadMs > 0 ? setTimeout(resolve, aheadMs) : setImmediate(resolve)));
    if (t > this.t) this.t = t;
  }
}
