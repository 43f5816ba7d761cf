/** A batch worker thread: runs the jobs its pool sends, one at a time, and posts each result back. */
import { parentPort } from 'node:worker_threads';
import type { RunJob } from './campaign.js';
import { runJob } from './run-job.js';

parentPort?.on('message', (job: RunJob) => {
  void runJob(job).then((r) => parentPort?.postMessage(r));
});
