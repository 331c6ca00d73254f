// What npm test runs before the tests: npm run typecheck, lint and bundle, at once. None needs another's result
// (the bundle only transpiles), and on two cores together they take about half the time they take in a row. A
// step that fails shows its output and stops the others, and npm test with them, as `a && b && c` did. The type check
// and lint keep caches in node_modules/.cache (by content; npm ci starts them afresh), so a second run reads again
// only the files that changed.
import { type ChildProcess, spawn } from 'node:child_process';

const STEPS = ['typecheck', 'lint', 'bundle'];

/** npm itself as npm runs this script (npm_execpath), so that it runs on any platform. */
const npm = (args: string[]) =>
  process.env.npm_execpath
    ? spawn(process.execPath, [process.env.npm_execpath, ...args])
    : spawn('npm', args, { shell: process.platform === 'win32' });

const running = new Set<ChildProcess>();
let failed = false;

/** Runs one step; false when it failed (its output shown) or was stopped because another did. */
function run(step: string): Promise<boolean> {
  const started = performance.now();
  const child = npm(['run', '--silent', step]);
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      if (code === 0) {
        console.log(
          `ok     npm run ${step} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
        );
        return resolve(true);
      }
      if (!failed) {
        failed = true;
        for (const other of running) other.kill();
        process.stdout.write(output);
        console.error(`failed npm run ${step} (${signal ?? `exit ${code}`})`);
      }
      resolve(false);
    });
  });
}

const ok = await Promise.all(STEPS.map(run));
if (!ok.every(Boolean)) process.exitCode = 1;
