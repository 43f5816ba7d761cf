import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // onnxruntime-node's native addon is happier in forked processes than in worker threads;
    // --expose-gc lets the allocation tests start from a collected heap.
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // vitest's default leaves one core idle; many files wait on sockets and child processes, so two workers
    // on two cores halve the run. No test depends on how fast it is run.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/slowest-files.ts'],
  },
});
