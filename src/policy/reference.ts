/**
 * Pure-TypeScript float64 forward pass of the late-fusion net, straight from the checkpoint tensors.
 * Slow and simple on purpose: it is the yardstick the ONNX graph is tested against.
 */
import {
  ACTION_COUNT, EGO_FEATURES, EMBED_DIM, HIDDEN_DIM, PARTNER_FEATURES, PARTNER_OFFSET,
  PARTNER_ROWS, ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS, type EmbedderName, type LateFusionWeights,
} from './checkpoint/late-fusion.js';

function linear(w: Float32Array, b: Float32Array, x: Float64Array, outDim: number, inDim: number): Float64Array {
  const y = new Float64Array(outDim);
  for (let o = 0; o < outDim; o++) {
    let s = b[o];
    for (let i = 0; i < inDim; i++) s += w[o * inDim + i] * x[i];
    y[o] = s;
  }
  return y;
}

function layerNormTanh(x: Float64Array, gamma: Float32Array, beta: Float32Array, eps = 1e-5): Float64Array {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (x[i] - mean) ** 2;
  variance /= n;
  const inv = 1 / Math.sqrt(variance + eps);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = Math.tanh((x[i] - mean) * inv * gamma[i] + beta[i]);
  return y;
}

export class ReferencePolicy {
  constructor(private readonly w: LateFusionWeights) {}

  private t(name: string): Float32Array {
    const t = this.w.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    return t.data;
  }

  private embed(prefix: EmbedderName, row: Float64Array, inDim: number): Float64Array {
    const h = linear(this.t(`${prefix}.0.weight`), this.t(`${prefix}.0.bias`), row, EMBED_DIM, inDim);
    const a = layerNormTanh(h, this.t(`${prefix}.1.weight`), this.t(`${prefix}.1.bias`));
    return linear(this.t(`${prefix}.4.weight`), this.t(`${prefix}.4.bias`), a, EMBED_DIM, EMBED_DIM);
  }

  private maxEmbed(prefix: EmbedderName, obs: ArrayLike<number>, base: number, rows: number, inDim: number): Float64Array {
    const out = new Float64Array(EMBED_DIM).fill(-Infinity);
    for (let r = 0; r < rows; r++) {
      const row = new Float64Array(inDim);
      for (let i = 0; i < inDim; i++) row[i] = obs[base + r * inDim + i];
      const e = this.embed(prefix, row, inDim);
      for (let k = 0; k < EMBED_DIM; k++) if (e[k] > out[k]) out[k] = e[k];
    }
    return out;
  }

  private hidden(obs: ArrayLike<number>, offset: number): Float64Array {
    const ego = new Float64Array(EGO_FEATURES);
    for (let i = 0; i < EGO_FEATURES; i++) ego[i] = obs[offset + i];
    const fused = new Float64Array(3 * EMBED_DIM);
    fused.set(this.embed('ego_embed', ego, EGO_FEATURES), 0);
    fused.set(this.maxEmbed('partner_embed', obs, offset + PARTNER_OFFSET, PARTNER_ROWS, PARTNER_FEATURES), EMBED_DIM);
    fused.set(this.maxEmbed('road_map_embed', obs, offset + ROAD_OFFSET, ROAD_ROWS, ROAD_FEATURES), 2 * EMBED_DIM);
    return linear(this.t('shared_embed.0.weight'), this.t('shared_embed.0.bias'), fused, HIDDEN_DIM, 3 * EMBED_DIM);
  }

  /** Logits (91) for one 2984-float observation starting at `offset`. */
  logits(obs: ArrayLike<number>, offset = 0): Float64Array {
    return linear(this.t('actor.weight'), this.t('actor.bias'), this.hidden(obs, offset), ACTION_COUNT, HIDDEN_DIM);
  }

  /** Value head (the critic), part of the checkpoint but not of the exported actor graph. */
  value(obs: ArrayLike<number>, offset = 0): number {
    return linear(this.t('critic.weight'), this.t('critic.bias'), this.hidden(obs, offset), 1, HIDDEN_DIM)[0];
  }
}
