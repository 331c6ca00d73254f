import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generate, GENERATED_FILES } from '../../scripts/docs.ts';
import { versionedFiles, versionsIn, withVersion } from '../../scripts/versions.ts';

interface ActionInput {
  description: string;
  required?: boolean;
  default?: string;
}

interface ActionFile {
  name: string;
  description: string;
  branding: { icon: string; color: string };
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

const root = new URL('../../', import.meta.url);
const action = parse(readFileSync(new URL('action.yml', root), 'utf8')) as ActionFile;
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const readme = read('README.md');
const reference = read('docs/reference.md');

// Splits a Markdown table row on unescaped pipes; `\|` stands for a literal pipe in a cell.
function cells(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.replaceAll('\\|', '|').trim());
}

// Rows of the first table of `page` whose header cells equal `header`.
function table(page: string, header: string[]): string[][] {
  const lines = page.split('\n');
  const start = lines.findIndex(
    (line) => line.trim().startsWith('|') && cells(line).join('\0') === header.join('\0'),
  );
  if (start < 0) throw new Error(`no table with header ${header.join(' | ')}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    const row = cells(line);
    expect(row, `row of the ${header[0]} table: ${line}`).toHaveLength(header.length);
    rows.push(row);
  }
  return rows;
}

function unquoteName(cell: string): string {
  const match = /^`([^`]+)`$/.exec(cell);
  if (!match?.[1]) throw new Error(`name cell is not a code span: ${cell}`);
  return match[1];
}

describe('action.yml', () => {
  it('runs the bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  // The Marketplace refuses a longer description and a name another action already uses.
  it('is ready for the Marketplace: a specific name, a short description, branding', () => {
    expect(action.name).toMatch(/Deployment Management Service/);
    expect(action.description.length).toBeLessThan(125);
    expect(action.description).not.toContain('\n');
    expect(action.branding).toEqual({ icon: expect.any(String), color: expect.any(String) });
  });

  it('gives every default as a string', () => {
    for (const [name, input] of Object.entries(action.inputs)) {
      if ('default' in input) expect(typeof input.default, name).toBe('string');
    }
  });
});

describe('the tables generated from action.yml (npm run docs)', () => {
  it.each(GENERATED_FILES)('%s is what npm run docs writes', (file) => {
    const text = read(file);
    // On a failure: run npm run docs, and commit what it changed.
    expect(generate(text, action, file)).toBe(text);
  });

  // The rendering itself, read back: the reference lists every input, its default and description.
  function documentedInputs(page: string) {
    return table(page, ['input', 'default', 'description']).map(([name, def, description]) => {
      const input = unquoteName(name ?? '');
      if (def === '(required)') return { input, required: true, description };
      if (def === '' || def === '(computed)') return { input, description };
      const match = /^`([^`]*)`$/.exec(def ?? '');
      if (!match) throw new Error(`default of ${input} is not a code span: ${def}`);
      return { input, default: match[1], description };
    });
  }
  const declaredInputs = Object.entries(action.inputs).map(([input, spec]) => ({
    input,
    ...(spec.required === true && !('default' in spec) ? { required: true } : {}),
    ...('default' in spec ? { default: spec.default } : {}),
    description: spec.description,
  }));

  it('the reference lists every input, with its default and description, in order', () => {
    expect(documentedInputs(reference)).toEqual(declaredInputs);
  });

  it('the reference lists every output and its description, in order', () => {
    const documented = table(reference, ['output', 'description']).map(([name, description]) => ({
      output: unquoteName(name ?? ''),
      description,
    }));
    const declared = Object.entries(action.outputs).map(([output, spec]) => ({
      output,
      description: spec.description,
    }));
    expect(documented).toEqual(declared);
  });

  it('the README lists the common inputs as action.yml has them, and counts the others', () => {
    const rows = documentedInputs(readme);
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) expect(declaredInputs).toContainEqual(row);
    expect(readme).toContain(
      `The other ${declaredInputs.length - rows.length} inputs are in [the reference](docs/reference.md#inputs).`,
    );
  });

  const page = (marker: string) =>
    `# Page\n\nHand-written prose.\n\n${marker}\nstale table\n<!-- END inputs -->\n\nMore prose.\n`;
  const ALL = '<!-- BEGIN inputs (generated from action.yml by npm run docs) -->';
  const SOME = '<!-- BEGIN inputs (generated from action.yml by npm run docs): name, api-key -->';

  it('rewrites only the region, keeps the prose, and escapes pipes', () => {
    const out = generate(page(SOME), action, 'README.md');
    expect(
      out.startsWith(`# Page\n\nHand-written prose.\n\n${SOME}\n\n<!-- prettier-ignore -->\n`),
    ).toBe(true);
    expect(out.endsWith('<!-- END inputs -->\n\nMore prose.\n')).toBe(true);
    expect(out).not.toContain('stale table');
    const rows = out.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| `name`', '| `api-key`']);
    const piped = {
      ...action,
      inputs: { ...action.inputs, name: { description: 'a | b' } },
    };
    expect(generate(page(SOME), piped, 'README.md')).toContain('| `name` |  | a \\| b |');
    expect(generate(out, action, 'README.md')).toBe(out);
  });

  it('shows an input added to action.yml in the full table at once, and counts it in a partial one', () => {
    const grown = {
      ...action,
      inputs: { ...action.inputs, 'new-input': { description: 'Added later.', default: 'x' } },
    };
    expect(generate(page(ALL), grown, 'docs/reference.md')).toContain(
      '| `new-input` | `x` | Added later. |',
    );
    const partial = generate(page(SOME), grown, 'README.md');
    expect(partial).not.toContain('new-input');
    expect(partial).toContain(
      `The other ${Object.keys(grown.inputs).length - 2} inputs are in [the reference](docs/reference.md#inputs).`,
    );
  });

  it('refuses a name action.yml does not declare, and a page without a region', () => {
    const typo = SOME.replace('api-key', 'api-kee');
    expect(() => generate(page(typo), action, 'README.md')).toThrow(
      'README.md: the inputs region names api-kee, which action.yml does not declare',
    );
    expect(() => generate('# Page\n', action, 'README.md')).toThrow(/README.md: no region/);
  });
});

describe('the examples of the README and docs/*.md', () => {
  const pages = [
    readme,
    ...readdirSync(new URL('docs/', root))
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(new URL(`docs/${f}`, root), 'utf8')),
  ];
  const blocks = pages
    .flatMap((page) => [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? ''))
    .filter((block) => /^jobs:/m.test(block));

  it('are valid YAML that only uses declared inputs', () => {
    const steps = blocks.flatMap((block) => {
      const workflow = parse(block) as {
        jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
      };
      return Object.values(workflow.jobs).flatMap((job) => job.steps);
    });
    const ours = steps.filter((step) => step.uses === 'acme/agent-deploy-action@v1');
    expect(ours.length).toBeGreaterThan(0);
    for (const step of ours) {
      for (const key of Object.keys(step.with ?? {})) expect(action.inputs).toHaveProperty([key]);
      for (const [key, spec] of Object.entries(action.inputs)) {
        if (spec.required === true) expect(step.with).toHaveProperty([key]);
      }
    }
  });
});

describe('the documents name only files of the repository', () => {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  // A code span that looks like a path: a folder (`src/inputs/`) or a file with an extension we keep.
  const PATH = /`(\.?[\w.-]+(?:\/[\w.-]+)*(?:\/|\.(?:ts|md|yml|yaml|json|js|txt)))`/g;
  // Examples and placeholders, and what the scripts and the command line write: not files of the repository.
  const EXAMPLES = new Set([
    'test/x.test.ts',
    'graph.json',
    'deploy/resources.yaml',
    'deploy/agents.yaml',
    'summary.md',
    'bench-results.json',
    'agent-deploy-summary.md',
  ]);
  const exists = (path: string) =>
    tracked.some((file) =>
      path.endsWith('/')
        ? file.startsWith(path) || file.includes(`/${path}`)
        : file === path || file.endsWith(`/${path}`),
    );

  const documents = [
    'CONTRIBUTING.md',
    'README.md',
    'SECURITY.md',
    ...readdirSync(new URL('docs/', root))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it.each(documents)('%s', (file) => {
    const named = [...read(file).matchAll(PATH)].map((m) => m[1]!);
    expect(named.filter((path) => !EXAMPLES.has(path) && !exists(path))).toEqual([]);
  });

  it('the check catches a file that is not there', () => {
    const text = 'See `shared/spec/action-contract.md`, `src/inputs/` and `inputs/settings.ts`.';
    expect([...text.matchAll(PATH)].map((m) => m[1])).toEqual([
      'shared/spec/action-contract.md',
      'src/inputs/',
      'inputs/settings.ts',
    ]);
    expect(exists('shared/spec/action-contract.md')).toBe(false);
    expect(exists('inputs/settings.ts')).toBe(true);
  });
});

describe('the release the docs name (npm version writes it: scripts/versions.ts)', () => {
  const { version } = JSON.parse(read('package.json')) as { version: string };

  it.each(versionedFiles())('%s names only package.json’s version', (file) => {
    const named = versionsIn(read(file));
    expect(named.filter((v) => v !== version)).toEqual([]);
  });

  it('the README and the GitLab recipes name it where a user copies a release', () => {
    expect(versionsIn(read('README.md'))).toContain(version);
    expect(versionsIn(read('docs/recipes.md')).length).toBeGreaterThan(2);
    expect(versionsIn(read('templates/agent-deploy.yml'))).toEqual([version, version]);
  });

  it('rewrites a clone, a pin, a tag, the npm package and the component, never Node', () => {
    const text = [
      'git clone --depth 1 --branch v1.2.0 https://github.com/acme/agent-deploy-action.git',
      '- uses: acme/agent-deploy-action@<sha> # v1.2.3',
      "git ls-remote … 'refs/tags/v1.2.3^{}'",
      'npx --yes agent-deploy-action@1.2.3 deploy',
      '- component: $CI_SERVER_FQDN/acme/agent-deploy-action/agent-deploy@v0.9.0',
      'Machine: 2 vCPU, Node v24.21.0',
      'acme/agent-deploy-action@v1',
    ].join('\n');
    expect(versionsIn(text)).toEqual(['1.2.0', '1.2.3', '1.2.3', '1.2.3', '0.9.0']);
    const fresh = withVersion(text, '2.0.1');
    expect(versionsIn(fresh)).toEqual(['2.0.1', '2.0.1', '2.0.1', '2.0.1', '2.0.1']);
    expect(fresh).toContain('agent-deploy-action@2.0.1 deploy');
    expect(fresh).toContain('Node v24.21.0');
    expect(fresh.endsWith('acme/agent-deploy-action@v1')).toBe(true);
  });
});

describe('the README', () => {
  it('is a short tour: under 2,000 words, as wc -w counts them', () => {
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThan(2000);
  });

  it('sets a clone up in two commands, the main job and the tests', () => {
    const setUp = /^## Run it locally\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? '';
    const commands = setUp.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim());
    expect(commands.filter(Boolean)).toEqual(['npm ci && npm run demo', 'npm test']);
  });
});
