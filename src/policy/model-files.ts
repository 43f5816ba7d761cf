/**
 * Where the policy model lives and how to get one: models/gpudrive-policy.onnx, built from the S75
 * checkpoint the repository ships (models/checkpoints/, MIT, with its licence notice) when it is missing.
 * Built models are never committed (models/*.onnx is git-ignored). A model converted from another
 * checkpoint on request goes to a temporary folder unless an output path is given.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { projectRoot } from '../util/project-root.js';
import { checkpointToOnnx } from './convert.js';

export const DEFAULT_MODEL_NAME = 'gpudrive-policy.onnx';
export const DEFAULT_CHECKPOINT_NAME = 'policy_S75_2025-05-21_u4800.pt';

export function defaultModelPath(): string {
  return process.env.VILS_MODEL ?? join(projectRoot(), 'models', DEFAULT_MODEL_NAME);
}

/** The checkpoint shipped in the repository (models/checkpoints/). */
export function shippedCheckpointPath(): string {
  return join(projectRoot(), 'models', 'checkpoints', DEFAULT_CHECKPOINT_NAME);
}

/**
 * The checkpoint the default model is built from: VILS_CHECKPOINT, else the shipped one, else the one in
 * the shared data folder (VILS_SHARED, default ../shared) for a checkout that lacks models/checkpoints/.
 */
export function defaultCheckpointPath(): string {
  if (process.env.VILS_CHECKPOINT) return process.env.VILS_CHECKPOINT;
  const shipped = shippedCheckpointPath();
  if (existsSync(shipped)) return shipped;
  const shared = process.env.VILS_SHARED ?? resolve(projectRoot(), '..', 'shared');
  return join(shared, 'data', 'gpudrive', 'checkpoints', DEFAULT_CHECKPOINT_NAME);
}

export class ModelNotFoundError extends Error {
  constructor(modelPath: string, checkpointPath: string) {
    super(
      [
        `No policy model found at ${modelPath}, and no checkpoint to build it from at ${checkpointPath}.`,
        'Fix it in one of these ways:',
        `  - convert a GPUDrive checkpoint: npm run build:policy -- --checkpoint <file.pt> --out ${modelPath}`,
        '    (GPUDrive checkpoints come from the GPUDrive repository, github.com/Emerge-Lab/gpudrive, MIT licence)',
        '  - or point VILS_CHECKPOINT at a checkpoint, or VILS_MODEL at an existing .onnx model',
      ].join('\n'),
    );
    this.name = 'ModelNotFoundError';
  }
}

/** Writes the ONNX model for a checkpoint, atomically (a half-written model is never left behind). */
export function writeModelFromCheckpoint(checkpointPath: string, outPath: string, sizeScale?: number): Record<string, string> {
  const { onnx, provenance } = checkpointToOnnx(checkpointPath, sizeScale);
  mkdirSync(dirname(outPath), { recursive: true });
  const tmp = `${outPath}.${process.pid}.tmp`;
  writeFileSync(tmp, onnx);
  renameSync(tmp, outPath);
  return provenance;
}

/**
 * Returns a usable model path: `model` if given; else `checkpoint` converted to a model at `out` (default:
 * a new temporary folder, so models/ is never written unasked); else the default model, built from the
 * default checkpoint when missing.
 */
export function resolvePolicyModel(opts: { model?: string; checkpoint?: string; out?: string } = {}): string {
  if (opts.model) {
    if (!existsSync(opts.model)) throw new Error(`policy model ${opts.model} does not exist`);
    return opts.model;
  }
  if (opts.checkpoint) {
    if (!existsSync(opts.checkpoint)) throw new Error(`checkpoint ${opts.checkpoint} does not exist`);
    const name = opts.checkpoint.replace(/^.*[\\/]/, '').replace(/\.pt$/, '');
    const out = opts.out ?? join(mkdtempSync(join(tmpdir(), 'vils-model-')), `${name}.onnx`);
    writeModelFromCheckpoint(opts.checkpoint, out);
    return out;
  }
  const modelPath = defaultModelPath();
  if (existsSync(modelPath)) return modelPath;
  const ckpt = defaultCheckpointPath();
  if (!existsSync(ckpt)) throw new ModelNotFoundError(modelPath, ckpt);
  writeModelFromCheckpoint(ckpt, modelPath);
  return modelPath;
}
