// Start-up in CPU instructions (valgrind's callgrind): the same count for the same binary and inputs whatever else
// the machine is doing, so the start-up target can be judged on a shared, noisy machine too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Stops the process at its first http.request: the work up to there is what "start to first request" costs.
// Inputs come as JSON in BENCH_INPUTS: valgrind's launcher drops variables whose names hold a hyphen.
const PRELOAD = `
const http = require('node:http');
http.request = () => { process._rawDebug('STOPPED-AT-REQUEST'); process.reallyExit(0); };
for (const [k, v] of Object.entries(JSON.parse(process.env.BENCH_INPUTS ?? '{}')))
  process.env['INPUT_' + k.toUpperCase()] = v;
`;

/** Whether valgrind can be run here; the bench leaves the section out when it cannot. */
export async function haveValgrind(): Promise<boolean> {
  try {
    await run('valgrind', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Instructions executed by `node <file>` to its exit, or (with `inputs`, for the action) to its first http.request.
 * Nothing is contacted: the request is never made.
 */
export async function instructions(file: string, inputs?: Record<string, string>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ir-'));
  try {
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, PRELOAD);
    for (const name of ['output', 'summary']) writeFileSync(join(dir, name), '');
    writeFileSync(join(dir, 'event.json'), '{}');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      ...(inputs && {
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: join(dir, 'output'),
        GITHUB_STEP_SUMMARY: join(dir, 'summary'),
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REPOSITORY: 'acme/agent',
        GITHUB_WORKSPACE: dir,
        RUNNER_TEMP: dir,
        BENCH_INPUTS: JSON.stringify(inputs),
      }),
    };
    const { stderr } = await run(
      'valgrind',
      [
        '--tool=callgrind',
        '--callgrind-out-file=/dev/null',
        '--smc-check=all-non-file',
        process.execPath,
        '--require',
        preload,
        file,
      ],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 },
    );
    if (inputs && !stderr.includes('STOPPED-AT-REQUEST'))
      throw new Error(`${file} made no request under valgrind:\n${stderr.slice(-2000)}`);
    const collected = /Collected : (\d+)/.exec(stderr);
    if (!collected) throw new Error(`callgrind printed no count for ${file}`);
    return Number(collected[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
