// The .gitlab-ci.yml recipes of docs/recipes.md, the CI/CD component's and the written-out fallback: valid YAML whose
// jobs run the command line with inputs action.yml declares, hand its dotenv report on, and take environment:url
// from an output it writes. (test/repo/recipes.test.ts runs them.)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPTIONS, variableOf } from '../../../src/hosts/cli/args.ts';
import { DOTENV_FILE, SUMMARY_FILE } from '../../../src/hosts/gitlab/ci.ts';
import { dotenvName } from '../../../src/hosts/cli/dotenv.ts';
import { withComponents } from '../../helpers/recipes.ts';

const root = resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');
const action = parse(read('action.yml')) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
};
const { version } = JSON.parse(read('package.json')) as { version: string };
const blocks = [
  ...read('docs/recipes.md').matchAll(/^```yaml\n(# \.gitlab-ci\.yml\n[\s\S]*?)^```$/gm),
].map((m) => m[1]!);

interface Job {
  extends?: string;
  rules?: { if: string }[];
  script?: string[];
  variables?: Record<string, string>;
  environment?: { name: string; url: string };
  artifacts?: { when?: string; reports?: { dotenv?: string }; paths?: string[] };
}

/** The command line a job runs: a clone's dist/cli.js, or the npm package of this release. */
const CLI = new RegExp(
  `^(node /tmp/agent-deploy/dist/cli\\.js|npx --yes agent-deploy-action@${version.replaceAll('.', '\\.')}) `,
);

it('has two recipes: the component, and the jobs written out', () => {
  expect(blocks).toHaveLength(2);
  expect(blocks[0]).toMatch(/^include:\n {2}- component: /m);
  expect(blocks[1]).toContain('dist/cli.js');
});

describe.each(blocks.map((text, i) => [i === 0 ? 'the component' : 'written out', text] as const))(
  'the .gitlab-ci.yml recipe, %s',
  (_, text) => {
    const config = withComponents(parse(text) as Record<string, unknown>);
    // Every top-level key but GitLab's own keywords and the hidden (dot) jobs is a job.
    const KEYWORDS = new Set(['stages', 'variables', 'default', 'workflow', 'include']);
    const jobs = Object.entries(config)
      .filter(([name]) => !KEYWORDS.has(name) && !name.startsWith('.'))
      .map(([name, job]) => {
        const own = job as Job;
        // `extends` merges the hidden job's keys under the job's own (one level is all the recipe uses).
        const base = own.extends ? (config[own.extends] as Job | undefined) : {};
        expect(base, `${name} extends ${own.extends}`).toBeDefined();
        return [name, { ...base, ...own }] as const;
      });

    it('deploys on the default branch and previews merge requests', () => {
      const when = Object.fromEntries(
        jobs.map(([name, job]) => [name, job.rules?.map((r) => r.if)]),
      );
      expect(when).toEqual({
        deploy: ['$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH'],
        preview: ['$CI_PIPELINE_SOURCE == "merge_request_event"'],
      });
    });

    it('runs the command line with the inputs of action.yml and the options of the command line', () => {
      const inputs = new Set(Object.keys(action.inputs).map(variableOf));
      for (const [name, job] of jobs) {
        const runs = (job.script ?? []).filter((line) => CLI.test(line));
        expect(runs, name).toHaveLength(1);
        for (const flag of runs[0]!.replace(CLI, ' ').matchAll(/ --([a-z-]+)/g))
          expect([...Object.keys(action.inputs), ...Object.keys(OPTIONS)], name).toContain(flag[1]);
        const variables = {
          ...(config.variables as Record<string, string> | undefined),
          ...job.variables,
        };
        expect(Object.keys(variables).length, name).toBeGreaterThan(0);
        for (const variable of Object.keys(variables)) expect(inputs, variable).toContain(variable);
      }
    });

    it('hands the outputs on as a dotenv report, and takes environment:url from one', () => {
      for (const [name, job] of jobs) {
        expect(job.artifacts, name).toMatchObject({
          when: 'always',
          reports: { dotenv: DOTENV_FILE },
          paths: [SUMMARY_FILE],
        });
        expect(job.environment?.url, name).toBe(`$${dotenvName('custom-url')}`);
        expect(action.outputs).toHaveProperty(['custom-url']);
      }
    });
  },
);
