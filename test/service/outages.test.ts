// A busy or restarting service costs time within `timeout`, not a red build: outages and rate limits sat out on the
// fake clock, so a minute's outage takes milliseconds and every count below is exact.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const ctx = useWorld();

describe('outages', () => {
  it('sits out a 30 s outage (503) before any write and deploys, with at most 20 requests meanwhile', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ status: 503, forMs: 30_000 });
    const outageEnds = ctx.clock.wall() + 30_000;

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '3m' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    expect(sim.requests.filter((r) => r.at < outageEnds).length).toBeLessThanOrEqual(20);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    // One line when it starts, one when it ends.
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('The service answers HTTP 503'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('The service answers again'))).toHaveLength(1);
  });

  it('sits out a 60 s outage while waiting and ends deployed', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 5000 }, { status: 'DEPLOYED' }]);
    // From the first status read on, for a minute.
    sim.fault({ method: 'GET', path: /\/revisions\//, status: 503, fromMs: 1500, forMs: 60_000 });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '3m', 'poll-interval': '2s' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-status': 'DEPLOYED' });
    expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(60);
  });

  it('gives up on reads once nothing has answered for the patience bound, naming it', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ status: 503, forMs: 60 * 60_000 });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '30m' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.stdout).toMatch(/retrying until \d\d:\d\d:\d\d UTC \(5m without an answer\)/);
    expect(run.errors[0]).toMatch(/HTTP 503.*Retried \d+ times over/);
    expect(sim.writes()).toEqual([]);
  });
});

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
  it('a status read answered 429 ten times in a row does not end the wait', async () => {
    const { sim } = ctx;
    rateLimitStatusReads({ buildingMs: 1000, times: 10, retryAfter: '1' });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '2m' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    expect(sim.answered.get(429)).toBe(10);
  });

  it('retries a PATCH answered 429 without Retry-After once the limit lifts: exactly one new revision', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    const before = target.latest_revision_id;
    sim.fault({ method: 'PATCH', status: 429, times: 3 });

    const run = await runInProcess(ctx, { inputs: codehostInputs(sim, 'my-agent') });

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

  it('stretches status polling while the service rate-limits, then returns to poll-interval', async () => {
    const { sim } = ctx;
    // Four rate-limited reads early in the wait, then clean answers.
    rateLimitStatusReads({ buildingMs: 20_000, times: 4, retryAfter: '0' });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '1m', 'poll-interval': '1s' }),
    });

    expect(run.outputs.result).toBe('deployed');
    const reads = sim.requestsTo('GET', /\/revisions\//).filter((r) => r.status === 200);
    const gaps = reads.slice(1).map((r, i) => r.at - reads[i]!.at);
    // Right after the 429s the gaps are stretched well past poll-interval; by the end they are back to it.
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(3000);
    expect(gaps.at(-1)!).toBeLessThan(2500);
  });
});

describe('a request that never answers', () => {
  it('is cut at its own 30 s limit and tried again', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'GET', path: '/v2/deployments', hang: true });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '5m' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    // The lookup's first page twice: the one that hung, and the one that answered.
    const firstPages = sim
      .requestsTo('GET', '/v2/deployments')
      .filter((r) => r.query.name_contains && r.query.offset === '0');
    expect(firstPages).toHaveLength(2);
    // Cut at the limit, then a backoff of at most a second before the lookup goes again.
    expect(run.ms).toBeGreaterThanOrEqual(30_000);
    expect(run.ms).toBeLessThan(32_000);
    expect(run.stdout).toContain('no answer within 30 s');
  });
});
