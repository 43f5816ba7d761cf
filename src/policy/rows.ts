/**
 * A batch of observations as the policy's rows graph takes it (onnx-export.ts, buildRowsOnnx): each agent's
 * ego row, and only its real partner and road rows, packed block by block with the agent each row belongs to
 * and whether the agent's block has padding. Equivalent to the 2984-float layout (spec §2) because a padding
 * row is always the same row (§4.6, §5.9), whose embedding the graph computes once.
 *
 * Row 0 of each block is the padding row itself (agent: none), embedded in among the real rows so that its
 * embedding is computed exactly as in the full graph.
 *
 * Writers (the ObservationBuilder, or `packObservations` from the 2984-float layout) add agents in order:
 * write the agent's ego row at ego[n·6], its partner rows from row `partnerRowsUsed` and road rows from row
 * `roadRowsUsed`, then call `addAgent`; `finish()` ends the batch. All buffers are allocated once for
 * `capacity` agents; the native feeds are bound to them once, with shapes set by `finish()`.
 */
import {
  EGO_FEATURES, OBS_SIZE, PARTNER_FEATURES, PARTNER_OFFSET, PARTNER_ROWS, ROAD_FEATURES, ROAD_OFFSET, ROAD_ROWS,
} from './layout.js';

/** A tensor as onnxruntime-node's native binding takes it: dims may name fewer elements than data holds. */
export interface BoundTensor {
  readonly type: 'float32' | 'int64' | 'bool';
  readonly dims: number[];
  data: Float32Array | BigInt64Array | Uint8Array;
  readonly location: 'cpu';
}

/** Input names of the rows graph. */
export const ROWS_INPUTS = {
  ego: 'ego',
  partners: 'partner_rows',
  partnerAgent: 'partner_agent',
  partnerPad: 'partner_pad',
  roads: 'road_rows',
  roadAgent: 'road_agent',
  roadPad: 'road_pad',
} as const;

/** The padding road row: type None (spec §5.9). The padding partner row is six zeros (§4.6). */
export const ROAD_PADDING_TYPE_COLUMN = 6;

export class ObservationRows {
  /** agents in the batch */
  n = 0;
  /** partner / road rows so far (all agents), the padding row 0 included */
  partnerRowsUsed = 1;
  roadRowsUsed = 1;
  readonly ego: Float32Array;
  /** the padding row, then the real partner rows of all agents, 6 floats each */
  readonly partners: Float32Array;
  readonly roads: Float32Array;
  /** real partner / road rows of agent k */
  readonly partnerCount: Uint8Array;
  readonly roadCount: Uint8Array;
  private readonly partnerAgent: BigInt64Array;
  private readonly partnerAgent32: Int32Array;
  private readonly partnerPad: Uint8Array;
  private readonly roadAgent: BigInt64Array;
  private readonly roadAgent32: Int32Array;
  private readonly roadPad: Uint8Array;
  /** the feeds of the rows graph, bound to the buffers above */
  readonly feeds: Readonly<Record<string, BoundTensor>>;

  /** shared: the buffers over shared memory (for the inference thread, src/policy/inference-thread.ts) */
  constructor(readonly capacity: number, shared = false) {
    const buffer = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    const f32 = (n: number) => new Float32Array(buffer(4 * n));
    const i64 = (n: number) => new BigInt64Array(buffer(8 * n));
    const u8 = (n: number) => new Uint8Array(buffer(n));
    // two more rows per block: the padding row, and a second one when no agent has a real row in the block
    this.ego = f32(capacity * EGO_FEATURES);
    this.partners = f32((capacity * PARTNER_ROWS + 2) * PARTNER_FEATURES);
    this.roads = f32((capacity * ROAD_ROWS + 2) * ROAD_FEATURES);
    this.roads[ROAD_PADDING_TYPE_COLUMN] = 1; // row 0: the padding rows (§4.6: six zeros; §5.9: type None)
    this.partnerCount = new Uint8Array(capacity);
    this.roadCount = new Uint8Array(capacity);
    this.partnerAgent = i64(capacity * PARTNER_ROWS + 2);
    this.partnerAgent32 = new Int32Array(this.partnerAgent.buffer);
    this.partnerPad = u8(capacity);
    this.roadAgent = i64(capacity * ROAD_ROWS + 2);
    this.roadAgent32 = new Int32Array(this.roadAgent.buffer);
    this.roadPad = u8(capacity);
    const t = (type: BoundTensor['type'], data: BoundTensor['data'], width: number): BoundTensor => ({ type, dims: [0, width], data, location: 'cpu' });
    this.feeds = {
      [ROWS_INPUTS.ego]: t('float32', this.ego, EGO_FEATURES),
      [ROWS_INPUTS.partners]: t('float32', this.partners, PARTNER_FEATURES),
      [ROWS_INPUTS.partnerAgent]: t('int64', this.partnerAgent, 1),
      [ROWS_INPUTS.partnerPad]: t('bool', this.partnerPad, 1),
      [ROWS_INPUTS.roads]: t('float32', this.roads, ROAD_FEATURES),
      [ROWS_INPUTS.roadAgent]: t('int64', this.roadAgent, 1),
      [ROWS_INPUTS.roadPad]: t('bool', this.roadPad, 1),
    };
  }

  /** Starts a new batch. */
  clear(): void {
    this.n = 0;
    this.partnerRowsUsed = 1;
    this.roadRowsUsed = 1;
  }

  /** Real partner / road rows in the batch. */
  get realPartnerRows(): number {
    return this.partnerRowsUsed - 1;
  }

  get realRoadRows(): number {
    return this.roadRowsUsed - 1;
  }

  /**
   * Ends agent n's rows: its ego row is at ego[n·6] and its `partners` and `roads` real rows were written at
   * partnerRowsUsed and roadRowsUsed.
   */
  addAgent(partners: number, roads: number): void {
    const k = this.n;
    if (k >= this.capacity) throw new RangeError(`at most ${this.capacity} agents in a batch`);
    if (!(partners >= 0 && partners <= PARTNER_ROWS && roads >= 0 && roads <= ROAD_ROWS)) {
      throw new RangeError(`an agent has 0..${PARTNER_ROWS} partner and 0..${ROAD_ROWS} road rows, got ${partners} and ${roads}`);
    }
    const p = this.partnerRowsUsed;
    for (let j = 0; j < partners; j++) this.partnerAgent32[2 * (p + j)] = k;
    const r = this.roadRowsUsed;
    for (let j = 0; j < roads; j++) this.roadAgent32[2 * (r + j)] = k;
    this.partnerRowsUsed = p + partners;
    this.roadRowsUsed = r + roads;
    this.partnerCount[k] = partners;
    this.roadCount[k] = roads;
    this.partnerPad[k] = partners < PARTNER_ROWS ? 1 : 0;
    this.roadPad[k] = roads < ROAD_ROWS ? 1 : 0;
    this.n = k + 1;
  }

  /**
   * Sets the feeds' shapes for the batch. The padding row 0 belongs to no agent (index n, a row the graph
   * drops). A block without real rows gets a second padding row, so that it is never embedded alone (a
   * one-row product may round differently).
   */
  finish(): void {
    let p = this.partnerRowsUsed;
    let r = this.roadRowsUsed;
    const n = this.n;
    this.partnerAgent32[0] = n;
    this.roadAgent32[0] = n;
    if (p === 1) {
      this.partners.fill(0, PARTNER_FEATURES, 2 * PARTNER_FEATURES);
      this.partnerAgent32[2] = n;
      p = 2;
    }
    if (r === 1) {
      this.roads.fill(0, ROAD_FEATURES, 2 * ROAD_FEATURES);
      this.roads[ROAD_FEATURES + ROAD_PADDING_TYPE_COLUMN] = 1;
      this.roadAgent32[2] = n;
      r = 2;
    }
    const f = this.feeds;
    f[ROWS_INPUTS.ego].dims[0] = this.n;
    f[ROWS_INPUTS.partners].dims[0] = p;
    f[ROWS_INPUTS.partnerAgent].dims[0] = p;
    f[ROWS_INPUTS.partnerPad].dims[0] = this.n;
    f[ROWS_INPUTS.roads].dims[0] = r;
    f[ROWS_INPUTS.roadAgent].dims[0] = r;
    f[ROWS_INPUTS.roadPad].dims[0] = this.n;
  }

  /**
   * Fills the batch from n observations in the 2984-float layout. `counts` gives each agent's real partner and
   * road rows (written from slot 0, the rest padding); without it they are found as the rows up to the last one
   * that is not the padding row. A real row equal to the padding row may be taken either way: same result.
   */
  packObservations(obs: ArrayLike<number>, n: number, counts?: RowCounts): void {
    if (n > this.capacity) throw new RangeError(`at most ${this.capacity} agents in a batch`);
    this.clear();
    const { ego, partners, roads } = this;
    for (let i = 0; i < n; i++) {
      const base = i * OBS_SIZE;
      for (let k = 0; k < EGO_FEATURES; k++) ego[i * EGO_FEATURES + k] = obs[base + k];
      const pc = counts ? counts.partners[i] : realPartnerRows(obs, base);
      const rc = counts ? counts.roads[i] : realRoadRows(obs, base);
      let src = base + PARTNER_OFFSET;
      let dst = this.partnerRowsUsed * PARTNER_FEATURES;
      for (const end = src + pc * PARTNER_FEATURES; src < end; ) partners[dst++] = obs[src++];
      src = base + ROAD_OFFSET;
      dst = this.roadRowsUsed * ROAD_FEATURES;
      for (const end = src + rc * ROAD_FEATURES; src < end; ) roads[dst++] = obs[src++];
      this.addAgent(pc, rc);
    }
    this.finish();
  }
}

/**
 * How many of each agent's partner and road rows are real (written from slot 0; the rest are padding), as the
 * ObservationBuilder reports them.
 */
export interface RowCounts {
  readonly partners: ArrayLike<number>;
  readonly roads: ArrayLike<number>;
}

/** Real partner rows of the observation at `base`: up to the last row that is not the padding row (six zeros). */
export function realPartnerRows(obs: ArrayLike<number>, base: number): number {
  for (let r = PARTNER_ROWS - 1; r >= 0; r--) {
    const o = base + PARTNER_OFFSET + r * PARTNER_FEATURES;
    if (obs[o] !== 0 || obs[o + 1] !== 0 || obs[o + 2] !== 0 || obs[o + 3] !== 0 || obs[o + 4] !== 0 || obs[o + 5] !== 0) return r + 1;
  }
  return 0;
}

/** Real road rows of the observation at `base`: up to the last row that is not the padding row (type None). */
export function realRoadRows(obs: ArrayLike<number>, base: number): number {
  for (let r = ROAD_ROWS - 1; r >= 0; r--) {
    const o = base + ROAD_OFFSET + r * ROAD_FEATURES;
    for (let k = 0; k < ROAD_FEATURES; k++) if (obs[o + k] !== (k === ROAD_PADDING_TYPE_COLUMN ? 1 : 0)) return r + 1;
  }
  return 0;
}
