// The runner's mask commands as dist/ prints them: every secret, and each line of a multi-line one (the runner
// matches line by line), before any other line; and no piece of a secret anywhere the run shows, stderr included.
// The other ways a secret could show are test/core/leak.test.ts's, in-process.
import { beforeEach, expect, it } from 'vitest';
import { runAction, visibleText } from '../../helpers/action.ts';
import {
  EQUALS,
  expectMasked,
  expectNoLeak,
  jsonForm,
  KEY,
  MULTILINE,
  PEM_LINES,
  SPECIALS,
} from '../../helpers/secrets.ts';
import { codehostInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
beforeEach(() => {
  ctx.sim.apiKey = KEY;
});

it('masks every secret, each line of a multi-line one, before any other line, debug logging on', async () => {
  const { sim } = ctx;
  sim.addDeployment({ name: 'my-agent' });
  sim.timelines.push([{ status: 'DEPLOYED' }]);

  const run = await runAction({
    inputs: codehostInputs(sim, 'my-agent', { 'api-key': KEY, secrets: jsonForm }),
    env: { RUNNER_DEBUG: '1' },
  });

  expect(run.code).toBe(0);
  expect(run.stdout).toContain('::debug::');
  expect(sim.requestsTo('PATCH')[0]!.body).toMatchObject({
    secrets: [
      { name: 'DATABASE_URL', value: EQUALS },
      { name: 'PASSWORD', value: SPECIALS },
      { name: 'TLS_KEY', value: MULTILINE },
    ],
  });
  expectMasked(run.stdout, [KEY, EQUALS, SPECIALS, MULTILINE, ...PEM_LINES]);
  // The whole multi-line value in one command, escaped as the runner reads it.
  expect(run.stdout).toContain(`::add-mask::${PEM_LINES.join('%0A')}\n`);
  expectNoLeak(visibleText(run));
});
