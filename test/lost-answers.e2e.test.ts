// Issue 18, through the bundled action: every write's outcome known, every revision reported as this run's its own.
// Lost and late answers, concurrent jobs, an eventually consistent service, skewed clocks, proxies. Each case counts
// the deployments and revisions the service holds afterwards and checks the outputs.
import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { codehostInputs, useSimulator } from './helpers/setup.ts';

const ctx = useSimulator();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, { timeout: '10s', ...extra });
/** The first page of each name lookup (a lookup may read more pages). */
const lookups = () =>
  ctx.sim
    .requestsTo('GET', '/v2/deployments')
    .filter((r) => r.query.name_contains && (r.query.offset ?? '0') === '0');
/** Revisions the service made for `id` during the run (a seeded deployment starts with one). */
const newRevisions = (id: string, seeded = 1) => ctx.sim.revisions(id).length - seeded;

describe('clocks', () => {
  it("measures a Retry-After date against the answer's own Date, the server's clock an hour ahead", async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.dateSkewMs = 3_600_000;
    sim.fault({ method: 'GET', path: '/v2/deployments', status: 503, retryAfterDateMs: 1000 });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
    expect(lookups()).toHaveLength(2);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.deploymentsNamed('my-agent')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});
