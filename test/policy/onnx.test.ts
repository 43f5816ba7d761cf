import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION_COUNT, OBS_SIZE, PolicySession, ReferencePolicy, buildLateFusionOnnx, checkLateFusionWeights,
  loadPolicyCheckpoint, readModelMetadata, readTorchCheckpoint, writeModelFromCheckpoint, type LateFusionWeights,
} from '../../src/policy/index.js';
import { S75_CHECKPOINT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { randomLateFusionTensors, randomObservations } from '../helpers/policy-fixtures.js';
import { writeTorchZip } from '../helpers/torch-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-onnx-'));

function maxAbsDiff(session: Float32Array, ref: ReferencePolicy, obs: Float32Array, n: number): { diff: number; argmaxMismatches: number } {
  let diff = 0;
  let mismatches = 0;
  for (let i = 0; i < n; i++) {
    const l = ref.logits(obs, i * OBS_SIZE);
    let best = 0;
    let bestOnnx = 0;
    for (let k = 0; k < ACTION_COUNT; k++) {
      diff = Math.max(diff, Math.abs(l[k] - session[i * ACTION_COUNT + k]));
      if (l[k] > l[best]) best = k;
      if (session[i * ACTION_COUNT + k] > session[i * ACTION_COUNT + bestOnnx]) bestOnnx = k;
    }
    if (best !== bestOnnx) mismatches++;
  }
  return { diff, argmaxMismatches: mismatches };
}

async function checkAgainstReference(weights: LateFusionWeights, modelPath: string): Promise<void> {
  const ref = new ReferencePolicy(weights);
  const session = await PolicySession.load(modelPath);
  try {
    const cases: Array<[string, Float32Array, number]> = [
      ['random, all rows real', randomObservations(16, 11), 16],
      ['padding rows (5 partners, 37 roads)', randomObservations(8, 12, 5, 37), 8],
      ['only padding rows', randomObservations(4, 13, 0, 0), 4],
      ['single agent', randomObservations(1, 14, 20, 150), 1],
    ];
    for (const [label, obs, n] of cases) {
      const { logits, actions } = await session.run(obs, n);
      const { diff, argmaxMismatches } = maxAbsDiff(logits, ref, obs, n);
      expect(diff, label).toBeLessThan(1e-4);
      expect(argmaxMismatches, label).toBe(0);
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let k = 1; k < ACTION_COUNT; k++) if (logits[i * ACTION_COUNT + k] > logits[i * ACTION_COUNT + best]) best = k;
        expect(actions[i], label).toBe(best);
      }
    }
  } finally {
    await session.release();
  }
}

describe('ONNX export vs the float64 reference (random weights)', () => {
  const tensors = randomLateFusionTensors(7);
  const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(tensors)));
  const modelPath = join(dir, 'random.onnx');
  beforeAll(() => writeFileSync(modelPath, buildLateFusionOnnx(weights, { size_scale: '0.7' })));

  it('logits within 1e-4, identical argmax, on real rows and padding rows', async () => {
    await checkAgainstReference(weights, modelPath);
  });

  it('the plain (textbook) layout used as the benchmark baseline computes the same net', async () => {
    const plainPath = join(dir, 'random-plain.onnx');
    writeFileSync(plainPath, buildLateFusionOnnx(weights, {}, { layout: 'plain' }));
    await checkAgainstReference(weights, plainPath);
  });

  it('the graph has a dynamic batch and the documented inputs/outputs', async () => {
    const session = await PolicySession.load(modelPath);
    for (const n of [1, 3, 64, 130]) {
      const { logits, actions } = await session.run(randomObservations(n, n), n);
      expect(logits.length).toBe(n * ACTION_COUNT);
      expect(actions.length).toBe(n);
    }
    expect(() => session.run(new Float32Array(10), 1)).toThrow(/2984 needed/);
    await session.release();
  });
});

describe.skipIf(!have('shared'))('ONNX model of the real S75 checkpoint', () => {
  const modelPath = join(dir, 's75.onnx');
  let weights: LateFusionWeights;
  beforeAll(() => {
    weights = loadPolicyCheckpoint(S75_CHECKPOINT).weights;
    writeModelFromCheckpoint(S75_CHECKPOINT, modelPath);
  });

  it('matches the reference pass within 1e-4 with identical argmax', async () => {
    await checkAgainstReference(weights, modelPath);
  });

  it('stores provenance in the model metadata', async () => {
    const session = await PolicySession.load(modelPath);
    expect(session.metadata.source_file).toBe('policy_S75_2025-05-21_u4800.pt');
    expect(session.metadata.source_sha256).toHaveLength(64);
    expect(session.metadata.training_scenes).toMatch(/^75 fixed WOMD training scenes/);
    expect(session.sizeScale).toBe(0.7);
    await session.release();
  });
});

describe('model metadata reader', () => {
  it('reads metadata_props back', () => {
    const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(2))));
    const bytes = buildLateFusionOnnx(weights, { a: '1', size_scale: '1.0' });
    expect(readModelMetadata(bytes)).toEqual({ a: '1', size_scale: '1.0' });
  });
});

afterAll(() => {});
