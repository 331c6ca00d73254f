// The near-name guard as the runner meets it, through the bundle: a misspelt name is not created beside the real
// deployment. Its other cases (siblings created, create: always, the bounded search) run in-process in
// test/deploy/near-names.test.ts.
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { codehostInputs, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

it('refuses to create support-agnet beside support-agent, naming it and both ways on; nothing is written', async () => {
  const { sim } = ctx;
  sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  const real = sim.addDeployment({ name: 'support-agent' });

  const run = await runAction({ inputs: codehostInputs(sim, 'support-agnet') });

  expect(run.code).toBe(1);
  expect(run.outputs).toMatchObject({ result: 'failed', created: 'false' });
  expect(run.errors).toEqual([
    `Did you mean 'support-agent'? No deployment is named 'support-agnet', and 'support-agent' (${real.id}, two letters swapped) is one typo away: nothing was created. For 'support-agent', set name: support-agent; to create 'support-agnet' beside it, set create: always.`,
  ]);
  expect(run.summary).toContain("Did you mean 'support-agent'?");
  expect(sim.writes()).toEqual([]);
});
