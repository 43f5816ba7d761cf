/**
 * The smallest value of a stream over a sliding time window, in O(1) amortised per sample and no allocation
 * after construction: a monotonic queue (each kept sample is smaller than every later kept one, so the head is
 * the minimum) in a ring of typed arrays. The lower envelope of delays that clock filters (NTP's among them)
 * are built on.
 */
export class WindowMin {
  private readonly ts: Float64Array;
  private readonly vs: Float64Array;
  private head = 0;
  private size = 0;

  /** `windowS`: how long a sample counts; `capacity`: the most samples kept at once (older minima drop out first). */
  constructor(readonly windowS: number, capacity = 1024) {
    this.ts = new Float64Array(capacity);
    this.vs = new Float64Array(capacity);
  }

  /** Adds a sample at time t (times must not go backwards). */
  push(t: number, v: number): void {
    const cap = this.ts.length;
    // samples no smaller than the new one can never be the minimum again
    while (this.size > 0 && this.vs[(this.head + this.size - 1) % cap] >= v) this.size--;
    if (this.size === cap) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
    const i = (this.head + this.size) % cap;
    this.ts[i] = t;
    this.vs[i] = v;
    this.size++;
    this.expire(t);
  }

  /** Drops the samples older than the window at time t. */
  expire(t: number): void {
    const cap = this.ts.length;
    while (this.size > 0 && this.ts[this.head] < t - this.windowS) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
  }

  /** The smallest sample in the window (Infinity when empty). */
  get min(): number {
    return this.size > 0 ? this.vs[this.head] : Infinity;
  }

  /** When that sample was taken (NaN when empty). */
  get minAt(): number {
    return this.size > 0 ? this.ts[this.head] : NaN;
  }

  get empty(): boolean {
    return this.size === 0;
  }

  clear(): void {
    this.size = 0;
    this.head = 0;
  }
}
