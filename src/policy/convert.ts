/** Checkpoint (.pt) → ONNX bytes with provenance metadata. Shared by the converter CLI and `vils eval --checkpoint`. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PyDict } from './checkpoint/pickle.js';
import { readTorchCheckpoint } from './checkpoint/torch-zip.js';
import { checkLateFusionWeights, parameterCount, type LateFusionWeights } from './checkpoint/late-fusion.js';
import { buildLateFusionOnnx, type ModelProvenance } from './onnx-export.js';
import { ACCEL_VALUES, STEER_VALUES } from './actions.js';

/** The shipped checkpoints were trained with agent sizes scaled by 0.7 in the observation (spec §0.2). */
export const DEFAULT_SIZE_SCALE = 0.7;

export interface LoadedCheckpoint {
  readonly weights: LateFusionWeights;
  readonly provenance: ModelProvenance;
}

/** Reads and checks a checkpoint file; throws CheckpointError naming the problem. */
export function loadPolicyCheckpoint(path: string, sizeScale = DEFAULT_SIZE_SCALE): LoadedCheckpoint {
  const bytes = readFileSync(path);
  const label = basename(path);
  const ckpt = readTorchCheckpoint(bytes, label);
  const weights = checkLateFusionWeights(ckpt, label);
  const root = ckpt.root instanceof PyDict ? ckpt.root : new PyDict();
  const str = (k: string): string => {
    const v = root.get(k);
    return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
  };
  const runName = str('model_name') || str('exp_id') || ckpt.archiveName;
  const provenance: ModelProvenance = {
    source_file: label,
    source_sha256: createHash('sha256').update(bytes).digest('hex'),
    source_archive: ckpt.archiveName,
    source_model_name: runName,
    training_scenes: describeTrainingScenes(runName),
    training_update: str('update'),
    training_agent_steps: str('agent_step') || str('global_step'),
    size_scale: String(sizeScale),
    parameters: String(parameterCount()),
    obs_layout: 'ego[0:6] | partners[6:384] as 63x6 | road[384:2984] as 200x13',
    action_index: 'accel_idx*13 + steer_idx',
    accel_values: JSON.stringify(Array.from(ACCEL_VALUES)),
    steer_values: JSON.stringify(Array.from(STEER_VALUES)),
    dynamics: 'classic bicycle, dt 0.1 s',
    source_repository: 'Emerge-Lab/gpudrive (MIT)',
  };
  return { weights, provenance };
}

/** GPUDrive names runs `..._S_{k}_...` (k fixed scenes) or `..._R_{N}_...` (resampled pool of N), spec §9.1. */
export function describeTrainingScenes(runName: string): string {
  const fixed = /S_(\d+)/.exec(runName);
  if (fixed) return `${fixed[1]} fixed WOMD training scenes (k_unique_scenes=${fixed[1]})`;
  const pool = /R_(\d+)/.exec(runName);
  if (pool) return `resampled from a pool of ${pool[1]} WOMD training scenes`;
  return 'unknown';
}

export function checkpointToOnnx(path: string, sizeScale = DEFAULT_SIZE_SCALE): { onnx: Uint8Array; provenance: ModelProvenance } {
  const { weights, provenance } = loadPolicyCheckpoint(path, sizeScale);
  return { onnx: buildLateFusionOnnx(weights, provenance), provenance };
}
