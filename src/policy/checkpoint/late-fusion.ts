/**
 * The GPUDrive late-fusion NeuralNet (spec gpudrive-policy.md §1): its 24 tensors, their shapes and
 * the observation layout it reads.
 */
import type { Float32Tensor, TorchCheckpoint } from './torch-zip.js';
import { CheckpointError } from './torch-zip.js';
import { ACTION_COUNT, EGO_FEATURES, EMBED_DIM, HIDDEN_DIM, PARTNER_FEATURES, PARTNER_ROWS, ROAD_FEATURES, ROAD_ROWS } from '../layout.js';

export * from '../layout.js';

export type EmbedderName = 'ego_embed' | 'partner_embed' | 'road_map_embed';

function embedderShapes(prefix: EmbedderName, inDim: number): Array<[string, number[]]> {
  return [
    [`${prefix}.0.weight`, [EMBED_DIM, inDim]],
    [`${prefix}.0.bias`, [EMBED_DIM]],
    [`${prefix}.1.weight`, [EMBED_DIM]],
    [`${prefix}.1.bias`, [EMBED_DIM]],
    [`${prefix}.4.weight`, [EMBED_DIM, EMBED_DIM]],
    [`${prefix}.4.bias`, [EMBED_DIM]],
  ];
}

/** Names and shapes of the 24 tensors, in state-dict order (51,228 parameters). */
export const LATE_FUSION_TENSORS: ReadonlyArray<readonly [string, readonly number[]]> = [
  ...embedderShapes('ego_embed', EGO_FEATURES),
  ...embedderShapes('partner_embed', PARTNER_FEATURES),
  ...embedderShapes('road_map_embed', ROAD_FEATURES),
  ['shared_embed.0.weight', [HIDDEN_DIM, 3 * EMBED_DIM]],
  ['shared_embed.0.bias', [HIDDEN_DIM]],
  ['actor.weight', [ACTION_COUNT, HIDDEN_DIM]],
  ['actor.bias', [ACTION_COUNT]],
  ['critic.weight', [1, HIDDEN_DIM]],
  ['critic.bias', [1]],
];

export type LateFusionWeights = ReadonlyMap<string, Float32Tensor>;

/** Checks all 24 tensors; throws naming the first missing or mis-shaped one. */
export function checkLateFusionWeights(ckpt: TorchCheckpoint, label = 'checkpoint'): LateFusionWeights {
  const out = new Map<string, Float32Tensor>();
  for (const [name, shape] of LATE_FUSION_TENSORS) {
    const t = ckpt.stateDict.get(name);
    if (!t) throw new CheckpointError(`${label}: tensor ${name} is missing (expected shape [${shape.join(', ')}]); not a GPUDrive late-fusion policy`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new CheckpointError(`${label}: tensor ${name} has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
    }
    out.set(name, t);
  }
  return out;
}

export function parameterCount(): number {
  return LATE_FUSION_TENSORS.reduce((sum, [, s]) => sum + s.reduce((a, b) => a * b, 1), 0);
}

/** Multiply-adds of one forward pass for one agent (the actor path; LayerNorm/tanh/max not counted). */
export function multiplyAddsPerAgent(): number {
  const embed = (inDim: number, rows: number): number => rows * (inDim * EMBED_DIM + EMBED_DIM * EMBED_DIM);
  return embed(EGO_FEATURES, 1) + embed(PARTNER_FEATURES, PARTNER_ROWS) + embed(ROAD_FEATURES, ROAD_ROWS) + 3 * EMBED_DIM * HIDDEN_DIM + HIDDEN_DIM * ACTION_COUNT;
}
