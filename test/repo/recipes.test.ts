// Every recipe in docs/ works on its first run: each workflow (and GitLab pipeline) the docs show runs against a
// fresh simulator, with the service set up as the README's prerequisites say (the integration sees the repository,
// the listener exists), in-process on the fake clock. The YAML is the docs' own, read from the page; what a run gets
// from GitHub or GitLab (the event, a secret, another action's output) comes from the table below, and a new recipe
// fails here until it has its row. Addresses the recipes give (custom-url) are answered by a fake agent.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  docBlocks,
  docFiles,
  type GitHubRun,
  type GitLabRun,
  MERGE_REQUEST_PIPELINE,
  pullRequestEvent as pullRequest,
  runPipeline,
  runWorkflow,
  useRecipeWorld,
} from '../helpers/recipes.ts';
import { API_KEY } from '../helpers/setup.ts';
import type { World } from '../helpers/run.ts';

const { world, github, agents } = useRecipeWorld();

const SECRETS = { DEPLOY_API_KEY: API_KEY, GITHUB_TOKEN: 'ghs_recipeToken0123456789' };
/** The integration the recipes name, and the commit of their runs' event (GITHUB_SHA). */
const RECIPE_INTEGRATION = '0f7c3a52-5a3e-4a4e-9a83-2b1c6e0d9f10';
const PUSHED = 'a'.repeat(40);
const DIGEST = `sha256:${'5e'.repeat(32)}`;
/** The masked CI/CD variables the GitLab recipes ask for. */
const gitlabSecrets = { AGENT_DEPLOY_API_KEY: API_KEY };
const mergeRequest = { ...MERGE_REQUEST_PIPELINE, ...gitlabSecrets };
const defaultBranch = {
  ...gitlabSecrets,
  CI_PIPELINE_SOURCE: 'push',
  CI_COMMIT_BRANCH: 'main',
  CI_COMMIT_REF_NAME: 'main',
  CI_DEFAULT_BRANCH: 'main',
  CI_PROJECT_PATH: 'acme/agent',
};

type GitHubRow = Omit<GitHubRun, 'world' | 'gh' | 'secrets'>;
type GitLabRow = Omit<GitLabRun, 'world'>;
interface Row {
  /** The runs of the recipe, in order, on one simulator: an event each (a push to main without). */
  runs: (GitHubRow | GitLabRow)[];
  /** What the service holds before the first run, when the recipe acts on a deployment that exists. */
  before?: (world: World) => GitHubRow;
  /** The result of each of the action's runs, in order. */
  results: string[];
}

const push: GitHubRow = {};
const TABLE: Record<string, Row> = {
  'docs/recipes.md › Check that the agent answers': { runs: [push], results: ['deployed'] },
  'docs/recipes.md › Roll back when the new revision fails': {
    runs: [push],
    results: ['deployed'],
  },
  'docs/recipes.md › Redeploy a revision by hand': {
    runs: [],
    // A revision of the deployment to redeploy: what the person running the workflow types.
    before: ({ sim }) => {
      const dep = sim.addDeployment({ name: 'my-agent' });
      return {
        event: { name: 'workflow_dispatch' },
        inputs: { 'revision-id': dep.active_revision_id! },
      };
    },
    results: ['deployed'],
  },
  'docs/recipes.md › Record the deploy in a GitHub environment': {
    runs: [push],
    results: ['deployed'],
  },
  'docs/recipes.md › Evaluate in staging, then promote to production': {
    runs: [push],
    results: ['deployed', 'deployed'],
  },
  'docs/recipes.md › Check a pull request with a dry run': {
    runs: [{ event: pullRequest('opened') }],
    results: ['planned'],
  },
  'docs/recipes.md › Preview deployment per pull request': {
    runs: [{ event: pullRequest('opened') }],
    results: ['deployed'],
  },
  'docs/recipes.md › Preview deployment per pull request #2': {
    runs: [{ event: pullRequest('closed') }],
    results: ['closed'],
  },
  'docs/recipes.md › Many agents: a matrix': { runs: [push], results: ['deployed', 'deployed'] },
  'docs/recipes.md › Many agents in one step: a monorepo': {
    runs: [{ files: docFiles('docs/recipes.md') }],
    results: ['deployed'],
  },
  'docs/recipes.md › Check for drift on a schedule': {
    runs: [],
    // The monorepo's agents, as its last deploy left them: live at the default branch's commit.
    before: ({ sim }) => {
      const list = parse(docFiles('docs/recipes.md')['deploy/agents.yaml']!) as {
        name: string;
        'graph-config-path': string;
        'custom-url'?: string;
        'resource-spec'?: object;
      }[];
      for (const agent of list) {
        sim.builtCommits = [PUSHED];
        sim.addDeployment({
          name: agent.name,
          source_config: {
            integration_id: RECIPE_INTEGRATION,
            custom_url: agent['custom-url'] ?? null,
            resource_spec: agent['resource-spec'] ?? null,
          },
          source_revision_config: { graph_config_path: agent['graph-config-path'] },
        });
      }
      return { event: { name: 'schedule' }, files: docFiles('docs/recipes.md') };
    },
    results: ['in-sync'],
  },
  'docs/recipes.md › Self-hosted: a listener, a namespace and a resource spec': {
    runs: [
      { event: { name: 'push', ref: 'refs/tags/v1.2.0' }, files: docFiles('docs/recipes.md') },
    ],
    results: ['deployed'],
  },
  'docs/recipes.md › Deploy the image built by docker/build-push-action': {
    runs: [{ stepOutputs: { build: { digest: DIGEST } } }],
    results: ['deployed'],
  },
  'docs/recipes.md › React to the result in a later step': { runs: [push], results: ['deployed'] },
  'docs/recipes.md › Find out why a deploy failed or stalls': {
    runs: [push],
    results: ['deployed'],
  },
  'docs/recipes.md › GitLab CI: deploy the default branch, preview each merge request': {
    runs: [{ variables: defaultBranch }, { variables: mergeRequest }],
    results: ['deployed', 'deployed'],
  },
  'docs/recipes.md › GitLab CI: deploy the default branch, preview each merge request #2': {
    runs: [{ variables: defaultBranch }, { variables: mergeRequest }],
    results: ['deployed', 'deployed'],
  },
  "docs/preview-evaluate-promote.md › The pull request's workflow": {
    runs: [{ event: pullRequest('opened') }],
    results: ['deployed', 'deployed'],
  },
  'docs/preview-evaluate-promote.md › Close the preview with the pull request': {
    runs: [{ event: pullRequest('closed') }],
    results: ['closed'],
  },
  'docs/preview-evaluate-promote.md › GitLab CI: the same pipeline, closed by on_stop': {
    runs: [
      { variables: mergeRequest, play: ['promote'] },
      // The merge request merged: GitLab plays the environment's on_stop job.
      { variables: mergeRequest, only: ['close-preview'], play: ['close-preview'] },
    ],
    results: ['deployed', 'deployed', 'closed'],
  },
  'docs/workflows/deploy-main.yml': { runs: [push], results: ['deployed'] },
};

const blocks = docBlocks();

it('has a row for every recipe of docs/, and none for a recipe that is gone', () => {
  expect(Object.keys(TABLE).sort()).toEqual(blocks.map((b) => b.key).sort());
});

describe('every recipe in docs/ works on its first run', () => {
  it.each(blocks)('$key', async ({ key, kind, text }) => {
    const row = TABLE[key];
    if (!row) throw new Error(`no row for ${key} in the table`);
    const runs = row.before ? [...row.runs, row.before(world)] : row.runs;

    const results: string[] = [];
    const failures: string[] = [];
    for (const run of runs) {
      if (kind === 'github') {
        const jobs = await runWorkflow(text, {
          world,
          gh: github.gh,
          secrets: SECRETS,
          ...(run as GitHubRow),
        });
        for (const [id, job] of Object.entries(jobs)) {
          if (job.result !== 'success') failures.push(`job ${id}: ${job.result}`);
          for (const r of job.runs) {
            results.push(r.outputs.result ?? '(none)');
            failures.push(...r.errors.map((e) => `job ${id}: ${e}`));
          }
        }
      } else {
        const jobs = await runPipeline(text, { world, ...(run as GitLabRow) });
        for (const [id, job] of Object.entries(jobs)) {
          if (job.result === 'failure') failures.push(`job ${id} failed: ${job.failure}`);
          if (job.dotenv.RESULT) results.push(job.dotenv.RESULT);
        }
      }
    }

    expect(failures).toEqual([]);
    expect(results).toEqual(row.results);
    // Where a recipe checks the agent, it answered there.
    if (text.includes('verify-url')) expect(agents.agent.requests.length).toBeGreaterThan(0);
  });
});
