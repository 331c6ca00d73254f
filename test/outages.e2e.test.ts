// Issue 14: a busy or restarting service costs time within `timeout`, not a red build. These runs last as long
// as the outages they sit out (30 s, 60 s): their own file, so they run beside the rest of the suite.
import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { codehostInputs, useSimulator } from './helpers/setup.ts';

const ctx = useSimulator();
const LONG = 120_000;

describe('outages', () => {
  it(
    'sits out a 30 s outage (503) before any write and deploys, with at most 20 requests meanwhile',
    async () => {
      const { sim } = ctx;
      sim.addDeployment({ name: 'my-agent' });
      sim.fault({ status: 503, forMs: 30_000 });
      const outageEnds = Date.now() + 30_000;

      const run = await runAction({
        inputs: codehostInputs(sim, 'my-agent', { timeout: '3m' }),
        timeoutMs: LONG,
      });

      expect(run.errors).toEqual([]);
      expect(run.outputs.result).toBe('deployed');
      expect(sim.requests.filter((r) => r.at < outageEnds).length).toBeLessThanOrEqual(20);
      expect(sim.requestsTo('PATCH')).toHaveLength(1);
      // One line when it starts, one when it ends.
      const lines = run.stdout.split('\n');
      expect(lines.filter((l) => l.startsWith('The service answers HTTP 503'))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('The service answers again'))).toHaveLength(1);
    },
    LONG,
  );

  it(
    'sits out a 60 s outage while waiting and ends deployed',
    async () => {
      const { sim } = ctx;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'BUILDING', ms: 5000 }, { status: 'DEPLOYED' }]);
      // From the first status read on, for a minute.
      sim.fault({ method: 'GET', path: /\/revisions\//, status: 503, fromMs: 1500, forMs: 60_000 });

      const run = await runAction({
        inputs: codehostInputs(sim, 'my-agent', { timeout: '3m', 'poll-interval': '2s' }),
        timeoutMs: LONG,
      });

      expect(run.errors).toEqual([]);
      expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-status': 'DEPLOYED' });
      expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(60);
    },
    LONG,
  );

  it('gives up on reads once nothing has answered for the patience bound, naming it', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ status: 503, forMs: 60_000 });

    const run = await runAction({
      inputs: codehostInputs(sim, 'my-agent', { timeout: '5m' }),
      env: { AGENT_DEPLOY_PATIENCE_MS: '3000' },
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.stdout).toMatch(/retrying until \d\d:\d\d:\d\d UTC \(3s without an answer\)/);
    expect(run.errors[0]).toMatch(/HTTP 503.*Retried \d+ times over/);
    expect(sim.writes()).toEqual([]);
  });
});
