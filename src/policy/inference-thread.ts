/**
 * The rows graph in a worker thread (inference-worker.mjs): PolicySession's 'worker' inference, the
 * alternative to synchronous inference on the main thread that `npm run bench:viewers` measures. The main
 * thread writes a batch into shared memory, posts 'run' and awaits the answer; meanwhile its event loop runs
 * (socket I/O included), so a step is not atomic on the main thread and inputs arriving then are held.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root.js';

export function inferenceWorkerScript(): string {
  return join(projectRoot(), 'src', 'policy', 'inference-worker.mjs');
}

interface Answer {
  id: number;
  /** compute time in the worker [ms] */
  ms: number;
  error: string | null;
}

export class InferenceThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (a: Answer) => void>();
  private nextId = 1;
  private failed: Error | null = null;

  constructor(graph: Uint8Array, options: object) {
    this.worker = new Worker(inferenceWorkerScript(), { workerData: { graph, options } });
    this.worker.unref();
    this.worker.on('message', (a: Answer) => {
      const resolve = this.pending.get(a.id);
      this.pending.delete(a.id);
      if (this.pending.size === 0) this.worker.unref();
      resolve?.(a);
    });
    this.worker.on('error', (err) => {
      this.failed = err;
      for (const [id, resolve] of this.pending) resolve({ id, ms: 0, error: err.message });
      this.pending.clear();
    });
  }

  /** A new session id (one per PolicySession using the thread). */
  open(): number {
    return this.nextId++;
  }

  bind(id: number, buffers: Record<string, SharedArrayBuffer>): void {
    this.worker.postMessage({ kind: 'bind', id, buffers });
  }

  run(id: number, n: number, p: number, r: number): Promise<Answer> {
    if (this.failed) return Promise.reject(this.failed);
    this.worker.ref();
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ kind: 'run', id, n, p, r });
    });
  }

  forget(id: number): void {
    this.worker.postMessage({ kind: 'forget', id });
  }

  async close(): Promise<void> {
    this.worker.postMessage({ kind: 'close' });
    await this.worker.terminate();
  }
}
