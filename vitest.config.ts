import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    testTimeout: 15_000,
    // The e2e files mostly wait (on child processes, timers, sockets), so more of them run at once than
    // there are cores; the longest (outages) then bounds the run instead of their sum.
    maxWorkers: 4,
  },
});
