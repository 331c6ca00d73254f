import { globSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { HANG_GUARD_MS } from './test/helpers/hang-guard.ts';

const TESTS = 'test/**/*.test.ts';
// A file that mocks a module (vi.mock) gets a module graph of its own: a module another file loaded first would
// keep its real implementation. The rest share one per worker, so src/ and the helpers load once per worker, not
// once per file (most of what an in-process file costs).
const MOCKING = globSync(TESTS).filter((file) => readFileSync(file, 'utf8').includes('vi.mock('));

export default defineConfig({
  test: {
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    // No test holds a wall-clock limit that load can break: these only stop a hang.
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    // The e2e files mostly wait (on child processes, timers, sockets), so more of them run at once than
    // there are cores; the longest (outages) then bounds the run instead of their sum.
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: [TESTS],
          exclude: [...configDefaults.exclude, ...MOCKING],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
