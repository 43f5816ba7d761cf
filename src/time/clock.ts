/**
 * The one clock abstraction of VILS: monotonic seconds plus a sleep, the system clock for real time and a
 * virtual one for tests. Every paced loop (the server's scene runner, the plant's real-time runner) takes a
 * Clock, so tests drive them without wall-clock sleeps.
 */
import { setImmediate as immediate, setTimeout as sleepMs } from 'node:timers/promises';

export interface Clock {
  /** Monotonic time [s]. */
  now(): number;
  /** Resolves at (or just after) time t [s], or as soon as `signal` aborts. */
  sleepUntil(t: number, signal?: AbortSignal): Promise<void>;
}

export interface SystemClockOptions {
  /**
   * The last part of a sleep [s] spent yielding with setImmediate instead of a timer, for sub-millisecond
   * precision (a 1 kHz plant). 0 sleeps on timers only (a 10–50 Hz publisher does not need to spin).
   */
  readonly spinS?: number;
}

/** performance.now() as a Clock; sleeps with setTimeout, then optionally yields for the last `spinS`. */
export function createSystemClock(opts: SystemClockOptions = {}): Clock {
  const spinMs = Math.max(0, (opts.spinS ?? 0.0015) * 1000);
  return {
    now: () => performance.now() / 1000,
    async sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
      const opts = signal ? { signal } : undefined;
      try {
        for (;;) {
          if (signal?.aborted) return;
          const remainingMs = (t - performance.now() / 1000) * 1000;
          if (remainingMs <= 0) return;
          if (spinMs === 0) await sleepMs(Math.ceil(remainingMs), undefined, opts);
          else if (remainingMs > spinMs) await sleepMs(Math.floor(remainingMs - spinMs), undefined, opts);
          else await immediate(undefined, opts);
        }
      } catch (err) {
        if (!signal?.aborted) throw err; // an abort ends the sleep early; anything else is an error
      }
    },
  };
}

/** The system clock with 1.5 ms of spinning at the end of a sleep (the plant's real-time runner). */
export const systemClock: Clock = createSystemClock();

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

  async sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    if (t > this.t) this.t = t;
    await Promise.resolve();
  }
}
