// What the HTTP layer does with a service that fails, answers late or answers wrong: reads retried, writes never
// doubled, answers that are not what the interface says refused before any write, listings that shift or stall.
// The whole action in-process on a fake clock, so every wait (Retry-After, backoff) is exact in virtual time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { API_KEY, codehostInputs, INTEGRATION } from '../helpers/setup.ts';
import type { RecordedRequest } from '../simulator/server.ts';

const ctx = useWorld();
afterEach(() => vi.restoreAllMocks());
/** Every jitter draw half its range, so a wait after a Retry-After is exact: the Retry-After plus half its jitter. */
const halfJitter = () => vi.spyOn(Math, 'random').mockReturnValue(0.5);
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, extra);
const isLookup = (r: RecordedRequest) =>
  r.method === 'GET' &&
  r.path === '/v2/deployments' &&
  r.query.name_contains !== undefined &&
  (r.query.offset ?? '0') === '0';
/** The requests for the first page of a name lookup (the empty page after it ends each lookup). */
const lookups = () => ctx.sim.requests.filter(isLookup);
/** The requests made after `request`: by their order, as requests made at one instant share their `at`. */
const after = (request: RecordedRequest) =>
  ctx.sim.requests.slice(ctx.sim.requests.indexOf(request) + 1);

describe('reads are retried', () => {
  it('retries a listing answered 503 twice, then deploys', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'GET', path: '/v2/deployments', status: 503, times: 2 });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    expect(lookups()).toHaveLength(3);
    // One line when the trouble starts, one when it ends; the attempts between are debug lines.
    const info = run.lines.filter((l) => l.level === 'info').map((l) => l.text);
    expect(
      info.filter((l) =>
        l.startsWith('The service answers HTTP 503 to GET /v2/deployments; retrying until'),
      ),
    ).toHaveLength(1);
    expect(
      info.filter((l) => /^The service answers again, after [\d.]+ s and 2 retries\.$/.test(l)),
    ).toHaveLength(1);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
  });

  it('waits the Retry-After of a 429 before the next attempt, plus a jitter of up to a second', async () => {
    const { sim } = ctx;
    halfJitter();
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({
      method: 'GET',
      path: '/v2/deployments',
      status: 429,
      headers: { 'retry-after': '1' },
    });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    expect(lookups()).toHaveLength(2);
    const [first, second] = lookups();
    expect(second!.at - first!.at).toBe(1000 + 500);
  });

  it('survives a connection reset while polling the revision', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING', ms: 600 }, { status: 'DEPLOYED' }]);
    sim.fault({ method: 'GET', path: /\/revisions\//, reset: true });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

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

    const run = await runInProcess(ctx, { inputs: codehost('new-agent') });

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
    // The second lookup of the name comes after the POST: it is looked up again, not created again (the searches
    // for near names before the create look for parts of it).
    const post = sim.requestsTo('POST', '/v2/deployments')[0]!;
    const ofName = (r: RecordedRequest) => isLookup(r) && r.query.name_contains === 'new-agent';
    expect(sim.requests.filter(ofName)).toHaveLength(2);
    expect(after(post).filter(ofName)).toHaveLength(1);
  });

  it('repeats a PATCH answered 503 without Retry-After only after a re-read shows it did not take effect', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 503 });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
    expect(sim.requestsTo('PATCH')).toHaveLength(2);
    const [first, second] = sim.requestsTo('PATCH');
    const between = after(first!).slice(0, after(first!).indexOf(second!));
    const rereads = between.filter(
      (r) => r.method === 'GET' && r.query.deployment_ids === target.id,
    );
    expect(rereads).toHaveLength(1);
    expect(run.stdout).toContain(`PATCH /v2/deployments/${target.id} failed: HTTP 503`);
    expect(sim.revisions(target.id)).toHaveLength(2);
  });

  it('repeats a PATCH answered 503 with Retry-After once the Retry-After is over', async () => {
    const { sim } = ctx;
    halfJitter();
    sim.addDeployment({ name: 'my-agent' });
    sim.fault({ method: 'PATCH', status: 503, headers: { 'retry-after': '1' } });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const patches = sim.requestsTo('PATCH');
    expect(patches).toHaveLength(2);
    expect(patches[1]!.at - patches[0]!.at).toBe(1000 + 500);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'revision-created': 'true' });
  });

  it('does not retry a 401 and names api-key and tenant-id', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, {
      inputs: codehost('my-agent', { 'api-key': 'wrong-key' }),
    });

    expect(run.code).toBe(1);
    expect(sim.requests).toHaveLength(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('GET /v2/deployments failed: HTTP 401');
    expect(run.errors[0]).toContain('api-key');
    expect(run.errors[0]).toContain('tenant-id');
    expect(run.errors[0]).not.toContain(API_KEY);
    expect(run.ms).toBe(0);
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

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    // The full URL: base-url is the likely culprit.
    expect(run.errors[0]).toContain(`GET ${sim.url}/v2/deployments answered an HTML page`);
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

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

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

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    // Pages one and two, and the empty third that ends the listing.
    const pages = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    expect(pages.map((r) => r.query.offset ?? '0')).toEqual(['0', '100', '120']);
    expect(sim.requestsTo('PATCH').map((r) => r.path)).toEqual([`/v2/deployments/${target.id}`]);
  });

  it('takes a page that repeats one already seen for a shifted listing, not a loop (pages of one, one created in front)', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent-b' });
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.pageCap = 1;
    const page = (offset: string) => (r: RecordedRequest) =>
      r.query.name_contains === 'my-agent' && (r.query.offset ?? '0') === offset;
    // A deployment created in front of the others between the first and the second page read: the second page
    // answers the first one's deployment again, and every later one comes a page late.
    let first: unknown;
    let second: unknown;
    sim.fault({
      match: page('0'),
      transform: (body) => ((first = body.resources[0]), body),
    });
    sim.fault({
      match: page('1'),
      transform: (body) => ((second = body.resources[0]), { resources: [first], offset: 2 }),
    });
    sim.fault({ match: page('2'), transform: () => ({ resources: [second], offset: 3 }) });

    const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ result: 'deployed', 'deployment-id': target.id });
    const pages = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    expect(pages.map((r) => r.query.offset ?? '0')).toEqual(['0', '1', '2', '3']);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
  });

  it.each(['stuck-offset', 'repeat-page'] as const)(
    'ends a listing that does not advance (%s) with an error, once three pages in a row bring nothing new',
    async (mode) => {
      const { sim } = ctx;
      sim.addDeployments(150, (i) => `my-agent-${i}`);
      sim.paging = mode;

      const run = await runInProcess(ctx, { inputs: codehost('my-agent') });

      expect(run.code).toBe(1);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain('GET /v2/deployments');
      expect(run.errors[0]).toContain('answered 3 pages in a row with nothing new');
      expect(run.errors[0]).toContain('does not advance');
      // The first page, then three that repeat it.
      expect(sim.requestsTo('GET', '/v2/deployments')).toHaveLength(4);
      expect(sim.writes()).toEqual([]);
      // Not retried: no time passes.
      expect(run.ms).toBe(0);
    },
  );
});
