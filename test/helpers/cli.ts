// The bundled command line (dist/cli.js) as a shell runs it: arguments, a clean environment (nothing of the CI the
// tests run in), a fresh working directory; its exit code, stdout, stderr, and the files it left there.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CHILD_HANG_GUARD_MS } from './hang-guard.ts';

/** The bundle under test, beside the action's. */
export const CLI = resolve(
  process.env.AGENT_DEPLOY_CLI ?? resolve(import.meta.dirname, '../../dist/cli.js'),
);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The files the run left in its working directory, by the names asked for in `read`. */
  files: Record<string, string | undefined>;
}

interface CliOptions {
  args: string[];
  env?: Record<string, string>;
  /** Files to read back from the working directory after the run. */
  read?: string[];
  /** Files to write into the working directory before the start: relative path → content. */
  files?: Record<string, string>;
  /** Called with the working directory before the start, e.g. to plant a symbolic link or a FIFO. */
  prepare?: (dir: string) => void;
  /** Called with each chunk of stderr as it comes, e.g. to send a signal once a line shows. */
  onStderr?: (text: string, child: ChildProcess) => void;
}

export async function runCli(options: CliOptions): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-cli-'));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  options.prepare?.(dir);
  try {
    const child = spawn(process.execPath, [CLI, ...options.args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr, child);
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), CHILD_HANG_GUARD_MS);
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    clearTimeout(killer);
    const files = Object.fromEntries(
      (options.read ?? []).map((name) => {
        const file = join(dir, name);
        return [name, existsSync(file) ? readFileSync(file, 'utf8') : undefined];
      }),
    );
    return { code, stdout, stderr, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lines that a GitHub runner would read as a workflow command: none may come from the command line. */
export function runnerCommands(run: CliRun): string[] {
  return [...run.stdout.split('\n'), ...run.stderr.split('\n')].filter((line) =>
    /^\s*::|##\[/.test(line),
  );
}
