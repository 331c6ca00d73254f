// A real git repository made in a test: commits of files, as a checkout holds them, for the plan's `paths` (git diff
// between the live commit and this run's). The git on PATH, as the action uses it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, '-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

/**
 * Makes `dir` a repository with one commit per entry of `commits` (each the files it writes: path → content), in
 * order; answers each commit's sha.
 */
export function commitAll(dir: string, commits: Record<string, string>[]): string[] {
  git(dir, 'init', '--quiet', '--initial-branch=main');
  return commits.map((files, i) => {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    git(dir, 'add', '--all');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', `commit ${i + 1}`);
    return git(dir, 'rev-parse', 'HEAD');
  });
}

/**
 * A monorepo in a new temporary folder: `agents` (a directory each) and a README; then a second commit changing the
 * README and `changed`'s files only. Its folder, and the two commits.
 */
export function monorepo(
  agents: string[],
  changed: string[],
): { dir: string; base: string; head: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-repo-'));
  const first = Object.fromEntries([
    ['README.md', '# agents\n'],
    ...agents.map((a) => [`${a}/main.py`, `print("${a}")\n`]),
  ]);
  const second = Object.fromEntries([
    ['README.md', '# agents, one changed\n'],
    ...changed.map((a) => [`${a}/main.py`, `print("${a}, changed")\n`]),
  ]);
  const [base, head] = commitAll(dir, [first, second]);
  return { dir, base: base!, head: head! };
}
