// Previews for pull requests, the whole action in-process on the fake clock, with the fake GitHub: a preview per
// pull request, found or created like a deploy, its GitHub Deployment transient and its comment updated in place;
// refused (writing nothing) for a fork or another event; and preview-close, which writes nothing to the service.
import { getOctokit } from '@actions/github';
import { describe, expect, it } from 'vitest';
import { commentMarker } from '../../src/hosts/best-effort.ts';
import { type FakeDeployment, useGitHub } from '../helpers/github.ts';
import { type InProcessRun, runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const github = useGitHub();

const TOKEN = 'ghs_fakeGitHubToken0123456789';
const HEAD = 'feature/Support-Chat';
const NAME = 'support-agent-pr-7';

interface PullRequest {
  number?: number;
  action?: string;
  sha?: string;
  head?: string;
  fork?: boolean;
}

/** A run of the action for a pull request's event (`pull` absent: a push to main). */
function act(
  inputs: Record<string, string>,
  pull?: PullRequest,
  env: Record<string, string> = {},
): Promise<InProcessRun> {
  const { number = 7, action = 'opened', sha = 'b'.repeat(40), head = HEAD, fork } = pull ?? {};
  return runInProcess(world, {
    inputs: codehostInputs(world.sim, 'support-agent', { 'github-token': TOKEN, ...inputs }),
    github: getOctokit(TOKEN, { baseUrl: github.gh.url }),
    env: pull
      ? {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_HEAD_REF: head,
          GITHUB_REF: `refs/pull/${number}/merge`,
          GITHUB_REF_NAME: `${number}/merge`,
          ...env,
        }
      : env,
    event: pull && {
      action,
      number,
      pull_request: {
        number,
        head: { sha, ref: head, repo: { full_name: fork ? 'someone/agent' : 'acme/agent' } },
        base: { ref: 'main', repo: { full_name: 'acme/agent' } },
      },
    },
  });
}

const preview = (pull?: PullRequest, inputs: Record<string, string> = {}) =>
  act({ preview: 'true', ...inputs }, pull);
const close = (pull: PullRequest = {}, inputs: Record<string, string> = {}) =>
  act({ command: 'preview-close', ...inputs }, { action: 'closed', ...pull });

const states = (d: FakeDeployment) => d.statuses.map((s) => s.state);
const writesTo = (what: { writes(): { method: string; path: string }[] }) =>
  what.writes().map((r) => `${r.method} ${r.path}`);

function addRepository(): void {
  world.sim.addRepository(INTEGRATION, {
    owner: 'acme',
    name: 'agent',
    url: 'https://codehost.example/acme/agent',
  });
}

describe('preview: true', () => {
  it('creates its generated name even one typo away from a deployment: only typed names are guarded', async () => {
    addRepository();
    world.sim.addDeployment({ name: 'support-agnet-pr-7' });

    const run = await preview({});

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(world.sim.deploymentsNamed(NAME)).toHaveLength(1);
    expect(run.stdout).not.toContain('Did you mean');
  });

  it('first run: creates support-agent-pr-7 from the head branch, a transient GitHub Deployment and one comment', async () => {
    const { sim } = world;
    const { gh } = github;
    addRepository();

    const run = await preview({});

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      created: 'true',
      'deployment-name': NAME,
    });
    const [create] = sim.requestsTo('POST', '/v2/deployments');
    expect(create!.body).toMatchObject({
      name: NAME,
      source_revision_config: { repo_ref: HEAD },
    });
    expect(gh.deployments).toHaveLength(1);
    const [deployment] = gh.deployments;
    expect(deployment).toMatchObject({ ref: 'b'.repeat(40), environment: 'preview' });
    expect(deployment!.request).toMatchObject({
      transient_environment: true,
      payload: { pull_request: 7, deployment: NAME },
    });
    expect(states(deployment!)).toEqual(['in_progress', 'success']);
    // Its success leaves other pull requests' previews as they are.
    expect(deployment!.statuses.map((s) => s.auto_inactive)).toEqual([false, false]);
    const comments = gh.commentsOn(7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(
      new RegExp(`^${commentMarker(NAME)}\\n### ✅ Deployed: ${NAME}`),
    );
  });

  it('next run: updates the same deployment and the same comment', async () => {
    const { sim } = world;
    const { gh } = github;
    addRepository();
    const first = await preview({});

    const next = await preview({ action: 'synchronize', sha: 'c'.repeat(40) });

    expect(next.errors).toEqual([]);
    expect(next.outputs).toMatchObject({
      result: 'deployed',
      created: 'false',
      'revision-created': 'true',
      'deployment-id': first.outputs['deployment-id'],
    });
    expect(writesTo(sim)).toEqual([
      'POST /v2/deployments',
      `PATCH /v2/deployments/${first.outputs['deployment-id']}`,
    ]);
    expect(sim.requestsTo('PATCH')[0]!.body).toMatchObject({
      source_revision_config: { repo_ref: HEAD },
    });
    const comments = gh.commentsOn(7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(`| Revision | \`${next.outputs['revision-id']}\` (new) |`);
    expect(comments[0]!.body).toContain(
      `| Previous active revision | \`${first.outputs['revision-id']}\` |`,
    );
    expect(gh.deployments.map((d) => d.ref)).toEqual(['b'.repeat(40), 'c'.repeat(40)]);
    expect(gh.deployments.map(states)).toEqual([
      ['in_progress', 'success'],
      ['in_progress', 'success'],
    ]);
  });

  it('a pull request from a fork writes nothing, and says why and what to do', async () => {
    // A fork's run has no secrets: the refusal comes before the missing key.
    const run = await act({ preview: 'true', 'api-key': '' }, { fork: true });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toContain('refuses pull request #7: it comes from a fork');
    expect(run.errors[0]).toContain('if: github.event.pull_request.head.repo.full_name');
    expect(run.summary).toContain('comes from a fork');
    expect(world.sim.requests).toEqual([]);
    expect(github.gh.requests).toEqual([]);
  });

  it('a push writes nothing, and names the event', async () => {
    const run = await preview(undefined);

    expect(run.code).toBe(1);
    expect(run.errors).toEqual([
      "Input 'preview': preview: true needs a pull request's run (on: pull_request), but this run (event 'push') has no pull request; run it there, or drop it from this job.",
    ]);
    expect(world.sim.requests).toEqual([]);
    expect(github.gh.requests).toEqual([]);
  });

  it('names a preview from the slugged head branch with {branch}', async () => {
    addRepository();

    const run = await preview(
      { head: 'Fix/Login_Timeout!!' },
      { 'preview-name': '{name}-{branch}-{number}', 'pr-comment': 'false' },
    );

    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'deployment-name': 'support-agent-fix-login-timeout-7',
    });
    expect(world.sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
      source_revision_config: { repo_ref: 'Fix/Login_Timeout!!' },
    });
    expect(github.gh.comments).toEqual([]);
  });
});

describe('command: preview-close', () => {
  it('marks this pull request’s GitHub Deployments inactive and updates its comment, with no write to the service', async () => {
    const { sim } = world;
    const { gh } = github;
    addRepository();
    const id = (await preview({})).outputs['deployment-id'];
    await preview({ action: 'synchronize', sha: 'c'.repeat(40) });
    const other = await preview({ number: 8, head: 'other', sha: 'd'.repeat(40) });
    expect(other.outputs['deployment-name']).toBe('support-agent-pr-8');
    const serviceWrites = writesTo(sim);
    const otherComment = gh.commentsOn(8)[0]!.body;

    const run = await close();

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'closed',
      'deployment-id': id,
      'deployment-name': NAME,
    });
    expect(writesTo(sim)).toEqual(serviceWrites);
    // Pull request #7's two deployments are inactive; #8's is left as it was.
    const [first, second, eighth] = gh.deployments;
    expect(states(first!)).toEqual(['in_progress', 'success', 'inactive']);
    expect(states(second!)).toEqual(['in_progress', 'success', 'inactive']);
    expect(states(eighth!)).toEqual(['in_progress', 'success']);
    expect(first!.statuses[2]).toMatchObject({
      description: 'Pull request #7 closed.',
      log_url: 'https://github.example/acme/agent/actions/runs/42',
    });
    expect(gh.deployments).toHaveLength(3);
    const closed = `Preview closed; deployment ${NAME} \\(${id}\\) stays on the service until deleted there.`;
    const comments = gh.commentsOn(7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(`### 🔒 Preview closed: ${NAME}\n\n${closed}`);
    expect(gh.commentsOn(8)[0]!.body).toBe(otherComment);
    expect(run.summary).toContain(closed);
    expect(run.stdout).toContain('Marked 2 of 2 GitHub Deployments of support-agent-pr-7');
  });

  it('closes a preview that was never deployed: result closed, nothing to mark, no comment made', async () => {
    const run = await close();

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'closed' });
    expect(run.outputs['deployment-id']).toBeUndefined();
    expect(run.summary).toContain(`no deployment is named ${NAME} on the service`);
    expect(world.sim.writes()).toEqual([]);
    expect(writesTo(github.gh)).toEqual([]);
    expect(run.stdout).toContain('No GitHub Deployments of support-agent-pr-7 for pull request #7');
  });

  it('without deployments: write, warns naming it, and still closes and updates the comment', async () => {
    const { gh } = github;
    addRepository();
    await preview({});
    gh.forbidden = /deployments/;

    const run = await close();

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('closed');
    const warnings = run.lines.filter((l) => l.level === 'warning').map((l) => l.text);
    expect(warnings).toEqual([
      expect.stringContaining(
        "Listing the GitHub Deployments in environment 'preview' failed (403 Resource not accessible by integration); give the job `permissions: deployments: write`",
      ),
    ]);
    expect(states(gh.deployments[0]!)).toEqual(['in_progress', 'success']);
    expect(gh.commentsOn(7)[0]!.body).toContain('### 🔒 Preview closed: support-agent-pr-7');
  });

  it('from a fork, or on a push, writes nothing', async () => {
    const fork = await close({ fork: true });
    const push = await act({ command: 'preview-close' });

    expect([fork.code, push.code]).toEqual([1, 1]);
    expect(fork.errors[0]).toContain("Input 'command': preview-close refuses pull request #7");
    expect(push.errors[0]).toContain("this run (event 'push') has no pull request");
    expect(world.sim.requests).toEqual([]);
    expect(github.gh.requests).toEqual([]);
  });
});
