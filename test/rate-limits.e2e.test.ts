// Issue 14: rate limits cost time within `timeout`, not a red build; polling backs off while they last.
import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { codehostInputs, useSimulator } from './helpers/setup.ts';

const ctx = useSimulator();
const LONG = 120_000;

/** my-agent, whose next revision builds for `buildingMs`, and whose first `times` status reads answer 429. */
function rateLimitStatusReads(o: { buildingMs: number; times: number; retryAfter: string }): void {
  const { sim } = ctx;
  sim.addDeployment({ name: 'my-agent' });
  sim.timelines.push([{ status: 'BUILDING', ms: o.buildingMs }, { status: 'DEPLOYED' }]);
  sim.fault({
    method: 'GET',
    path: /\/revisions\//,
    status: 429,
    times: o.times,
    headers: { 'retry-after': o.retryAfter },
  });
}

describe('rate limits', () => {
  it(
    'a status read answered 429 ten times in a row does not end the wait',
    async () => {
      const { sim } = ctx;
      rateLimitStatusReads({ buildingMs: 1000, times: 10, retryAfter: '1' });

      const run = await runAction({
        inputs: codehostInputs(sim, 'my-agent', { timeout: '2m' }),
        timeoutMs: LONG,
      });

      expect(run.errors).toEqual([]);
      expect(run.outputs.result).toBe('deployed');
      expect(sim.answered.get(429)).toBe(10);
    },
    LONG,
  );

  it('retries a PATCH answered 429 without Retry-After once the limit lifts: exactly one new revision', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    const before = target.latest_revision_id;
    sim.fault({ method: 'PATCH', status: 429, times: 3 });

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    expect(sim.requestsTo('PATCH')).toHaveLength(4);
    const after = sim.deployment(target.id)!;
    expect(after.latest_revision_id).not.toBe(before);
    expect(run.outputs['revision-id']).toBe(after.latest_revision_id);
    // Only the answered PATCH made a revision.
    expect(
      sim
        .requestsTo('GET', /\/revisions\//)
        .every((r) => r.path.endsWith(after.latest_revision_id!)),
    ).toBe(true);
  });

  it(
    'stretches status polling while the service rate-limits, then returns to poll-interval',
    async () => {
      const { sim } = ctx;
      // Four rate-limited reads early in the wait, then clean answers.
      rateLimitStatusReads({ buildingMs: 20_000, times: 4, retryAfter: '0' });

      const run = await runAction({
        inputs: codehostInputs(sim, 'my-agent', { timeout: '1m', 'poll-interval': '1s' }),
        timeoutMs: LONG,
      });

      expect(run.outputs.result).toBe('deployed');
      const reads = sim.requestsTo('GET', /\/revisions\//).filter((r) => r.status === 200);
      const gaps = reads.slice(1).map((r, i) => r.at - reads[i]!.at);
      // Right after the 429s the gaps are stretched well past poll-interval; by the end they are back to it.
      expect(Math.max(...gaps)).toBeGreaterThanOrEqual(3000);
      expect(gaps.at(-1)!).toBeLessThan(2500);
    },
    LONG,
  );
});
