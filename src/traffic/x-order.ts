/**
 * Vehicles (slots) sorted by a coordinate, for the step's "which vehicles lie in this range" questions (the
 * car-following leaders near an NPC's path, the vehicles whose predicted boxes reach an NPC's rollouts): a
 * binary search gives the slots whose key lies in [lo, hi], which the caller then tests exactly as before and
 * takes in slot order (`inRange` returns them sorted by slot, through a bit set). The order changes little from
 * one step to the next: each set starts from the last one's order, so the insertion sort that keeps it is close
 * to linear. Slots whose key is NaN are in every range (a
 * comparison with NaN rejects nothing: the caller's exact test decides). Nothing is allocated after construction.
 */
export class XOrder {
  /** slots sorted by key, n of them */
  private readonly slots: Int32Array;
  private readonly keys: Float64Array;
  private n = 0;
  /** slots whose key is NaN */
  private readonly unkeyed: Int32Array;
  private unkeyedN = 0;
  /** inRange's bit set of slots (handed out in slot order) */
  private readonly bits: Int32Array;
  /** per slot: the set it was last added to (a count of sets), and its key there */
  private readonly inSet: Int32Array;
  private readonly keyOf: Float64Array;
  private set = 0;
  /** the last set's order, to start the next one from */
  private readonly last: Int32Array;
  private lastN = 0;

  constructor(capacity: number) {
    this.slots = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.unkeyed = new Int32Array(capacity);
    this.bits = new Int32Array((capacity >>> 5) + 1);
    this.inSet = new Int32Array(capacity).fill(-1);
    this.keyOf = new Float64Array(capacity);
    this.last = new Int32Array(capacity);
  }

  /** Starts a new set: add() every slot with its key, then sort(). */
  clear(): void {
    for (let k = 0; k < this.n; k++) this.last[k] = this.slots[k];
    this.lastN = this.n;
    this.n = 0;
    this.unkeyedN = 0;
    this.set++;
  }

  add(slot: number, key: number): void {
    if (key !== key) {
      this.unkeyed[this.unkeyedN++] = slot;
      return;
    }
    this.inSet[slot] = this.set;
    this.keyOf[slot] = key;
  }

  /**
   * Sorts by key (ties by slot): the slots of the last set still in this one in its order, then the new ones, then
   * an insertion sort.
   */
  sort(): void {
    const s = this.slots, x = this.keys;
    let n = 0;
    for (let k = 0; k < this.lastN; k++) {
      const slot = this.last[k];
      if (this.inSet[slot] !== this.set) continue;
      this.inSet[slot] = -this.set - 1; // taken
      s[n] = slot;
      x[n++] = this.keyOf[slot];
    }
    for (let slot = 0; slot < this.inSet.length; slot++) {
      if (this.inSet[slot] !== this.set) continue;
      s[n] = slot;
      x[n++] = this.keyOf[slot];
    }
    this.n = n;
    for (let i = 1; i < this.n; i++) {
      const slot = s[i], key = x[i];
      let k = i - 1;
      while (k >= 0 && (x[k] > key || (x[k] === key && s[k] > slot))) {
        s[k + 1] = s[k];
        x[k + 1] = x[k];
        k--;
      }
      s[k + 1] = slot;
      x[k + 1] = key;
    }
  }

  /**
   * The slots whose key lies in [lo, hi] (and those with a NaN key) into `out`, in increasing slot order;
   * returns how many. A NaN bound gives every slot (a comparison with NaN rejects nothing).
   */
  inRange(lo: number, hi: number, out: Int32Array): number {
    const s = this.slots, x = this.keys;
    if (lo !== lo || hi !== hi) {
      lo = -Infinity;
      hi = Infinity;
    }
    // first key ≥ lo
    let a = 0, b = this.n;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (x[mid] < lo) a = mid + 1;
      else b = mid;
    }
    // into slot order through a bit set over the slots
    const bits = this.bits;
    let wlo = bits.length, whi = -1;
    for (let k = a; k < this.n && x[k] <= hi; k++) {
      const w = s[k] >>> 5;
      bits[w] |= 1 << (s[k] & 31);
      if (w < wlo) wlo = w;
      if (w > whi) whi = w;
    }
    for (let k = 0; k < this.unkeyedN; k++) {
      const w = this.unkeyed[k] >>> 5;
      bits[w] |= 1 << (this.unkeyed[k] & 31);
      if (w < wlo) wlo = w;
      if (w > whi) whi = w;
    }
    let m = 0;
    for (let w = wlo; w <= whi; w++) {
      let word = bits[w];
      bits[w] = 0;
      while (word !== 0) {
        const low = word & -word;
        out[m++] = (w << 5) + 31 - Math.clz32(low);
        word ^= low;
      }
    }
    return m;
  }
}
