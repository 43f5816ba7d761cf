/**
 * A pool of worker threads for batch runs (one job per thread at a time). The threads run the compiled
 * `dist/src/scenario/batch/thread.js` (`npm run build`), so tests on the TypeScript sources use it too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../util/project-root.js';
import type { RunJob } from './campaign.js';
import type { RunResult } from './run-job.js';

export function threadScript(): string {
  const p = join(projectRoot(), 'dist', 'src', 'scenario', 'batch', 'thread.js');
  if (!existsSync(p)) throw new Error(`${p} is missing: run npm run build first (the batch threads run the compiled code)`);
  return p;
}

interface Slot {
  worker: Worker;
  job: RunJob | null;
  resolve: ((r: RunResult) => void) | null;
}

export class ThreadPool {
  private readonly slots: Slot[];
  private readonly waiting: Array<{ job: RunJob; resolve: (r: RunResult) => void }> = [];

  constructor(readonly size: number) {
    const script = threadScript();
    this.slots = Array.from({ length: size }, () => {
      const slot: Slot = { worker: new Worker(script), job: null, resolve: null };
      slot.worker.on('message', (r: RunResult) => this.done(slot, r));
      slot.worker.on('error', (err) => {
        // the thread died: its job is a failed run, and a fresh thread takes its place
        const job = slot.job;
        if (job) this.done(slot, { runId: job.runId, index: job.index, status: 'failed', error: `worker thread died: ${err.message}`, overrides: job.overrides, metrics: {}, csv: {}, resolvedYaml: '', simTimeS: 0, wallS: 0 });
        slot.worker = new Worker(script);
        slot.worker.on('message', (r: RunResult) => this.done(slot, r));
      });
      return slot;
    });
  }

  run(job: RunJob): Promise<RunResult> {
    return new Promise((resolve) => {
      const free = this.slots.find((s) => s.job === null);
      if (free) this.start(free, job, resolve);
      else this.waiting.push({ job, resolve });
    });
  }

  private start(slot: Slot, job: RunJob, resolve: (r: RunResult) => void): void {
    slot.job = job;
    slot.resolve = resolve;
    slot.worker.postMessage(job);
  }

  private done(slot: Slot, r: RunResult): void {
    const resolve = slot.resolve;
    slot.job = null;
    slot.resolve = null;
    resolve?.(r);
    const next = this.waiting.shift();
    if (next) this.start(slot, next.job, next.resolve);
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
