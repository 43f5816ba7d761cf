import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // onnxruntime-node's native addon is happier in forked processes than in worker threads.
    pool: 'forks',
  },
});
