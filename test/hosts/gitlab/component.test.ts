// The GitLab CI/CD component (templates/agent-deploy.yml): `spec: inputs:`, then `---` and the job. Each input of
// the action but the secret ones is an input, handed to the command line as its AGENT_DEPLOY_<INPUT> variable, and
// the job runs the npm package of this release; what npm run docs writes from action.yml.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  COMPONENT_FILE,
  componentTemplate,
  NOT_COMPONENT_INPUTS,
} from '../../../scripts/component.ts';
import type { ActionFile } from '../../../scripts/action-file.ts';
import { variableOf } from '../../../src/hosts/cli/args.ts';
import { DOTENV_FILE, SUMMARY_FILE } from '../../../src/hosts/gitlab/ci.ts';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');
const action = parse(read('action.yml')) as ActionFile;
const { version } = JSON.parse(read('package.json')) as { version: string };
const text = read(COMPONENT_FILE);
const documents = parseAllDocuments(text);

interface Spec {
  spec: { inputs: Record<string, { description?: string; default?: string }> };
}
interface Job {
  stage: string;
  image: string;
  variables: Record<string, string>;
  script: string[];
  artifacts: { when: string; reports: { dotenv: string }; paths: string[] };
}

describe('templates/agent-deploy.yml', () => {
  it('is two YAML documents: spec: inputs:, then --- and one job', () => {
    expect(documents.map((d) => d.errors)).toEqual([[], []]);
    const [spec, jobs] = documents.map((d) => d.toJS() as Record<string, unknown>);
    expect(Object.keys(spec!)).toEqual(['spec']);
    expect(Object.keys(jobs!)).toEqual(['$[[ inputs.job ]]']);
  });

  const { inputs } = (documents[0]!.toJS() as Spec).spec;
  const job = (documents[1]!.toJS() as Record<string, Job>)['$[[ inputs.job ]]']!;
  const own = Object.keys(action.inputs).filter((name) => !NOT_COMPONENT_INPUTS.includes(name));

  it("takes the job's own inputs, then every input of the action but the secret and GitHub's ones", () => {
    expect(Object.keys(inputs)).toEqual(['job', 'stage', 'image', ...own]);
    expect(NOT_COMPONENT_INPUTS).toEqual(['api-key', 'secrets', 'github-token', 'environment']);
  });

  it("keeps each input's description; required stays required, a default is action.yml's or empty", () => {
    for (const name of own) {
      const input = action.inputs[name]!;
      expect(inputs[name]!.description, name).toBe(input.description);
      if (input.required) expect(inputs[name], name).not.toHaveProperty(['default']);
      else expect(inputs[name]!.default, name).toBe(input.default ?? '');
    }
  });

  it('hands each input to the command line as its variable, the command as the command', () => {
    expect(job.variables).toEqual(
      Object.fromEntries(
        own
          .filter((name) => name !== 'command')
          .map((name) => [variableOf(name), `$[[ inputs.${name} ]]`]),
      ),
    );
    expect(job.script).toEqual([`npx --yes agent-deploy-action@${version} $[[ inputs.command ]]`]);
    expect(job).toMatchObject({ stage: '$[[ inputs.stage ]]', image: '$[[ inputs.image ]]' });
  });

  it('never takes the key or a secret as an input: they stay masked CI/CD variables', () => {
    expect(inputs).not.toHaveProperty(['api-key']);
    expect(inputs).not.toHaveProperty(['secrets']);
    expect(job.variables).not.toHaveProperty([variableOf('api-key')]);
    expect(job.variables).not.toHaveProperty([variableOf('secrets')]);
  });

  it('names only inputs it declares', () => {
    for (const [, name] of text.matchAll(/\$\[\[ inputs\.([\w-]+) \]\]/g))
      expect(inputs, name).toHaveProperty([name!]);
  });

  it('hands the outputs on as a dotenv report, and the summary as an artifact', () => {
    expect(job.artifacts).toMatchObject({
      when: 'always',
      reports: { dotenv: DOTENV_FILE },
      paths: [SUMMARY_FILE],
    });
  });

  it('is what npm run docs writes from action.yml, at the version of package.json', () => {
    expect(text).toBe(componentTemplate(action, version));
  });
});
