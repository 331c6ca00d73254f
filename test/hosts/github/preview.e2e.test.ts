// A pull request's preview through the bundled action, as the runner runs it: Octokit's lazy chunk against the fake
// GitHub at GITHUB_API_URL. The rest of the feature is tested in-process (test/commands/preview.test.ts).
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { useGitHub } from '../../helpers/github.ts';
import { codehostInputs, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const github = useGitHub();

/** The runner's variables and event of pull request #7's opening, from this repository's branch `head`. */
function pullRequest(head: string, env: Record<string, string> = {}) {
  return {
    env: {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_HEAD_REF: head,
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_REF_NAME: '7/merge',
      ...env,
    },
    event: {
      action: 'opened',
      number: 7,
      pull_request: {
        number: 7,
        head: { sha: 'b'.repeat(40), ref: head, repo: { full_name: 'acme/agent' } },
        base: { ref: 'main', repo: { full_name: 'acme/agent' } },
      },
    },
  };
}

it('first run of a pull request: creates support-agent-pr-7 from the head branch, a transient GitHub Deployment and one comment', async () => {
  const { sim } = ctx;
  const { gh } = github;
  sim.addRepository(INTEGRATION, {
    owner: 'acme',
    name: 'agent',
    url: 'https://codehost.example/acme/agent',
  });
  sim.timelines.push([{ status: 'BUILDING', ms: 100 }, { status: 'DEPLOYED' }]);

  const run = await runAction({
    inputs: codehostInputs(sim, 'support-agent', {
      preview: 'true',
      'github-token': 'ghs_fakeGitHubToken0123456789',
    }),
    ...pullRequest('feature/chat', { GITHUB_API_URL: gh.url }),
  });

  expect(run.errors).toEqual([]);
  expect(run.outputs).toMatchObject({
    result: 'deployed',
    created: 'true',
    'deployment-name': 'support-agent-pr-7',
  });
  expect(sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
    name: 'support-agent-pr-7',
    source_revision_config: { repo_ref: 'feature/chat' },
  });
  expect(gh.deployments).toHaveLength(1);
  expect(gh.deployments[0]).toMatchObject({ environment: 'preview', ref: 'b'.repeat(40) });
  expect(gh.deployments[0]!.request).toMatchObject({
    transient_environment: true,
    payload: { pull_request: 7, deployment: 'support-agent-pr-7' },
  });
  expect(gh.deployments[0]!.statuses).toMatchObject([
    { state: 'in_progress', auto_inactive: false },
    { state: 'success', auto_inactive: false },
  ]);
  expect(gh.commentsOn(7)).toHaveLength(1);
  expect(gh.commentsOn(7)[0]!.body).toContain('### ✅ Deployed: support-agent-pr-7');
});

it("refuses preview-name '{branch}', which a branch named support-agent would turn into production, before any request", async () => {
  const { sim } = ctx;
  sim.addDeployment({ name: 'support-agent' });

  const run = await runAction({
    inputs: codehostInputs(sim, 'support-agent', { preview: 'true', 'preview-name': '{branch}' }),
    ...pullRequest('support-agent'),
  });

  expect(run.code).toBe(1);
  expect(run.errors).toHaveLength(1);
  expect(run.errors[0]).toMatch(
    /^Input 'preview-name' must contain \{number\}, but is "\{branch\}"/,
  );
  expect(sim.requests).toEqual([]);
});
