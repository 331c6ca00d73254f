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

describe('a Retry-After that ends past the deadline is not waited for, nor ignored', () => {
  const HOUR = { 'retry-after': '3600' };

  it('a status read told to come back in an hour ends the wait at once, timed-out, naming the wait', async () => {
    const { sim } = ctx;
    rateLimitStatusReads({ buildingMs: 60_000, times: 1, retryAfter: '3600' });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '2m', 'poll-interval': '2s' }),
    });

    // The wait ended with the 429 to its first read (0.5 s in): no read after it, nothing waited for. The report's
    // own reads follow (the deployment, and the revision beside the last good one's).
    expect(run.outputs).toMatchObject({ result: 'timed-out', duration: '0.5' });
    expect(run.ms).toBeLessThan(5000);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      /^The wait for revision \S+ stopped: GET \/v2\/deployments\/\S+\/revisions\/\S+ answered 429 with Retry-After: the service asks to wait 60 min 0 s, past the end of the timeout 2m \(2 min 0 s left\): not waited for\./,
    );
  });

  it('a PATCH told to come back in an hour fails at once, naming the wait, sent once', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 429, headers: HOUR });

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '2m' }),
    });

    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-created': 'false' });
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.revisions(dep.id)).toHaveLength(1);
    expect(run.ms).toBeLessThan(5000);
    expect(run.errors[0]).toContain(
      `PATCH /v2/deployments/${dep.id} answered 429 with Retry-After: the service asks to wait 60 min 0 s, past the end of the timeout 2m`,
    );
  });

  it('in a list, a PATCH told to come back in an hour is re-read at once, past the hold it set, then fails naming the wait', async () => {
    const { sim } = ctx;
    const a = sim.addDeployment({ name: 'agent-a' });
    sim.addDeployment({ name: 'agent-b' });
    sim.fault({ method: 'PATCH', path: `/v2/deployments/${a.id}`, status: 429, headers: HOUR });

    const run = await runInProcess(ctx, {
      inputs: {
        ...codehostInputs(sim, 'unused', { timeout: '2m' }),
        name: '',
        'max-parallel': '1',
        deployments: '[{name: agent-a}, {name: agent-b}]',
      },
    });

    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    expect(results['agent-a']!.result).toBe('failed');
    // What the PATCH did was read before anything else: it did not take effect.
    const patch = sim.requests.findIndex((r) => r.method === 'PATCH');
    const next = sim.requests[patch + 1]!;
    expect([next.method, next.path, next.query.deployment_ids]).toEqual([
      'GET',
      '/v2/deployments',
      a.id,
    ]);
    expect(sim.revisions(a.id)).toHaveLength(1);
    expect(run.summary).toContain(
      'the service asks to wait 60 min 0 s, past the end of the timeout 2m',
    );
    expect(run.ms).toBeLessThan(5000);
  });

  it('the lookup told by a 503 to come back in an hour fails at once, before any write', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'GET', path: '/v2/deployments', status: 503, headers: HOUR });

    const run = await runInProcess(ctx, { inputs: codehostInputs(sim, 'my-agent') });

    expect(run.outputs.result).toBe('failed');
    expect(sim.requests).toHaveLength(1);
    expect(run.ms).toBe(0);
    expect(run.errors[0]).toContain(
      'GET /v2/deployments answered 503 with Retry-After: the service asks to wait 60 min 0 s, past the end of the timeout 30s',
    );
  });

  it("in a list, one item's hour-long hold ends the others' waits too, each timed-out at once", async () => {
    const { sim } = ctx;
    for (const name of ['agent-a', 'agent-b']) sim.addDeployment({ name });
    sim.defaultTimeline = [{ status: 'BUILDING', ms: 60_000 }, { status: 'DEPLOYED' }];
    sim.fault({ method: 'GET', path: /\/revisions\//, status: 429, headers: HOUR });

    const run = await runInProcess(ctx, {
      inputs: {
        ...codehostInputs(sim, 'unused', { timeout: '2m' }),
        name: '',
        deployments: '[{name: agent-a}, {name: agent-b}]',
      },
    });

    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    expect(results['agent-a']!.result).toBe('timed-out');
    expect(results['agent-b']!.result).toBe('timed-out');
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(1);
    expect(run.ms).toBeLessThan(5000);
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
