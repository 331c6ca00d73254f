// The command line in a GitLab CI job, through the bundle (dist/cli.js): the job's CI_* variables as the context, the
// outputs as a dotenv report and the summary as Markdown in the working directory, and the merge request note
// through a fake GitLab API at CI_API_V4_URL.
import { describe, expect, it } from 'vitest';
import { runCli, runnerCommands } from '../../helpers/cli.ts';
import { gitLabDotenv } from '../../helpers/dotenv.ts';
import {
  GITLAB_TOKEN,
  MERGE_REQUEST_VARIABLES,
  PUSH_VARIABLES,
  TOKEN_USER,
  useGitLab,
} from '../../helpers/gitlab.ts';
import { API_KEY, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const fakes = useGitLab();

/** A job of a push to main of acme/agent (project 7). */
const pushJob = () => ({
  ...PUSH_VARIABLES,
  CI_API_V4_URL: fakes.gitlab.apiUrl,
  CI_JOB_URL: 'https://gitlab.example/acme/agent/-/jobs/99',
});
/** A job of merge request !12's pipeline, from branch feature/login of the same project. */
const mergeRequestJob = () => ({
  ...pushJob(),
  ...MERGE_REQUEST_VARIABLES,
  GITLAB_TOKEN,
});
/** The inputs as a job's CI/CD variables give them. */
const variables = () => ({
  AGENT_DEPLOY_BASE_URL: ctx.sim.url,
  AGENT_DEPLOY_API_KEY: API_KEY,
  AGENT_DEPLOY_POLL_INTERVAL: '1s',
});

/** The dotenv report as GitLab reads it: every line `KEY=value`, ended by a newline. */
function dotenv(text: string | undefined): Record<string, string> {
  expect(text).toMatch(/\n$/);
  return gitLabDotenv(text!);
}

describe('agent-deploy in GitLab CI (GITLAB_CI=true)', () => {
  it('deploys the pushed branch of CI_PROJECT_PATH, and leaves agent-deploy.env and agent-deploy-summary.md', async () => {
    ctx.sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });

    const run = await runCli({
      args: [
        'deploy',
        '--name',
        'my-agent',
        '--integration-id',
        INTEGRATION,
        '--graph-config-path',
        'graph.json',
        '--custom-url',
        'https://my-agent.example',
      ],
      env: { ...pushJob(), ...variables() },
      read: ['agent-deploy.env', 'agent-deploy-summary.md'],
    });

    expect(run.code).toBe(0);
    const [create] = ctx.sim.requestsTo('POST', '/v2/deployments');
    expect(create?.body).toMatchObject({
      name: 'my-agent',
      source_config: { repo_url: 'https://codehost.example/acme/agent' },
      source_revision_config: { repo_ref: 'main' },
    });
    const env = dotenv(run.files['agent-deploy.env']);
    expect(env).toMatchObject({
      RESULT: 'deployed',
      DEPLOYMENT_NAME: 'my-agent',
      CREATED: 'true',
      CUSTOM_URL: 'https://my-agent.example',
      REVISION_STATUS: 'DEPLOYED',
    });
    expect(env.DEPLOYMENT_ID).toMatch(/^[0-9a-f-]{36}$/);
    const summary = run.files['agent-deploy-summary.md']!;
    expect(summary).toContain('my-agent');
    expect(summary).toContain(env.REVISION_ID);
    // Not a merge request pipeline: GitLab is not called.
    expect(fakes.gitlab.requests).toEqual([]);
    expect(runnerCommands(run)).toEqual([]);
  });

  it("deploys a merge request's source branch and notes it once, then updates that note", async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });
    const deploy = () =>
      runCli({
        args: ['deploy', '--name', 'my-agent', '--dotenv', 'out.env', '--summary-file', 'out.md'],
        env: { ...mergeRequestJob(), ...variables() },
        read: ['out.env', 'out.md', 'agent-deploy.env'],
      });

    const first = await deploy();

    expect(first.code).toBe(0);
    expect(ctx.sim.requestsTo('PATCH')[0]?.body).toMatchObject({
      source_revision_config: { repo_ref: 'feature/login' },
    });
    expect(fakes.gitlab.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v4/projects/7/merge_requests/12/notes',
    ]);
    const [note] = fakes.gitlab.notesOn('7', 12);
    expect(note?.body).toMatch(/^<!-- agent-deploy-action:my-agent -->\n/);
    expect(note?.body).toContain(dotenv(first.files['out.env']).REVISION_ID);
    expect(first.files['agent-deploy.env']).toBeUndefined();
    expect(first.stderr).toContain('Added a note to merge request !12.');

    fakes.gitlab.requests.length = 0;
    const second = await deploy();

    expect(second.code).toBe(0);
    expect(fakes.gitlab.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v4/projects/7/merge_requests/12/notes',
      'GET /api/v4/user',
      `PUT /api/v4/projects/7/merge_requests/12/notes/${note!.id}`,
    ]);
    expect(fakes.gitlab.notesOn('7', 12)).toHaveLength(1);
    expect(note?.author).toEqual(TOKEN_USER);
    expect(note?.body).toContain(dotenv(second.files['out.env']).REVISION_ID);
    expect(second.stderr).toContain('Updated the note on merge request !12.');
    for (const request of fakes.gitlab.requests)
      expect(request.headers['private-token']).toBe(GITLAB_TOKEN);
    for (const run of [first, second]) {
      const shown = [run.stdout, run.stderr, ...Object.values(run.files)].join('\n');
      expect(shown).not.toContain(GITLAB_TOKEN);
      expect(runnerCommands(run)).toEqual([]);
    }
    expect(fakes.gitlab.notes.map((n) => n.body).join('\n')).not.toContain(GITLAB_TOKEN);
  });
});
