import { globSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { HANG_GUARD_MS } from './test/helpers/hang-guard.ts';

const TESTS = 'test/**/*.test.ts';
// A file that mocks a module (vi.mock) gets a module graph of its own: a module another file loaded first would
// keep its real implementation. The rest share one per worker, so src/ and the helpers load once per worker, not
// once per file (most of what an in-process file costs).
const MOCKING = globSync(TESTS).filter((file) => readFileSync(file, 'utf8').includes('vi.mock('));

/**
 * The files through dist/ first: they mostly wait on their child processes, and started first their waits overlap
 * the other files' work. Vitest orders files by their last run's time (node_modules/.vite); a fresh clone has none,
 * and by size, its fallback, they would start last.
 */
class ChildProcessesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const e2e = (file: TestSpecification) => file.moduleId.endsWith('.e2e.test.ts');
    return [...sorted.filter(e2e), ...sorted.filter((file) => !e2e(file))];
  }
}

export default defineConfig({
  test: {
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    // No test holds a wall-clock limit that load can break: these only stop a hang.
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    // The e2e files mostly wait (on child processes, timers, sockets), so one more file runs at once than
    // there are cores; more workers than that only share the cores among the files that compute, each worker
    // loading src/ and the helpers again, and take longer.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: ChildProcessesFirst },
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
