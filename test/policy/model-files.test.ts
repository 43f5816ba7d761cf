import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelNotFoundError, PolicySession, buildLateFusionOnnx, checkLateFusionWeights, readTorchCheckpoint, resolvePolicyModel } from '../../src/policy/index.js';
import { main as convertMain } from '../../src/policy/convert-cli.js';
import { randomLateFusionTensors, randomObservations } from '../helpers/policy-fixtures.js';
import { writeTorchZip } from '../helpers/torch-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-model-'));
const saved = { model: process.env.VILS_MODEL, ckpt: process.env.VILS_CHECKPOINT };
afterEach(() => {
  process.env.VILS_MODEL = saved.model;
  process.env.VILS_CHECKPOINT = saved.ckpt;
  if (saved.model === undefined) delete process.env.VILS_MODEL;
  if (saved.ckpt === undefined) delete process.env.VILS_CHECKPOINT;
});

describe('finding the policy model', () => {
  it('says exactly what is missing and how to fix it when there is neither model nor checkpoint', () => {
    process.env.VILS_MODEL = join(dir, 'none.onnx');
    process.env.VILS_CHECKPOINT = join(dir, 'none.pt');
    expect(() => resolvePolicyModel()).toThrow(ModelNotFoundError);
    try {
      resolvePolicyModel();
    } catch (err) {
      const msg = (err as Error).message;
      expect(msg).toContain(`No policy model found at ${join(dir, 'none.onnx')}`);
      expect(msg).toContain(`no checkpoint to build it from at ${join(dir, 'none.pt')}`);
      expect(msg).toContain('npm run build:policy -- --checkpoint <file.pt>');
      expect(msg).toContain('GPUDrive repository');
    }
  });
  it('builds the default model from the checkpoint on first use', () => {
    const ckpt = join(dir, 'ok.pt');
    writeFileSync(ckpt, writeTorchZip(randomLateFusionTensors(5)));
    process.env.VILS_MODEL = join(dir, 'models', 'built.onnx');
    process.env.VILS_CHECKPOINT = ckpt;
    expect(existsSync(process.env.VILS_MODEL)).toBe(false);
    expect(resolvePolicyModel()).toBe(process.env.VILS_MODEL);
    expect(existsSync(process.env.VILS_MODEL)).toBe(true);
  });
});

describe('converter CLI', () => {
  it('converts a checkpoint and fails with the tensor name on a broken one', () => {
    const good = join(dir, 'good.pt');
    writeFileSync(good, writeTorchZip(randomLateFusionTensors(6)));
    expect(convertMain(['--checkpoint', good, '--out', join(dir, 'good.onnx')])).toBe(0);
    expect(existsSync(join(dir, 'good.onnx'))).toBe(true);
    const tensors = randomLateFusionTensors(6);
    tensors.delete('shared_embed.0.weight');
    const bad = join(dir, 'bad.pt');
    writeFileSync(bad, writeTorchZip(tensors));
    const errors: string[] = [];
    const orig = console.error;
    console.error = (m: string) => errors.push(m);
    try {
      expect(convertMain(['--checkpoint', bad, '--out', join(dir, 'bad.onnx')])).toBe(1);
    } finally {
      console.error = orig;
    }
    expect(errors.join('\n')).toMatch(/tensor shared_embed\.0\.weight is missing/);
    expect(existsSync(join(dir, 'bad.onnx'))).toBe(false);
    expect(convertMain(['--out', 'x.onnx'])).toBe(2);
  });
});

describe('policy session modes', () => {
  it('seeded sampling is reproducible and differs from argmax somewhere', async () => {
    const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(8))));
    const path = join(dir, 'modes.onnx');
    writeFileSync(path, buildLateFusionOnnx(weights));
    const obs = randomObservations(32, 3);
    const det = await PolicySession.load(path);
    const a = Array.from((await det.run(obs, 32)).actions);
    const s1 = await PolicySession.load(path, { mode: { kind: 'sample', seed: 9 } });
    const s2 = await PolicySession.load(path, { mode: { kind: 'sample', seed: 9 } });
    const b1 = Array.from((await s1.run(obs, 32)).actions);
    const b2 = Array.from((await s2.run(obs, 32)).actions);
    expect(b1).toEqual(b2);
    expect(b1).not.toEqual(a);
    s1.reseed(9);
    expect(Array.from((await s1.run(obs, 32)).actions)).toEqual(b1);
    await Promise.all([det.release(), s1.release(), s2.release()]);
  });
  it('honours the intra-op thread setting', async () => {
    const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(8))));
    const path = join(dir, 'threads.onnx');
    writeFileSync(path, buildLateFusionOnnx(weights));
    const s = await PolicySession.load(path, { intraOpThreads: 2 });
    expect((await s.run(randomObservations(4, 1), 4)).actions).toHaveLength(4);
    await s.release();
  });
});
