import { defineConfig } from 'vitest/config';
import { HANG_GUARD_MS } from './test/helpers/hang-guard.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    // No test holds a wall-clock limit that load can break: these only stop a hang.
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    // The e2e files mostly wait (on child processes, timers, sockets), so more of them run at once than
    // there are cores; the longest (outages) then bounds the run instead of their sum.
    maxWorkers: 4,
  },
});
