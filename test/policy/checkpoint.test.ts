import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkLateFusionWeights, CheckpointError, LATE_FUSION_TENSORS, parameterCount, readPickle, readTorchCheckpoint, loadPolicyCheckpoint, describeTrainingScenes } from '../../src/policy/index.js';
import { S75_CHECKPOINT, S500_CHECKPOINT } from '../helpers/shared.js';
import { randomLateFusionTensors } from '../helpers/policy-fixtures.js';
import { writeTorchZip } from '../helpers/torch-writer.js';
import { have } from '../helpers/prerequisites.js';

describe('late-fusion tensor table', () => {
  it('has the 24 tensors and 51,228 parameters of spec §1/§9', () => {
    expect(LATE_FUSION_TENSORS).toHaveLength(24);
    expect(parameterCount()).toBe(51228);
  });
});

describe('pickle reader (torch.save subset)', () => {
  it('rejects opcodes outside the subset with the opcode name and offset', () => {
    // protocol-2 header, then FRAME (0x95, protocol 4)
    expect(() => readPickle(Uint8Array.from([0x80, 0x02, 0x95, 0, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/unsupported opcode 0x95 \(FRAME\) at offset 2/);
  });
  it('rejects globals outside the allow-list without calling anything', () => {
    const bytes = Uint8Array.from([0x80, 0x02, 0x63, ...new TextEncoder().encode('os\nsystem\n'), 0x2e]);
    expect(() => readPickle(bytes)).toThrow(/global os\.system is not allowed/);
  });
  it('rejects newer pickle protocols', () => {
    expect(() => readPickle(Uint8Array.from([0x80, 0x05, 0x4e, 0x2e]))).toThrow(/protocol 5 is not supported/);
  });
  it('reports truncated input', () => {
    expect(() => readPickle(Uint8Array.from([0x80, 0x02, 0x58, 10, 0, 0, 0, 0x41]))).toThrow(/unexpected end of data/);
  });
});

describe('torch zip checkpoints written by the tests', () => {
  it('round-trips tensors (names, shapes, values)', () => {
    const tensors = randomLateFusionTensors(3);
    const ckpt = readTorchCheckpoint(writeTorchZip(tensors));
    const w = checkLateFusionWeights(ckpt);
    expect(w.size).toBe(24);
    const a = tensors.get('road_map_embed.0.weight')!;
    expect(w.get('road_map_embed.0.weight')!.shape).toEqual([64, 13]);
    expect(Array.from(w.get('road_map_embed.0.weight')!.data)).toEqual(Array.from(a.data));
  });
  it('names the first missing tensor', () => {
    const tensors = randomLateFusionTensors(3);
    tensors.delete('partner_embed.1.bias');
    tensors.delete('actor.weight');
    const ckpt = readTorchCheckpoint(writeTorchZip(tensors), 'broken.pt');
    expect(() => checkLateFusionWeights(ckpt, 'broken.pt')).toThrow(CheckpointError);
    expect(() => checkLateFusionWeights(ckpt, 'broken.pt')).toThrow(/broken\.pt: tensor partner_embed\.1\.bias is missing \(expected shape \[64\]\)/);
  });
  it('names a mis-shaped tensor with both shapes', () => {
    const tensors = randomLateFusionTensors(3);
    tensors.set('actor.weight', { shape: [90, 128], data: new Float32Array(90 * 128) });
    const ckpt = readTorchCheckpoint(writeTorchZip(tensors), 'odd.pt');
    expect(() => checkLateFusionWeights(ckpt, 'odd.pt')).toThrow(/tensor actor\.weight has shape \[90, 128\], expected \[91, 128\]/);
  });
  it('fails clearly on a file that is not a zip', () => {
    expect(() => readTorchCheckpoint(new TextEncoder().encode('hello'), 'text.pt')).toThrow(/text\.pt: not a readable torch checkpoint/);
  });
});

describe.skipIf(!have('shared'))('real GPUDrive checkpoints (../shared)', () => {
  it('reads S75: 24 tensors, training metadata, provenance', () => {
    const { weights, provenance } = loadPolicyCheckpoint(S75_CHECKPOINT);
    expect(weights.size).toBe(24);
    expect(provenance.source_file).toBe('policy_S75_2025-05-21_u4800.pt');
    expect(provenance.source_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(provenance.training_update).toBe('4800');
    expect(provenance.training_agent_steps).toBe('630936267');
    expect(provenance.training_scenes).toMatch(/^75 fixed WOMD training scenes/);
    expect(provenance.size_scale).toBe('0.7');
    // LayerNorm gains are near 1, not garbage: a sanity check on byte order and offsets.
    const g = weights.get('road_map_embed.1.weight')!.data;
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    expect(mean).toBeGreaterThan(0.3);
    expect(mean).toBeLessThan(3);
  });
  it('reads S500 (numpy scalars, _codecs in the pickle)', () => {
    const { weights, provenance } = loadPolicyCheckpoint(S500_CHECKPOINT);
    expect(weights.size).toBe(24);
    expect(provenance.training_scenes).toMatch(/^500 fixed/);
    expect(provenance.training_update).toBe('2400');
  });
  it('fails with a clear message on a truncated checkpoint', () => {
    const bytes = readFileSync(S75_CHECKPOINT);
    const cut = bytes.subarray(0, Math.floor(bytes.length / 2));
    expect(() => readTorchCheckpoint(cut, 'cut.pt')).toThrow(/cut\.pt: not a readable torch checkpoint \(the zip archive is truncated or corrupt/);
  });
  it('describes training scene sets from run names', () => {
    expect(describeTrainingScenes('model_PPO____R_10000__02_27')).toMatch(/pool of 10000/);
    expect(describeTrainingScenes('whatever')).toBe('unknown');
  });
});
