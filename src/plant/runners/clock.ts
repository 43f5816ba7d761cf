/** Wall clocks for the real-time runner: the monotonic system clock, and a virtual one for tests. */
import { setImmediate as immediate, setTimeout as sleepMs } from 'node:timers/promises';

export interface Clock {
  /** Monotonic time [s]. */
  now(): number;
  /** Resolves at (or just after) time t [s]. */
  sleepUntil(t: number): Promise<void>;
}

/** performance.now(); sleeps with setTimeout, then yields with setImmediate for the last millisecond. */
export const systemClock: Clock = {
  now: () => performance.now() / 1000,
  async sleepUntil(t: number): Promise<void> {
    for (;;) {
      const remainingMs = (t - performance.now() / 1000) * 1000;
      if (remainingMs <= 0) return;
      if (remainingMs > 1.5) await sleepMs(Math.floor(remainingMs - 1));
      else await immediate();
    }
  },
};

/** A clock that only moves when slept on (or advanced), for deterministic tests. */
export class VirtualClock implements Clock {
  private t: number;

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  advance(seconds: number): void {
    this.t += seconds;
  }

  async sleepUntil(t: number): Promise<void> {
    if (t > this.t) this.t = t;
    await Promise.resolve();
  }
}
