// What npm test runs before the tests: npm run typecheck, lint and bundle, each command of them (`a && b` in
// package.json is two) a step of its own. None needs another's result (the bundle only transpiles), so they run side
// by side, as many at once as there are cores, the longest first: the bundle holds one core for its whole time while
// the others take turns on the rest (started all at once, they shared the cores and the bundle ended last). A step
// that fails shows its output and stops the others, and npm test with them. The type check and lint keep caches in
// node_modules/.cache (by content; npm ci starts them afresh), so a second run reads again only the files that changed.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SCRIPTS = ['bundle', 'typecheck', 'lint'];

const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const steps = SCRIPTS.flatMap((script) => scripts[script]!.split(' && '));
// As npm runs a script: in a shell, the project's node_modules/.bin first on PATH.
const env = {
  ...process.env,
  PATH: [join(ROOT, 'node_modules/.bin'), process.env.PATH].join(delimiter),
};

const running = new Set<ChildProcess>();
let failed = false;

/** Runs one step; false when it failed (its output shown) or was stopped because another did. */
function run(step: string): Promise<boolean> {
  const started = performance.now();
  const child = spawn(step, { cwd: ROOT, env, shell: true });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      if (code === 0) {
        console.log(`ok     ${step} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        return done(true);
      }
      if (!failed) {
        failed = true;
        for (const other of running) other.kill();
        process.stdout.write(output);
        console.error(`failed ${step} (${signal ?? `exit ${code}`})`);
      }
      done(false);
    });
  });
}

/** One core's turn: the next step waiting, until none is left or one has failed. */
async function lane(): Promise<void> {
  for (let step = steps.shift(); step !== undefined && !failed; step = steps.shift())
    await run(step);
}

await Promise.all(Array.from({ length: Math.min(availableParallelism(), steps.length) }, lane));
if (failed) process.exitCode = 1;
