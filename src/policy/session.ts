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
 * (src/traffic/policy-step.ts). With `thread: true` the native session lives on an inference thread of its own
 * (inference-thread.ts): `startRows` hands a batch over and `finishRows` blocks until its result is back, so the
 * caller can do work that needs no result in between, and the event loop still sees one synchronous call.
 *
 * Every input and output buffer is allocated once (for the largest batch seen) and bound as is: a step
 * allocates no tensors of its own. `fork()` gives another scene its own buffers on the same loaded model.
 */
import { readFileSync } from 'node:fs';
import { ACTION_COUNT, OBS_SIZE } from './checkpoint/late-fusion.js';
import { readModelMetadata } from './model-metadata.js';
import { buildRowsOnnx, readLateFusionOnnxWeights } from './onnx-export.js';
import { ObservationRows, type BoundTensor, type RowCounts } from './rows.js';
import { SeededRandom, sampleSoftmax } from './sampling.js';
import { DEFAULT_SIZE_SCALE } from './convert.js';
import { PolicyThread } from './inference-thread.js';
import { loadNativeSession, type Feeds, type NativeSession } from './native.js';

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
  /**
   * run the rows graph on a thread of its own (default false), so that a caller can work while it infers
   * (startRows … finishRows; see src/traffic/policy-step.ts); the full graph always runs in this thread
   */
  readonly thread?: boolean;
}

export interface PolicyResult {
  /** logits of agent i at [i*91, i*91+91); valid until the next run. */
  readonly logits: Float32Array;
  /** chosen action index per agent; valid until the next run. */
  readonly actions: Int32Array;
}

/** The loaded model, shared by a session and its forks: a native session here, or the inference thread's. */
interface SharedModel {
  readonly graph: PolicyGraph;
  readonly native: NativeSession | null;
  readonly thread: PolicyThread | null;
  users: number;
}

/** a model nobody releases ends its inference thread when it is collected (the thread would wait for requests) */
const unreleased = new FinalizationRegistry<PolicyThread>((thread) => thread.close());

/** Typed arrays over shared memory (for the inference thread) or not. */
const f32 = (n: number, shared: boolean) => (shared ? new Float32Array(new SharedArrayBuffer(4 * n)) : new Float32Array(n));

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
  /** the batch started (startRows) and not finished yet: its size (−1: none) and feeds */
  private pendingN = -1;
  private pendingFeeds: Feeds | null = null;
  /** the last run's native inference time [ms] (on the inference thread: its run alone, not the copies) */
  inferenceMs = 0;

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
    const threads = options.intraOpThreads ?? 1;
    const threaded = options.thread === true && graph === 'rows';
    const model: SharedModel = threaded
      ? { graph, native: null, thread: new PolicyThread(graphBytes, threads), users: 0 }
      : { graph, native: loadNativeSession(graphBytes, threads, graph === 'full'), thread: null, users: 0 };
    if (model.thread) unreleased.register(model, model.thread, model);
    return new PolicySession(model, metadata, options.mode ?? { kind: 'deterministic' }, modelPath);
  }

  /** Does the model run on a thread of its own (PolicySessionOptions.thread)? */
  get threaded(): boolean {
    return this.model.thread !== null;
  }

  /** The inference thread's state: how often it was started again and why (null: the model runs in this thread). */
  get threadStatus(): { restarts: number; last_failure: string | null } | null {
    const t = this.model.thread;
    return t ? { restarts: t.restarts, last_failure: t.lastFailure } : null;
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
    this.idle();
    if (!this.bindObservations(obs, n, counts)) return this.empty();
    this.begin(n, this.model.graph === 'rows' ? this.rows!.feeds : this.fullFeeds);
    return this.end();
  }

  /** Observation rows for runRows (over shared memory for the inference thread). */
  createRows(capacity: number): ObservationRows {
    return new ObservationRows(capacity, this.threaded);
  }

  /** Runs a batch of rows (an ObservationRows after finish(); rows graph only). */
  runRows(rows: ObservationRows): PolicyResult {
    this.startRows(rows);
    return this.finishRows();
  }

  /** A batch comes soon (the caller starts observing): the inference thread gets ready for it. */
  soon(): void {
    this.model.thread?.soon();
  }

  /**
   * Starts a batch of rows; `finishRows` returns its result. On the inference thread the run goes on meanwhile
   * (the rows must stay as they are until then); in this thread it runs in finishRows.
   */
  startRows(rows: ObservationRows): void {
    this.idle();
    if (!this.bindRows(rows)) {
      this.pendingN = 0;
      return;
    }
    this.begin(rows.n, rows.feeds);
  }

  /** The result of the batch started: computed when it returns, valid until the next run. */
  finishRows(): PolicyResult {
    if (this.pendingN < 0) throw new Error('no batch started: call startRows first');
    if (this.pendingN === 0) {
      this.pendingN = -1;
      return this.empty();
    }
    return this.end();
  }

  /** Releases this session; the model itself when no fork of it is left. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (--this.model.users > 0) return;
    this.model.native?.dispose();
    if (this.model.thread) {
      unreleased.unregister(this.model);
      this.model.thread.close();
    }
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

  /** Refuses a run while a batch started is not finished (its rows and outputs are in use). */
  private idle(): void {
    if (this.pendingN >= 0) throw new Error('a batch was started and not finished (finishRows)');
  }

  private begin(n: number, feeds: Feeds): void {
    this.fetches.logits.dims[0] = n;
    this.fetches.action.dims[0] = n;
    this.pendingN = n;
    this.pendingFeeds = feeds;
    this.model.thread?.start(feeds, this.fetches);
  }

  private end(): PolicyResult {
    const n = this.pendingN, feeds = this.pendingFeeds!;
    this.pendingN = -1;
    this.pendingFeeds = null;
    const { native, thread } = this.model;
    if (thread) this.inferenceMs = thread.finish();
    else {
      const t0 = performance.now();
      native!.run(feeds, this.fetches, {});
      this.inferenceMs = performance.now() - t0;
    }
    return this.finish(n);
  }

  private empty(): PolicyResult {
    this.inferenceMs = 0;
    return this.result(0);
  }

  private grow(n: number): void {
    const capacity = Math.max(n, 64);
    const shared = this.threaded;
    this.logitsBuffer = f32(capacity * ACTION_COUNT, shared);
    this.actionBuffer = shared ? new BigInt64Array(new SharedArrayBuffer(8 * capacity)) : new BigInt64Array(capacity);
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
