/** The local executor: worker threads on this machine (default: one per core). */
import { availableParallelism } from 'node:os';
import type { RunJob } from './campaign.js';
import { ThreadPool } from './pool.js';
import type { RunResult } from './run-job.js';
import type { Executor } from './runner.js';

export class LocalExecutor implements Executor {
  private readonly pool: ThreadPool;

  constructor(readonly size = availableParallelism()) {
    this.pool = new ThreadPool(size);
  }

  run(job: RunJob): Promise<RunResult> {
    return this.pool.run(job);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
