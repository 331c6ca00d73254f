// The checkout's git as the hosts run it (src/hosts/git.ts), on repositories made here with the git on PATH: the files
// between two commits from the repository's root, and each reason git cannot tell, in the user's terms.
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { systemGit } from '../../src/hosts/git.ts';
import { commitAll } from '../helpers/git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-git-'));
  dirs.push(dir);
  return dir;
};
const signal = new AbortController().signal;

it('names the files between two commits from the root, from a subfolder too, a rename at both paths', async () => {
  const dir = folder();
  const [base] = commitAll(dir, [{ 'agent-a/main.py': 'a\n', 'agent-a/naïve file.py': 'b\n' }]);
  mkdirSync(join(dir, 'shared'));
  renameSync(join(dir, 'agent-a/main.py'), join(dir, 'shared/main.py'));
  const [head] = commitAll(dir, [{ 'agent-a/naïve file.py': 'changed\n' }]);

  for (const where of [dir, join(dir, 'shared')]) {
    const answer = await systemGit.changedFiles(where, base!, head!, signal);
    expect(answer).toEqual({
      files: ['agent-a/main.py', 'agent-a/naïve file.py', 'shared/main.py'],
    });
  }
});

it('a commit the history lacks (a shallow clone): says which, and to fetch the whole history', async () => {
  const dir = folder();
  const [head] = commitAll(dir, [{ 'a.txt': 'a\n' }]);
  const missing = '1'.repeat(40);

  const answer = await systemGit.changedFiles(dir, missing, head!, signal);

  expect(answer).toEqual({
    problem: `commit ${missing} (the live revision's) is not in the checkout's history, which is shallow or another branch's; fetch the whole history (actions/checkout with fetch-depth: 0)`,
  });
});

it('no checkout: says so', async () => {
  const dir = folder();

  const answer = await systemGit.changedFiles(dir, '1'.repeat(40), '2'.repeat(40), signal);

  expect('problem' in answer && answer.problem).toMatch(
    new RegExp(`^${dir} is not a git checkout \\(.+\\); check out the repository first`),
  );
});
