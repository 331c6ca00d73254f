// The checkout as the hosts read it: the `git` on PATH, run as a child process (the core gets it as a `Git`, so its
// tests can hand it a fake or a repository of their own). Read-only commands only; nothing here fetches: a commit the
// checkout lacks is said, with what to do, never looked for on a remote.
import { execFile } from 'node:child_process';
import type { Git } from '../core/host.ts';

/** Longer is a git that hangs (a lock, a lazy fetch): the plan then says so and counts the commit as changed. */
const GIT_TIMEOUT_MS = 60_000;
/** A diff naming more files than fit here is one too big to tell apart: said, and counted as a change. */
const MAX_OUTPUT = 32 * 1024 * 1024;

export const systemGit: Git = {
  async changedFiles(dir, from, to, signal) {
    const diff = await git(
      dir,
      ['diff', '--name-only', '--no-renames', '-z', from, to, '--'],
      signal,
    );
    if (diff.ok) return { files: diff.out.split('\0').filter(Boolean) };
    if (signal.aborted) return { problem: 'the job was cancelled' };
    if (diff.missing) return { problem: 'git is not on PATH, so the commits cannot be compared' };
    // Why it failed, in the user's terms: no checkout, or a commit the (shallow) history lacks.
    const inside = await git(dir, ['rev-parse', '--is-inside-work-tree'], signal);
    if (!inside.ok)
      return {
        problem: `${dir} is not a git checkout (${inside.err}); check out the repository first (actions/checkout)`,
      };
    for (const [sha, whose] of [
      [from, "the live revision's"],
      [to, "this run's"],
    ] as const) {
      const found = await git(dir, ['cat-file', '-e', `${sha}^{commit}`], signal);
      if (!found.ok)
        return {
          problem: `commit ${sha} (${whose}) is not in the checkout's history, which is shallow or another branch's; fetch the whole history (actions/checkout with fetch-depth: 0)`,
        };
    }
    return { problem: `git diff failed: ${diff.err}` };
  },
};

/**
 * The URL of the checkout's `origin` remote (the command line's repository when no CI names one), or why there is
 * none. Read from the local configuration: no remote is asked.
 */
export async function originUrl(dir: string): Promise<{ url: string } | { why: string }> {
  const origin = await git(dir, ['remote', 'get-url', 'origin'], new AbortController().signal);
  if (origin.ok) return { url: origin.out.trim() };
  return {
    why: origin.missing
      ? "no git on PATH to read the checkout's origin remote"
      : 'the working directory is not a git checkout with an origin remote',
  };
}

type Outcome = { ok: true; out: string } | { ok: false; err: string; missing: boolean };

/**
 * One git command in `dir`. Paths relative to the repository's root whatever the configuration says; no prompt and
 * no lazy fetch of a partial clone's missing objects (a remote is never asked).
 */
function git(dir: string, args: string[], signal: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'diff.relative=false', '-c', 'core.quotepath=off', '-C', dir, ...args],
      {
        encoding: 'utf8',
        maxBuffer: MAX_OUTPUT,
        timeout: GIT_TIMEOUT_MS,
        signal,
        env: {
          ...process.env,
          GIT_TERMINAL_PROMPT: '0',
          GIT_NO_LAZY_FETCH: '1',
          GIT_OPTIONAL_LOCKS: '0',
        },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ ok: true, out: stdout });
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        const err = stderr.split('\n').find((line) => line.trim()) ?? error.message;
        resolve({ ok: false, err: err.trim(), missing });
      },
    );
  });
}
