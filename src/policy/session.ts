/**
 * The policy in onnxruntime-node: one batched `run` for N observations of 2984 floats.
 * Output buffers are allocated once (for the largest batch seen) and bound as pre-allocated fetches,
 * so the 10 Hz step allocates no tensors of its own.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { ACTION_COUNT, OBS_SIZE } from './checkpoint/late-fusion.js';
import { readModelMetadata } from './model-metadata.js';
import { SeededRandom, argmax, sampleSoftmax } from './sampling.js';
import { DEFAULT_SIZE_SCALE } from './convert.js';

export type ActionMode = { readonly kind: 'deterministic' } | { readonly kind: 'sample'; readonly seed: number };

export interface PolicySessionOptions {
  /** onnxruntime intra-op threads (default 1: the 10 Hz step of ≤ 63 agents gains little from more). */
  readonly intraOpThreads?: number;
  /** argmax (default) or seeded multinomial sampling from softmax(logits). */
  readonly mode?: ActionMode;
}

export interface PolicyResult {
  /** logits of agent i at [i*91, i*91+91); valid until the next run. */
  readonly logits: Float32Array;
  /** chosen action index per agent; valid until the next run. */
  readonly actions: Int32Array;
}

interface Binding {
  readonly input: ort.Tensor;
  readonly source: Float32Array;
  readonly logits: ort.Tensor;
  readonly action: ort.Tensor;
  readonly fetches: { logits: ort.Tensor; action: ort.Tensor };
  readonly feeds: { obs: ort.Tensor };
  readonly result: PolicyResult;
}

export class PolicySession {
  private logitsBuffer = new Float32Array(0);
  private actionBuffer = new BigInt64Array(0);
  private actions = new Int32Array(0);
  private readonly bindings = new Map<number, Binding>();
  private rng: SeededRandom | null;
  /** sessions sharing one loaded model (fork) release it when the last one is released */
  private readonly shared: { users: number };
  private released = false;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly metadata: Readonly<Record<string, string>>,
    readonly mode: ActionMode,
    readonly modelPath: string,
    shared?: { users: number },
  ) {
    this.rng = mode.kind === 'sample' ? new SeededRandom(mode.seed) : null;
    this.shared = shared ?? { users: 0 };
    this.shared.users++;
  }

  /**
   * A second session on the same loaded model with its own input and output buffers, so two scenes can
   * run in one process without one's results being overwritten by the other's run.
   */
  fork(mode: ActionMode = this.mode): PolicySession {
    if (this.released) throw new Error('policy session already released');
    return new PolicySession(this.session, this.metadata, mode, this.modelPath, this.shared);
  }

  static async load(modelPath: string, options: PolicySessionOptions = {}): Promise<PolicySession> {
    const bytes = readFileSync(modelPath);
    const session = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: options.intraOpThreads ?? 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new PolicySession(session, readModelMetadata(bytes), options.mode ?? { kind: 'deterministic' }, modelPath);
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

  /** Runs the first `n` observations of `obs` (row-major n×2984). */
  async run(obs: Float32Array, n: number): Promise<PolicyResult> {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`batch size must be a non-negative integer, got ${n}`);
    if (obs.length < n * OBS_SIZE) throw new RangeError(`obs holds ${obs.length} floats, ${n}×${OBS_SIZE} needed`);
    if (n === 0) return { logits: this.logitsBuffer.subarray(0, 0), actions: this.actions.subarray(0, 0) };
    const b = this.binding(obs, n);
    await this.session.run(b.feeds, b.fetches);
    const { logits, actions } = b.result;
    if (this.rng) {
      for (let i = 0; i < n; i++) actions[i] = sampleSoftmax(logits, i * ACTION_COUNT, ACTION_COUNT, this.rng.next());
    } else {
      for (let i = 0; i < n; i++) actions[i] = Number(this.actionBuffer[i]);
    }
    return b.result;
  }

  /** Releases this session; the model itself when no fork of it is left. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (--this.shared.users === 0) await this.session.release();
  }

  private binding(obs: Float32Array, n: number): Binding {
    if (n * ACTION_COUNT > this.logitsBuffer.length) {
      const capacity = Math.max(n, 64);
      this.logitsBuffer = new Float32Array(capacity * ACTION_COUNT);
      this.actionBuffer = new BigInt64Array(capacity);
      this.actions = new Int32Array(capacity);
      this.bindings.clear();
    }
    let b = this.bindings.get(n);
    if (!b || b.source !== obs) {
      const input = new ort.Tensor('float32', obs.subarray(0, n * OBS_SIZE), [n, OBS_SIZE]);
      const logits = new ort.Tensor('float32', this.logitsBuffer.subarray(0, n * ACTION_COUNT), [n, ACTION_COUNT]);
      const action = new ort.Tensor('int64', this.actionBuffer.subarray(0, n), [n]);
      b = {
        source: obs,
        input,
        logits,
        action,
        feeds: { obs: input },
        fetches: { logits, action },
        result: { logits: this.logitsBuffer.subarray(0, n * ACTION_COUNT), actions: this.actions.subarray(0, n) },
      };
      this.bindings.set(n, b);
    }
    return b;
  }
}


