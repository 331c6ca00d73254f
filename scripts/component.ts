// The GitLab CI/CD component (templates/agent-deploy.yml), generated from action.yml by npm run docs: a GitLab
// project writes `include: - component: $CI_SERVER_FQDN/<group>/agent-deploy-action/agent-deploy@v<version>` with
// inputs, instead of copying a job. Its `spec: inputs:` are the action's inputs, each handed to the command line as
// its AGENT_DEPLOY_<INPUT> variable (`command` as the command), plus the job's own (job, stage, image). The key and
// `secrets` are no inputs: an input's value is written into the pipeline's configuration, so they stay masked
// CI/CD variables (AGENT_DEPLOY_API_KEY, AGENT_DEPLOY_SECRETS), which GitLab gives precedence over a job's own.
import { stringify } from 'yaml';
import { variableOf } from '../src/hosts/cli/args.ts';
import { DOTENV_FILE, SUMMARY_FILE } from '../src/hosts/gitlab/ci.ts';
import type { ActionFile } from './action-file.ts';

export const COMPONENT_FILE = 'templates/agent-deploy.yml';

/** Inputs the component leaves out: secrets (masked CI/CD variables instead) and GitHub's own. */
export const NOT_COMPONENT_INPUTS = ['api-key', 'secrets', 'github-token', 'environment'];

/** The job's own inputs, before the action's. */
const JOB_INPUTS = {
  job: {
    description:
      "The job's name: include the component once per job (a deploy, a preview), each with a name of its own; add rules, environment or resource_group to it in .gitlab-ci.yml by that name.",
    default: 'agent-deploy',
  },
  stage: { description: 'The stage the job runs in.', default: 'deploy' },
  image: {
    description: 'The image the job runs in: one with Node 24 and npx.',
    default: 'node:24',
  },
};

const interpolated = (input: string) => `$[[ inputs.${input} ]]`;

/** The component's text for the package at `version`. */
export function componentTemplate(action: ActionFile, version: string): string {
  const own = Object.entries(action.inputs).filter(
    ([name]) => !NOT_COMPONENT_INPUTS.includes(name),
  );
  const inputs: Record<string, { description: string; default?: string }> = { ...JOB_INPUTS };
  for (const [name, input] of own)
    inputs[name] = {
      description: input.description,
      // Required stays required (no default: GitLab refuses the pipeline without it); an input left empty is not
      // given, and the command line applies action.yml's default.
      ...(input.required ? {} : { default: input.default ?? '' }),
    };
  const variables = Object.fromEntries(
    own
      .filter(([name]) => name !== 'command')
      .map(([name]) => [variableOf(name), interpolated(name)]),
  );
  const job = {
    [interpolated('job')]: {
      stage: interpolated('stage'),
      image: interpolated('image'),
      variables,
      script: [`npx --yes agent-deploy-action@${version} ${interpolated('command')}`],
      artifacts: {
        when: 'always',
        reports: { dotenv: DOTENV_FILE },
        paths: [SUMMARY_FILE],
        expose_as: 'deploy summary',
      },
    },
  };
  const header = [
    '# agent-deploy as a GitLab CI/CD component, generated from action.yml by `npm run docs`: edit those, not this.',
    '# include:',
    `#   - component: $CI_SERVER_FQDN/<group>/agent-deploy-action/agent-deploy@v${version}`,
    '#     inputs: { base-url: https://deploy.example.com, name: my-agent }',
    '# The key (and secrets) as masked CI/CD variables: AGENT_DEPLOY_API_KEY, AGENT_DEPLOY_SECRETS.',
  ].join('\n');
  const options = { lineWidth: 0, singleQuote: true };
  return `${header}\n${stringify({ spec: { inputs } }, options)}---\n${stringify(job, options)}`;
}
