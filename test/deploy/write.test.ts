// Every write's outcome known, every revision reported as this run's its own (issue 18): lost and late answers,
// concurrent jobs, an eventually consistent service, a skewed clock, the whole action in-process on a fake clock.
// Each case counts the deployments and revisions the service holds afterwards and checks the outputs.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/service/transport.ts';
import { runInProcess, useWorld, type World } from '../helpers/run.ts';
import { baseInputs, codehostInputs } from '../helpers/setup.ts';
import type { Fault } from '../simulator/server.ts';

const ctx = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, { timeout: '10s', ...extra });
/** The first page of each name lookup (a lookup may read more pages). */
const lookups = () =>
  ctx.sim
    .requestsTo('GET', '/v2/deployments')
    .filter((r) => r.query.name_contains && (r.query.offset ?? '0') === '0');
/** Revisions the service made for `id` during the run (a seeded deployment starts with one). */
const newRevisions = (id: string, seeded = 1) => ctx.sim.revisions(id).length - seeded;
/** Every re-read of a deployment by id answers 503 for a minute. */
const rereadsFail = () =>
  ctx.sim.fault({
    method: 'GET',
    path: '/v2/deployments',
    match: (r) => r.query.deployment_ids !== undefined,
    status: 503,
    forMs: 60_000,
  });

describe('clocks', () => {
  it("measures a Retry-After date against the answer's own Date, the server's clock an hour ahead", async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.dateSkewMs = 3_600_000;
    sim.fault({ method: 'GET', path: '/v2/deployments', status: 503, retryAfterDateMs: 1000 });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
    expect(lookups()).toHaveLength(2);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.deploymentsNamed('my-agent')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});

describe('listings', () => {
  it('pages on past a page shorter than limit (a server that caps pages at 40): no duplicate is created', async () => {
    const { sim } = ctx;
    sim.addDeployments(45, (i) => `my-agent-${i}`);
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.pageCap = 40;
    sim.duplicateNames = true;

    // All a create needs is given: a lookup that missed the deployment would make a second one.
    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-url': dep.source_config.repo_url! }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      created: 'false',
      'deployment-id': dep.id,
      'revision-created': 'true',
    });
    const pages = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    // 40, 6, then the empty page that ends the listing.
    expect(pages.map((r) => r.query.offset ?? '0')).toEqual(['0', '40', '46']);
    expect(sim.requestsTo('POST', '/v2/deployments')).toEqual([]);
    expect(sim.deploymentsNamed('my-agent')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});

describe('the wait', () => {
  it('waits through 404s on the revision it just made while the service catches up (2 s)', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.revisionVisibleAfterMs = 2000;

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-status': 'DEPLOYED',
      'revision-created': 'true',
      'revision-id': sim.deployment(dep.id)!.latest_revision_id!,
    });
    expect(
      sim.requestsTo('GET', /\/revisions\//).filter((r) => r.status === 404).length,
    ).toBeGreaterThan(0);
    expect(run.stdout).toContain('answers 404 just after it was made');
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });

  it('reads again after an HTML page and an empty object answered to status reads', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 1500 }, { status: 'DEPLOYED' }]);
    sim.fault({
      method: 'GET',
      path: /\/revisions\//,
      status: 200,
      rawBody: '<html><head><title>Wi-Fi sign-in</title></head></html>',
    });
    sim.fault({ method: 'GET', path: /\/revisions\//, status: 200, body: {} });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-status': 'DEPLOYED' });
    expect(run.stdout).toContain('Wi-Fi sign-in');
    expect(sim.requestsTo('GET', /\/revisions\//).length).toBeGreaterThanOrEqual(3);
    expect(newRevisions(dep.id)).toBe(1);
  });

  it('ends the run on the third malformed status answer in a row', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);
    sim.fault({ method: 'GET', path: /\/revisions\//, status: 200, body: {}, times: 3 });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'revision-id': sim.deployment(dep.id)!.latest_revision_id!,
    });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      "answered with an unexpected body: field 'id': Invalid input: expected string, received undefined.",
    );
    expect(run.errors[0]).toContain('3 answers in a row');
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(3);
  });

  it('a failed re-read after a timed-out wait leaves the result timed-out', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);
    rereadsFail();

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { timeout: '2s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'timed-out',
      'deployment-id': dep.id,
      'revision-id': sim.deployment(dep.id)!.latest_revision_id!,
      'revision-status': 'BUILDING',
    });
    expect(run.summary).toContain('Failed in: wait');
    expect(run.stdout).toContain('The final re-read of the deployment failed');
    expect(newRevisions(dep.id)).toBe(1);
  });
});

describe('one repo-url rule', () => {
  it('a repo-url ending in .git matches the deployment on update as it does on create', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const repoUrl = `${dep.source_config.repo_url!.toUpperCase().replace('HTTPS', 'https')}.git/`;

    const run = await runInProcess(ctx, { inputs: codehost('my-agent', { 'repo-url': repoUrl }) });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-id': dep.id });
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.deploymentsNamed('my-agent')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});

describe('a write whose answer is lost is never sent twice blindly', () => {
  const PROXY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';

  it.each([
    ['the connection reset', { reset: true }],
    ['no answer within the request limit', { hang: true }],
    ["a proxy's 502 page", { status: 502, rawBody: PROXY_PAGE }],
    ['504', { status: 504 }],
    ['503 with Retry-After', { status: 503, headers: { 'retry-after': '1' } }],
  ] satisfies [string, Fault][])(
    'a PATCH applied and then answered with %s: the re-read finds its revision, which is followed',
    async (_, fault) => {
      const { sim } = ctx;
      const dep = sim.addDeployment({ name: 'my-agent' });
      sim.fault({ method: 'PATCH', afterEffect: true, ...fault });

      // Room for the request's own 30 s limit before the deadline.
      const run = await runInProcess(ctx, {
        inputs: codehost('my-agent', { 'repo-ref': 'feature', timeout: '2m' }),
      });

      expect(run.errors).toEqual([]);
      const ours = sim.deployment(dep.id)!.latest_revision_id!;
      expect(sim.revision(dep.id, ours)!.source_revision_config.repo_ref).toBe('feature');
      expect(run.outputs).toMatchObject({
        result: 'deployed',
        'revision-id': ours,
        'revision-created': 'true',
        'revision-status': 'DEPLOYED',
      });
      expect(sim.requestsTo('PATCH')).toHaveLength(1);
      expect(newRevisions(dep.id)).toBe(1);
      expect(run.stdout).toContain(`It did: the latest revision is now ${ours}`);
      expect(run.stdout).not.toContain('Check base-url');
    },
  );

  it("a PATCH that a proxy's 502 page refused is sent again once the re-read shows it did not take effect", async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 502, rawBody: PROXY_PAGE });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
    expect(sim.requestsTo('PATCH')).toHaveLength(2);
    expect(newRevisions(dep.id)).toBe(1);
    expect(run.stdout).toContain('titled "502 Bad Gateway"');
    expect(run.stdout).not.toContain('Check base-url');
    expect(run.stdout).toContain('did not take effect: sending it again');
  });

  it('a PATCH failing 502 every time is sent three times, re-read after each, and the run fails saying so', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 502, rawBody: PROXY_PAGE, times: 10 });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-created': 'false' });
    expect(run.outputs['revision-id']).toBeUndefined();
    expect(sim.requestsTo('PATCH')).toHaveLength(3);
    expect(newRevisions(dep.id)).toBe(0);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('HTTP 502');
    expect(run.errors[0]).toContain('did not take effect (sent 3 times)');
    expect(run.errors[0]).not.toContain('Check base-url');
  });

  it('a PATCH whose answer was lost and whose re-read fails too: not sent again, the step says where to look', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', afterEffect: true, reset: true });
    rereadsFail();

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent'),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    // Not known: the PATCH may have made a revision (it did).
    expect(run.outputs).not.toHaveProperty('revision-created');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('ECONNRESET');
    expect(run.errors[0]).toContain(
      'It may have taken effect, and the read that would tell failed',
    );
    expect(run.errors[0]).toContain(`check deployment 'my-agent' (${dep.id}) on the service`);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });

  it('a redeploy applied and then reset: the re-read shows the chosen revision latest again', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]);
    sim.fault({ method: 'POST', path: /\/redeploy$/, afterEffect: true, reset: true });

    const run = await runInProcess(ctx, {
      inputs: baseInputs(sim, { command: 'redeploy', name: 'my-agent', 'revision-id': r0 }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': r0,
      'revision-created': 'false',
    });
    expect(sim.requestsTo('POST', /\/redeploy$/)).toHaveLength(1);
    expect(sim.revisions(dep.id)).toHaveLength(2);
    expect(sim.deployment(dep.id)!.active_revision_id).toBe(r0);
  });
});

describe('the redeploy of the revision that is already the latest', () => {
  const redeployLatest = (latest: string) =>
    baseInputs(ctx.sim, { command: 'redeploy', name: 'my-agent', 'revision-id': latest });

  it('answered as the deployment was, while the service made a new revision of it: that one is followed', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.latest_revision_id!;
    sim.redeployMode = 'new-revision';
    sim.fault({ method: 'POST', path: /\/redeploy$/, stale: true });

    const run = await runInProcess(ctx, { inputs: redeployLatest(r0) });

    expect(run.errors).toEqual([]);
    const made = sim.deployment(dep.id)!.latest_revision_id!;
    expect(made).not.toBe(r0);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': made,
      'revision-created': 'true',
    });
    expect(sim.requestsTo('POST', /\/redeploy$/)).toHaveLength(1);
  });

  it('redeployed in place: the one re-read shows no new revision', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.latest_revision_id!;

    const run = await runInProcess(ctx, { inputs: redeployLatest(r0) });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': r0,
      'revision-created': 'false',
    });
    expect(sim.revisions(dep.id)).toHaveLength(1);
  });
});

describe('a create is never sent again on a guess', () => {
  const create = (extra: Record<string, string> = {}) =>
    codehost('new-agent', { 'repo-url': 'https://codehost.example/acme/agent', ...extra });
  /** The lookups of new-agent after the first create, in order (on the fake clock they may share its time). */
  const lookupsAfterCreate = () => {
    const { requests } = ctx.sim;
    const post = requests.findIndex((r) => r.method === 'POST');
    return lookups().filter(
      (r) => requests.indexOf(r) > post && r.query.name_contains === 'new-agent',
    );
  };
  /** The one new-agent there is, which the run deployed and reports as created by it. */
  const createdOnce = (run: Awaited<ReturnType<typeof runInProcess>>) => {
    expect(run.errors).toEqual([]);
    const made = ctx.sim.deploymentsNamed('new-agent');
    expect(made).toHaveLength(1);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      created: 'true',
      'deployment-id': made[0]!.id,
    });
    return made[0]!;
  };

  it.each([0, 2])(
    'a create applied and then answered 503 with Retry-After is found by the lookup (the listing %i reads behind), not sent again',
    async (lag) => {
      const { sim } = ctx;
      // A service that allows two deployments of one name: a second create would make a second, billed.
      sim.duplicateNames = true;
      sim.listingLag = lag;
      sim.fault({
        method: 'POST',
        path: '/v2/deployments',
        status: 503,
        headers: { 'retry-after': '1' },
        afterEffect: true,
      });

      const run = await runInProcess(ctx, { inputs: create() });

      const made = createdOnce(run);
      expect(run.outputs).toMatchObject({
        'revision-id': made.latest_revision_id!,
        'revision-created': 'true',
      });
      expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
      expect(sim.requestsTo('PATCH')).toEqual([]);
      expect(sim.revisions(made.id)).toHaveLength(1);
      // The lookups that missed it, then the one that found it.
      expect(lookupsAfterCreate()).toHaveLength(lag + 1);
      expect(run.stdout.includes('a listing may lag behind a create')).toBe(lag > 0);
    },
  );

  it('a create applied and then its answer broken by a TLS error: looked up, never sent again', async () => {
    const { sim } = ctx;
    sim.duplicateNames = true;
    let creates = 0;
    // What OpenSSL says when a record of the answer is corrupted on its way: the request had gone out.
    const tlsBreaksFirstAnswer: World = {
      ...ctx,
      transport: {
        inFlight: 0,
        async send(exchange: Exchange) {
          const answer = await ctx.transport.send(exchange);
          if (exchange.method === 'POST' && creates++ === 0)
            throw Object.assign(new Error('decryption failed or bad record mac (simulated)'), {
              code: 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC',
            });
          return answer;
        },
        dispose: () => undefined,
      },
    };

    const run = await runInProcess(tlsBreaksFirstAnswer, { inputs: create() });

    createdOnce(run);
    expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
  });

  it("a 409 after this run's own earlier create is looked up through the lag, never blamed on tenant-id", async () => {
    const { sim } = ctx;
    sim.listingLag = 3;
    // A 429 that a proxy sent after the service took the create: the lookup misses it, the create goes again, 409.
    sim.fault({ method: 'POST', path: '/v2/deployments', status: 429, afterEffect: true });

    const run = await runInProcess(ctx, { inputs: create() });

    createdOnce(run);
    expect(sim.requestsTo('POST', '/v2/deployments').map((r) => r.status)).toEqual([429, 409]);
    expect(run.stdout).not.toContain('tenant-id');
  });

  it('a create answered 503 with Retry-After that the listing never shows: looked up for 30 s, never sent again', async () => {
    const { sim } = ctx;
    sim.listingLag = 1000;
    sim.fault({
      method: 'POST',
      path: '/v2/deployments',
      status: 503,
      headers: { 'retry-after': '1' },
    });

    const run = await runInProcess(ctx, { inputs: create({ timeout: '5m' }) });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    // Not known: the create may have made the deployment and its revision.
    expect(run.outputs).not.toHaveProperty('created');
    expect(run.outputs).not.toHaveProperty('revision-created');
    expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
    const [first, ...more] = lookupsAfterCreate();
    const times = [first!, ...more].map((r) => r.at - first!.at);
    // For up to 30 s from the first (a request waits its turn in the pace: the last may fall a little short of it).
    expect(times.at(-1)).toBeGreaterThan(25_000);
    expect(times.at(-1)).toBeLessThanOrEqual(30_000);
    for (const [i, at] of times.slice(1).entries())
      expect(at - times[i]!).toBeLessThanOrEqual(5000);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('POST /v2/deployments failed: HTTP 503');
    expect(run.errors[0]).toContain(
      `The create may have been applied: no deployment named 'new-agent' is listed after ${times.length} lookups over 30.0 s, and a create is never sent again on a guess. Check the deployments named 'new-agent' on the service`,
    );
  });

  /** This run's create fails 502, and another job creates new-agent, with its own ref, meanwhile. */
  const createdByAnotherJob = () => {
    const { sim } = ctx;
    sim.fault({ method: 'POST', path: '/v2/deployments', status: 502 });
    sim.onAnswer = (request) => {
      if (request.method === 'POST' && sim.deploymentsNamed('new-agent').length === 0)
        sim.addDeployment({
          name: 'new-agent',
          source_config: { repo_url: 'https://codehost.example/acme/agent' },
          source_revision_config: { repo_ref: 'other' },
        });
    };
  };

  it("after a lost create answer, another job's deployment of that name is not reported as created by this run", async () => {
    const { sim } = ctx;
    createdByAnotherJob();

    try {
      const run = await runInProcess(ctx, { inputs: create({ 'repo-ref': 'feature' }) });

      expect(run.errors).toEqual([]);
      const made = sim.deploymentsNamed('new-agent');
      expect(made).toHaveLength(1);
      expect(run.outputs).toMatchObject({
        result: 'deployed',
        'deployment-id': made[0]!.id,
        'revision-created': 'true',
      });
      // Not known: the lost create may have made it, and another job changed it since, for all the run can see.
      expect(run.outputs).not.toHaveProperty('created');
      const ours = sim.revision(made[0]!.id, run.outputs['revision-id']!)!;
      expect(ours.source_revision_config.repo_ref).toBe('feature');
      expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(1);
      expect(sim.requestsTo('PATCH')).toHaveLength(1);
      expect(newRevisions(made[0]!.id)).toBe(1);
    } finally {
      sim.onAnswer = undefined;
    }
  });

  it("after a lost create answer and another job's deployment found, an update refused leaves revision-created empty", async () => {
    const { sim } = ctx;
    createdByAnotherJob();
    // Refused: the PATCH surely made nothing, but the lost create may have made the deployment and its revision.
    sim.fault({ method: 'PATCH', status: 422, body: { detail: 'refused (simulated)' } });

    try {
      const run = await runInProcess(ctx, { inputs: create({ 'repo-ref': 'feature' }) });

      expect(run.code).toBe(1);
      expect(run.outputs.result).toBe('failed');
      expect(sim.requestsTo('PATCH').map((r) => r.status)).toEqual([422]);
      expect(run.outputs).not.toHaveProperty('created');
      expect(run.outputs).not.toHaveProperty('revision-created');
    } finally {
      sim.onAnswer = undefined;
    }
  });

  it('a create refused with 429 goes again only after the lookup shows nothing', async () => {
    const { sim } = ctx;
    sim.fault({
      method: 'POST',
      path: '/v2/deployments',
      status: 429,
      headers: { 'retry-after': '1' },
    });

    const run = await runInProcess(ctx, { inputs: create() });

    expect(run.errors).toEqual([]);
    const made = sim.deploymentsNamed('new-agent');
    expect(made).toHaveLength(1);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    const [first, second] = sim.requestsTo('POST', '/v2/deployments');
    expect(sim.requestsTo('POST', '/v2/deployments')).toHaveLength(2);
    // In order of arrival: on the fake clock the lookup comes at the very time of the refused create.
    const order = (r: (typeof sim.requests)[number]) => sim.requests.indexOf(r);
    expect(
      lookups().filter((r) => order(r) > order(first!) && order(r) < order(second!)),
    ).toHaveLength(1);
  });
});

describe('a write answered by another change', () => {
  it('a PATCH answer that lags the write (the old latest revision) is re-read, not taken as no change', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const old = dep.latest_revision_id;
    sim.fault({ method: 'PATCH', stale: true });

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature' }),
    });

    expect(run.errors).toEqual([]);
    const ours = sim.deployment(dep.id)!.latest_revision_id!;
    expect(ours).not.toBe(old);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': ours,
      'revision-created': 'true',
    });
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });

  it('a PATCH answer that lags the write, and a re-read that fails: possibly applied, revision-created not set', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', stale: true });
    rereadsFail();

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature' }),
    });

    expect(run.outputs.result).toBe('failed');
    // Not known to the run: its PATCH made a revision (it did), which no read could show.
    expect(newRevisions(dep.id)).toBe(1);
    expect(run.outputs).not.toHaveProperty('revision-created');
    expect(run.errors[0]).toContain(
      `answered without a revision of this run's, and the re-read that would find it failed (`,
    );
    expect(run.errors[0]).toContain(`check deployment 'my-agent' (${dep.id}) on the service`);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
  });

  it("a lagging answer showing another job's revision: this run finds and follows its own, and says so naming both refs", async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // Another job's PATCH lands just before this run's; the answer lags and shows the other job's revision.
    sim.fault({
      method: 'PATCH',
      stale: true,
      concurrent: { when: 'before', source_revision_config: { repo_ref: 'other-branch' } },
    });

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature' }),
    });

    expect(run.errors).toEqual([]);
    const revisions = sim.revisions(dep.id);
    const [theirs, ours] = revisions.slice(1);
    expect(theirs!.source_revision_config.repo_ref).toBe('other-branch');
    expect(ours!.source_revision_config.repo_ref).toBe('feature');
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': ours!.id,
      'revision-created': 'true',
    });
    expect(run.summary).toContain(
      `revision ${theirs!.id}, which carries repo\\_ref 'other-branch'`,
    );
    expect(run.summary).toContain("not this run's repo\\_ref 'feature'");
    expect(run.summary).toContain('concurrency: deploy-my-agent');
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(2);
  });

  it("another job's revision lands after this run's and answers: the run fails naming both, and claims neither", async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.fault({
      method: 'PATCH',
      concurrent: { when: 'after', source_revision_config: { repo_ref: 'other-branch' } },
    });

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature' }),
    });

    expect(run.code).toBe(1);
    const [ours, theirs] = sim.revisions(dep.id).slice(1);
    expect(ours!.source_revision_config.repo_ref).toBe('feature');
    expect(theirs!.source_revision_config.repo_ref).toBe('other-branch');
    expect(run.outputs.result).toBe('failed');
    // Not known to the run: its PATCH made a revision, which another job's replaced before any read saw it.
    expect(run.outputs).not.toHaveProperty('revision-created');
    expect(run.outputs['revision-id']).toBeUndefined();
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `revision ${theirs!.id}, which carries repo_ref 'other-branch'`,
    );
    expect(run.errors[0]).toContain("not this run's repo_ref 'feature'");
    expect(run.errors[0]).toContain('concurrency: deploy-my-agent');
    expect(sim.requestsTo('GET', /\/revisions\//)).toEqual([]);
    expect(newRevisions(dep.id)).toBe(2);
  });

  it("another change's long ref that holds a secret is quoted cut only after redaction: no piece of the secret shows", async () => {
    const { sim } = ctx;
    const secret = 'Sv4Tq8Wm2Xr6Lp9Zk3Hn7Jd1Bf5Gc0Ye2Ua8Mi4Qw';
    sim.addDeployment({ name: 'my-agent' });
    // Quoted whole, the ref is over 80 characters: a cut before redaction would keep the secret's first 19.
    sim.fault({
      method: 'PATCH',
      concurrent: {
        when: 'after',
        source_revision_config: { repo_ref: `${'r'.repeat(60)}${secret}` },
      },
    });

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'repo-ref': 'feature', secrets: `AGENT_SECRET=${secret}` }),
    });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(`which carries repo_ref '${'r'.repeat(60)}***'`);
    const sinks = [
      ...run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::')),
      ...run.errors,
      run.summary,
    ];
    for (const sink of sinks) expect(sink).not.toContain(secret.slice(0, 8));
  });
});

describe('newer and older revisions by created_at', () => {
  it('an older revision that goes live after this one is not taken for a newer one: the run fails naming both', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // Another job's revision, made a moment before this run's, goes live right after this run's.
    const seeded = dep.active_revision_id;
    const older = sim.addRevision(dep.id, [{ status: 'BUILDING' }], { repo_ref: 'other-branch' });
    sim.onRevisionStatus = (deploymentId, revisionId, status) => {
      if (status === 'DEPLOYED' && revisionId !== older.id && revisionId !== seeded)
        sim.activate(deploymentId, older.id);
    };

    try {
      // Room for the request's own 30 s limit before the deadline.
      const run = await runInProcess(ctx, {
        inputs: codehost('my-agent', { 'repo-ref': 'feature', timeout: '2m' }),
      });

      expect(run.code).toBe(1);
      const ours = run.outputs['revision-id']!;
      expect(sim.revision(dep.id, ours)!.source_revision_config.repo_ref).toBe('feature');
      expect(run.outputs).toMatchObject({
        result: 'failed',
        'revision-status': 'DEPLOYED',
        'revision-created': 'true',
      });
      expect(run.errors[0]).toContain(`Revision ${ours} is DEPLOYED`);
      expect(run.errors[0]).toContain(older.id);
      expect(run.stdout).not.toContain('superseded');
      expect(
        sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${older.id}`).length,
      ).toBeGreaterThan(0);
      expect(newRevisions(dep.id, 2)).toBe(1);
    } finally {
      sim.onRevisionStatus = undefined;
    }
  });
});

describe('cancellation with a write in flight', () => {
  it('a PATCH still unanswered at the cancel is reported as possibly applied, naming the deployment', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // Applied, then the answer is lost 500 ms later, within the grace a write gets after a cancel.
    sim.fault({ method: 'PATCH', afterEffect: true, delayMs: 500, reset: true });

    // The PATCH goes at once (time stands still while the lookup is on the wire) and is held 500 ms: the job is
    // cancelled while it waits.
    const run = await runInProcess(ctx, { inputs: codehost('my-agent'), cancelAfterMs: 100 });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'deployment-id': dep.id });
    // Not known: the PATCH made a revision, which the run could not learn.
    expect(run.outputs).not.toHaveProperty('revision-created');
    expect(run.summary).not.toContain('before a revision was triggered');
    const said = `PATCH /v2/deployments/${dep.id} had no answer when the job was cancelled: it may have been applied. Check deployment 'my-agent' (${dep.id})`;
    // Markdown-escaped in the summary.
    expect(run.summary).toContain(said.replace('(', '\\(').replace(')', '\\)'));
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(said);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});
