// Finding the deployment by name: every page of the listing, the exact name only, and never a guess between two.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string) => codehostInputs(world.sim, name);

describe('lookup by name', () => {
  it('updates the exact name found on the third of several pages, and reports the old active revision', async () => {
    const { sim } = world;
    sim.addDeployments(210, (i) => `my-agent-old-${i}`);
    const target = sim.addDeployment({ name: 'my-agent' });
    const oldActive = target.active_revision_id!;
    sim.addDeployments(39, (i) => `x-my-agent-${i}`);

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    const lookups = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    expect(
      lookups.map((r) => [r.query.name_contains, r.query.limit, r.query.offset ?? '0']),
    ).toEqual([
      ['my-agent', '100', '0'],
      ['my-agent', '100', '100'],
      ['my-agent', '100', '200'],
      // The empty page ends the listing: a short one may only be a server's cap.
      ['my-agent', '100', '250'],
    ]);
    const patches = sim.requestsTo('PATCH');
    expect(patches.map((r) => r.path)).toEqual([`/v2/deployments/${target.id}`]);
    expect(patches[0]!.body).toEqual({
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    });
    expect(sim.requestsTo('POST')).toHaveLength(0);
    expect(run.outputs).toMatchObject({
      created: 'false',
      'revision-created': 'true',
      result: 'deployed',
      'deployment-id': target.id,
      'previous-revision-id': oldActive,
    });
    expect(run.outputs['revision-id']).not.toBe(oldActive);
    expect(sim.deployment(target.id)!.active_revision_id).toBe(run.outputs['revision-id']);
  });

  it('refuses two deployments with exactly the name, listing both ids, writing nothing', async () => {
    const { sim } = world;
    const a = sim.addDeployment({ name: 'twin' });
    const b = sim.addDeployment({ name: 'twin' });
    sim.addDeployment({ name: 'twin-2' });

    const run = await runInProcess(world, { inputs: codehost('twin') });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(a.id);
    expect(run.errors[0]).toContain(b.id);
    expect(sim.writes()).toEqual([]);
  });
});
