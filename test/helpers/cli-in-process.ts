// The command line's host in-process, on a world's fake clock (helpers/run.ts): the inputs as flags, the CI around it
// (the one the registry detects: GitLab CI when GITLAB_CI=true, else a terminal) and the log written to a buffer, as a terminal (with its live lines)
// or as a plain file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunReport } from '../../src/core/report.ts';
import { Console } from '../../src/hosts/cli/console.ts';
import { detectCi } from '../../src/hosts/cli/ci-registry.ts';
import { exitCode } from '../../src/hosts/cli/exit.ts';
import { CliHost } from '../../src/hosts/cli/host.ts';
import { runAction } from '../../src/run.ts';
import { countedGit, type World } from './run.ts';

interface CliInProcess {
  report: RunReport;
  /** The exit code the command line would end with (its outputs written). */
  code: number;
  outputs: Record<string, string>;
  failure?: string;
  /** Everything written to stderr, escape sequences included. */
  stderr: string;
}

export async function runCliInProcess(
  world: World,
  options: {
    inputs: Record<string, string>;
    env?: NodeJS.ProcessEnv;
    terminal?: boolean;
    /** Called with the working directory before the run, e.g. to make it a git checkout. */
    prepare?: (dir: string) => void;
  },
): Promise<CliInProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-cli-inproc-'));
  options.prepare?.(dir);
  const env = options.env ?? {};
  const stderr = { text: '', columns: 120, write: (text: string) => (stderr.text += text) };
  const console = new Console(stderr, {
    live: options.terminal === true,
    color: false,
    debug: false,
    clock: world.clock,
  });
  const host = new CliHost({
    flags: new Map(Object.entries(options.inputs)),
    env,
    ci: await detectCi(env, dir, world.transport),
    console,
    cwd: dir,
  });
  try {
    const report = await runAction({
      host,
      clock: world.clock,
      transport: world.transport,
      signal: new AbortController().signal,
      git: countedGit(world),
    });
    console.close();
    return {
      report,
      code: exitCode(report, host.failure === undefined),
      outputs: host.outputs,
      failure: host.failure,
      stderr: stderr.text,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a terminal shows once `written` has been written to it: `CR ESC[2K` clears the line the cursor is on (empty
 * here), `ESC[1A ESC[2K` moves up a line and clears it.
 */
export function screen(written: string): string[] {
  const lines: string[] = [];
  let rest = written;
  while (rest.length > 0) {
    if (rest.startsWith('\r\x1b[2K')) {
      rest = rest.slice(5);
      continue;
    }
    if (rest.startsWith('\x1b[1A\x1b[2K')) {
      lines.pop();
      rest = rest.slice(8);
      continue;
    }
    const end = rest.search(/\n|\x1b\[1A|\r\x1b\[2K/);
    if (end < 0) throw new Error(`a line without its end: ${JSON.stringify(rest)}`);
    lines.push(rest.slice(0, end));
    rest = rest.slice(rest[end] === '\n' ? end + 1 : end);
  }
  return lines;
}
