/**
 * Vehicles (slots) sorted by a coordinate, for the step's "which vehicles lie in this range" questions (the
 * car-following leaders near an NPC's path, the vehicles whose predicted boxes reach an NPC's rollouts): a
 * binary search gives the slots whose key lies in [lo, hi], which the caller then tests exactly as before and
 * takes in slot order (`inRange` returns them sorted by slot). The order changes little from one step to the
 * next, so the insertion sort that keeps it is close to linear. Slots whose key is NaN are in every range (a
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

  constructor(capacity: number) {
    this.slots = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.unkeyed = new Int32Array(capacity);
  }

  /** Starts a new set: add() every slot with its key, then sort(). */
  clear(): void {
    this.n = 0;
    this.unkeyedN = 0;
  }

  add(slot: number, key: number): void {
    if (key !== key) {
      this.unkeyed[this.unkeyedN++] = slot;
      return;
    }
    this.slots[this.n] = slot;
    this.keys[this.n++] = key;
  }

  /** Sorts by key (ties by slot: any order of equal keys would do, this one is stable across steps). */
  sort(): void {
    const s = this.slots, x = this.keys;
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
    let m = 0;
    for (let k = a; k < this.n && x[k] <= hi; k++) m = insert(out, m, s[k]);
    for (let k = 0; k < this.unkeyedN; k++) m = insert(out, m, this.unkeyed[k]);
    return m;
  }
}

/** Inserts a slot into out[0..m), kept in increasing order (a handful of slots); returns m + 1. */
function insert(out: Int32Array, m: number, slot: number): number {
  let q = m - 1;
  while (q >= 0 && out[q] > slot) {
    out[q + 1] = out[q];
    q--;
  }
  out[q + 1] = slot;
  return m + 1;
}
