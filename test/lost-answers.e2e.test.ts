// Issue 18, through the bundled action: every write's outcome known, every revision reported as this run's its own.
// Lost and late answers, concurrent jobs, an eventually consistent service, skewed clocks, proxies. Each case counts
// the deployments and revisions the service holds afterwards and checks the outputs.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { API_KEY, codehostInputs, useSimulator } from './helpers/setup.ts';
import { Simulator } from './simulator/server.ts';

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

describe('the way to the service', () => {
  it('reaches a service at an IPv6 literal, http://[::1]:PORT', async () => {
    const sim6 = await Simulator.start({ apiKey: API_KEY, host: '::1' });
    try {
      const dep = sim6.addDeployment({ name: 'my-agent' });
      expect(sim6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);

      const run = await runAction({ inputs: codehostInputs(sim6, 'my-agent') });

      expect(run.errors).toEqual([]);
      expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-id': dep.id });
      expect(sim6.requestsTo('PATCH')).toHaveLength(1);
      expect(sim6.revisions(dep.id)).toHaveLength(2);
    } finally {
      await sim6.close();
    }
  });

  /** A proxy that answers every CONNECT with 407; `connects` counts them. */
  const authProxy = async () => {
    const connects: string[] = [];
    const server = createServer();
    server.on('connect', (req, socket) => {
      connects.push(req.url ?? '');
      socket.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      connects,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  };

  it("names a proxy's 407 as the proxy's, once, and writes nothing", async () => {
    const proxy = await authProxy();
    try {
      const run = await runAction({
        inputs: codehost('my-agent', { 'base-url': 'https://deploy.example.test' }),
        env: { HTTPS_PROXY: proxy.url },
      });

      expect(run.code).toBe(1);
      expect(run.outputs.result).toBe('failed');
      expect(proxy.connects).toEqual(['deploy.example.test:443']);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain(
        `the proxy ${proxy.url.slice('http://'.length)} (HTTPS_PROXY) answered 407 Proxy Authentication Required`,
      );
      expect(run.errors[0]).toContain('never reached the service');
      expect(run.stdout).not.toContain('ECONNRESET');
    } finally {
      await proxy.close();
    }
  });

  it('names a proxy that is not there as the proxy, and does not retry it as a reset', async () => {
    const proxy = await authProxy();
    await proxy.close();

    const run = await runAction({
      inputs: codehost('my-agent', { 'base-url': 'https://deploy.example.test' }),
      env: { HTTPS_PROXY: proxy.url },
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `the proxy ${proxy.url.slice('http://'.length)} (HTTPS_PROXY) could not be reached`,
    );
    expect(run.errors[0]).toContain('ECONNREFUSED');
    expect(run.stdout).not.toContain('retrying until');
  });
});

describe('listings', () => {
  it('pages on past a page shorter than limit (a server that caps pages at 40): no duplicate is created', async () => {
    const { sim } = ctx;
    sim.addDeployments(45, (i) => `my-agent-${i}`);
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.pageCap = 40;

    const run = await runAction({ inputs: codehost('my-agent') });

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

    const run = await runAction({ inputs: codehost('my-agent') });

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

    const run = await runAction({ inputs: codehost('my-agent') });

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

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'revision-id': sim.deployment(dep.id)!.latest_revision_id!,
    });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('answered with an unexpected body');
    expect(run.errors[0]).toContain('3 answers in a row');
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(3);
  });

  it('a failed re-read after a timed-out wait leaves the result timed-out', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      match: (r) => r.query.deployment_ids !== undefined,
      status: 503,
      forMs: 60_000,
    });

    const run = await runAction({
      inputs: codehost('my-agent', { timeout: '2s' }),
      env: { AGENT_DEPLOY_PATIENCE_MS: '1000' },
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

    const run = await runAction({ inputs: codehost('my-agent', { 'repo-url': repoUrl }) });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-id': dep.id });
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.deploymentsNamed('my-agent')).toHaveLength(1);
    expect(newRevisions(dep.id)).toBe(1);
  });
});
