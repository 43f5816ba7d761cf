/**
 * The policy in onnxruntime-node: one batched run for N observations of 2984 floats.
 *
 * The graph run by default is the 'rows' graph (onnx-export.ts, buildRowsOnnx), derived at load time from
 * the model file's own weights: it embeds each agent's real partner and road rows, and per block one padding
 * row for all agents, instead of all 63 + 200 rows; the logits are the full graph's bit for bit (the max-pool
 * sees the padding embedding wherever a block has padding). The ObservationBuilder writes the rows directly
 * (ObservationRows); for the 2984-float layout the real rows are taken from its counts (`RowCounts`) or found
 * as the rows before the trailing padding. 'full' runs the model file's graph on the whole observation.
 *
 * Inference is synchronous: the native session's run is called directly, so a policy step is one call that
 * never yields to the event loop (onnxruntime-node's own `run()` defers through setImmediate, which would let
 * socket I/O run in the middle of a step). The caller makes that call between the engine's observe and apply
 * (src/traffic/policy-step.ts).
 *
 * Every input and output buffer is allocated once (for the largest batch seen) and bound as is: a step
 * allocates no tensors of its own. `fork()` gives another scene its own buffers on the same loaded model.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ACTION_COUNT, OBS_SIZE } from './checkpoint/late-fusion.js';
import { readModelMetadata } from './model-metadata.js';
import { buildRowsOnnx, readLateFusionOnnxWeights } from './onnx-export.js';
import { ObservationRows, type BoundTensor, type RowCounts } from './rows.js';
import { SeededRandom, sampleSoftmax } from './sampling.js';
import { DEFAULT_SIZE_SCALE } from './convert.js';

export type ActionMode = { readonly kind: 'deterministic' } | { readonly kind: 'sample'; readonly seed: number };
/** 'rows': the real rows and one padding row per block (default); 'full': all 2984 floats (the model file's graph). */
export type PolicyGraph = 'rows' | 'full';

export interface PolicySessionOptions {
  /** onnxruntime intra-op threads (default 1: the 10 Hz step of ≤ 63 agents gains little from more). */
  readonly intraOpThreads?: number;
  /** argmax (default) or seeded multinomial sampling from softmax(logits). */
  readonly mode?: ActionMode;
  /**
   * default 'rows' ('full' for a model this project did not write, whose weights it cannot read back);
   * VILS_POLICY_GRAPH=full|rows sets it where no option does (for benchmarks)
   */
  readonly graph?: PolicyGraph;
}

export interface PolicyResult {
  /** logits of agent i at [i*91, i*91+91); valid until the next run. */
  readonly logits: Float32Array;
  /** chosen action index per agent; valid until the next run. */
  readonly actions: Int32Array;
}

type Feeds = Readonly<Record<string, BoundTensor>>;

interface NativeSession {
  run(feeds: Feeds, fetches: Feeds, options: object): unknown;
  dispose(): void;
}

interface NativeBinding {
  InferenceSession: new () => NativeSession & {
    loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: object): void;
  };
}

let nativeBinding: NativeBinding | null = null;
/**
 * onnxruntime-node's native binding, whose run() is synchronous (the package wraps it in a setImmediate).
 * It is where onnxruntime-node 1.2x and 1.30 keep it; a version without it is refused with the reason.
 */
function loadNativeBinding(): NativeBinding {
  if (nativeBinding) return nativeBinding;
  let found: NativeBinding | null = null;
  let why = 'it has no InferenceSession';
  try {
    const require = createRequire(import.meta.url);
    const m = require('onnxruntime-node/dist/binding.js') as { binding: NativeBinding; initOrt: () => void };
    m.initOrt();
    if (typeof m.binding?.InferenceSession === 'function') found = m.binding;
  } catch (err) {
    why = (err as Error).message;
  }
  if (!found) throw new Error(`onnxruntime-node's native binding (onnxruntime-node/dist/binding.js) is not usable: ${why}. VILS runs the policy synchronously through it; install the onnxruntime-node version in package.json`);
  nativeBinding = found;
  return found;
}

/** The loaded model, shared by a session and its forks. */
interface SharedModel {
  readonly graph: PolicyGraph;
  readonly native: NativeSession;
  users: number;
}

const SESSION_OPTIONS = (threads: number, memPattern: boolean) => ({
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential' as const,
  graphOptimizationLevel: 'all' as const,
  // memory patterns are planned per input shape: the rows graph's shapes change every step
  enableMemPattern: memPattern,
});

export class PolicySession {
  private logitsBuffer: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private actionBuffer: BigInt64Array<ArrayBufferLike> = new BigInt64Array(0);
  /** low 32-bit words of actionBuffer (little-endian): the action index without making a BigInt */
  private actionLow: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private actions = new Int32Array(0);
  /** this session's own rows, for run() on the 2984-float layout */
  private rows: ObservationRows | null = null;
  private readonly fullFeeds: { obs: { type: 'float32'; dims: number[]; data: Float32Array; location: 'cpu' } } = {
    obs: { type: 'float32', dims: [0, OBS_SIZE], data: new Float32Array(0), location: 'cpu' },
  };
  private fetches: Record<'logits' | 'action', BoundTensor> = {
    logits: { type: 'float32', dims: [0, ACTION_COUNT], data: this.logitsBuffer, location: 'cpu' },
    action: { type: 'int64', dims: [0], data: this.actionBuffer, location: 'cpu' },
  };
  private readonly results = new Map<number, PolicyResult>();
  private rng: SeededRandom | null;
  private released = false;

  private constructor(
    private readonly model: SharedModel,
    readonly metadata: Readonly<Record<string, string>>,
    readonly mode: ActionMode,
    readonly modelPath: string,
  ) {
    this.rng = mode.kind === 'sample' ? new SeededRandom(mode.seed) : null;
    this.model.users++;
  }

  /** The graph this session runs: 'rows' takes ObservationRows (runRows), 'full' only the 2984-float layout. */
  get graph(): PolicyGraph {
    return this.model.graph;
  }

  /**
   * A second session on the same loaded model with its own input and output buffers, so two scenes can
   * run in one process without one's results being overwritten by the other's run.
   */
  fork(mode: ActionMode = this.mode): PolicySession {
    if (this.released) throw new Error('policy session already released');
    return new PolicySession(this.model, this.metadata, mode, this.modelPath);
  }

  static async load(modelPath: string, options: PolicySessionOptions = {}): Promise<PolicySession> {
    const bytes = readFileSync(modelPath);
    const metadata = readModelMetadata(bytes);
    const envGraph = process.env.VILS_POLICY_GRAPH;
    const asked = options.graph ?? (envGraph === 'full' || envGraph === 'rows' ? envGraph : undefined);
    const weights = asked === 'full' ? null : readLateFusionOnnxWeights(bytes);
    if (asked === 'rows' && !weights) throw new Error(`${modelPath}: not a late-fusion model written by VILS, so its rows graph cannot be built (use graph 'full')`);
    const graph: PolicyGraph = weights ? 'rows' : 'full';
    const graphBytes = weights ? buildRowsOnnx(weights) : bytes;
    const native = new (loadNativeBinding().InferenceSession)();
    native.loadModel(graphBytes.buffer as ArrayBuffer, graphBytes.byteOffset, graphBytes.byteLength, SESSION_OPTIONS(options.intraOpThreads ?? 1, graph === 'full'));
    const model: SharedModel = { graph, native, users: 0 };
    return new PolicySession(model, metadata, options.mode ?? { kind: 'deterministic' }, modelPath);
  }

  /** Size scale s applied to agent length/width in observations (a property of the policy, spec §0). */
  get sizeScale(): number {
    const s = Number(this.metadata.size_scale);
    return Number.isFinite(s) && s > 0 ? s : DEFAULT_SIZE_SCALE;
  }

  /** Restarts the sampling sequence (sampling mode only). */
  reseed(seed: number): void {
    if (this.mode.kind === 'sample') this.rng = new SeededRandom(seed);
  }

  /**
   * Runs the first `n` observations of `obs` (row-major n×2984); `counts` says how many of each agent's partner
   * and road rows are real (else they are found). Computed when it returns; the result is valid until the next run.
   */
  run(obs: Float32Array, n: number, counts?: RowCounts): PolicyResult {
    if (!this.bindObservations(obs, n, counts)) return this.result(0);
    return this.runNative(n, this.model.graph === 'rows' ? this.rows!.feeds : this.fullFeeds);
  }

  /** Observation rows for runRows. */
  createRows(capacity: number): ObservationRows {
    return new ObservationRows(capacity);
  }

  /** Runs a batch of rows (an ObservationRows after finish(); rows graph only). */
  runRows(rows: ObservationRows): PolicyResult {
    if (!this.bindRows(rows)) return this.result(0);
    return this.runNative(rows.n, rows.feeds);
  }

  /** Releases this session; the model itself when no fork of it is left. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (--this.model.users > 0) return;
    this.model.native.dispose();
  }

  private check(n: number): boolean {
    if (this.released) throw new Error('policy session already released');
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`batch size must be a non-negative integer, got ${n}`);
    if (n > this.actions.length) this.grow(n);
    return n > 0;
  }

  /** Binds n observations of the 2984-float layout; false for an empty batch. */
  private bindObservations(obs: Float32Array, n: number, counts: RowCounts | undefined): boolean {
    if (obs.length < n * OBS_SIZE) throw new RangeError(`obs holds ${obs.length} floats, ${n}×${OBS_SIZE} needed`);
    if (!this.check(n)) return false;
    if (this.model.graph === 'rows') {
      if (!this.rows || this.rows.capacity < n) this.rows = this.createRows(this.actions.length);
      this.rows.packObservations(obs, n, counts);
    } else {
      const t = this.fullFeeds.obs;
      t.data = obs;
      t.dims[0] = n;
    }
    return true;
  }

  private bindRows(rows: ObservationRows): boolean {
    if (this.model.graph !== 'rows') throw new Error(`this policy session runs the ${this.model.graph} graph: use run() with 2984-float observations`);
    return this.check(rows.n);
  }

  private runNative(n: number, feeds: Feeds): PolicyResult {
    this.fetches.logits.dims[0] = n;
    this.fetches.action.dims[0] = n;
    this.model.native.run(feeds, this.fetches, {});
    return this.finish(n);
  }

  private grow(n: number): void {
    const capacity = Math.max(n, 64);
    this.logitsBuffer = new Float32Array(capacity * ACTION_COUNT);
    this.actionBuffer = new BigInt64Array(capacity);
    this.actionLow = new Int32Array(this.actionBuffer.buffer);
    this.actions = new Int32Array(capacity);
    this.results.clear();
    this.fetches = {
      logits: { type: 'float32', dims: [0, ACTION_COUNT], data: this.logitsBuffer, location: 'cpu' },
      action: { type: 'int64', dims: [0], data: this.actionBuffer, location: 'cpu' },
    };
  }

  private finish(n: number): PolicyResult {
    const r = this.result(n);
    const { logits, actions } = r;
    if (this.rng) {
      for (let i = 0; i < n; i++) actions[i] = sampleSoftmax(logits, i * ACTION_COUNT, ACTION_COUNT, this.rng.next());
    } else {
      for (let i = 0; i < n; i++) actions[i] = this.actionLow[2 * i];
    }
    return r;
  }

  /** The result views for a batch of n (made once per n). */
  private result(n: number): PolicyResult {
    let r = this.results.get(n);
    if (!r) {
      r = { logits: this.logitsBuffer.subarray(0, n * ACTION_COUNT), actions: this.actions.subarray(0, n) };
      this.results.set(n, r);
    }
    return r;
  }
}
