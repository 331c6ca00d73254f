// When it fails or is slow, say why (issue 24): what changed since the deployment last worked, a revision queued
// behind another one, a wait with no status change for stuck-after, and the deployment's own status, the whole
// action in-process on a fake clock. Each case also counts the reads the diagnostics cost.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);
const MIN = 60_000;

/** The lines at `level` that contain `text`. */
const said = (run: { lines: { level: string; text: string }[] }, level: string, text: string) =>
  run.lines.filter((line) => line.level === level && line.text.includes(text));

describe('what changed since it last worked', () => {
  it('names both refs and commits when a BUILD_FAILED revision follows an active one', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const good = sim.revision(dep.id, dep.active_revision_id!)!;
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILD_FAILED' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature/login' }),
    });

    const failedId = sim.deployment(dep.id)!.latest_revision_id!;
    const failedSha = sim.revision(dep.id, failedId)!.source_revision_config.repo_commit_sha!;
    const goodSha = good.source_revision_config.repo_commit_sha!;
    expect(goodSha).not.toBe(failedSha);
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-status': 'BUILD_FAILED' });
    const section = run.summary.slice(
      run.summary.indexOf('#### What changed since it last worked'),
    );
    expect(section).toContain(
      `| Revision | \`${good.id}\` (\`DEPLOYED\`) | \`${failedId}\` (\`BUILD_FAILED\`) |`,
    );
    expect(section).toContain('| **Ref** (changed) | `main` | `feature/login` |');
    expect(section).toContain(`| **Commit** (changed) | \`${goodSha}\` | \`${failedSha}\` |`);
    expect(section).toContain('| Graph config path | `graph.json` | `graph.json` |');
    expect(section).toContain(
      'This run sent `source_revision_config.repo_ref`, `source_revision_config.graph_config_path`.',
    );
    // The same in one log line.
    const lines = said(run, 'info', 'What changed since it last worked');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toContain(
      `What changed since it last worked: revision ${good.id} (active before this run, DEPLOYED) → revision ${failedId} (BUILD_FAILED): ref 'main' → 'feature/login'; commit '${goodSha}' → '${failedSha}'`,
    );
    // One read of the revision that was active before: the diagnostics' whole cost here.
    expect(sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${good.id}`)).toHaveLength(1);
    expect(run.report.diagnostics.requests).toBe(1);
    expect(said(run, 'info', 'Diagnostics cost 1 extra request.')).toHaveLength(1);
    // What to look at next, for a build: in the summary and the failure line.
    expect(run.summary).toContain('Failed in: build. Next: Read the revision');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`ended BUILD_FAILED. Next: Read the revision's build log`);
    expect(run.errors[0]).toContain(
      "the graph config file 'graph.json' (graph-config-path) at ref 'feature/login'",
    );
    expect(run.errors[0]).toContain('requirements.txt, pyproject.toml, package.json');
  });

  it('says there is nothing to compare with when no revision was active before the run', async () => {
    const { sim } = world;
    sim.addRepository('11111111-1111-4111-8111-111111111111', { owner: 'acme', name: 'agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'DEPLOY_FAILED' }]);

    const run = await runInProcess(world, { inputs: codehost('new-agent') });

    expect(run.outputs).toMatchObject({ result: 'failed', created: 'true' });
    expect(run.summary).toContain(
      'What changed since it last worked: nothing to compare with, as no revision was active before this run.',
    );
    expect(run.report.diagnostics.requests).toBe(0);
    expect(run.errors[0]).toContain('Next: The build passed but the revision did not start');
    expect(run.errors[0]).toContain("resource-spec (not set: the service's defaults");
  });

  it('says the revision before could not be read when its read fails, and the result stands', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const previous = dep.active_revision_id!;
    sim.timelines.push([{ status: 'BUILD_FAILED' }]);
    sim.fault({
      method: 'GET',
      path: `/v2/deployments/${dep.id}/revisions/${previous}`,
      status: 404,
      body: { detail: 'Revision not found.' },
    });

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'repo-ref': 'dev' }) });

    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-status': 'BUILD_FAILED' });
    const line = said(run, 'info', 'What changed since it last worked');
    expect(line).toHaveLength(1);
    expect(line[0]!.text).toContain(
      `revision ${previous}, active before this run, could not be read (GET /v2/deployments/${dep.id}/revisions/${previous} failed: HTTP 404`,
    );
    expect(run.summary).toContain('could not be read');
    expect(run.errors[0]).toContain('ended BUILD_FAILED. Next:');
  });

  it('says nothing of the kind when the revision goes live', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'repo-ref': 'dev' }) });

    expect(run.outputs.result).toBe('deployed');
    expect(run.summary).not.toContain('What changed');
    expect(said(run, 'info', 'What changed')).toEqual([]);
    expect(run.report.diagnostics.requests).toBe(0);
  });
});

describe('while waiting', () => {
  it('says once that the revision is queued behind the revision in progress before its write', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const ahead = sim.addRevision(dep.id, [
      { status: 'BUILDING', ms: 3 * MIN },
      { status: 'DEPLOYED' },
    ]);
    sim.timelines.push([
      { status: 'QUEUED', ms: 3 * MIN },
      { status: 'AWAITING_BUILD', ms: 30_000 },
      { status: 'BUILDING', ms: 1000 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'repo-ref': 'dev', timeout: '10m', 'poll-interval': '10s' }),
    });

    expect(run.outputs.result).toBe('deployed');
    const ours = run.outputs['revision-id']!;
    const queued = said(run, 'info', 'behind revision');
    expect(queued.map((line) => line.text)).toEqual([
      expect.stringContaining(`Revision ${ours} is QUEUED behind revision ${ahead.id} (BUILDING,`),
    ]);
    expect(run.report.diagnostics.queuedBehind).toEqual({
      revisionId: ahead.id,
      status: 'BUILDING',
      ownStatus: 'QUEUED',
    });
    expect(run.summary).toContain(
      `> Revision \`${ours}\` waited in \`QUEUED\` behind revision \`${ahead.id}\` (\`BUILDING\`), another change's.`,
    );
    // One deployment re-read and one read of the revision ahead; once found, AWAITING_BUILD is not checked again.
    expect(run.report.diagnostics.requests).toBe(2);
    expect(sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${ahead.id}`)).toHaveLength(
      1,
    );
  });

  it("says so when another job's newer revision is the deployment's latest while this one waits", async () => {
    const { sim, clock } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 5 * MIN }, { status: 'BUILD_FAILED' }]);
    const meanwhile = new AbortController();
    let newer: string | undefined;
    void clock.sleep(5000, meanwhile.signal).then(
      () => (newer = sim.addRevision(dep.id, [{ status: 'BUILDING' }], { repo_ref: 'other' }).id),
      () => undefined,
    );

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'repo-ref': 'dev', timeout: '10m', 'poll-interval': '10s' }),
    });
    meanwhile.abort();

    expect(newer).toBeDefined();
    expect(run.outputs.result).toBe('failed');
    expect(said(run, 'info', `is QUEUED behind revision ${newer}`)).toHaveLength(1);
    expect(run.report.diagnostics.queuedBehind?.revisionId).toBe(newer);
  });

  it('does not look for a queue the revision passes through within a poll interval', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 2000 },
      { status: 'BUILDING', ms: 2000 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'repo-ref': 'dev', 'poll-interval': '10s' }),
    });

    expect(run.outputs.result).toBe('deployed');
    expect(run.report.diagnostics.requests).toBe(0);
  });

  it('warns once when no status change is seen for stuck-after (10m by default), with what is known', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // QUEUED is passed through within a poll interval: no queue check.
    sim.timelines.push([{ status: 'QUEUED', ms: 5000 }, { status: 'BUILDING' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'repo-ref': 'dev', timeout: '30m', 'poll-interval': '10s' }),
    });

    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    const warnings = said(run, 'warning', 'has shown no status change');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.text).toContain('(stuck-after 10m): still BUILDING;');
    expect(warnings[0]!.text).toContain(
      `deployment 'my-agent' is READY; its active revision is ${dep.active_revision_id}.`,
    );
    expect(warnings[0]!.text).toMatch(/Waiting on: 1[0-9] min \d+ s of timeout 30m left\.$/);
    // Counted from the change to BUILDING, not from the start; seen within one poll interval of the 10 minutes.
    const { stuck } = run.report.diagnostics;
    expect(stuck?.status).toBe('BUILDING');
    expect(stuck!.forMs).toBeGreaterThanOrEqual(10 * MIN);
    expect(stuck!.forMs).toBeLessThan(10 * MIN + 10_000);
    // One deployment re-read for the warning, one revision read for the comparison after the timeout, which has
    // a window of its own: the run's is used up.
    expect(run.report.diagnostics.requests).toBe(2);
    expect(run.summary).toContain(`| Revision | \`${dep.active_revision_id}\` (\`DEPLOYED\`) |`);
    expect(run.errors[0]).toContain(
      'Next: The revision keeps going on the service. The build was still running',
    );
  });

  it('counts from the last status change: a revision that changes more often than stuck-after is not stuck', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 4 * MIN }, { status: 'DEPLOYING' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', {
        'repo-ref': 'dev',
        timeout: '8m',
        'poll-interval': '10s',
        'stuck-after': '5m',
      }),
    });

    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'DEPLOYING' });
    expect(said(run, 'warning', 'has shown no status change')).toEqual([]);
    expect(run.report.diagnostics.stuck).toBeUndefined();
  });

  it('refuses a stuck-after under a second before any request', async () => {
    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'stuck-after': '10ms' }),
    });

    expect(run.errors).toEqual([
      expect.stringContaining(
        'Input \'stuck-after\': "10ms" is under one second (milliseconds): did you mean 10m (minutes) or 10s?',
      ),
    ]);
    expect(world.sim.requests).toEqual([]);
  });
});

describe("the deployment's own status", () => {
  it('explains AWAITING_DATABASE seen during the run, though the deployment is READY at the end', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.setDeploymentStatus(dep.id, 'AWAITING_DATABASE');

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'repo-ref': 'dev' }) });

    expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-status': 'READY' });
    const meaning = "the service is still setting up the deployment's database";
    expect(
      said(run, 'info', `Deployment 'my-agent' is AWAITING_DATABASE: ${meaning}`),
    ).toHaveLength(1);
    expect(run.summary).toContain(
      `> Deployment status \`AWAITING_DATABASE\` during this run: ${meaning}`,
    );
    expect(run.report.diagnostics.deploymentStatuses).toEqual(['AWAITING_DATABASE']);
    // Seen in the answers the run had anyway: no read of its own.
    expect(run.report.diagnostics.requests).toBe(0);
  });

  it('adds the meaning to what to look at next when the revision fails, and reports each status once', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.setDeploymentStatus(dep.id, 'AWAITING_DELETE');
    sim.timelines.push([{ status: 'QUEUED', ms: 1000 }, { status: 'INTERRUPTED' }]);

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'repo-ref': 'dev' }) });

    expect(run.outputs).toMatchObject({ result: 'failed', 'deployment-status': 'AWAITING_DELETE' });
    expect(said(run, 'info', 'is AWAITING_DELETE')).toHaveLength(1);
    expect(run.errors[0]).toContain(
      'The deployment was AWAITING_DELETE: the deployment is being deleted',
    );
    expect(run.summary.match(/Deployment status `AWAITING_DELETE`/g)).toHaveLength(1);
  });

  it('is silent about a READY deployment', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'repo-ref': 'dev' }) });

    expect(run.report.diagnostics.deploymentStatuses).toEqual([]);
    expect(run.summary).not.toContain('Deployment status `');
  });
});
