// verify-url through the bundled action: on a deployment the run creates, a path resolves against the create's
// answer, and with no custom_url there the run ends unhealthy naming custom-url. The rest is tested in-process
// (test/deploy/verify.test.ts).
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { dockerInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

it('creates and deploys a deployment without custom_url, then ends unhealthy naming custom-url', async () => {
  const { sim } = ctx;

  const run = await runAction({ inputs: dockerInputs(sim, 'new-agent', { 'verify-url': '/ok' }) });

  expect(run.code).toBe(1);
  expect(run.outputs).toMatchObject({
    result: 'unhealthy',
    created: 'true',
    'revision-status': 'DEPLOYED',
    verified: 'false',
  });
  expect(run.errors).toHaveLength(1);
  expect(run.errors[0]).toContain(
    "is DEPLOYED and was not checked: verify-url /ok is a path, but deployment 'new-agent', created by this run, has no custom_url to resolve it against; set custom-url",
  );
  expect(sim.writes().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v2/deployments']);
});
