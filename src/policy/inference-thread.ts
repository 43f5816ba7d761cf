/**
 * The policy's inference on a thread of its own (inference-worker.ts), so that the caller can do work that needs
 * no policy result while it runs (the shield's prediction of every vehicle and its gathering of what matters to each NPC: src/traffic/policy-step.ts) and a
 * step takes the longer of the two rather than their sum. Still one synchronous call as seen from the event
 * loop: `start` hands the request over, `finish` blocks (Atomics.wait) until the outputs are back; nothing else
 * runs in between. The tensors are views of shared memory, bound once each (`bind`); a run names a binding and
 * the first dimension of each of its tensors.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { CONTROL_WORDS, CTL, MAX_TENSORS, OP, SPIN_MAX_MS, type InferenceWorkerData, type SharedTensor } from './inference-protocol.js';
import type { Feeds } from './native.js';
import { projectRoot } from '../util/project-root.js';

/** the caller looks for the answer without sleeping from this long before the run should end [ms] */
const SPIN_LEAD_MS = 0.2;
/** a thread that answers nothing in this long (the model's load included) has hung [ms] */
const ANSWER_TIMEOUT_MS = 60_000;
/** a wait looks whether the thread still exists this often [ms] */
const ALIVE_CHECK_MS = 100;

function workerScript(): string {
  const here = fileURLToPath(new URL('./inference-worker.js', import.meta.url));
  if (existsSync(here)) return here;
  // (the TypeScript sources under a test runner: the compiled worker)
  const built = join(projectRoot(), 'dist', 'src', 'policy', 'inference-worker.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first (the inference thread runs the compiled code)`);
  return built;
}

/** how long the process's exit waits for each thread still open to close [ms] */
const EXIT_TIMEOUT_MS = 5_000;
/**
 * Threads not closed yet. They are closed when the process exits: one torn down with its native session still
 * loaded can abort the process.
 */
const open = new Set<InferenceThread>();
let closesAtExit = false;
function keepOpen(thread: InferenceThread): void {
  open.add(thread);
  if (closesAtExit) return;
  closesAtExit = true;
  process.once('exit', () => {
    for (const t of [...open]) t.close(EXIT_TIMEOUT_MS);
  });
}

export class InferenceThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly ctl: Int32Array;
  private readonly timing: Float64Array;
  private readonly bindings = new Map<Feeds, Map<Feeds, { id: number; tensors: readonly { dims: number[] }[] }>>();
  private nextBinding = 1;
  private request = 0;
  private startedAt = 0;
  private aliveAt = 0;
  private running = false;
  private closed = false;
  private failure: string | null = null;

  constructor(graph: Uint8Array, intraOpThreads: number, memPattern: boolean) {
    const control = new SharedArrayBuffer(4 * CONTROL_WORDS);
    const timing = new SharedArrayBuffer(16);
    this.ctl = new Int32Array(control);
    this.timing = new Float64Array(timing);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const data: InferenceWorkerData = { graph, intraOpThreads, memPattern, control, timing, port: port2 };
    this.worker = new Worker(workerScript(), { workerData: data, transferList: [port2] });
    // a thread blocked waiting for requests must not keep the process alive
    this.worker.unref();
    this.worker.on('error', (err) => { this.failure ??= `it threw: ${err.message}`; });
    keepOpen(this);
  }

  /** Binds tensors over shared memory once; their `dims` objects are read at every run. */
  private bindingOf(feeds: Feeds, fetches: Feeds): { id: number; tensors: readonly { dims: number[] }[] } {
    let byFetches = this.bindings.get(feeds);
    if (!byFetches) this.bindings.set(feeds, (byFetches = new Map()));
    let b = byFetches.get(fetches);
    if (b) return b;
    const list = (f: Feeds): SharedTensor[] => Object.entries(f).map(([name, t]) => {
      if (!(t.data.buffer instanceof SharedArrayBuffer)) throw new Error(`tensor ${name}: the inference thread takes tensors over shared memory`);
      return { name, type: t.type, dims: [...t.dims], data: t.data };
    });
    const fe = list(feeds), fo = list(fetches);
    if (fe.length + fo.length > MAX_TENSORS) throw new Error(`the inference thread binds at most ${MAX_TENSORS} tensors`);
    b = { id: this.nextBinding++, tensors: [...Object.values(feeds), ...Object.values(fetches)] };
    this.port.postMessage({ id: b.id, feeds: fe, fetches: fo });
    this.ask(OP.bind);
    this.wait();
    byFetches.set(fetches, b);
    return b;
  }

  /** Starts a run of the graph on `feeds` into `fetches` (tensors over shared memory, their dims as they are now). */
  start(feeds: Feeds, fetches: Feeds): void {
    if (this.running) throw new Error('an inference run is already under way');
    const b = this.bindingOf(feeds, fetches);
    const ctl = this.ctl;
    ctl[CTL.binding] = b.id;
    let k = CTL.dims;
    for (const t of b.tensors) ctl[k++] = t.dims[0];
    this.ask(OP.run);
    this.startedAt = performance.now();
    this.running = true;
  }

  /** Waits for the run started; returns the native run's time [ms] (the copies to and from the thread left out). */
  /**
   * A request comes soon: the thread wakes now and looks for it without sleeping (for at most SPIN_MAX_MS), so
   * it starts at once rather than some tens of microseconds later.
   */
  soon(): void {
    if (this.closed || this.failure || this.running) return;
    Atomics.add(this.ctl, CTL.bell, 1);
    Atomics.notify(this.ctl, CTL.bell);
  }

  finish(): number {
    if (!this.running) throw new Error('no inference run under way');
    this.running = false;
    // asleep until shortly before the run should end (as long as the last one), then looking without sleeping
    this.wait(this.startedAt + this.timing[1] - SPIN_LEAD_MS);
    return this.timing[0];
  }

  /** Ends the thread. */
  close(timeoutMs = ANSWER_TIMEOUT_MS): void {
    if (this.closed) return;
    open.delete(this);
    if (!this.failure) {
      try {
        // a run under way ends first; then the thread disposes of its session and answers
        if (this.running) {
          this.running = false;
          this.wait(Infinity, timeoutMs);
        }
        this.ask(OP.close);
        this.wait(Infinity, timeoutMs);
      } catch {
        // (a thread that failed or does not answer is stopped below)
      }
    }
    this.closed = true;
    // (it ends by itself on the close request: a thread stopped while its native session is still there can abort
    // the process, "terminate called after throwing an instance of 'Napi::Error'")
    if (this.failure) void this.worker.terminate();
  }

  private ask(op: number): void {
    this.check();
    this.ctl[CTL.op] = op;
    this.request++;
    Atomics.store(this.ctl, CTL.request, this.request);
    Atomics.add(this.ctl, CTL.bell, 1);
    Atomics.notify(this.ctl, CTL.bell);
  }

  /** Waits for the answer to the last request; from `spinFrom` (performance.now) on without sleeping for a while. */
  private wait(spinFrom = Infinity, timeoutMs = ANSWER_TIMEOUT_MS): void {
    const ctl = this.ctl;
    const until = performance.now() + timeoutMs;
    const spinUntil = spinFrom + SPIN_MAX_MS;
    // (looked at once the answer is ALIVE_CHECK_MS late: no system call on a step's path)
    this.aliveAt = performance.now();
    for (let done = Atomics.load(ctl, CTL.done); done !== this.request; done = Atomics.load(ctl, CTL.done)) {
      if (done === -1 || ctl[CTL.failed]) {
        const m = receiveMessageOnPort(this.port)?.message as { error?: string } | undefined;
        this.failure = `the inference thread failed: ${m?.error ?? 'no reason given'}`;
        break;
      }
      const left = until - performance.now();
      if (left <= 0) {
        this.failure = `the inference thread did not answer in ${timeoutMs / 1000} s`;
        break;
      }
      if (!this.alive()) {
        this.failure = 'the inference thread exited';
        break;
      }
      const now = performance.now();
      // (asleep in slices: a thread that ended without a word is noticed within one)
      if (now < spinFrom) Atomics.wait(ctl, CTL.done, done, Math.min(left, spinFrom - now, ALIVE_CHECK_MS));
      else if (now >= spinUntil) Atomics.wait(ctl, CTL.done, done, Math.min(left, ALIVE_CHECK_MS));
    }
    this.check();
  }

  /**
   * Is the thread still there? Its events cannot be heard while this thread blocks, so the thread's id it wrote at
   * its start is looked up among the process's tasks (Linux; elsewhere only the answer timeout tells).
   */
  private alive(): boolean {
    const tid = Atomics.load(this.ctl, CTL.tid);
    if (tid <= 0) return true;
    const now = performance.now();
    if (now - this.aliveAt < ALIVE_CHECK_MS) return true;
    this.aliveAt = now;
    return existsSync(`/proc/${process.pid}/task/${tid}`);
  }

  private check(): void {
    if (this.closed) throw new Error('the inference thread is closed');
    if (this.failure) throw new Error(this.failure);
  }

  /** Why the thread failed (it threw, ended or stopped answering), null while it works. */
  get failed(): string | null {
    return this.failure;
  }
}

/** a policy thread is started again at most this many times in its session's life */
export const MAX_THREAD_RESTARTS = 3;

/**
 * The inference thread a session keeps: one that failed (threw, ended, stopped answering) is replaced by a new one,
 * which runs the batch again (its tensors are as they were), up to MAX_THREAD_RESTARTS times; then its failure is
 * the session's. A live server's steps go on instead of failing one after another.
 */
export class PolicyThread {
  private thread: InferenceThread;
  private feeds: Feeds | null = null;
  private fetches: Feeds | null = null;
  /** threads started again, and why the last one failed */
  restarts = 0;
  lastFailure: string | null = null;

  constructor(private readonly graph: Uint8Array, private readonly intraOpThreads: number) {
    this.thread = new InferenceThread(graph, intraOpThreads, false);
  }

  soon(): void {
    this.thread.soon();
  }

  start(feeds: Feeds, fetches: Feeds): void {
    this.feeds = feeds;
    this.fetches = fetches;
    if (this.thread.failed) this.restart();
    try {
      this.thread.start(feeds, fetches);
    } catch (err) {
      // (binding new tensors waits for the thread: it may fail there)
      if (!this.thread.failed) throw err;
      this.restart();
      this.thread.start(feeds, fetches);
    }
  }

  /** The run's native time [ms]; a thread that failed on it is replaced and the batch run again. */
  finish(): number {
    try {
      return this.thread.finish();
    } catch (err) {
      if (!this.thread.failed) throw err;
      this.restart();
      this.thread.start(this.feeds!, this.fetches!);
      return this.thread.finish();
    }
  }

  close(): void {
    this.thread.close();
  }

  private restart(): void {
    const why = this.thread.failed!;
    if (this.restarts >= MAX_THREAD_RESTARTS) throw new Error(`${why} (started again ${this.restarts} times already: giving up)`);
    this.lastFailure = why;
    this.thread.close();
    this.restarts++;
    this.thread = new InferenceThread(this.graph, this.intraOpThreads, false);
  }
}
