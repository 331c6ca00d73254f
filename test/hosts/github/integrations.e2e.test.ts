// The GitHub features through the bundle: Octokit, loaded in its own chunk, at GITHUB_API_URL with github-token,
// records the GitHub Deployment and writes the pull request comment. What they record in each case is
// integrations.test.ts's, in-process.
import { expect, it } from 'vitest';
import { runAction, visibleText } from '../../helpers/action.ts';
import { useGitHub } from '../../helpers/github.ts';
import { codehostInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const github = useGitHub();

const TOKEN = 'ghs_fakeGitHubToken0123456789';
const HEAD_SHA = 'b'.repeat(40);
const PR = 7;

it('records a GitHub Deployment and comments on the pull request, with github-token at GITHUB_API_URL', async () => {
  const { sim } = ctx;
  const { gh } = github;
  sim.addDeployment({ name: 'my-agent' });
  sim.timelines.push([{ status: 'DEPLOYED' }]);

  const run = await runAction({
    inputs: codehostInputs(sim, 'my-agent', {
      'github-token': TOKEN,
      environment: 'preview',
      'pr-comment': 'true',
    }),
    env: {
      GITHUB_API_URL: gh.url,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_HEAD_REF: 'feature',
      GITHUB_REF: `refs/pull/${PR}/merge`,
      GITHUB_REF_NAME: `${PR}/merge`,
    },
    event: { number: PR, pull_request: { number: PR, head: { sha: HEAD_SHA, ref: 'feature' } } },
  });

  expect(run.errors).toEqual([]);
  expect(run.code).toBe(0);
  expect(run.stdout).not.toContain('::warning');
  expect(gh.requests.length).toBeGreaterThan(0);
  for (const request of gh.requests) expect(request.headers.authorization).toBe(`token ${TOKEN}`);
  expect(gh.deployments).toHaveLength(1);
  const deployment = gh.deployments[0]!;
  expect(deployment).toMatchObject({ ref: HEAD_SHA, environment: 'preview' });
  expect(deployment.statuses.map((s) => s.state)).toEqual(['in_progress', 'success']);
  const comments = gh.commentsOn(PR);
  expect(comments).toHaveLength(1);
  expect(comments[0]!.body.split('\n')[0]).toBe('<!-- agent-deploy-action:my-agent -->');
  expect(comments[0]!.body).toContain('### ✅ Deployed: my-agent');
  // The token goes in the header only: never in a body, a log line, the summary or an output.
  const shown = [
    ...Object.values(visibleText(run)),
    ...gh.requests.map((r) => JSON.stringify(r.body ?? null)),
  ];
  for (const text of shown) expect(text).not.toContain(TOKEN);
});
