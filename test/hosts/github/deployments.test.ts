// The GitHub features of a list of deployments (issue 22), in-process against a fake GitHub: a GitHub Deployment
// per item, in environment `<environment>/<name>`, marked as that item starts and ends; one pull request comment for
// the whole list. The bundle's way to GitHub is integrations.e2e.test.ts's business.
import { getOctokit } from '@actions/github';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commentMarker } from '../../../src/hosts/best-effort.ts';
import { useGitHub } from '../../helpers/github.ts';
import { HANG_GUARD_MS } from '../../helpers/hang-guard.ts';
import { type InProcessRun, runInProcess, useWorld } from '../../helpers/run.ts';
import { baseInputs, INTEGRATION } from '../../helpers/setup.ts';

const ctx = useWorld();
const github = useGitHub(ctx);
afterEach(async () => {
  await vi.waitFor(() => expect(github.gh.parked).toBe(0), HANG_GUARD_MS);
});

const TOKEN = 'ghs_fakeGitHubToken0123456789';
const HEAD_SHA = 'b'.repeat(40);
const PR = 7;

/** A list on a pull request's run, with environment and pr-comment, and the fake GitHub. */
function act(deployments: string, extra: Record<string, string> = {}): Promise<InProcessRun> {
  return runInProcess(ctx, {
    inputs: baseInputs(ctx.sim, {
      'integration-id': INTEGRATION,
      'github-token': TOKEN,
      environment: 'production',
      'pr-comment': 'true',
      deployments,
      ...extra,
    }),
    github: getOctokit(TOKEN, { baseUrl: github.gh.url }),
    env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_HEAD_REF: 'feature' },
    event: { number: PR, pull_request: { number: PR, head: { sha: HEAD_SHA, ref: 'feature' } } },
  });
}

const warnings = (run: InProcessRun) =>
  run.lines.filter((l) => l.level === 'warning').map((l) => l.text);

describe('a list of deployments on GitHub', () => {
  it('records a GitHub Deployment per item in <environment>/<name>, and writes one comment for the list', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'agent-a' });
    sim.addDeployment({ name: 'agent-b' });
    sim.timelinesByName.set('agent-b', [
      [{ status: 'BUILDING', ms: 200 }, { status: 'BUILD_FAILED' }],
    ]);

    const run = await act('[{name: agent-a}, {name: agent-b}]');

    expect(run.code).toBe(1);
    expect(warnings(run)).toEqual([]);
    const byEnvironment = Object.fromEntries(gh.deployments.map((d) => [d.environment, d]));
    expect(Object.keys(byEnvironment).sort()).toEqual(['production/agent-a', 'production/agent-b']);
    for (const deployment of gh.deployments) expect(deployment.ref).toBe(HEAD_SHA);
    const a = byEnvironment['production/agent-a']!;
    const b = byEnvironment['production/agent-b']!;
    expect(a.statuses.map((s) => s.state)).toEqual(['in_progress', 'success']);
    expect(a.statuses[1]).toMatchObject({
      environment_url: sim.deploymentsNamed('agent-a')[0]!.source_config.custom_url,
    });
    expect(b.statuses.map((s) => s.state)).toEqual(['in_progress', 'failure']);
    expect(b.statuses[1]!.description).toContain('BUILD_FAILED');

    expect(gh.comments).toHaveLength(1);
    const [comment] = gh.comments;
    expect(comment!.issue_number).toBe(PR);
    expect(comment!.body.startsWith(commentMarker('agent-a, agent-b'))).toBe(true);
    expect(comment!.body).toContain('### ❌ Failed: 2 deployments');
    expect(comment!.body).toContain('| agent-a | `deployed` |');
    expect(comment!.body).toContain('| agent-b | `failed` |');
    expect(comment!.body).toContain('### ❌ Failed: agent-b');

    // The next run of the same list updates that comment.
    const again = await act('[{name: agent-a}, {name: agent-b}]');
    expect(again.code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain('### ✅ Deployed: 2 deployments');
  });

  it('records nothing for an item that never started, and nothing at all on a dry run', async () => {
    const { sim } = ctx;
    const { gh } = github;
    for (const name of ['agent-a', 'agent-b']) sim.addDeployment({ name });
    sim.timelinesByName.set('agent-a', [[{ status: 'BUILD_FAILED' }]]);

    const run = await act('[{name: agent-a}, {name: agent-b}]', {
      'max-parallel': '1',
      'fail-fast': 'true',
    });

    expect(run.outputs.result).toBe('failed');
    expect(gh.deployments.map((d) => d.environment)).toEqual(['production/agent-a']);
    expect(gh.comments[0]!.body).toContain('| agent-b | `not-started` |');

    gh.reset();
    const planned = await act('[{name: agent-a}, {name: agent-b}]', { 'dry-run': 'true' });
    expect(planned.outputs.result).toBe('planned');
    expect(gh.deployments).toEqual([]);
    expect(gh.comments).toHaveLength(1);
  });
});
