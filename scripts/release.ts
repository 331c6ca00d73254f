// npm run release -- X.Y.Z [--dry-run] [--push]
// Cuts a release from a clean main whose dist/ equals a fresh build: runs npm test, checks dist/,
// sets the version, dates the CHANGELOG section, commits, tags vX.Y.Z and moves the major tag vX.
// --dry-run runs the same checks and prints the writes instead of making them. Nothing is pushed
// without --push. A refused release leaves the tree as it found it.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { releaseChangelog } from './changelog.ts';

const USAGE = 'usage: npm run release -- X.Y.Z [--dry-run] [--push]';
// npm version's `version` script (scripts/versions.ts) sets the release README.md, docs/ and the GitLab component
// (templates/) name; the tree was clean, so their folders hold no other change.
const RELEASED_FILES = [
  'package.json',
  'package-lock.json',
  'CHANGELOG.md',
  'dist',
  'README.md',
  'docs',
  'templates',
];

class Refusal extends Error {}
function refuse(message: string): never {
  throw new Refusal(message);
}

const say = (mark: string, text: string) => console.log(`${mark.padEnd(6)} ${text}`);
const git = (...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trimEnd();
// The paths of `git status --porcelain` lines (" M src/index.ts", "?? notes.txt").
const paths = (porcelain: string) =>
  porcelain
    .split('\n')
    .map((line) => line.slice(3))
    .join(', ');
const tagCommit = (tag: string) => {
  try {
    return git('rev-parse', '-q', '--verify', `refs/tags/${tag}^{commit}`);
  } catch {
    return undefined;
  }
};

// Runs a command with its output in a log file; on failure shows the end of it and refuses.
function runOrRefuse(command: string[], what: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'release-'));
  const log = join(dir, 'output.log');
  const fd = openSync(log, 'w');
  const result = spawnSync(command[0]!, command.slice(1), { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (result.status === 0) return rmSync(dir, { recursive: true });
  const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-40);
  console.log(tail.map((line) => `       | ${line}`).join('\n'));
  refuse(
    `${what} failed (${result.error?.message ?? `exit ${result.status}`}); full output: ${log}`,
  );
}

type Version = [number, number, number];
function parseVersion(text: string): Version | undefined {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

function parseCli(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'dry-run': { type: 'boolean' }, push: { type: 'boolean' } },
    });
  } catch (error) {
    return refuse(`${(error as Error).message.split('\n')[0]}; ${USAGE}`);
  }
  const [version, ...extra] = parsed.positionals;
  if (version === undefined || extra.length > 0) refuse(USAGE);
  return {
    version,
    dryRun: parsed.values['dry-run'] === true,
    push: parsed.values.push === true,
  };
}

function release(argv: string[]): void {
  const { version, dryRun, push } = parseCli(argv);
  const current = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const next = parseVersion(version);
  if (!next) refuse(`"${version}" is not a version X.Y.Z (digits only, no "v", no suffix)`);
  const now = parseVersion(current) ?? refuse(`package.json version "${current}" is not X.Y.Z`);
  const tag = `v${version}`;
  const major = `v${next[0]}`;
  const order = compare(next, now);
  // Equal is allowed once: the first release of the version package.json already has (1.0.0).
  const tagged = tagCommit(tag) !== undefined;
  if (order < 0 || (order === 0 && tagged))
    refuse(`${version} is not greater than ${current}, the version in package.json`);
  if (tagged) refuse(`tag ${tag} already exists`);

  console.log(`release ${tag}${dryRun ? ' (dry run: the checks run, nothing is written)' : ''}`);
  say(
    'ok',
    order > 0
      ? `version ${version} follows ${current} (package.json); tag ${tag} is free`
      : `version ${version} is package.json's and not tagged yet: its first release`,
  );

  const branch = git('rev-parse', '--abbrev-ref', 'HEAD');
  if (branch !== 'main') refuse(`releases are cut from main, and this is ${branch}`);
  say('ok', 'on branch main');

  const dirty = git('status', '--porcelain');
  if (dirty) refuse(`the working tree is not clean (${paths(dirty)}): commit or remove first`);
  say('ok', 'working tree clean');

  const date = new Date().toISOString().slice(0, 10);
  const notesFile = readFileSync('CHANGELOG.md', 'utf8');
  let changelog;
  try {
    changelog = releaseChangelog(notesFile, version, current, date);
  } catch (error) {
    return refuse((error as Error).message);
  }
  say('ok', `CHANGELOG.md has notes for ${version}`);

  try {
    say('run', 'npm test (typecheck, lint, bundle, all tests; output shown if it fails)');
    runOrRefuse(['npm', 'test'], 'npm test');
    say('ok', 'npm test');
    say('run', 'npm run bundle, then git status --porcelain -- dist');
    runOrRefuse(['npm', 'run', 'bundle'], 'npm run bundle');
    const stale = git('status', '--porcelain', '--', 'dist');
    if (stale)
      refuse(
        `dist/ differs from a fresh build of src/ (${paths(stale)}): run npm run bundle, commit dist/, and release again`,
      );
    say('ok', 'dist/ equals a fresh build, dist/licenses.txt included');
  } catch (error) {
    // The tree was clean, so whatever the checks changed under dist/ was theirs to undo.
    git('checkout', '-q', 'HEAD', '--', 'dist');
    git('clean', '-fdq', '--', 'dist');
    throw error;
  }

  const step = (text: string, write: () => void) => {
    say(dryRun ? 'would' : 'do', text);
    if (!dryRun) write();
  };
  if (order > 0) {
    step(
      `npm version ${version} --no-git-tag-version  (package.json, package-lock.json, the docs)`,
      () => runOrRefuse(['npm', 'version', version, '--no-git-tag-version'], 'npm version'),
    );
    // The bundle carries the version (the User-Agent), so the release commit rebuilds dist/.
    step('npm run bundle  (dist/ with the new version)', () =>
      runOrRefuse(['npm', 'run', 'bundle'], 'npm run bundle'),
    );
  }
  // Only a first release whose CHANGELOG section is already dated has nothing to commit.
  if (order > 0 || changelog.text !== notesFile) {
    step(`write CHANGELOG.md: ${changelog.change}`, () =>
      writeFileSync('CHANGELOG.md', changelog.text),
    );
    step(`git commit -m "Release ${tag}" -- ${RELEASED_FILES.join(' ')}`, () =>
      git('commit', '-q', '-m', `Release ${tag}`, '-m', changelog.notes, '--', ...RELEASED_FILES),
    );
  }
  step(`git tag -a ${tag}  (message: ${tag} and the CHANGELOG section)`, () =>
    git('tag', '-a', tag, '--cleanup=verbatim', '-m', `${tag}\n\n${changelog.notes}\n`),
  );
  const oldMajor = tagCommit(major);
  step(
    `git tag -f ${major} ${tag}^{}  (${oldMajor ? `was ${oldMajor.slice(0, 7)}` : 'new tag'})`,
    () => git('tag', '-f', major, `${tag}^{}`),
  );

  const pushes = [
    ['git', 'push', '--atomic', 'origin', 'main', `refs/tags/${tag}`],
    ['git', 'push', '--force', 'origin', `refs/tags/${major}`],
  ];
  if (push && !dryRun) {
    for (const command of pushes) {
      say('do', command.join(' '));
      runOrRefuse(command, command.slice(0, 2).join(' '));
    }
  } else {
    console.log(push ? 'would push:' : 'to publish, push (or run again with --push):');
    for (const command of pushes) console.log(`  ${command.join(' ')}`);
  }
  console.log(
    `then publish the GitHub release; the Release workflow re-checks dist/ and moves ${major}:`,
  );
  console.log(`  gh release create ${tag} --verify-tag --notes-from-tag`);
}

try {
  release(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof Refusal)) throw error;
  console.error(`release: ${error.message}`);
  process.exitCode = 1;
}
