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
