// scripts/check-dist.ts, the last step of npm run all, .ci/run and check-dist.yml, in a throw-away repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/check-dist.ts', import.meta.url));
const repo = mkdtempSync(join(tmpdir(), 'check-dist-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd: repo,
    },
  );
const check = (env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [script], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_ACTIONS: '', ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('scripts/check-dist.ts', () => {
  beforeAll(() => {
    git('init', '-q');
    mkdirSync(join(repo, 'dist'));
    for (const f of ['index.js', '93.index.js', 'licenses.txt'])
      writeFileSync(join(repo, 'dist', f), f);
    writeFileSync(join(repo, 'notes.txt'), 'outside dist');
    git('add', '.');
    git('commit', '-qm', 'dist');
  });

  it('passes a dist/ equal to the committed one, whatever changed outside it', () => {
    writeFileSync(join(repo, 'notes.txt'), 'changed, but not in dist');
    expect(check()).toMatchObject({ code: 0, out: 'dist/ is up to date with src/.\n' });
  });

  it('names each file that differs, how, and what to do', () => {
    writeFileSync(join(repo, 'dist', 'index.js'), 'rebuilt');
    writeFileSync(join(repo, 'dist', '815.index.js'), 'a new chunk');
    unlinkSync(join(repo, 'dist', '93.index.js'));
    const { code, err } = check();
    expect(code).toBe(1);
    expect(err.split('\n')).toEqual([
      'dist/ is not what npm run bundle builds from src/ (3 files):',
      '  dist/93.index.js: committed, but the build no longer makes it',
      '  dist/index.js: changed by the build',
      '  dist/815.index.js: new in the build, not committed',
      'The runner executes dist/, so commit it with the change: npm run bundle, then git add dist and commit.',
      'If you did not change src/ or the dependencies, run npm ci first (a different install builds differently).',
      '',
    ]);
    expect(check({ GITHUB_ACTIONS: 'true' }).err).toMatch(/^::error::dist\/ is not what/);
  });
});
