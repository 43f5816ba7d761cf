/** Action selection over logits: argmax, or seeded multinomial sampling from softmax (spec §1.7). */
export { SeededRandom } from '../util/random.js';

/** Index of the largest of `count` values starting at `offset`; the first one wins ties, as torch.argmax. */
export function argmax(values: ArrayLike<number>, offset: number, count: number): number {
  let best = 0;
  let bestValue = values[offset];
  for (let i = 1; i < count; i++) {
    const v = values[offset + i];
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/** Draws an index from softmax(logits[offset .. offset+count)) with the given uniform sample. */
export function sampleSoftmax(logits: ArrayLike<number>, offset: number, count: number, uniform: number): number {
  let max = -Infinity;
  for (let i = 0; i < count; i++) if (logits[offset + i] > max) max = logits[offset + i];
  let total = 0;
  for (let i = 0; i < count; i++) total += Math.exp(logits[offset + i] - max);
  let threshold = uniform * total;
  for (let i = 0; i < count; i++) {
    threshold -= Math.exp(logits[offset + i] - max);
    if (threshold < 0) return i;
  }
  return count - 1;
}
