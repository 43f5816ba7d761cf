import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

// where the test files write why they skip (test/helpers/prerequisites.ts), for the summary at the end
process.env.VILS_SKIP_LOG ??= join(tmpdir(), `vils-test-skips-${process.pid}.jsonl`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // onnxruntime-node's native addon is happier in forked processes than in worker threads;
    // --expose-gc lets the allocation tests start from a collected heap.
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // vitest's default leaves one core idle; many files wait on sockets, timers and child processes, so one
    // worker more than the cores keeps them busy (2 cores: 349 s with vitest's 1 worker, 252 s with 2, 205 s
    // with 3). No test depends on how fast it is run.
    maxWorkers: availableParallelism() + 1,
    reporters: ['default', './test/support/slowest-files.ts', './test/support/summary-reporter.ts'],
    // the longest files first, the browser files spaced out, whether or not vitest has timed them before
    sequence: { sequencer: LongestFirst },
  },
});
