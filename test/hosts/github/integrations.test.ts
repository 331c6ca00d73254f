// The GitHub features (environment: a GitHub Deployment; pr-comment: one comment per deployment on the pull request),
// in-process: the whole run on a fake clock, its integrations talking to a fake GitHub through a real Octokit. That
// the bundle reaches GitHub at GITHUB_API_URL with the job's token is integrations.e2e.test.ts's business.
import { getOctokit } from '@actions/github';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../src/core/logger.ts';
import { newReport } from '../../../src/core/report.ts';
import { commentMarker } from '../../../src/hosts/best-effort.ts';
import { upsertComment } from '../../../src/hosts/github/comment.ts';
import { finalStatus } from '../../../src/hosts/github/deployments.ts';
import { systemClock } from '../../../src/shared/clock.ts';
import { useGitHub } from '../../helpers/github.ts';
import { HANG_GUARD_MS } from '../../helpers/hang-guard.ts';
import {
  type InProcessOptions,
  type InProcessRun,
  runInProcess,
  useWorld,
  visibleText,
} from '../../helpers/run.ts';
import { baseInputs, codehostInputs, INTEGRATION } from '../../helpers/setup.ts';

const ctx = useWorld();
const github = useGitHub(ctx);
afterEach(async () => {
  // A held request ends when its socket closes, a moment after the run gave up on it.
  await vi.waitFor(() => expect(github.gh.parked).toBe(0), HANG_GUARD_MS);
  ctx.sim.onRevisionStatus = undefined;
});

const TOKEN = 'ghs_fakeGitHubToken0123456789';
const HEAD_SHA = 'b'.repeat(40);
const RUN_URL = 'https://github.example/acme/agent/actions/runs/42';
const PR = 7;
const prEvent = {
  number: PR,
  pull_request: { number: PR, head: { sha: HEAD_SHA, ref: 'feature' } },
};
const prEnv = {
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_HEAD_REF: 'feature',
  GITHUB_REF: `refs/pull/${PR}/merge`,
  GITHUB_REF_NAME: `${PR}/merge`,
};

const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, { 'github-token': TOKEN, ...extra });

/** A run whose GitHub features talk to the fake GitHub; on a pull request's event with `pr`. */
function act(
  inputs: Record<string, string>,
  options: { pr?: boolean } & Omit<InProcessOptions, 'inputs'> = {},
): Promise<InProcessRun> {
  const { pr, ...rest } = options;
  return runInProcess(ctx, {
    inputs,
    github: getOctokit(TOKEN, { baseUrl: github.gh.url }),
    ...(pr ? { env: prEnv, event: prEvent } : {}),
    ...rest,
  });
}

const warnings = (run: InProcessRun) =>
  run.lines.filter((l) => l.level === 'warning').map((l) => l.text);

const states = (statuses: Record<string, unknown>[]) => statuses.map((s) => s.state);

describe('environment: a GitHub Deployment', () => {
  it('is created for GITHUB_SHA, in_progress while waiting, then success with the URLs', async () => {
    const { sim } = ctx;
    const { gh } = github;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 600 }, { status: 'DEPLOYED' }]);
    // What GitHub had been told when the service's revision went live.
    let statesWhenDeployed: unknown[] | undefined;
    sim.onRevisionStatus = (deploymentId, _, status) => {
      if (deploymentId === dep.id && status === 'DEPLOYED')
        statesWhenDeployed ??= states(gh.deployments[0]?.statuses ?? []);
    };

    const run = await act(codehost('my-agent', { environment: 'production' }));

    expect(run.code).toBe(0);
    expect(warnings(run)).toEqual([]);
    expect(gh.deployments).toHaveLength(1);
    const deployment = gh.deployments[0]!;
    expect(deployment.request).toMatchObject({
      ref: 'a'.repeat(40),
      environment: 'production',
      auto_merge: false,
      required_contexts: [],
    });
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/agent/deployments',
      `POST /repos/acme/agent/deployments/${deployment.id}/statuses`,
      `POST /repos/acme/agent/deployments/${deployment.id}/statuses`,
    ]);
    expect(states(deployment.statuses)).toEqual(['in_progress', 'success']);
    const [progress, success] = deployment.statuses;
    expect(progress).toMatchObject({ log_url: RUN_URL });
    expect(success).toMatchObject({ log_url: RUN_URL, environment_url: run.outputs['custom-url'] });
    expect(run.outputs['custom-url']).toMatch(/^https:\/\/my-agent-/);
    // in_progress was set while the revision was still building.
    expect(statesWhenDeployed).toEqual(['in_progress']);
  });

  it('records the pull request head sha and ends failure, with the reason, when the revision fails', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 100 }, { status: 'BUILD_FAILED' }]);

    const run = await act(
      codehost('my-agent', { environment: 'preview', 'custom-url': 'preview.example.com' }),
      { pr: true },
    );

    expect(run.code).toBe(1);
    const deployment = gh.deployments[0]!;
    expect(deployment).toMatchObject({ ref: HEAD_SHA, environment: 'preview' });
    expect(states(deployment.statuses)).toEqual(['in_progress', 'failure']);
    expect(deployment.statuses[0]).toMatchObject({
      environment_url: 'https://preview.example.com',
    });
    expect(deployment.statuses[1]!.description).toContain('BUILD_FAILED');
  });

  it('is marked inactive when the job is cancelled: the revision keeps going on the service', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);

    const run = await act(codehost('my-agent', { environment: 'production' }), {
      cancelAfterMs: 1500,
    });

    expect(run.code).toBe(1);
    expect(run.ms).toBe(1500);
    const deployment = gh.deployments[0]!;
    expect(states(deployment.statuses)).toEqual(['in_progress', 'inactive']);
    expect(deployment.statuses[1]!.description).toContain('keeps going');
  });

  it('a GitHub that never answers costs at most the deploy timeout and fails nothing', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'my-agent' });
    gh.hang = true;

    const run = await act(codehost('my-agent', { environment: 'production', timeout: '2s' }));

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    // The deploy is over well within the 2 s; the GitHub Deployment's create is given all of them.
    expect(run.ms).toBe(2000);
    expect(warnings(run)).toEqual([
      "Creating the GitHub Deployment in environment 'production' failed (no answer within 2 s); GitHub's API did not answer in time: check the runner's network and GITHUB_API_URL. The deploy is not affected.",
    ]);
    // Made once, never retried.
    expect(gh.requests).toHaveLength(1);
  });
  it('is not created for drift, which only reads', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await act(codehost('my-agent', { command: 'drift', environment: 'production' }));

    expect(run.outputs.result).toBe('drifted');
    expect(sim.writes()).toEqual([]);
    expect(run.stdout).toContain("environment: command 'drift' records no GitHub Deployment.");
    expect(github.gh.requests).toEqual([]);
  });

  it('is not created for token-metadata, which writes no deployment', async () => {
    const { sim } = ctx;
    const token = sim.addToken({ provider_account_label: 'old', is_default: false });

    const run = await act(
      baseInputs(sim, {
        command: 'token-metadata',
        'token-id': token.id,
        'is-default': 'true',
        'github-token': TOKEN,
        environment: 'production',
      }),
    );

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('updated');
    expect(run.stdout).toContain(
      "environment: command 'token-metadata' records no GitHub Deployment.",
    );
    expect(github.gh.requests).toEqual([]);
  });
});

describe('pr-comment', () => {
  it('creates one comment, then updates it in place on the next run; another name gets its own', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'my-agent' });
    // Someone else's comments, over more than one page of 100.
    for (let i = 0; i < 105; i++) gh.addComment(PR, `comment ${i}`);
    gh.addComment(PR + 1, '<!-- agent-deploy-action:my-agent -->\nanother pull request');

    const first = await act(codehost('my-agent', { 'pr-comment': 'true' }), { pr: true });
    expect(first.code).toBe(0);
    const ours = () => gh.commentsOn(PR).filter((c) => c.body.includes('agent-deploy-action'));
    expect(ours()).toHaveLength(1);
    const comment = ours()[0]!;
    expect(comment.body.split('\n')[0]).toBe('<!-- agent-deploy-action:my-agent -->');
    expect(comment.body).toContain('### ✅ Deployed: my-agent');
    expect(comment.body).toContain(`| Revision | \`${first.outputs['revision-id']}\` (new) |`);
    expect(comment.body).toContain(`[Workflow run](${RUN_URL})`);
    expect(gh.writes().map((r) => r.method)).toEqual(['POST']);

    sim.timelines.push([{ status: 'BUILD_FAILED' }]);
    const second = await act(codehost('my-agent', { 'pr-comment': 'true' }), { pr: true });
    expect(second.code).toBe(1);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.id).toBe(comment.id);
    expect(ours()[0]!.body).toContain('### ❌ Failed: my-agent');
    expect(ours()[0]!.body).toContain(`\`${second.outputs['revision-id']}\``);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /repos/acme/agent/issues/${PR}/comments`,
      `PATCH /repos/acme/agent/issues/comments/${comment.id}`,
    ]);
    // Paged with 100 per page: our comment is the 106th.
    expect(
      gh.requests.filter((r) => r.method === 'GET').map((r) => [r.query.per_page, r.query.page]),
    ).toEqual([
      ['100', '1'],
      ['100', '2'],
      ['100', '1'],
      ['100', '2'],
    ]);

    sim.addDeployment({ name: 'my-agent-2' });
    await act(codehost('my-agent-2', { 'pr-comment': 'true' }), { pr: true });
    expect(ours().map((c) => c.body.split('\n')[0])).toEqual([
      '<!-- agent-deploy-action:my-agent -->',
      '<!-- agent-deploy-action:my-agent-2 -->',
    ]);
    expect(gh.commentsOn(PR + 1)).toHaveLength(1);
  });

  it('is not written on a push, where there is no pull request', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await act(codehost('my-agent', { 'pr-comment': 'true' }));

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('pr-comment: not a pull_request event');
    expect(github.gh.requests).toEqual([]);
  });
});

describe('best effort', () => {
  it('a 403 from GitHub is a warning naming the permission; the deploy succeeds', async () => {
    const { sim } = ctx;
    const { gh } = github;
    sim.addDeployment({ name: 'my-agent' });
    gh.forbidden = true;

    const run = await act(codehost('my-agent', { environment: 'preview', 'pr-comment': 'true' }), {
      pr: true,
    });

    expect(run.code).toBe(0);
    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    const w = warnings(run);
    expect(w).toHaveLength(2);
    expect(w.find((l) => l.includes('GitHub Deployment'))).toMatch(
      /403 Resource not accessible by integration.*`permissions: deployments: write`/,
    );
    expect(w.find((l) => l.includes('pull request'))).toMatch(
      /403 Resource not accessible by integration.*`permissions: pull-requests: write`/,
    );
    // No status without a deployment; no blind comment without the list.
    expect(gh.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'POST /repos/acme/agent/deployments',
        `GET /repos/acme/agent/issues/${PR}/comments`,
      ]),
    );
    expect(gh.requests).toHaveLength(2);
  });

  it('an empty github-token skips the GitHub features with a notice', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await act(
      codehost('my-agent', { environment: 'preview', 'pr-comment': 'true', 'github-token': '' }),
      { pr: true },
    );

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^::notice::github-token is empty/m);
    expect(github.gh.requests).toEqual([]);
  });
});

describe('dry-run', () => {
  const SECRET_A = 'sk-live-5ecret=Value*1';
  const SECRET_B = 'hunter2-other-secret';
  const secrets = `OPENAI_API_KEY=${SECRET_A}\nOTHER=${SECRET_B}`;

  function expectNoSecret(run: InProcessRun, ...more: string[]): void {
    const shown = {
      ...visibleText(run),
      ...Object.fromEntries(more.map((text, i) => [`extra ${i}`, text])),
    };
    for (const [where, text] of Object.entries(shown))
      for (const secret of [SECRET_A, SECRET_B, TOKEN])
        expect(text, `${where} shows a secret`).not.toContain(secret);
  }

  it('plans a create: prints the POST it would send, writes nothing, result planned', async () => {
    const { sim } = ctx;

    const run = await act(
      codehost('new-agent', {
        'dry-run': 'true',
        'repo-url': 'https://codehost.example/acme/agent',
        secrets,
        environment: 'production',
      }),
    );

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('planned');
    expect(sim.writes()).toEqual([]);
    expect(github.gh.requests).toEqual([]);
    expect(run.stdout).toContain('environment: a dry run records no GitHub Deployment.');
    expect(run.stdout).toContain(`POST ${sim.url}/v2/deployments\nX-Api-Key: ***\n`);
    const body = JSON.parse(
      /^Content-Type: application\/json\n\n(\{[\s\S]*?\n\})$/m.exec(run.stdout)![1]!,
    );
    expect(body).toEqual({
      name: 'new-agent',
      source: 'codehost',
      source_config: {
        integration_id: INTEGRATION,
        repo_url: 'https://codehost.example/acme/agent',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
      secrets: [
        { name: 'OPENAI_API_KEY', value: '***' },
        { name: 'OTHER', value: '***' },
      ],
    });
    expect(run.summary).toContain('### 📝 Planned (dry run): new-agent');
    expect(run.summary).toContain(
      '**Dry run: nothing was written.** This run would create deployment new-agent with `POST /v2/deployments`',
    );
    expectNoSecret(run);
  });

  it('plans an update and shows it in the pull request comment; no write anywhere but the comment', async () => {
    const { sim } = ctx;
    const { gh } = github;
    const target = sim.addDeployment({ name: 'my-agent' });

    const run = await act(
      codehost('my-agent', { 'dry-run': 'true', secrets, 'pr-comment': 'true' }),
      { pr: true },
    );

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'planned', 'deployment-id': target.id });
    expect(sim.writes()).toEqual([]);
    expect(run.stdout).toContain(`PATCH ${sim.url}/v2/deployments/${target.id}\nX-Api-Key: ***\n`);
    expect(run.stdout).toContain('"repo_ref": "feature"');
    expect(run.stdout).toContain('"value": "***"');
    expect(run.summary).toContain(
      `This run would update deployment my-agent with \`PATCH /v2/deployments/${target.id}\`, setting \`source_revision_config.repo_ref\`, \`source_revision_config.graph_config_path\`, \`secrets\`.`,
    );
    expect(gh.writes().map((r) => r.method)).toEqual(['POST']);
    const comment = gh.commentsOn(PR)[0]!;
    expect(comment.body).toContain('### 📝 Planned (dry run): my-agent');
    expect(comment.body).toContain('"repo_ref": "feature"');
    expect(comment.body).toContain('"secrets": "set"');
    // The plan, as in the summary: the head branch's commit is the pull request's head, not the merge commit.
    expect(comment.body).toContain('#### The plan: live against these inputs');
    expect(comment.body).toContain('| `repo_ref` | `main` | `feature` |');
    expect(comment.body).toMatch(
      new RegExp(`^\\| \`commit\` \\| \`[0-9a-f]{40}\` \\| \`${HEAD_SHA}\` \\|$`, 'm'),
    );
    expect(comment.body).toContain('| `secrets.OPENAI_API_KEY` | — | _added_ |');
    expectNoSecret(run, ...gh.requests.map((r) => JSON.stringify(r.body ?? null)));
  });
});

describe('the pieces, called directly', () => {
  it.each([
    [{ ok: true, result: 'deployed' }, 'success'],
    [{ ok: true, result: 'no-change' }, 'success'],
    [{ ok: true, result: 'skipped' }, 'inactive'],
    [{ ok: true, result: 'submitted' }, 'in_progress'],
    [{ ok: false, result: 'failed' }, 'failure'],
    [{ ok: false, result: 'timed-out' }, 'failure'],
    [{ ok: false, result: 'rolled-back' }, 'failure'],
    [{ ok: false }, 'failure'],
    [{ ok: false, cancelled: true }, 'inactive'],
  ] as const)('a run %o ends the GitHub Deployment %s', (fields, state) => {
    expect(finalStatus({ ...newReport('deploy'), ...fields }).state).toBe(state);
  });

  it('a name cannot close the hidden marker', () => {
    expect(commentMarker('a-->b')).toBe('<!-- agent-deploy-action:a--&gt;b -->');
  });

  it('upserts through any Octokit at any base URL, and writes nothing when the list fails', async () => {
    const { gh } = github;
    const octokit = getOctokit('t', { baseUrl: gh.url });
    const said: string[] = [];
    const log: Logger = {
      debug() {},
      info: (m) => said.push(m),
      notice: (m) => said.push(m),
      warning: (m) => said.push(m),
    };
    const c = { repo: { owner: 'o', repo: 'r' }, issueNumber: 3, name: 'n', body: 'hello' };
    // The machine's clock: these calls are not the world's, whose clock would not wait for them. No limit load
    // could reach: the hang guard's.
    const limits = {
      time: systemClock,
      timeoutMs: HANG_GUARD_MS,
      unaffected: 'The deploy is not affected.',
    };

    expect(await upsertComment(octokit, log, c, limits)).toBe('created');
    expect(await upsertComment(octokit, log, { ...c, body: 'again' }, limits)).toBe('updated');
    expect(gh.commentsOn(3).map((x) => x.body)).toEqual(['<!-- agent-deploy-action:n -->\nagain']);

    gh.forbidden = /^GET /;
    expect(await upsertComment(octokit, log, { ...c, name: 'other' }, limits)).toBeUndefined();
    expect(gh.commentsOn(3)).toHaveLength(1);
    expect(said.at(-1)).toContain('`permissions: pull-requests: write`');
  });
});
