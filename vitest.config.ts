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
  },
});
