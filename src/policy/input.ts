/**
 * One batch of the policy's input, owned by whoever steps agents: the rows graph's ObservationRows, or the
 * 2984-float layout (with the real row counts) for a session that runs the model file's full graph. An
 * observer writes it (TrafficEngine.observe, the evaluation's stepper); `runPolicy` makes the one synchronous
 * inference call on it.
 */
import { OBS_SIZE } from './layout.js';
import { ObservationRows, type RowCounts } from './rows.js';
import type { PolicyResult, PolicySession } from './session.js';

export class PolicyInput {
  /** the rows graph's input (null when the session runs the full graph) */
  readonly rows: ObservationRows | null;
  /** the 2984-float layout, agent k at k·2984 (null for the rows graph) */
  readonly obs: Float32Array | null;
  /** agents in the batch */
  n = 0;
  /** real partner and road rows per agent of `obs` (found from the padding when absent) */
  counts: RowCounts | undefined = undefined;

  /**
   * `form`: 'session' — the session's own input (rows for the rows graph); 'layout' — always the 2984-float
   * layout (GPUDrive's; a rows-graph session packs its rows from it, the same logits bit for bit).
   */
  constructor(policy: PolicySession, readonly capacity: number, form: 'session' | 'layout' = 'session') {
    this.rows = form === 'session' && policy.graph === 'rows' ? policy.createRows(capacity) : null;
    this.obs = this.rows ? null : new Float32Array(Math.max(1, capacity) * OBS_SIZE);
  }
}

/** The one inference call of a policy step: computed when it returns, valid until the session's next run. */
export function runPolicy(policy: PolicySession, input: PolicyInput): PolicyResult {
  startPolicy(policy, input);
  return finishPolicy(policy, input);
}

/**
 * The inference call in two halves, for a caller with work that needs no result meanwhile: a session on the
 * inference thread runs between them (the input must stay as it is), one in this thread runs in finishPolicy.
 */
export function startPolicy(policy: PolicySession, input: PolicyInput): void {
  if (input.rows) policy.startRows(input.rows);
}

/** The result of the run started (startPolicy): valid until the session's next run; its time is policy.inferenceMs. */
export function finishPolicy(policy: PolicySession, input: PolicyInput): PolicyResult {
  return input.rows ? policy.finishRows() : policy.run(input.obs!, input.n, input.counts);
}
