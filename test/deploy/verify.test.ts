// Deployed means serving (issue 10): the deployment must make the new revision its active one, and with verify-url
// the agent must answer 2xx, or the step fails. The whole action in-process on a fake clock, with the fake agent's
// requests timed on it, so every gap of the check is exact.
import { afterEach, describe, expect, it } from 'vitest';
import { useAgent } from '../helpers/agent.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { API_KEY, codehostInputs, dockerInputs } from '../helpers/setup.ts';

const ctx = useWorld();
const agentCtx = useAgent(() => ctx.clock.wall());
afterEach(() => {
  ctx.sim.onRevisionStatus = undefined;
});

const inputs = (extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, 'my-agent', { 'github-token': 'ghs_not_for_the_agent', ...extra });
/** When the agent was asked, in ms after the first time. */
const agentTimes = () => {
  const { requests } = agentCtx.agent;
  return requests.map((r) => r.at - requests[0]!.at);
};

describe('the new revision must be the active one', () => {
  it('passes when the service switches a moment after DEPLOYED', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.activeSwitch = { delayMs: 1500 };

    const run = await runInProcess(ctx, { inputs: inputs() });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    const dep = sim.deploymentsNamed('my-agent')[0]!;
    expect(dep.active_revision_id).toBe(run.outputs['revision-id']);
  });

  it('fails, naming both revisions, when an older revision stays active', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const older = dep.active_revision_id!;
    sim.activeSwitch = 'never';

    const run = await runInProcess(ctx, { inputs: inputs({ 'poll-interval': '1s' }) });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-status': 'DEPLOYED' });
    const ours = run.outputs['revision-id']!;
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`Revision ${ours} is DEPLOYED`);
    expect(run.errors[0]).toContain(`still serves revision ${older}`);
    expect(run.summary).toContain('Failed in: activate');
  });

  it('passes with a note when a newer revision superseded this one', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const seeded = dep.active_revision_id;
    let newer: string | undefined;
    let added = false;
    sim.onRevisionStatus = (deploymentId, revisionId, status) => {
      if (deploymentId !== dep.id || status !== 'DEPLOYED' || added || revisionId === seeded)
        return;
      // Another run's revision goes live right after ours (its own DEPLOYED calls back here).
      added = true;
      newer = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;
    };

    const run = await runInProcess(ctx, { inputs: inputs() });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    expect(newer).toBeDefined();
    const note = `was then superseded: revision ${newer} is active now`;
    expect(run.stdout).toContain(note);
    expect(run.summary).toContain(note);
  });
});

describe('verify-url', () => {
  it('passes once the agent answers 2xx: 503 three times, then 200, after gaps of 1, 2 and 4 s', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });
    agent.script = [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 200 }];

    const run = await runInProcess(ctx, { inputs: inputs({ 'verify-url': `${agent.url}/ok` }) });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(agentTimes()).toEqual([0, 1000, 3000, 7000]);
    expect(run.summary).toContain(
      `| Verified | ✅ <${agent.url}/ok> answered 2xx after 7.0 s (4 attempts) |`,
    );
  });

  it('sends no credentials to the agent', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, {
      inputs: inputs({ 'verify-url': `${agent.url}/ok`, 'tenant-id': sim.tenantId ?? '' }),
    });

    expect(run.outputs.verified).toBe('true');
    expect(agent.requests.length).toBeGreaterThan(0);
    for (const { headers } of agent.requests) {
      expect(headers).not.toHaveProperty('x-api-key');
      expect(headers).not.toHaveProperty('authorization');
      expect(headers).not.toHaveProperty('x-tenant-id');
      expect(JSON.stringify(headers)).not.toContain(API_KEY);
      expect(JSON.stringify(headers)).not.toContain('ghs_not_for_the_agent');
    }
  });

  it('ends unhealthy within verify-timeout when the agent keeps answering 500', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });
    agent.script = [{ status: 500, body: 'database not ready' }];

    const run = await runInProcess(ctx, {
      inputs: inputs({ 'verify-url': `${agent.url}/ok`, 'verify-timeout': '4s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'unhealthy', verified: 'false' });
    expect(run.errors[0]).toContain('did not answer 2xx within verify-timeout 4s');
    // The agent's words are never shown (they may echo what it was given): the status and the length only.
    expect(run.errors[0]).toContain('last: HTTP 500 (body: 18 bytes)');
    expect(`${run.stdout}${run.summary}`).not.toContain('database not ready');
    // Gaps of 1 and 2 s; the next, 4 s, would end past the 4 s.
    expect(agentTimes()).toEqual([0, 1000, 3000]);
    expect(sim.requestsTo('POST', /\/redeploy$/)).toHaveLength(0);
  });

  it('rolls an unhealthy revision back with rollback-on-failure: one redeploy, rolled-back', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const previous = dep.active_revision_id!;
    agent.script = [{ status: 500 }];

    const run = await runInProcess(ctx, {
      inputs: inputs({
        'verify-url': `${agent.url}/ok`,
        'verify-timeout': '3s',
        'rollback-on-failure': 'true',
      }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'rolled-back', verified: 'false' });
    const redeploys = sim.requestsTo('POST', /\/redeploy$/);
    expect(redeploys).toHaveLength(1);
    expect(redeploys[0]!.path).toBe(`/v2/deployments/${dep.id}/revisions/${previous}/redeploy`);
    expect(sim.deployment(dep.id)!.active_revision_id).toBe(previous);
    expect(run.summary).toContain('| Rolled back to |');
  });

  it('does not follow a redirect, and does not show where it pointed', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });
    agent.script = [{ status: 302, headers: { location: 'https://login.example/sso' } }];

    const run = await runInProcess(ctx, {
      inputs: inputs({ 'verify-url': `${agent.url}/ok`, 'verify-timeout': '2s' }),
    });

    expect(run.outputs.result).toBe('unhealthy');
    expect(run.errors[0]).toContain('HTTP 302, a redirect, not followed (body: 0 bytes)');
    expect(`${run.stdout}${run.summary}`).not.toContain('login.example');
    expect(agent.requests.length).toBeGreaterThan(0);
    expect(agent.requests.every((r) => r.path === '/ok')).toBe(true);
  });

  it('resolves a path against custom_url', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, {
      inputs: inputs({ 'custom-url': agent.url, 'verify-url': '/health' }),
    });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(agent.requests.map((r) => r.path)).toEqual(['/health']);
  });

  it('refuses a path for an existing deployment without a custom_url: an input error before any write', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent', source_config: { custom_url: null } });

    const run = await runInProcess(ctx, { inputs: inputs({ 'verify-url': '/health' }) });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toEqual([
      "Input 'verify-url': /health is a path, but deployment 'my-agent' has no custom_url to resolve it against; set custom-url (the agent's address), or give verify-url as an absolute https:// URL.",
    ]);
    expect(run.report.failure?.phase).toBe('inputs');
    expect(sim.writes()).toEqual([]);
  });

  it('cuts the input error that quotes a custom_url of 60,000 characters, as any failure is cut', async () => {
    const { sim } = ctx;
    sim.addDeployment({
      name: 'my-agent',
      source_config: { custom_url: `ftp://agent.example/${'u'.repeat(60_000)}` },
    });

    const run = await runInProcess(ctx, { inputs: inputs({ 'verify-url': '/health' }) });

    expect(run.outputs.result).toBe('failed');
    expect(run.report.failure?.message.length).toBeLessThanOrEqual(4000);
  });

  it('shows the URL a dry run would check', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, {
      inputs: inputs({ 'dry-run': 'true', 'custom-url': agent.url, 'verify-url': '/health' }),
    });

    expect(run.outputs.result).toBe('planned');
    expect(run.stdout).toContain(
      `After DEPLOYED, verify-url would be checked at ${agent.url}/health.`,
    );
    expect(agent.requests).toEqual([]);
    expect(sim.writes()).toEqual([]);
  });

  it('stops checking at once on a cancel, like the wait, and says the revision keeps going', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    sim.addDeployment({ name: 'my-agent' });
    agent.script = [{ status: 503 }];
    const cancelAt = ctx.clock.wall() + 30_000;

    // Well into a minute of checking: the revision is DEPLOYED within seconds.
    const run = await runInProcess(ctx, {
      inputs: inputs({ 'verify-url': `${agent.url}/ok`, 'verify-timeout': '1m' }),
      cancelAfterMs: 30_000,
    });

    expect(run.code).toBe(1);
    expect(run.ms).toBe(30_000);
    expect(agent.requests.length).toBeGreaterThan(1);
    expect(agent.requests.filter((r) => r.at >= cancelAt)).toEqual([]);
    expect(run.stdout).toContain('Received SIGINT');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('The job was cancelled.');
    expect(run.errors[0]).toContain(
      `Revision ${run.outputs['revision-id']!} keeps going on the service`,
    );
    expect(run.outputs['revision-id']).toBeTruthy();
  });
});

describe('verify-url on a deployment this run creates: resolved against the create’s answer', () => {
  const create = (extra: Record<string, string>) =>
    runInProcess(ctx, { inputs: dockerInputs(ctx.sim, 'new-agent', extra) });

  it('resolves a path against the custom_url the create answers, when no custom-url is given', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;
    // A service that gives a new deployment its address.
    sim.fault({
      method: 'POST',
      path: '/v2/deployments',
      transform: (body) => ({
        ...body,
        source_config: { ...body.source_config, custom_url: agent.url },
      }),
    });

    const run = await create({ 'verify-url': '/ok' });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true', verified: 'true' });
    expect(agent.requests.map((r) => r.path)).toEqual(['/ok']);
    expect(sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
      source_config: {},
    });
  });

  it('prefers the custom-url input to the answer', async () => {
    const { agent } = agentCtx;

    const run = await create({ 'verify-url': '/health', 'custom-url': agent.url });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(agent.requests.map((r) => r.path)).toEqual(['/health']);
  });

  it('creates and deploys, then ends unhealthy naming custom-url, when the answer has no custom_url', async () => {
    const { sim } = ctx;
    const { agent } = agentCtx;

    const run = await create({ 'verify-url': '/ok', 'rollback-on-failure': 'true' });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'unhealthy',
      created: 'true',
      'revision-status': 'DEPLOYED',
      verified: 'false',
    });
    expect(run.errors).toEqual([
      `Revision ${run.outputs['revision-id']} is DEPLOYED and was not checked: verify-url /ok is a path, but deployment 'new-agent', created by this run, has no custom_url to resolve it against; set custom-url (the agent's address), or give verify-url as an absolute https:// URL. Next: The deployment exists now: add custom-url (the agent's address) to this step, and the next run sets it and checks verify-url there.`,
    ]);
    expect(run.report.failure).toMatchObject({ phase: 'verify' });
    expect(run.summary).toContain(
      "| Verified | ❌ `/ok` not checked: /ok is a path, but deployment 'new-agent', created by this run, has no custom\\_url",
    );
    expect(sim.writes().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v2/deployments']);
    expect(agent.requests).toEqual([]);
  });

  it('never checks a plain http:// address the create answers: unhealthy, nothing fetched', async () => {
    const { sim } = ctx;
    sim.fault({
      method: 'POST',
      path: '/v2/deployments',
      transform: (body) => ({
        ...body,
        source_config: { ...body.source_config, custom_url: 'http://agent.example.com' },
      }),
    });

    const run = await create({ 'verify-url': '/ok' });

    expect(run.outputs).toMatchObject({ result: 'unhealthy', verified: 'false' });
    expect(run.errors[0]).toContain(
      'was not checked: verify-url resolves to http://agent.example.com: only https:// is checked',
    );
    expect(run.report.verification?.attempts).toBe(0);
  });

  it('still refuses, before the create, a custom-url input it cannot resolve against', async () => {
    const { sim } = ctx;

    const run = await create({ 'verify-url': '/ok', 'custom-url': 'http://agent.example.com' });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toMatch(/^Input 'verify-url': resolves to http:\/\/agent\.example\.com/);
    expect(sim.writes()).toEqual([]);
  });

  it('says in a dry run that the path waits for the service’s custom_url', async () => {
    const { sim } = ctx;

    const run = await create({ 'verify-url': '/ok', 'dry-run': 'true' });

    expect(run.outputs.result).toBe('planned');
    expect(run.stdout).toContain(
      "/ok is a path, resolved against the custom_url the service gives the new deployment 'new-agent', when it gives one; set custom-url to choose it.",
    );
    expect(sim.writes()).toEqual([]);
  });
});
