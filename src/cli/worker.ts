/**
 * `vils worker --queue redis://host:port [--concurrency N] [--queue-name vils-batch]`: processes queued batch
 * runs (from `vils batch --queue`) on this machine's cores until stopped (SIGINT/SIGTERM finish the runs under way).
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startQueueWorker } from '../scenario/index.js';
import { type Command, UsageError } from './commands.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'process batch runs from a BullMQ queue (vils batch --queue), on any number of machines',
  usage: 'vils worker --queue redis://host:port [--concurrency N] [--queue-name vils-batch] [--quiet]',
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { queue: { type: 'string' }, concurrency: { type: 'string' }, 'queue-name': { type: 'string' }, quiet: { type: 'boolean' } } });
    if (!values.queue) throw new UsageError('--queue redis://host:port is required');
    const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : availableParallelism();
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new UsageError(`--concurrency must be a whole number ≥ 1, got ${values.concurrency}`);
    const handle = await startQueueWorker(values.queue, {
      concurrency, queueName: values['queue-name'],
      onResult: (r) => {
        if (!values.quiet) console.error(`${r.runId}: ${r.status}${r.error ? ` (${r.error})` : ''} in ${r.wallS.toFixed(2)} s`);
      },
    });
    console.error(`vils worker: ${concurrency} thread(s) on ${values.queue} (queue ${values['queue-name'] ?? 'vils-batch'}); Ctrl-C to stop`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await handle.close();
    console.error(`vils worker: stopped after ${handle.processed()} runs`);
    return 0;
  },
};
