// rollback-on-failure: the revision active before the run is redeployed and waited for when the new one fails, and
// the run says why when it does not roll back.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const world = useWorld();
const rollingBack = (extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, 'my-agent', { 'rollback-on-failure': 'true', ...extra });
const redeployPaths = () => world.sim.requestsTo('POST', /\/redeploy$/).map((r) => r.path);

describe('rollback-on-failure', () => {
  it('redeploys the revision active before, waits for it, ends rolled-back and fails the step', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    // The PATCH's revision fails; the rollback's redeploy runs the next timeline.
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'DEPLOYING', ms: 100 },
      { status: 'DEPLOY_FAILED' },
    ]);
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'DEPLOYING', ms: 100 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, { inputs: rollingBack() });

    expect(run.code).toBe(1);
    const r1 = run.outputs['revision-id']!;
    expect(r1).not.toBe(r0);
    expect(sim.revision(dep.id, r1)!.status).toBe('DEPLOY_FAILED');
    expect(run.outputs).toMatchObject({
      result: 'rolled-back',
      'revision-status': 'DEPLOY_FAILED',
      'previous-revision-id': r0,
    });
    expect(run.report.rollback).toEqual({ revisionId: r0, status: 'DEPLOYED', ok: true });
    expect(redeployPaths()).toEqual([`/v2/deployments/${dep.id}/revisions/${r0}/redeploy`]);
    // The redeploy came after the failure was seen, and R0 was waited on afterwards (in the order they were sent).
    const order = (path: string) =>
      sim.requests.flatMap((r, i) => (r.method === 'GET' && r.path === path ? [i] : []));
    const redeployAt = sim.requests.findIndex((r) => r.path.endsWith('/redeploy'));
    const r1Reads = order(`/v2/deployments/${dep.id}/revisions/${r1}`);
    expect(r1Reads.at(-1)!).toBeLessThan(redeployAt);
    const r0Reads = order(`/v2/deployments/${dep.id}/revisions/${r0}`);
    expect(r0Reads.some((i) => i > redeployAt)).toBe(true);
    expect(sim.deployment(dep.id)).toMatchObject({
      active_revision_id: r0,
      latest_revision_id: r0,
    });
    expect(sim.revision(dep.id, r0)!.status).toBe('DEPLOYED');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(r1);
    expect(run.errors[0]).toContain(r0);
    expect(run.errors[0]).toContain('DEPLOY_FAILED');
    expect(run.summary).toContain('### ↩️ Rolled back: my-agent');
    expect(run.summary).toContain(`| Rolled back to | \`${r0}\` (\`DEPLOYED\`) |`);
  });

  it('a rollback has a window of its own: a failure late in timeout still rolls back', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    // Fails 4.5 s into a 5 s timeout; the rollback then takes 2 s more, past the run's deadline.
    sim.timelines.push([{ status: 'BUILDING', ms: 4500 }, { status: 'BUILD_FAILED' }]);
    sim.timelines.push([{ status: 'DEPLOYING', ms: 2000 }, { status: 'DEPLOYED' }]);

    const run = await runInProcess(world, { inputs: rollingBack({ timeout: '5s' }) });

    expect(run.outputs).toMatchObject({ result: 'rolled-back', 'revision-status': 'BUILD_FAILED' });
    expect(run.report.revisionId).not.toBe(r0);
    expect(run.report.rollback).toEqual({ revisionId: r0, status: 'DEPLOYED', ok: true });
    expect(run.ms).toBeGreaterThan(5000);
    expect(run.ms).toBeLessThanOrEqual(10_000);
  });

  it('does not roll back when no revision was active before, and says so in the summary', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent', activeRevision: false });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILD_FAILED' }]);

    const run = await runInProcess(world, { inputs: rollingBack() });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'revision-status': 'BUILD_FAILED',
      'previous-revision-id': '',
      'deployment-id': dep.id,
    });
    expect(redeployPaths()).toEqual([]);
    expect(run.summary).toContain('No rollback: no other revision was active before this run');
  });

  it('does not roll back on a time-out, and the summary says why', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILDING' }]);

    const run = await runInProcess(world, { inputs: rollingBack({ timeout: '2s' }) });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(redeployPaths()).toEqual([]);
    const r1 = run.outputs['revision-id']!;
    expect(run.summary).toContain(`No rollback: revision ${r1} timed out, not failed`);
    expect(run.summary).toContain(`revision-id: ${r0}`);
  });
});
