import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    testTimeout: 15_000,
  },
});
