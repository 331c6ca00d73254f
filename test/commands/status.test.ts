// The status command: read-only, it reports the deployment's latest revision, in outputs and a status summary.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs } from '../helpers/setup.ts';

const world = useWorld();
const status = (name: string) => baseInputs(world.sim, { command: 'status', name });

describe('status', () => {
  it('reads only and reports the latest revision', async () => {
    const { sim } = world;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.addRevision(target.id, [{ status: 'BUILDING' }]);
    const latest = sim.deployment(target.id)!.latest_revision_id!;

    const run = await runInProcess(world, { inputs: status('my-agent') });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(latest).not.toBe(target.active_revision_id);
    expect(run.outputs).toMatchObject({
      'deployment-id': target.id,
      'revision-id': latest,
      'revision-status': 'BUILDING',
      result: 'submitted',
    });
  });

  it('reports a live deployment as deployed', async () => {
    const { sim } = world;
    const target = sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: status('my-agent') });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      'deployment-id': target.id,
      'revision-id': target.latest_revision_id!,
      'revision-status': 'DEPLOYED',
      result: 'deployed',
    });
  });

  it('reads as a status report and never calls the latest revision "previous"', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: status('my-agent') });

    expect(run.code).toBe(0);
    expect(run.summary).toContain('### 📋 Status: live: my-agent');
    expect(run.summary).toContain(`| Latest revision | \`${dep.latest_revision_id}\` |`);
    expect(run.summary).toContain(`| Active revision | \`${dep.active_revision_id}\` |`);
    expect(run.summary).not.toMatch(/previous|Deployed:/i);
  });

  it('fails when the deployment does not exist', async () => {
    const run = await runInProcess(world, { inputs: status('ghost') });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain("No deployment is named 'ghost'");
    expect(world.sim.writes()).toEqual([]);
  });
});
