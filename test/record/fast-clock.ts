/**
 * A virtual clock for servers under test: time jumps to whatever is slept until (as VirtualClock), but each
 * sleep yields to the event loop (setImmediate), so sockets and HTTP are served between ticks. VirtualClock
 * resolves on a microtask, which is right for a runner alone but starves a server's I/O.
 */
import type { Clock } from '../../src/time/clock.js';

export class FastClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  async sleepUntil(t: number): Promise<void> {
    if (t > this.t) this.t = t;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
