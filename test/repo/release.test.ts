// npm run release against throw-away clones of a repository made of this one's release files
// (package.json, package-lock.json, .gitignore, src/index.ts, the pages that name the release with the
// script that sets it, a dist/ and a CHANGELOG): real git,
// real npm, the real script. Only the `bundle` and `test` scripts are stand-ins (a copy that also
// records the version, as the real bundle does in its User-Agent, and an exit code), so that a
// release takes a second instead of the minutes of npm test, and so that dist/ can be made stale on
// purpose; the real bundle's reproducibility is what check-dist and .ci/run check. The rest of this
// repository would only make each clone slower: the script reads nothing else.
import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseChangelog } from '../../scripts/changelog.ts';
import { versionedFiles, versionsIn } from '../../scripts/versions.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/release.ts');
const tmp = mkdtempSync(join(tmpdir(), 'release-test-'));
const origin = join(tmp, 'origin.git');

// Commits and annotated tags need an author; signing would need keys the clone lacks; throw-away
// repositories need no housekeeping after a commit.
const env = {
  ...process.env,
  TMPDIR: tmp, // where the script keeps the output of a failed step; removed with the rest
  GIT_AUTHOR_NAME: 'release-test',
  GIT_AUTHOR_EMAIL: 'release-test@example.com',
  GIT_COMMITTER_NAME: 'release-test',
  GIT_COMMITTER_EMAIL: 'release-test@example.com',
  GIT_CONFIG_COUNT: '4',
  GIT_CONFIG_KEY_0: 'commit.gpgsign',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'tag.gpgsign',
  GIT_CONFIG_VALUE_1: 'false',
  GIT_CONFIG_KEY_2: 'gc.auto',
  GIT_CONFIG_VALUE_2: '0',
  GIT_CONFIG_KEY_3: 'maintenance.auto',
  GIT_CONFIG_VALUE_3: 'false',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const version = (dir: string, file: string) =>
  (JSON.parse(read(dir, file)) as { version: string }).version;

const CHANGELOG = `# Changelog

## [Unreleased]

### Fixed

- A fix users will see.

## [1.4.2] - 2026-01-01

### Added

- Everything so far.

[Unreleased]: https://github.com/acme/agent-deploy-action/compare/v1.4.2...HEAD
[1.4.2]: https://github.com/acme/agent-deploy-action/releases/tag/v1.4.2
`;

// origin.git: this repository's release files at version 1.4.2, released (v1.4.2 and v1 tagged),
// with one unreleased fix in the CHANGELOG, a stand-in bundle step and a passing stand-in test script.
beforeAll(() => {
  const work = join(tmp, 'base');
  for (const dir of ['src', 'dist', 'scripts', 'docs', 'templates'])
    mkdirSync(join(work, dir), { recursive: true });
  // The files a release rewrites (versions.ts, npm version's script, sets the docs' release) and what it runs.
  for (const file of [
    'package.json',
    'package-lock.json',
    '.gitignore',
    'src/index.ts',
    'scripts/versions.ts',
    ...versionedFiles(root),
  ])
    copyFileSync(join(root, file), join(work, file));
  git(work, 'init', '-q', '-b', 'main');
  const pkg = JSON.parse(read(work, 'package.json')) as { scripts: Record<string, string> };
  pkg.scripts.bundle = 'cp src/index.ts dist/index.js && echo $npm_package_version > dist/version';
  pkg.scripts.test = 'echo all tests passed';
  writeFileSync(join(work, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  execFileSync('npm', ['version', '1.4.2', '--no-git-tag-version', '--allow-same-version'], {
    cwd: work,
    env,
  });
  writeFileSync(join(work, 'CHANGELOG.md'), CHANGELOG);
  execFileSync('npm', ['run', 'bundle'], { cwd: work, env });
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'Release test fixture');
  git(work, 'tag', '-a', 'v1.4.2', '-m', 'v1.4.2');
  git(work, 'tag', 'v1', 'v1.4.2^{}');
  git(work, 'clone', '-q', '--bare', work, origin);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let clones = 0;
function cloneOrigin(from = origin): string {
  const dir = join(tmp, `clone-${++clones}`);
  git(tmp, 'clone', '-q', from, dir);
  return dir;
}

// The state a refused or dry release must leave exactly as it was.
const snapshot = (dir: string) => ({
  head: git(dir, 'rev-parse', 'HEAD'),
  tags: git(dir, 'show-ref', '--tags'),
  status: git(dir, 'status', '--porcelain'),
});

const execFileAsync = promisify(execFile);
async function release(dir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [script, ...args], {
      cwd: dir,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

// Runs a release that must be refused, and returns its one error line.
async function refused(dir: string, ...args: string[]) {
  const before = snapshot(dir);
  const run = await release(dir, ...args);
  expect(run.code, run.stdout).toBe(1);
  expect(snapshot(dir)).toEqual(before);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^release: /);
  return { line: lines[0]!, stdout: run.stdout };
}

describe.concurrent('npm run release refuses, and changes nothing', () => {
  it.each([
    [[], 'usage: npm run release -- X.Y.Z [--dry-run] [--push]'],
    [['1.5'], '"1.5" is not a version X.Y.Z'],
    [['v1.4.3'], '"v1.4.3" is not a version X.Y.Z'],
    [['1.4.03'], '"1.4.03" is not a version X.Y.Z'],
    [['1.4.3-rc.1'], '"1.4.3-rc.1" is not a version X.Y.Z'],
    [['1.4.1'], '1.4.1 is not greater than 1.4.2, the version in package.json'],
    [['1.4.2'], '1.4.2 is not greater than 1.4.2, the version in package.json'],
    [['1.4.3', '--force'], "Unknown option '--force'"],
    [['1.4.3', '1.4.4'], 'usage: npm run release'],
  ])('%j: %s', async (args, message) => {
    const { line } = await refused(cloneOrigin(), ...args);
    expect(line).toContain(message);
  });

  it('off main', async () => {
    const dir = cloneOrigin();
    git(dir, 'checkout', '-q', '-b', 'topic');
    const { line } = await refused(dir, '1.4.3', '--dry-run');
    expect(line).toBe('release: releases are cut from main, and this is topic');
  });

  it.each([[[]], [['--dry-run']]])('with a dirty tree %j', async (flags) => {
    const dir = cloneOrigin();
    appendFileSync(join(dir, 'src/index.ts'), '// not committed\n');
    writeFileSync(join(dir, 'notes.txt'), 'untracked\n');
    const { line } = await refused(dir, '1.4.3', ...flags);
    expect(line).toBe(
      'release: the working tree is not clean (src/index.ts, notes.txt): commit or remove first',
    );
  });

  it.each([[[]], [['--dry-run']]])('with a stale dist/ %j', async (flags) => {
    const dir = cloneOrigin();
    appendFileSync(join(dir, 'src/index.ts'), '// changed without a rebuild\n');
    git(dir, 'commit', '-q', '-am', 'src/ changed, dist/ not rebuilt');
    const { line, stdout } = await refused(dir, '1.4.3', ...flags);
    expect(line).toBe(
      'release: dist/ differs from a fresh build of src/ (dist/index.js): run npm run bundle, commit dist/, and release again',
    );
    expect(stdout).toContain('ok     npm test');
  });

  it('when npm test fails, showing its output', async () => {
    const dir = cloneOrigin();
    const pkg = JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> };
    pkg.scripts.test = 'echo "2 tests failed" && exit 1';
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    git(dir, 'commit', '-q', '-am', 'a failing test');
    const { line, stdout } = await refused(dir, '1.4.3');
    expect(line).toMatch(/^release: npm test failed \(exit 1\); full output: \S+output\.log$/);
    expect(stdout).toContain('       | 2 tests failed');
    expect(stdout).not.toContain('npm run bundle');
  });

  it('when the CHANGELOG has nothing for the version', async () => {
    const dir = cloneOrigin();
    writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG.replace('- A fix users will see.\n', ''));
    git(dir, 'commit', '-q', '-am', 'nothing unreleased');
    const { line } = await refused(dir, '1.4.3');
    expect(line).toBe(
      'release: CHANGELOG.md: nothing under "## [Unreleased]"; add the user-visible changes of 1.4.3 first',
    );
  });
});

describe.concurrent('npm run release on a clean main with a fresh dist/', () => {
  const today = new Date().toISOString().slice(0, 10);

  it('--dry-run runs the checks, lists every write, and makes none', async () => {
    const dir = cloneOrigin();
    const before = snapshot(dir);
    const run = await release(dir, '1.4.3', '--dry-run');
    expect(run.code, run.stderr).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    const steps = run.stdout.split('\n').map((line) => /^(\w+) +(.*)$/.exec(line)?.slice(1, 3));
    expect(steps.filter((step) => step && /^(ok|would)$/.test(step[0]!))).toEqual([
      ['ok', 'version 1.4.3 follows 1.4.2 (package.json); tag v1.4.3 is free'],
      ['ok', 'on branch main'],
      ['ok', 'working tree clean'],
      ['ok', 'CHANGELOG.md has notes for 1.4.3'],
      ['ok', 'npm test'],
      ['ok', 'dist/ equals a fresh build, dist/licenses.txt included'],
      [
        'would',
        'npm version 1.4.3 --no-git-tag-version  (package.json, package-lock.json, the docs)',
      ],
      ['would', 'npm run bundle  (dist/ with the new version)'],
      [
        'would',
        `write CHANGELOG.md: moves the 2 lines under [Unreleased] to "## [1.4.3] - ${today}"`,
      ],
      [
        'would',
        'git commit -m "Release v1.4.3" -- package.json package-lock.json CHANGELOG.md dist README.md docs templates',
      ],
      ['would', 'git tag -a v1.4.3  (message: v1.4.3 and the CHANGELOG section)'],
      ['would', `git tag -f v1 v1.4.3^{}  (was ${before.head.slice(0, 7)})`],
    ]);
    expect(run.stdout).toContain('  git push --atomic origin main refs/tags/v1.4.3\n');
    expect(run.stdout).toContain('  git push --force origin refs/tags/v1\n');
  });

  it('releases: version, CHANGELOG, commit, vX.Y.Z and vX on it; pushes nothing', async () => {
    const dir = cloneOrigin();
    const run = await release(dir, '1.4.3');
    expect(run.code, run.stderr).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(git(dir, 'rev-parse', 'v1.4.3^{commit}', 'v1^{commit}')).toBe(`${head}\n${head}`);
    expect(git(dir, 'cat-file', '-t', 'v1.4.3')).toBe('tag');
    expect(git(dir, 'tag', '-l', '--format=%(contents)', 'v1.4.3')).toBe(
      'v1.4.3\n\n### Fixed\n\n- A fix users will see.',
    );
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('Release v1.4.3');
    // The docs and the component that name a release name the new one (scripts/versions.ts).
    const naming = versionedFiles(dir).filter((file) => versionsIn(read(dir, file)).length > 0);
    expect(naming).toContain('templates/agent-deploy.yml');
    expect(git(dir, 'diff', '--name-only', 'HEAD~1').split('\n')).toEqual(
      ['CHANGELOG.md', 'dist/version', 'package-lock.json', 'package.json', ...naming].sort(),
    );
    for (const file of naming) expect(versionsIn(read(dir, file)), file).not.toContain('1.4.2');
    expect(read(dir, 'templates/agent-deploy.yml')).toContain('agent-deploy-action@1.4.3 ');
    // The release commit's dist/ is the fresh build of the released version.
    expect(read(dir, 'dist/version')).toBe('1.4.3\n');
    execFileSync('npm', ['run', 'bundle'], { cwd: dir, env });
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect([version(dir, 'package.json'), version(dir, 'package-lock.json')]).toEqual([
      '1.4.3',
      '1.4.3',
    ]);
    expect(read(dir, 'CHANGELOG.md')).toContain(
      `## [Unreleased]\n\n## [1.4.3] - ${today}\n\n### Fixed\n\n- A fix users will see.\n\n## [1.4.2]`,
    );
    expect(git(origin, 'tag')).toBe('v1\nv1.4.2');
    expect(run.stdout).toContain('to publish, push (or run again with --push):');
  });

  it('--push sends main and the new tag, then moves vX on the remote', async () => {
    const remote = join(tmp, 'push-origin.git');
    git(tmp, 'clone', '-q', '--bare', origin, remote);
    const dir = cloneOrigin(remote);
    const before = git(remote, 'rev-parse', 'v1');
    const run = await release(dir, '1.4.3', '--push');
    expect(run.code, run.stderr).toBe(0);
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(head).not.toBe(before);
    expect(git(remote, 'rev-parse', 'main', 'v1.4.3^{commit}', 'v1')).toBe(
      `${head}\n${head}\n${head}`,
    );
    expect(git(remote, 'tag')).toBe('v1\nv1.4.2\nv1.4.3');
  });

  it('the first release of the version package.json already has: dates its section, no bump', async () => {
    const dir = cloneOrigin();
    git(dir, 'tag', '-d', 'v1.4.2', 'v1');
    writeFileSync(
      join(dir, 'CHANGELOG.md'),
      CHANGELOG.replace('### Fixed\n\n- A fix users will see.\n\n', '').replace(
        '## [1.4.2] - 2026-01-01',
        '## [1.4.2]',
      ),
    );
    git(dir, 'commit', '-q', '-am', 'first release notes');
    const run = await release(dir, '1.4.2');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("version 1.4.2 is package.json's and not tagged yet");
    expect(run.stdout).not.toContain('npm version');
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('Release v1.4.2');
    expect(git(dir, 'diff', '--name-only', 'HEAD~1')).toBe('CHANGELOG.md');
    expect(read(dir, 'CHANGELOG.md')).toContain(`## [1.4.2] - ${today}\n`);
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(git(dir, 'rev-parse', 'v1.4.2^{commit}', 'v1')).toBe(`${head}\n${head}`);
  });
});

describe('the CHANGELOG step', () => {
  it('moves [Unreleased] under the new version and updates the compare links', () => {
    const { text, notes } = releaseChangelog(CHANGELOG, '1.5.0', '1.4.2', '2026-11-23');
    expect(text).toBe(
      CHANGELOG.replace(
        '## [Unreleased]\n',
        '## [Unreleased]\n\n## [1.5.0] - 2026-11-23\n',
      ).replace(
        '[Unreleased]: https://github.com/acme/agent-deploy-action/compare/v1.4.2...HEAD\n',
        '[Unreleased]: https://github.com/acme/agent-deploy-action/compare/v1.5.0...HEAD\n' +
          '[1.5.0]: https://github.com/acme/agent-deploy-action/compare/v1.4.2...v1.5.0\n',
      ),
    );
    expect(notes).toBe('### Fixed\n\n- A fix users will see.');
  });

  it('refuses entries under [Unreleased] next to a section of the version', () => {
    const both = CHANGELOG.replace('## [1.4.2] - 2026-01-01', '## [1.4.2]');
    expect(() => releaseChangelog(both, '1.4.2', '1.4.2', '2026-11-23')).toThrow(
      'CHANGELOG.md has both a "## [1.4.2]" section and entries under [Unreleased]: move them into one',
    );
  });

  // Whatever [Unreleased] holds today, one more line included.
  it("keeps this repository's CHANGELOG.md Prettier-clean when it releases", async () => {
    const text = read(root, 'CHANGELOG.md').replace(
      '## [Unreleased]\n',
      '## [Unreleased]\n\n### Fixed\n\n- A fix.\n',
    );
    const released = releaseChangelog(text, '99.0.0', version(root, 'package.json'), '2026-11-23');
    expect(released.notes).toMatch(/^### Fixed\n\n- A fix\.$/m);
    const options = {
      ...(await prettier.resolveConfig(join(root, 'CHANGELOG.md'))),
      parser: 'markdown',
    };
    expect(await prettier.check(released.text, options)).toBe(true);
  });
});
