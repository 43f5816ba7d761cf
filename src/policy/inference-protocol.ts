/** What the inference thread and its caller share: the control words, the operations, the messages. */
import type { MessagePort } from 'node:worker_threads';
import type { BoundTensor } from './rows.js';

/** word indices of the shared Int32Array */
export const CTL = {
  /** the caller's request counter */
  request: 0,
  /** the thread's answer: the request it finished (−1: it failed; its reason is on the port) */
  done: 1,
  /** what the request asks for (OP) */
  op: 2,
  /** the binding a run uses */
  binding: 3,
  /** 1 once the thread failed */
  failed: 4,
  /** rung (incremented) with every request, and by a hint that one comes soon: what the thread waits on */
  bell: 5,
  /** the thread's task id (Linux), written at its start: the caller checks that it still exists */
  tid: 6,
  /** a run's first dimension of each bound tensor, feeds then fetches */
  dims: 8,
} as const;
/** tensors a binding may hold (feeds and fetches) */
export const MAX_TENSORS = 24;
export const CONTROL_WORDS = CTL.dims + MAX_TENSORS;

export const OP = { bind: 1, run: 2, close: 3 } as const;

/**
 * A thread woken from Atomics.wait runs some tens of microseconds later (a few percent of a run); the thread, told
 * that a request comes soon, and the caller, near the time the run should end, may look at the shared word
 * without sleeping for at most this long [ms]. 0: never. Spinning saved 0.08 ms of a step's handover but, on a
 * machine whose cores are busy, took the time a real-time run in the same process needed (`vils run` rt_comms
 * with two busy loops fell behind), so it is off.
 */
export const SPIN_MAX_MS = 0;

/** A tensor whose data is a view of shared memory. */
export interface SharedTensor {
  readonly name: string;
  readonly type: BoundTensor['type'];
  readonly dims: readonly number[];
  readonly data: BoundTensor['data'];
}

export interface BindMessage {
  readonly id: number;
  readonly feeds: readonly SharedTensor[];
  readonly fetches: readonly SharedTensor[];
}

export interface InferenceWorkerData {
  readonly graph: Uint8Array;
  readonly intraOpThreads: number;
  readonly memPattern: boolean;
  readonly control: SharedArrayBuffer;
  /** Float64 [0]: the last run's native inference time, [1]: the whole request's, copies included [ms] */
  readonly timing: SharedArrayBuffer;
  readonly port: MessagePort;
}
