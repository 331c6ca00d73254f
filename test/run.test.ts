// What every run ends with: the failure line of the log carries the same next step as the summary.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../src/core/outcome.ts';
import { esc } from '../src/shared/markdown.ts';
import { runInProcess, useWorld } from './helpers/run.ts';
import { codehostInputs } from './helpers/setup.ts';

const world = useWorld();

describe('the failure line', () => {
  it.each(['BUILD_FAILED', 'DEPLOY_FAILED'])(
    'of a revision that ended %s says what to look at next, as the summary does',
    async (status) => {
      const { sim } = world;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'BUILDING', ms: 2000 }, { status }]);

      const run = await runInProcess(world, { inputs: codehostInputs(sim, 'my-agent') });

      const { next } = diagnose(status);
      const revision = run.outputs['revision-id'];
      expect(run.errors).toEqual([`Revision ${revision} ended ${status}. Next: ${next}`]);
      expect(run.summary).toContain(`Next: ${esc(next)}`);
    },
  );

  it('of a timed-out revision says what to do about the time', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);

    const run = await runInProcess(world, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '20s' }),
    });

    expect(run.errors[0]).toMatch(
      /was still BUILDING when timeout 20s ran out\. Next: The revision keeps going on the service: raise timeout/,
    );
  });
});
