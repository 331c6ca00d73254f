import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { API_KEY, INTEGRATION, useSimulator, codehostInputs } from './helpers/setup.ts';

const ctx = useSimulator();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, extra);
/** The requests for the first page of a name lookup (the empty page after it ends each lookup). */
const lookups = () =>
  ctx.sim
    .requestsTo('GET', '/v2/deployments')
    .filter((r) => r.query.name_contains && (r.query.offset ?? '0') === '0');

describe('reads are retried', () => {
  it('retries a listing answered 503 twice, then deploys', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'GET', path: '/v2/deployments', status: 503, times: 2 });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    expect(lookups()).toHaveLength(3);
    // One line when the trouble starts, one when it ends; the attempts between are debug lines.
    expect(run.stdout).toContain(
      'The service answers HTTP 503 to GET /v2/deployments; retrying until',
    );
    expect(run.stdout).toMatch(/The service answers again, after [\d.]+ s and 2 retries\./);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
  });

  it('waits the Retry-After of a 429 before the next attempt', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      status: 429,
      headers: { 'retry-after': '1' },
    });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    const [first, second] = lookups();
    expect(lookups()).toHaveLength(2);
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(900);
    expect(gap).toBeLessThan(3000);
  });

  it('survives a connection reset while polling the revision', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 600 }, { status: 'DEPLOYED' }]);
    sim.fault({ method: 'GET', path: /\/revisions\//, reset: true });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-status': 'DEPLOYED' });
    expect(sim.requestsTo('GET', /\/revisions\//).length).toBeGreaterThanOrEqual(2);
    expect(run.stdout).toContain('ECONNRESET');
  });
});

describe('writes are never doubled', () => {
  it('a create that took effect but answered 502 is found again, not repeated', async () => {
    const { sim } = ctx;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    sim.fault({ method: 'POST', path: '/v2/deployments', status: 502, afterEffect: true });

    const run = await runAction({ inputs: codehost('new-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
    const created = sim.deploymentsNamed('new-agent');
    expect(created).toHaveLength(1);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      created: 'true',
      'deployment-id': created[0]!.id,
      'revision-id': created[0]!.latest_revision_id!,
    });
    // The second lookup comes after the POST: the name is looked up again, not created again.
    const post = sim.requestsTo('POST', '/v2/deployments')[0]!;
    expect(lookups().filter((r) => r.at >= post.at)).toHaveLength(1);
  });

  it('repeats a PATCH answered 503 without Retry-After only after a re-read shows it did not take effect', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 503 });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
    const [first, second] = sim.requestsTo('PATCH');
    expect(sim.requestsTo('PATCH')).toHaveLength(2);
    const rereads = sim
      .requestsTo('GET', '/v2/deployments')
      .filter((r) => r.query.deployment_ids === target.id && r.at > first!.at && r.at < second!.at);
    expect(rereads).toHaveLength(1);
    expect(run.stdout).toContain(`PATCH /v2/deployments/${target.id} failed: HTTP 503`);
    expect(sim.revisions(target.id)).toHaveLength(2);
  });

  it('repeats a PATCH answered 503 with Retry-After', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 503, headers: { 'retry-after': '1' } });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const patches = sim.requestsTo('PATCH');
    expect(patches).toHaveLength(2);
    expect(patches[1]!.at - patches[0]!.at).toBeGreaterThanOrEqual(900);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
  });

  it('does not retry a 401 and names api-key and tenant-id', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({ inputs: codehost('my-agent', { 'api-key': 'wrong-key' }) });

    expect(run.code).toBe(1);
    expect(sim.requests).toHaveLength(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('GET /v2/deployments failed: HTTP 401');
    expect(run.errors[0]).toContain('api-key');
    expect(run.errors[0]).toContain('tenant-id');
    expect(run.errors[0]).not.toContain(API_KEY);
  });
});

describe('answers that are not what the interface says', () => {
  it('stops on HTML with 200, naming the endpoint, writing nothing', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      status: 200,
      rawBody: '<html><body>Sign in to the proxy</body></html>',
    });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    // The full URL: base-url is the likely culprit.
    expect(run.errors[0]).toContain(`GET ${ctx.sim.url}/v2/deployments answered an HTML page`);
    expect(run.errors[0]).toContain('text/html');
    expect(run.errors[0]).toContain('base-url');
    expect(lookups()).toHaveLength(1);
    expect(sim.writes()).toEqual([]);
  });

  it('stops on a missing required field, naming the endpoint and the field, writing nothing', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      transform: (body) => {
        delete body.resources[0].latest_revision_id;
        return body;
      },
    });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('GET /v2/deployments');
    expect(run.errors[0]).toContain("field 'resources.0.latest_revision_id'");
    expect(sim.writes()).toEqual([]);
  });

  it('counts a deployment once when the listing shifts between pages', async () => {
    const { sim } = ctx;
    sim.addDeployments(99, (i) => `my-agent-${i}`);
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.addDeployments(20, (i) => `my-agent-x${i}`);
    // One created meanwhile at the top pushes the last of page one onto page two.
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      transform: (body) => body,
    });
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      transform: (body) => ({ ...body, resources: [structuredClone(target), ...body.resources] }),
    });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    // Pages one and two, and the empty third that ends the listing.
    const pages = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    expect(pages.map((r) => r.query.offset ?? '0')).toEqual(['0', '100', '120']);
    expect(sim.requestsTo('PATCH').map((r) => r.path)).toEqual([`/v2/deployments/${target.id}`]);
  });

  it.each(['stuck-offset', 'repeat-page'] as const)(
    'ends a listing that does not advance (%s) with an error, in few requests',
    async (mode) => {
      const { sim } = ctx;
      sim.addDeployments(150, (i) => `my-agent-${i}`);
      sim.paging = mode;

      const run = await runAction({ inputs: codehost('my-agent') });

      expect(run.code).toBe(1);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain('GET /v2/deployments');
      expect(run.errors[0]).toContain('does not advance');
      expect(lookups().length).toBeLessThanOrEqual(2);
      expect(sim.writes()).toEqual([]);
      expect(run.ms).toBeLessThan(3000);
    },
  );
});

describe('cancellation', () => {
  it.each([
    ['between two reads', false],
    ['during a read that hangs', true],
  ])(
    'stops polling on SIGINT %s, writes what it knows, says the revision keeps going',
    async (_, hang) => {
      const { sim } = ctx;
      const target = sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'QUEUED', ms: 100 }, { status: 'BUILDING' }]);
      if (hang) sim.fault({ method: 'GET', path: /\/revisions\//, hang: true });
      let signalledAt = 0;

      const run = await runAction({
        inputs: codehost('my-agent'),
        onSpawn: (child) => {
          const watch = setInterval(() => {
            if (sim.requestsTo('GET', /\/revisions\//).length === 0) return;
            clearInterval(watch);
            signalledAt = Date.now();
            child.kill('SIGINT');
          }, 5);
          child.on('close', () => clearInterval(watch));
        },
      });
      const exitMs = Date.now() - signalledAt;

      expect(signalledAt).toBeGreaterThan(0);
      expect(exitMs).toBeLessThan(3000);
      expect(run.code).toBe(1);
      const revisionId = sim.deployment(target.id)!.latest_revision_id!;
      expect(run.outputs).toMatchObject({ 'deployment-id': target.id, 'revision-id': revisionId });
      expect(run.stdout).toContain('Received SIGINT');
      expect(run.summary).toContain('keeps going on the service');
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain(`Revision ${revisionId} keeps going on the service`);
      // Polling stopped: no revision read after the signal was handled.
      expect(
        sim.requestsTo('GET', /\/revisions\//).filter((r) => r.at > signalledAt + 200),
      ).toEqual([]);
    },
  );

  it('lets a write in flight finish on SIGINT, so the outputs name the revision it made', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    const before = target.latest_revision_id!;
    sim.fault({ method: 'PATCH', delayMs: 1000, afterEffect: true });
    let signalledAt = 0;

    const run = await runAction({
      inputs: codehost('my-agent'),
      onSpawn: (child) => {
        const watch = setInterval(() => {
          if (sim.requestsTo('PATCH').length === 0) return;
          clearInterval(watch);
          signalledAt = Date.now();
          child.kill('SIGINT');
        }, 5);
        child.on('close', () => clearInterval(watch));
      },
    });

    expect(Date.now() - signalledAt).toBeLessThan(3000);
    expect(run.code).toBe(1);
    const revisionId = sim.deployment(target.id)!.latest_revision_id!;
    expect(revisionId).not.toBe(before);
    expect(run.outputs).toMatchObject({
      'deployment-id': target.id,
      'revision-id': revisionId,
      'revision-created': 'true',
    });
    expect(run.summary).toContain(`Revision ${revisionId} keeps going on the service`);
    expect(sim.requestsTo('GET', /\/revisions\//)).toEqual([]);
  });
});
