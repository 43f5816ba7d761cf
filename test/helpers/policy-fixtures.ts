/** Random late-fusion weights and observations for policy tests (no ../shared needed). */
import { LATE_FUSION_TENSORS, OBS_SIZE, ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS, PARTNER_OFFSET, PARTNER_FEATURES } from '../../src/policy/index.js';
import { SeededRandom } from '../../src/policy/sampling.js';
import type { TestTensor } from './torch-writer.js';

export function randomLateFusionTensors(seed = 1): Map<string, TestTensor> {
  const rng = new SeededRandom(seed);
  const out = new Map<string, TestTensor>();
  for (const [name, shape] of LATE_FUSION_TENSORS) {
    const n = shape.reduce((a, b) => a * b, 1);
    const fanIn = shape.length === 2 ? shape[1] : 1;
    const scale = name.includes('.1.weight') ? 1 : 1 / Math.sqrt(fanIn);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = name.includes('.1.weight') ? 1 + 0.2 * (rng.next() - 0.5) : scale * (2 * rng.next() - 1);
    out.set(name, { shape: [...shape], data });
  }
  return out;
}

/** Observations whose values lie in the ranges real ones take, with `partners` real partner rows and `roads` real road rows. */
export function randomObservations(n: number, seed: number, partners = 63, roads = 200): Float32Array {
  const rng = new SeededRandom(seed);
  const obs = new Float32Array(n * OBS_SIZE);
  for (let a = 0; a < n; a++) {
    const base = a * OBS_SIZE;
    for (let i = 0; i < 6; i++) obs[base + i] = 0.3 * (2 * rng.next() - 1);
    for (let p = 0; p < partners; p++) {
      for (let k = 0; k < PARTNER_FEATURES; k++) obs[base + PARTNER_OFFSET + p * PARTNER_FEATURES + k] = 0.1 * (2 * rng.next() - 1);
    }
    for (let r = 0; r < ROAD_ROWS; r++) {
      const row = base + ROAD_OFFSET + r * ROAD_FEATURES;
      if (r < roads) {
        for (let k = 0; k < 6; k++) obs[row + k] = 0.05 * (2 * rng.next() - 1);
        obs[row + 6 + 1 + Math.floor(rng.next() * 6)] = 1;
      } else {
        obs[row + 6] = 1; // padding row: type None one-hot
      }
    }
  }
  return obs;
}
