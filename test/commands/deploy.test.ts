import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);

describe('deploy', () => {
  it('creates a missing deployment with the repository the integration lists for GITHUB_REPOSITORY', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'someone', name: 'else' });
    sim.addRepository(INTEGRATION, {
      owner: 'Acme',
      name: 'Agent',
      url: 'https://codehost.example/Acme/Agent',
    });

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ created: 'true', result: 'deployed' });
    expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
  });

  it('times out at the deadline on a revision stuck in BUILDING, whatever the timeout', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILDING' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { timeout: '30m', 'poll-interval': '10s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(run.errors.join()).toContain('still BUILDING when timeout 30m ran out');
    expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(30 * 60 - 1);
    expect(Number(run.outputs.duration)).toBeLessThanOrEqual(30 * 60 + 2);
  });
});
