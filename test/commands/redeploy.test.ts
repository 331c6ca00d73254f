// The redeploy command: one call that makes an older revision live again, then the same wait as a deploy.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs } from '../helpers/setup.ts';

const world = useWorld();
const redeploy = (inputs: Record<string, string>) =>
  baseInputs(world.sim, { command: 'redeploy', ...inputs });
const redeployPaths = () => world.sim.requestsTo('POST', /\/redeploy$/).map((r) => r.path);

describe('redeploy', () => {
  it('redeploys an older revision with one call and waits for it to be DEPLOYED', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    const r1 = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;
    sim.timelines.push([
      { status: 'QUEUED', ms: 100 },
      { status: 'DEPLOYING', ms: 200 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, {
      inputs: redeploy({ name: 'my-agent', 'revision-id': r0 }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.writes().map((r) => r.path)).toEqual([
      `/v2/deployments/${dep.id}/revisions/${r0}/redeploy`,
    ]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'deployment-id': dep.id,
      'revision-id': r0,
      'revision-status': 'DEPLOYED',
      'previous-revision-id': r1,
      'revision-created': 'false',
    });
    expect(
      sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r0}`).length,
    ).toBeGreaterThan(0);
    expect(sim.deployment(dep.id)).toMatchObject({
      active_revision_id: r0,
      latest_revision_id: r0,
    });
  });

  it('waits on the new latest revision when the service redeploys as a new revision', async () => {
    const { sim } = world;
    sim.redeployMode = 'new-revision';
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    const r1 = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;

    const run = await runInProcess(world, {
      inputs: redeploy({ name: 'my-agent', 'revision-id': r0 }),
    });

    expect(run.code).toBe(0);
    expect(redeployPaths()).toEqual([`/v2/deployments/${dep.id}/revisions/${r0}/redeploy`]);
    const latest = sim.deployment(dep.id)!.latest_revision_id!;
    expect([r0, r1]).not.toContain(latest);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': latest,
      'revision-status': 'DEPLOYED',
      'revision-created': 'true',
    });
    expect(
      sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${latest}`).length,
    ).toBeGreaterThan(0);
    // r0 is read once, to check that the answer's new revision carries its values; never waited on.
    expect(sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r0}`)).toHaveLength(1);
  });

  it('names revision-id when it is not a revision of the deployment', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const missing = '33333333-3333-4333-8333-333333333333';

    const run = await runInProcess(world, {
      inputs: redeploy({ 'deployment-id': dep.id, 'revision-id': missing }),
    });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `Check revision-id: ${missing} is not a revision of deployment ${dep.id}.`,
    );
  });
});
