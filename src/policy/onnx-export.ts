/**
 * Builds the ONNX graph of the late-fusion net (spec §1.2–1.4) from checkpoint tensors,
 * using the onnx-proto schema package (protobufjs) for the serialisation.
 *
 * Graph: obs[N,2984] → ego/partner/road slices (rows flattened) → per embedder Gemm → LayerNormalization(eps 1e-5)
 * → Tanh → MatMul → max over rows (partners, road; padding rows included) → +bias → Concat →
 * Gemm(192→128, no activation) → Gemm(128→91) = logits; ArgMax = action (int64).
 *
 * The last embedder bias is added after the max: max_i(a_i) + b == max_i(a_i + b) exactly in float32
 * (rounding is monotonic), and it saves an add over 200 rows per agent.
 */
import onnxProto from 'onnx-proto';
import {
  ACTION_COUNT, EGO_FEATURES, OBS_SIZE, PARTNER_FEATURES, PARTNER_OFFSET, PARTNER_ROWS,
  ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS, type EmbedderName, type LateFusionWeights,
} from './checkpoint/late-fusion.js';
import { ROWS_INPUTS } from './rows.js';

const { onnx } = onnxProto;

export const OPSET = 17; // first opset with LayerNormalization
/** Road rows are embedded in this many chunks of 50 (a 4–5 % faster graph at N = 63 on a 2-core box). */
const ROAD_CHUNKS = 4;
export const IR_VERSION = 8;

export interface ModelProvenance {
  [key: string]: string;
}

type Tensor = InstanceType<typeof onnx.TensorProto>;

function floatInit(name: string, dims: number[], data: Float32Array): Tensor {
  return onnx.TensorProto.create({
    name,
    dims,
    dataType: onnx.TensorProto.DataType.FLOAT,
    rawData: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)),
  });
}

function int64Init(name: string, values: number[]): Tensor {
  const buf = new BigInt64Array(values.map((v) => BigInt(v)));
  return onnx.TensorProto.create({
    name,
    dims: [values.length],
    dataType: onnx.TensorProto.DataType.INT64,
    rawData: new Uint8Array(buf.buffer),
  });
}

/** Row-major transpose of a [rows, cols] matrix, so MatMul can take x·Wᵀ as x·W'. */
function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

function attrInt(name: string, i: number) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i });
}
function attrFloat(name: string, f: number) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f });
}
function attrInts(name: string, ints: number[]) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints });
}

function valueInfo(name: string, elemType: number, dims: Array<number | string>) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })),
        }),
      }),
    }),
  });
}

/** An embedder's initializers: Linear weights transposed so MatMul/Gemm take x·Wᵀ as x·W'. */
function embedderInitializers(w: LateFusionWeights, prefix: EmbedderName, inDim: number): Tensor[] {
  const get = (name: string) => {
    const t = w.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    return t.data;
  };
  return [
    floatInit(`${prefix}.0.wT`, [inDim, 64], transpose(get(`${prefix}.0.weight`), 64, inDim)),
    floatInit(`${prefix}.0.b`, [64], get(`${prefix}.0.bias`)),
    floatInit(`${prefix}.1.g`, [64], get(`${prefix}.1.weight`)),
    floatInit(`${prefix}.1.b`, [64], get(`${prefix}.1.bias`)),
    floatInit(`${prefix}.4.wT`, [64, 64], transpose(get(`${prefix}.4.weight`), 64, 64)),
    floatInit(`${prefix}.4.b`, [64], get(`${prefix}.4.bias`)),
  ];
}

/** The model around a graph: IR 8, the opset, the producer, the provenance as metadata. */
function encodeModel(graph: InstanceType<typeof onnx.GraphProto>, opset: number, docString: string, provenance: ModelProvenance): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: 'vils',
    producerVersion: '0.1.0',
    domain: 'org.vils',
    docString,
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: opset })],
    graph,
    metadataProps: Object.entries(provenance).map(([key, value]) => onnx.StringStringEntryProto.create({ key, value })),
  });
  return onnx.ModelProto.encode(model).finish();
}

export interface OnnxExportOptions {
  /**
   * 'optimized' (default): rows flattened to 2-D Gemms, last bias added after the max.
   * 'plain': the textbook graph (3-D MatMul + Add per Linear, bias before the max), kept as the
   * baseline that `npm run bench:policy -- --compare` measures the default against.
   * 'rows': the same net on the real rows only (see buildRowsOnnx); what PolicySession runs.
   */
  readonly layout?: 'optimized' | 'plain' | 'rows';
}

/** Serialises the late-fusion policy as an ONNX model (IR 8, opset 17; the 'rows' graph opset 18). */
export function buildLateFusionOnnx(w: LateFusionWeights, provenance: ModelProvenance = {}, options: OnnxExportOptions = {}): Uint8Array {
  if (options.layout === 'rows') return buildRowsOnnx(w, provenance);
  const plain = options.layout === 'plain';
  const nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  const inits: Tensor[] = [];
  const get = (name: string) => {
    const t = w.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    return t;
  };
  const node = (opType: string, inputs: string[], outputs: string[], attribute: ReturnType<typeof attrInt>[] = []) => {
    nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: outputs, name: outputs[0], attribute }));
  };

  inits.push(int64Init('axis1', [1]));
  const slice = (out: string, start: number, end: number) => {
    inits.push(int64Init(`${out}_start`, [start]), int64Init(`${out}_end`, [end]));
    node('Slice', ['obs', `${out}_start`, `${out}_end`, 'axis1'], [out]);
  };

  const registered = new Set<string>();
  /** Adds an embedder's weights once (Linear weights transposed so MatMul/Gemm take x·Wᵀ as x·W'). */
  const registerWeights = (prefix: EmbedderName, inDim: number) => {
    if (registered.has(prefix)) return;
    registered.add(prefix);
    inits.push(...embedderInitializers(w, prefix, inDim));
  };

  /**
   * Linear → LayerNorm → tanh → Linear (without its bias) over `rows` rows per agent. Rows are flattened
   * to 2-D so the first Linear is one Gemm with its bias fused (a 3-D MatMul + Add costs a pass more).
   * Returns the pre-bias output, shaped [N, rows, 64] (or [N, 64] for rows = 1), and the bias name.
   * `tag` names the nodes when one embedder runs over several chunks of rows.
   */
  const embed = (prefix: EmbedderName, input: string, inDim: number, rows: number, tag: string = prefix): { out: string; bias: string } => {
    registerWeights(prefix, inDim);
    if (plain) {
      node('MatMul', [input, `${prefix}.0.wT`], [`${tag}.mm0`]);
      node('Add', [`${tag}.mm0`, `${prefix}.0.b`], [`${tag}.lin0`]);
    } else {
      node('Gemm', [input, `${prefix}.0.wT`, `${prefix}.0.b`], [`${tag}.lin0`]);
    }
    node('LayerNormalization', [`${tag}.lin0`, `${prefix}.1.g`, `${prefix}.1.b`], [`${tag}.ln`], [attrInt('axis', -1), attrFloat('epsilon', 1e-5)]);
    node('Tanh', [`${tag}.ln`], [`${tag}.act`]);
    if (plain && rows > 1) {
      node('MatMul', [`${tag}.act`, `${prefix}.4.wT`], [`${tag}.mm4_nobias`]);
      node('Add', [`${tag}.mm4_nobias`, `${prefix}.4.b`], [`${tag}.mm4`]);
      return { out: `${tag}.mm4`, bias: '' };
    } else if (rows === 1) {
      node('MatMul', [`${tag}.act`, `${prefix}.4.wT`], [`${tag}.mm4`]);
    } else {
      node('MatMul', [`${tag}.act`, `${prefix}.4.wT`], [`${tag}.mm4_rows`]);
      if (!registered.has(`shape${rows}`)) {
        registered.add(`shape${rows}`);
        inits.push(int64Init(`per_agent_${rows}`, [-1, rows, 64]));
      }
      node('Reshape', [`${tag}.mm4_rows`, `per_agent_${rows}`], [`${tag}.mm4`]);
    }
    return { out: `${tag}.mm4`, bias: `${prefix}.4.b` };
  };

  slice('ego_in', 0, EGO_FEATURES);
  slice('partner_flat', PARTNER_OFFSET, ROAD_OFFSET);
  if (plain) slice('road_flat', ROAD_OFFSET, OBS_SIZE);
  inits.push(int64Init('partner_shape', plain ? [0, PARTNER_ROWS, PARTNER_FEATURES] : [-1, PARTNER_FEATURES]));
  inits.push(int64Init('road_shape', plain ? [0, ROAD_ROWS, ROAD_FEATURES] : [-1, ROAD_FEATURES]));
  node('Reshape', ['partner_flat', 'partner_shape'], ['partner_in']);
  if (plain) node('Reshape', ['road_flat', 'road_shape'], ['road_in']);

  const ego = embed('ego_embed', 'ego_in', EGO_FEATURES, 1);
  node('Add', [ego.out, ego.bias], ['ego_feat']);
  const partner = embed('partner_embed', 'partner_in', PARTNER_FEATURES, PARTNER_ROWS);
  const maxThenBias = (e: { out: string; bias: string }, name: string) => {
    node('ReduceMax', [e.out], [e.bias ? `${name}_max` : `${name}_feat`], [attrInts('axes', [1]), attrInt('keepdims', 0)]);
    if (e.bias) node('Add', [`${name}_max`, e.bias], [`${name}_feat`]);
  };
  maxThenBias(partner, 'partner');
  if (plain) {
    maxThenBias(embed('road_map_embed', 'road_in', ROAD_FEATURES, ROAD_ROWS), 'road');
  } else {
    // The 200 road rows in ROAD_CHUNKS chunks: each chunk's intermediates stay in cache, and the max over
    // all rows is the max of the chunks' maxima (exact).
    const per = ROAD_ROWS / ROAD_CHUNKS;
    const maxima: string[] = [];
    for (let c = 0; c < ROAD_CHUNKS; c++) {
      const start = ROAD_OFFSET + c * per * ROAD_FEATURES;
      slice(`road_flat_${c}`, start, start + per * ROAD_FEATURES);
      node('Reshape', [`road_flat_${c}`, 'road_shape'], [`road_in_${c}`]);
      const e = embed('road_map_embed', `road_in_${c}`, ROAD_FEATURES, per, `road_map_embed.c${c}`);
      node('ReduceMax', [e.out], [`road_max_${c}`], [attrInts('axes', [1]), attrInt('keepdims', 0)]);
      maxima.push(`road_max_${c}`);
    }
    node('Max', maxima, ['road_max']);
    node('Add', ['road_max', 'road_map_embed.4.b'], ['road_feat']);
  }
  node('Concat', ['ego_feat', 'partner_feat', 'road_feat'], ['fused'], [attrInt('axis', 1)]);

  inits.push(floatInit('shared.w', [128, 192], get('shared_embed.0.weight').data));
  inits.push(floatInit('shared.b', [128], get('shared_embed.0.bias').data));
  node('Gemm', ['fused', 'shared.w', 'shared.b'], ['hidden'], [attrInt('transB', 1)]);
  inits.push(floatInit('actor.w', [ACTION_COUNT, 128], get('actor.weight').data));
  inits.push(floatInit('actor.b', [ACTION_COUNT], get('actor.bias').data));
  node('Gemm', ['hidden', 'actor.w', 'actor.b'], ['logits'], [attrInt('transB', 1)]);
  node('ArgMax', ['logits'], ['action'], [attrInt('axis', 1), attrInt('keepdims', 0)]);

  const graph = onnx.GraphProto.create({
    name: 'gpudrive_late_fusion',
    node: nodes,
    initializer: inits,
    input: [valueInfo('obs', onnx.TensorProto.DataType.FLOAT, ['N', OBS_SIZE])],
    output: [
      valueInfo('logits', onnx.TensorProto.DataType.FLOAT, ['N', ACTION_COUNT]),
      valueInfo('action', onnx.TensorProto.DataType.INT64, ['N']),
    ],
  });
  return encodeModel(graph, OPSET, 'GPUDrive late-fusion self-play PPO policy (actor only): obs[N,2984] -> logits[N,91], action[N]', provenance);
}

export const ROWS_OPSET = 18; // ScatterND with reduction "max"

/**
 * The late-fusion net on the real rows only. The max-pool over a block (spec §1.3) runs over every row,
 * padding rows included; padding rows are all the same row (six zeros for partners, the type-None one-hot
 * for roads: spec §4.6, §5.9), so their embedding is one vector per embedder. Per agent, the graph takes the
 * max over the agent's real rows and, when its block has any padding row, that padding embedding:
 *
 *   ego [N,6]; partner_rows [P,6] with partner_agent [P,1] (the agent of each row) and partner_pad [N,1]
 *   (bool: the agent's block has padding); road_rows [R,13], road_agent [R,1], road_pad [N,1].
 *   Row 0 of each block is the padding row, whose agent is N (a row past the last agent, dropped).
 *   → per block: embed(rows) [P,64]; padding embedding = its row 0; scatter with max into
 *     Where(pad, padding embedding, −∞) plus the dropped row [N+1,64]; the first N rows + bias
 *   → Concat → Gemm(192→128) → Gemm(128→91) = logits; ArgMax = action.
 *
 * max is exact in any order, and every row — the padding row too, in among the real ones — is embedded by the
 * same kernels as in the full graph, so the logits are the full graph's bit for bit (tested on real scenes and
 * live maps). An agent always has at least one row per block (a real one or padding), so nothing stays at −∞.
 */
export function buildRowsOnnx(w: LateFusionWeights, provenance: ModelProvenance = {}): Uint8Array {
  const nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  const inits: Tensor[] = [];
  const get = (name: string) => {
    const t = w.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    return t.data;
  };
  const node = (opType: string, inputs: string[], outputs: string[], attribute: ReturnType<typeof attrInt>[] = []) => {
    nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: outputs, name: outputs[0], attribute }));
  };
  const registerWeights = (prefix: EmbedderName, inDim: number) => inits.push(...embedderInitializers(w, prefix, inDim));
  /** Linear → LayerNorm → tanh → Linear without its bias, over 2-D rows, as in the full graph. */
  const embed = (prefix: EmbedderName, input: string, tag: string): string => {
    node('Gemm', [input, `${prefix}.0.wT`, `${prefix}.0.b`], [`${tag}.lin0`]);
    node('LayerNormalization', [`${tag}.lin0`, `${prefix}.1.g`, `${prefix}.1.b`], [`${tag}.ln`], [attrInt('axis', -1), attrFloat('epsilon', 1e-5)]);
    node('Tanh', [`${tag}.ln`], [`${tag}.act`]);
    node('MatMul', [`${tag}.act`, `${prefix}.4.wT`], [`${tag}.mm4`]);
    return `${tag}.mm4`;
  };
  inits.push(floatInit('neg_inf', [1], Float32Array.of(-Infinity)));
  inits.push(floatInit('neg_inf_row', [1, 64], new Float32Array(64).fill(-Infinity)));
  inits.push(onnx.TensorProto.create({ name: 'row0', dims: [], dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(8) }));
  inits.push(int64Init('first', [0]), int64Init('all_but_last', [-1]), int64Init('axis0', [0]));
  /** max over each agent's real rows and, where its block has padding, the padding row (row 0); then the bias. */
  const block = (prefix: EmbedderName, name: string, rows: string, agent: string, pad: string, inDim: number) => {
    registerWeights(prefix, inDim);
    const rowsEmbed = embed(prefix, rows, prefix);
    node('Gather', [rowsEmbed, 'row0'], [`${name}_padding_embed`], [attrInt('axis', 0)]);
    node('Where', [pad, `${name}_padding_embed`, 'neg_inf'], [`${name}_init`]);
    node('Concat', [`${name}_init`, 'neg_inf_row'], [`${name}_init_dropped`], [attrInt('axis', 0)]);
    node('ScatterND', [`${name}_init_dropped`, agent, rowsEmbed], [`${name}_max_dropped`], [attrString('reduction', 'max')]);
    node('Slice', [`${name}_max_dropped`, 'first', 'all_but_last', 'axis0'], [`${name}_max`]);
    node('Add', [`${name}_max`, `${prefix}.4.b`], [`${name}_feat`]);
  };

  registerWeights('ego_embed', EGO_FEATURES);
  node('Add', [embed('ego_embed', ROWS_INPUTS.ego, 'ego_embed'), 'ego_embed.4.b'], ['ego_feat']);
  block('partner_embed', 'partner', ROWS_INPUTS.partners, ROWS_INPUTS.partnerAgent, ROWS_INPUTS.partnerPad, PARTNER_FEATURES);
  block('road_map_embed', 'road', ROWS_INPUTS.roads, ROWS_INPUTS.roadAgent, ROWS_INPUTS.roadPad, ROAD_FEATURES);
  node('Concat', ['ego_feat', 'partner_feat', 'road_feat'], ['fused'], [attrInt('axis', 1)]);
  inits.push(floatInit('shared.w', [128, 192], get('shared_embed.0.weight')));
  inits.push(floatInit('shared.b', [128], get('shared_embed.0.bias')));
  node('Gemm', ['fused', 'shared.w', 'shared.b'], ['hidden'], [attrInt('transB', 1)]);
  inits.push(floatInit('actor.w', [ACTION_COUNT, 128], get('actor.weight')));
  inits.push(floatInit('actor.b', [ACTION_COUNT], get('actor.bias')));
  node('Gemm', ['hidden', 'actor.w', 'actor.b'], ['logits'], [attrInt('transB', 1)]);
  node('ArgMax', ['logits'], ['action'], [attrInt('axis', 1), attrInt('keepdims', 0)]);

  const F = onnx.TensorProto.DataType.FLOAT;
  const I64 = onnx.TensorProto.DataType.INT64;
  const B = onnx.TensorProto.DataType.BOOL;
  const graph = onnx.GraphProto.create({
    name: 'gpudrive_late_fusion_rows',
    node: nodes,
    initializer: inits,
    input: [
      valueInfo(ROWS_INPUTS.ego, F, ['N', EGO_FEATURES]),
      valueInfo(ROWS_INPUTS.partners, F, ['P', PARTNER_FEATURES]),
      valueInfo(ROWS_INPUTS.partnerAgent, I64, ['P', 1]),
      valueInfo(ROWS_INPUTS.partnerPad, B, ['N', 1]),
      valueInfo(ROWS_INPUTS.roads, F, ['R', ROAD_FEATURES]),
      valueInfo(ROWS_INPUTS.roadAgent, I64, ['R', 1]),
      valueInfo(ROWS_INPUTS.roadPad, B, ['N', 1]),
    ],
    output: [valueInfo('logits', F, ['N', ACTION_COUNT]), valueInfo('action', I64, ['N'])],
  });
  return encodeModel(graph, ROWS_OPSET, 'GPUDrive late-fusion policy (actor only) on real observation rows: ego, partner and road rows with their agent and padding flags -> logits[N,91], action[N]', provenance);
}

function attrString(name: string, s: string) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.STRING, s: new TextEncoder().encode(s) });
}

/**
 * The checkpoint tensors back from a model this exporter wrote (either layout: the initializer names are
 * the same), or null for a model from elsewhere. Linear weights are transposed back: exact (a permutation).
 * The critic is not in the model, so it is not in the result.
 */
export function readLateFusionOnnxWeights(bytes: Uint8Array): LateFusionWeights | null {
  const model = onnx.ModelProto.decode(bytes);
  const byName = new Map<string, Float32Array>();
  for (const t of model.graph?.initializer ?? []) {
    if (!t.name || t.dataType !== onnx.TensorProto.DataType.FLOAT) continue;
    let data: Float32Array;
    if (t.rawData && t.rawData.length > 0) {
      const raw = t.rawData;
      data = new Float32Array(raw.length / 4);
      new Uint8Array(data.buffer).set(raw);
    } else {
      data = Float32Array.from(t.floatData ?? []);
    }
    byName.set(t.name, data);
  }
  const out = new Map<string, { shape: readonly number[]; data: Float32Array }>();
  const take = (onnxName: string, name: string, shape: number[], transposedFrom?: [number, number]): boolean => {
    const d = byName.get(onnxName);
    if (!d || d.length !== shape.reduce((a, b) => a * b, 1)) return false;
    out.set(name, { shape, data: transposedFrom ? transpose(d, transposedFrom[0], transposedFrom[1]) : d });
    return true;
  };
  const embedders: Array<[EmbedderName, number]> = [['ego_embed', EGO_FEATURES], ['partner_embed', PARTNER_FEATURES], ['road_map_embed', ROAD_FEATURES]];
  for (const [p, inDim] of embedders) {
    const ok = take(`${p}.0.wT`, `${p}.0.weight`, [64, inDim], [inDim, 64]) && take(`${p}.0.b`, `${p}.0.bias`, [64])
      && take(`${p}.1.g`, `${p}.1.weight`, [64]) && take(`${p}.1.b`, `${p}.1.bias`, [64])
      && take(`${p}.4.wT`, `${p}.4.weight`, [64, 64], [64, 64]) && take(`${p}.4.b`, `${p}.4.bias`, [64]);
    if (!ok) return null;
  }
  const ok = take('shared.w', 'shared_embed.0.weight', [128, 192]) && take('shared.b', 'shared_embed.0.bias', [128])
    && take('actor.w', 'actor.weight', [ACTION_COUNT, 128]) && take('actor.b', 'actor.bias', [ACTION_COUNT]);
  return ok ? out : null;
}
