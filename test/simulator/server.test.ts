// The simulator as a client of the interface sees it: routing, the status progression, faults, lost answers, rate
// limits and the active switch. Whatever depends on time runs on a FakeClock, where it is exact; the rest on the
// system's clock, as npm run simulator and the tests of dist/ run it (cli.test.ts runs the command itself).
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.ts';
import { HANG_GUARD_MS } from '../helpers/hang-guard.ts';
import { INTEGRATION } from '../helpers/setup.ts';
import { codehostCreate, waitFor } from '../helpers/simulator-client.ts';
import { Simulator } from './server.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
let sim: Simulator;

beforeAll(async () => {
  sim = await Simulator.start();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  sim.tenantId = undefined;
  sim.onRevisionStatus = undefined;
});

interface Res {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Res> {
  const r = await fetch(sim.url + path, {
    method,
    headers: { 'x-api-key': 'test-api-key', 'content-type': 'application/json', ...init.headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: init.signal,
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, text, body: parsed, headers: r.headers };
}

async function revisionStatus(depId: string, revId: string): Promise<string> {
  const r = await call('GET', `/v2/deployments/${depId}/revisions/${revId}`);
  expect(r.status).toBe(200);
  return r.body.status;
}

async function readDeployment(id: string) {
  const r = await call('GET', `/v2/deployments?deployment_ids=${id}`);
  expect(r.body.resources).toHaveLength(1);
  return r.body.resources[0];
}

describe('auth and routing', () => {
  it('rejects a missing or wrong API key with 401 and records the request', async () => {
    const r = await call('GET', '/v2/deployments', undefined, { headers: { 'x-api-key': 'nope' } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'Invalid API key' });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({ method: 'GET', path: '/v2/deployments' });
    expect(sim.requests[0]!.headers['x-api-key']).toBe('nope');
  });

  it('checks X-Tenant-Id when a tenant is set', async () => {
    sim.tenantId = '22222222-2222-4222-8222-222222222222';
    expect((await call('GET', '/v2/listeners')).status).toBe(403);
    const ok = await call('GET', '/v2/listeners', undefined, {
      headers: { 'x-tenant-id': sim.tenantId },
    });
    expect(ok.status).toBe(200);
  });

  it('answers 404/405/422 for unknown paths, wrong methods and non-uuid ids', async () => {
    expect(await call('GET', '/v2/nothing')).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    });
    const m = await call('GET', `/v2/deployments/${MISSING}`);
    expect(m.status).toBe(405);
    expect(m.body.detail).toBe('Method Not Allowed');
    const bad = await call('GET', '/v2/deployments/abc/revisions/def');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([
      ['path', 'deployment_id'],
      ['path', 'revision_id'],
    ]);
    const gone = await call('PATCH', `/v2/deployments/${MISSING}`, {});
    expect(gone).toMatchObject({
      status: 404,
      body: { detail: `Deployment ID ${MISSING} not found.` },
    });
  });
});

describe('deployments', () => {
  it('creates a deployment whose revision advances to DEPLOYED and becomes active', async () => {
    const seen: string[] = [];
    sim.onRevisionStatus = (_d, _r, status) => seen.push(status);
    const r = await call('POST', '/v2/deployments', codehostCreate('agent-a'));
    expect(r.status).toBe(201);
    const dep = r.body;
    expect(dep).toMatchObject({
      name: 'agent-a',
      status: 'AWAITING_DATABASE',
      active_revision_id: null,
    });
    expect(dep.secrets).toEqual([{ name: 'OPENAI_API_KEY', value: '' }]);
    expect(dep.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(dep.created_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+\+00:00$/);
    const revId = dep.latest_revision_id;
    await waitFor(async () =>
      (await revisionStatus(dep.id, revId)) === 'DEPLOYED' ? true : undefined,
    );
    expect(seen).toEqual(['QUEUED', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    const after = await readDeployment(dep.id);
    expect(after).toMatchObject({ status: 'READY', active_revision_id: revId });
    expect(sim.deployment(dep.id)!.secrets[0]!.value).toBe('sk-secret');

    const dup = await call('POST', '/v2/deployments', codehostCreate('agent-a'));
    expect(dup).toMatchObject({
      status: 409,
      body: { detail: "Deployment with name 'agent-a' already exists." },
    });
  });

  it('validates the create body', async () => {
    const body = codehostCreate('agent-b');
    const r = await call('POST', '/v2/deployments', {
      ...body,
      source_config: { integration_id: INTEGRATION },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'source_config', 'repo_url']);
    const noSecrets = await call('POST', '/v2/deployments', { ...body, secrets: undefined });
    expect(noSecrets.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'secrets'] });
    const refs = await call('POST', '/v2/deployments', {
      ...body,
      secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }],
    });
    expect(refs.status).toBe(422);
    expect(sim.deploymentsNamed('agent-b')).toHaveLength(0);
  });

  it('keeps active_revision_id when a revision fails', async () => {
    const d = sim.addDeployment({ name: 'agent-c' });
    const active = d.active_revision_id;
    sim.timelines.push([{ status: 'QUEUED', ms: 10 }, { status: 'BUILD_FAILED' }]);
    const r = await call('PATCH', `/v2/deployments/${d.id}`, {
      source_revision_config: { repo_ref: 'feature' },
    });
    const rev = r.body.latest_revision_id;
    expect(rev).not.toBe(active);
    await waitFor(async () =>
      (await revisionStatus(d.id, rev)) === 'BUILD_FAILED' ? true : undefined,
    );
    expect((await readDeployment(d.id)).active_revision_id).toBe(active);
  });

  // How fast it pages is npm run bench's business (lookup among 10,000), not a pass/fail test's.
  it('pages 250 matches out of 10,000 as 100/100/50/0', async () => {
    sim.addDeployments(10_000, (i) => (i % 40 === 0 ? `Match-${i}` : `svc-${i}`));
    const sizes: number[] = [];
    const ids = new Set<string>();
    let offset = 0;
    for (let i = 0; i < 4; i++) {
      const r = await call('GET', `/v2/deployments?name_contains=match&limit=100&offset=${offset}`);
      sizes.push(r.body.resources.length);
      for (const d of r.body.resources) ids.add(d.id);
      offset = r.body.offset;
    }
    expect(sizes).toEqual([100, 100, 50, 0]);
    expect(offset).toBe(250);
    expect(ids.size).toBe(250);
  });

  it('misbehaves on purpose in stuck-offset and repeat-page modes', async () => {
    sim.addDeployments(5, (i) => `x-${i}`);
    sim.paging = 'stuck-offset';
    const stuck = await call('GET', '/v2/deployments?limit=2&offset=2');
    expect(stuck.body.offset).toBe(2);
    expect(stuck.body.resources.map((d: { name: string }) => d.name)).toEqual(['x-2', 'x-3']);
    sim.paging = 'repeat-page';
    const p2 = await call('GET', '/v2/deployments?limit=2&offset=2');
    expect(p2.body.resources.map((d: { name: string }) => d.name)).toEqual(['x-0', 'x-1']);
    expect(p2.body.offset).toBe(4);
  });

  it('answers 422 on a bad limit', async () => {
    for (const limit of ['0', '101', 'abc']) {
      const r = await call('GET', `/v2/deployments?limit=${limit}`);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
    }
    expect((await call('GET', '/v2/listeners?limit=101')).status).toBe(422);
  });

  it('PATCH creates a revision only for revision-level fields', async () => {
    const d = sim.addDeployment({ name: 'agent-d' });
    const first = d.latest_revision_id!;
    const firstSha = d.source_revision_config.repo_commit_sha;

    const cfg = await call('PATCH', `/v2/deployments/${d.id}`, {
      source_config: { build_on_push: true, custom_url: null },
    });
    expect(cfg.status).toBe(200);
    expect(cfg.body.latest_revision_id).toBe(first);
    expect(cfg.body.source_config.build_on_push).toBe(true);
    expect(cfg.body.source_config.custom_url).toBe(d.source_config.custom_url);

    const r = await call('PATCH', `/v2/deployments/${d.id}`, {
      source_revision_config: { repo_ref: 'release', graph_config_path: null },
      secrets: [{ name: 'K', value: 'v' }],
    });
    expect(r.body.latest_revision_id).not.toBe(first);
    expect(r.body.secrets).toEqual([{ name: 'K', value: '' }]);
    const rev = sim.revision(d.id, r.body.latest_revision_id)!;
    expect(rev.source_revision_config).toMatchObject({
      repo_ref: 'release',
      graph_config_path: 'graph.json',
    });
    expect(rev.source_revision_config.repo_commit_sha).not.toBe(firstSha);

    sim.patchCreatesRevision = false;
    const none = await call('PATCH', `/v2/deployments/${d.id}`, {
      source_revision_config: { repo_ref: 'other' },
    });
    expect(none.body.latest_revision_id).toBe(r.body.latest_revision_id);
  });
});

describe('faults', () => {
  it('replies with a status (with headers) the given number of times, then normally', async () => {
    sim.fault({
      method: 'GET',
      path: '/v2/listeners',
      status: 503,
      headers: { 'retry-after': '1' },
      times: 2,
    });
    const a = await call('GET', '/v2/listeners');
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('1');
    expect(a.body).toEqual({ detail: 'Service Unavailable' });
    expect((await call('GET', '/v2/listeners')).status).toBe(503);
    expect((await call('GET', '/v2/listeners')).status).toBe(200);
    expect(sim.requestsTo('GET', '/v2/listeners')).toHaveLength(3);
  });

  it('serves a raw HTML body', async () => {
    sim.fault({ path: /^\/v2\/deployments$/, rawBody: '<html>proxy</html>' });
    const r = await call('GET', '/v2/deployments');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.text).toBe('<html>proxy</html>');
  });

  it('resets the connection', async () => {
    sim.fault({ reset: true });
    await expect(call('GET', '/v2/listeners')).rejects.toThrow();
    expect(sim.requests).toHaveLength(1);
  });

  it('hangs until the client gives up', async () => {
    sim.fault({ hang: true });
    const giveUp = new AbortController();
    const hung = call('GET', '/v2/listeners', undefined, { signal: giveUp.signal });
    // Given up once it is held, not after a time: on a busy machine it could still be on its way.
    await vi.waitFor(() => expect(sim.parked).toBe(1), HANG_GUARD_MS);
    giveUp.abort();
    await expect(hung).rejects.toThrow();
    expect((await call('GET', '/v2/listeners')).status).toBe(200);
  });

  it('applies the create and then answers 502 (afterEffect)', async () => {
    sim.fault({ method: 'POST', path: '/v2/deployments', status: 502, afterEffect: true });
    const r = await call('POST', '/v2/deployments', codehostCreate('agent-f'));
    expect(r.status).toBe(502);
    expect(sim.deploymentsNamed('agent-f')).toHaveLength(1);
    expect(sim.writes()).toHaveLength(1);
  });

  it('transforms the real body', async () => {
    const d = sim.addDeployment({ name: 'agent-g' });
    sim.fault({
      path: /\/revisions\//,
      transform: (b) => {
        delete b.status;
        return b;
      },
    });
    const r = await call('GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(d.latest_revision_id);
    expect(r.body).not.toHaveProperty('status');
    expect(sim.revision(d.id, d.latest_revision_id!)!.status).toBe('DEPLOYED');
  });
});

describe('lost answers, races and lag (issue 18)', () => {
  const patchRef = (id: string, ref: string) =>
    call('PATCH', `/v2/deployments/${id}`, { source_revision_config: { repo_ref: ref } });
  const latestRef = (id: string) => {
    const d = sim.deployment(id)!;
    return sim.revision(id, d.latest_revision_id!)!.source_revision_config.repo_ref;
  };

  it('applies a PATCH and answers the deployment as it was before (stale)', async () => {
    const d = sim.addDeployment({ name: 'agent-s' });
    const before = d.latest_revision_id;
    sim.fault({ method: 'PATCH', stale: true });

    const r = await patchRef(d.id, 'feature');

    expect(r.status).toBe(200);
    expect(r.body.latest_revision_id).toBe(before);
    expect(sim.deployment(d.id)!.latest_revision_id).not.toBe(before);
    expect(latestRef(d.id)).toBe('feature');
    expect(sim.revisions(d.id)).toHaveLength(2);
  });

  it("lands another job's write before or after a request (concurrent)", async () => {
    const d = sim.addDeployment({ name: 'agent-c' });
    sim.fault({
      method: 'PATCH',
      concurrent: { when: 'before', source_revision_config: { repo_ref: 'other' } },
    });
    const first = await patchRef(d.id, 'mine');
    // Ours came last: the answer and the service show it.
    expect(first.body.source_revision_config.repo_ref).toBe('mine');

    sim.fault({
      method: 'PATCH',
      concurrent: { when: 'after', source_revision_config: { repo_ref: 'other' } },
    });
    const second = await patchRef(d.id, 'mine');
    // The other job's came last: the answer is built after it.
    expect(second.body.source_revision_config.repo_ref).toBe('other');
    expect(latestRef(d.id)).toBe('other');
    expect(sim.revisions(d.id).map((r) => r.source_revision_config.repo_ref)).toEqual([
      'main',
      'other',
      'mine',
      'mine',
      'other',
    ]);
  });

  it('creates a second deployment of a taken name with duplicateNames', async () => {
    sim.addDeployment({ name: 'agent-d' });
    expect((await call('POST', '/v2/deployments', codehostCreate('agent-d'))).status).toBe(409);
    sim.duplicateNames = true;
    expect((await call('POST', '/v2/deployments', codehostCreate('agent-d'))).status).toBe(201);
    expect(sim.deploymentsNamed('agent-d')).toHaveLength(2);
  });

  it('caps its pages whatever limit asks, the offset advancing by what it gave', async () => {
    sim.addDeployments(7, (i) => `x-${i}`);
    sim.pageCap = 3;
    const r = await call('GET', '/v2/deployments?limit=100&offset=2');
    expect(r.body.resources.map((d: { name: string }) => d.name)).toEqual(['x-2', 'x-3', 'x-4']);
    expect(r.body.offset).toBe(5);
  });
});

describe('repositories, listeners, tokens', () => {
  it('lists repositories per integration kind', async () => {
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    sim.addRepository(
      INTEGRATION,
      { owner: 'acme', name: 'forged', default_branch: 'trunk' },
      'forge',
    );
    const ch = await call('GET', `/v1/integrations/codehost/${INTEGRATION}/repos`);
    expect(ch.body).toEqual([
      {
        host_integration_id: INTEGRATION,
        id: expect.any(Number),
        name: 'agent',
        owner: 'acme',
        url: 'https://codehost.example/acme/agent',
        default_branch: 'main',
      },
    ]);
    const fg = await call('GET', `/v1/integrations/forge/codehost/${INTEGRATION}/repos`);
    expect(fg.body.map((r: { name: string }) => r.name)).toEqual(['forged']);
    expect((await call('GET', `/v1/integrations/codehost/${MISSING}/repos`)).status).toBe(404);
  });

  it('lists and gets listeners and checks namespaces on create', async () => {
    const l = sim.addListener({ compute_id: 'prod-cluster', k8s_namespaces: ['agents'] });
    const list = await call('GET', '/v2/listeners');
    expect(list.body).toEqual({ resources: [l], offset: 1 });
    expect((await call('GET', `/v2/listeners/${l.id}`)).body).toEqual(l);
    expect((await call('GET', `/v2/listeners/${MISSING}`)).status).toBe(404);
    const docker = {
      name: 'agent-h',
      source: 'external_docker',
      source_config: { listener_id: l.id, listener_config: { k8s_namespace: 'other' } },
      source_revision_config: { image_uri: 'registry.example/a:1' },
      secrets: [],
    };
    expect((await call('POST', '/v2/deployments', docker)).status).toBe(422);
    docker.source_config.listener_config.k8s_namespace = 'agents';
    expect((await call('POST', '/v2/deployments', docker)).status).toBe(201);
  });

  it('lets only the owner update token metadata', async () => {
    const mine = sim.addToken({ id: 'tok-mine' });
    sim.addToken({ id: 'tok-theirs', ownedByCaller: false });
    const r = await call('PATCH', '/v2/auth/tokens/tok-mine/metadata', {
      provider_account_label: 'ci',
      is_default: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: mine.id, provider_account_label: 'ci', is_default: true });
    const other = await call('PATCH', '/v2/auth/tokens/tok-theirs/metadata', { is_default: true });
    expect(other).toMatchObject({
      status: 403,
      body: { detail: 'Only the token owner may update this token.' },
    });
    expect((await call('PATCH', '/v2/auth/tokens/nope/metadata', {})).status).toBe(404);
  });
});

describe('time-limited faults', () => {
  it('caps an outage with times, and holds one that starts later', async () => {
    sim.fault({ status: 503, forMs: 60_000, times: 2 });
    expect((await call('GET', '/v2/listeners')).status).toBe(503);
    expect((await call('GET', '/v2/listeners')).status).toBe(503);
    expect((await call('GET', '/v2/listeners')).status).toBe(200);

    sim.fault({ status: 502, fromMs: 60_000, forMs: 1000 });
    sim.fault({ status: 504 });
    // The later outage has not started: the request goes on to the next fault, then to the service.
    expect((await call('GET', '/v2/listeners')).status).toBe(504);
    expect((await call('GET', '/v2/listeners')).status).toBe(200);
  });
});

describe('active revision switching', () => {
  async function deployNew(depId: string): Promise<string> {
    sim.timelines.push([{ status: 'DEPLOYED' }]);
    const r = await call('PATCH', `/v2/deployments/${depId}`, {
      source_revision_config: { repo_ref: 'next' },
    });
    expect(await revisionStatus(depId, r.body.latest_revision_id)).toBe('DEPLOYED');
    return r.body.latest_revision_id;
  }

  it('never switches with never; activate() makes a revision active and addRevision supersedes', async () => {
    sim.activeSwitch = 'never';
    const d = sim.addDeployment({ name: 'agent-never' });
    const old = d.active_revision_id!;
    const rev = await deployNew(d.id);
    expect(await readDeployment(d.id)).toMatchObject({
      latest_revision_id: rev,
      active_revision_id: old,
      status: 'READY',
    });
    sim.activate(d.id, rev);
    expect((await readDeployment(d.id)).active_revision_id).toBe(rev);
    expect(() => sim.activate(d.id, MISSING)).toThrow(/unknown revision/);

    // Superseded: a newer revision goes live and becomes active after the one a run waits for.
    sim.activeSwitch = 'immediate';
    const newer = sim.addRevision(d.id, [{ status: 'DEPLOYED' }]);
    expect(await readDeployment(d.id)).toMatchObject({
      latest_revision_id: newer.id,
      active_revision_id: newer.id,
    });
    expect(await revisionStatus(d.id, rev)).toBe('DEPLOYED');
  });

  it('reset() restores immediate switching', () => {
    sim.activeSwitch = 'never';
    sim.reset();
    expect(sim.activeSwitch).toBe('immediate');
  });
});

describe('on a fake clock', () => {
  const MIN = 60_000;
  let clock: FakeClock;
  let fake: Simulator;
  /** Requests this test has on a socket: time stands still while one is, unless the simulator parked it. */
  let inFlight = 0;

  beforeAll(async () => {
    clock = new FakeClock();
    fake = await Simulator.start({ clock });
    clock.busy = () => inFlight > fake.parked;
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    fake.onRevisionStatus = undefined;
  });

  /** A call to `fake`, counted in inFlight until its body is read. */
  async function send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Res & { at: number }> {
    inFlight++;
    try {
      const r = await fetch(fake.url + path, {
        method,
        headers: { 'x-api-key': 'test-api-key', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      const text = await r.text();
      return {
        status: r.status,
        text,
        body: text ? JSON.parse(text) : undefined,
        headers: r.headers,
        at: clock.now(),
      };
    } finally {
      inFlight--;
    }
  }
  const revisionOf = (d: { id: string; latest_revision_id: string }) =>
    send('GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`);
  const activeOf = async (id: string) =>
    (await send('GET', `/v2/deployments?deployment_ids=${id}`)).body.resources[0]
      .active_revision_id;

  it('runs a 10-minute build on the clock: DEPLOYED once the clock has moved past it, with no timer of its own', async () => {
    fake.timelines.push([
      { status: 'QUEUED', ms: 1000 },
      { status: 'BUILDING', ms: 10 * MIN },
      { status: 'DEPLOYING', ms: 1000 },
      { status: 'DEPLOYED' },
    ]);
    fake.activeSwitch = { delayMs: 30_000 };
    const seen: [string, number][] = [];
    fake.onRevisionStatus = (_d, _r, status, at) => seen.push([status, at]);
    const created = await send('POST', '/v2/deployments', codehostCreate('agent-slow'));
    const dep = created.body;
    const start = clock.now();
    expect(dep.created_at).toBe(new Date(clock.wall()).toISOString().replace('Z', '000+00:00'));
    // Only the test's own sleeps move the clock: the simulator's timeline is not a timer.
    expect(clock.pending).toBe(0);

    await clock.sleep(10 * MIN);
    expect((await revisionOf(dep)).body.status).toBe('BUILDING');
    await clock.sleep(2000);
    const live = await revisionOf(dep);
    expect(live.body.status).toBe('DEPLOYED');
    expect(live.body.updated_at).toBe(
      new Date(clock.epoch + start + 10 * MIN + 2000).toISOString().replace('Z', '000+00:00'),
    );
    // Every step in order, each at the wall time it fell due, not when a read first saw it.
    expect(seen).toEqual([
      ['QUEUED', clock.epoch + start],
      ['BUILDING', clock.epoch + start + 1000],
      ['DEPLOYING', clock.epoch + start + 1000 + 10 * MIN],
      ['DEPLOYED', clock.epoch + start + 2000 + 10 * MIN],
    ]);
    // The switch to active falls due 30 s after DEPLOYED; a read accessor sees it as a request does.
    expect(fake.deployment(dep.id)!.active_revision_id).toBeNull();
    await clock.sleep(29_999);
    expect(fake.deployment(dep.id)!.active_revision_id).toBeNull();
    await clock.sleep(1);
    expect(fake.deployment(dep.id)!.active_revision_id).toBe(dep.latest_revision_id);
  });

  // On the clock: DEPLOYING holds until the test moves time, whatever the machine's load (20 ms of real time did not).
  it('redeploys the same revision through a new timeline, or a new revision', async () => {
    const d = fake.addDeployment({ name: 'agent-e' });
    const first = d.latest_revision_id!;
    fake.addRevision(d.id, [{ status: 'DEPLOYED' }], { repo_ref: 'next' });
    fake.timelines.push([{ status: 'DEPLOYING', ms: 20 }, { status: 'DEPLOYED' }]);
    const r = await send('POST', `/v2/deployments/${d.id}/revisions/${first}/redeploy`);
    expect(r.status).toBe(200);
    expect(r.body.latest_revision_id).toBe(first);
    expect(r.body.source_revision_config.repo_ref).toBe('main');
    expect((await revisionOf(r.body)).body.status).toBe('DEPLOYING');
    expect(await activeOf(d.id)).not.toBe(first);
    await clock.sleep(20);
    expect((await revisionOf(r.body)).body.status).toBe('DEPLOYED');
    expect(await activeOf(d.id)).toBe(first);

    fake.redeployMode = 'new-revision';
    const n = await send('POST', `/v2/deployments/${d.id}/revisions/${first}/redeploy`);
    expect(n.body.latest_revision_id).not.toBe(first);
    expect(
      fake.revision(d.id, n.body.latest_revision_id)!.source_revision_config.repo_commit_sha,
    ).toBe(fake.revision(d.id, first)!.source_revision_config.repo_commit_sha);
    const missing = await send('POST', `/v2/deployments/${d.id}/revisions/${MISSING}/redeploy`);
    expect(missing).toMatchObject({
      status: 404,
      body: { detail: `Revision ID ${MISSING} not found.` },
    });
  });

  it('keeps a new revision from reads for revisionVisibleAfterMs of the clock', async () => {
    const d = fake.addDeployment({ name: 'agent-lag' });
    fake.revisionVisibleAfterMs = 2 * MIN;
    const r = await send('PATCH', `/v2/deployments/${d.id}`, {
      source_revision_config: { repo_ref: 'feature' },
    });
    expect((await revisionOf(r.body)).status).toBe(404);
    await clock.sleep(2 * MIN - 1);
    expect((await revisionOf(r.body)).status).toBe(404);
    await clock.sleep(1);
    expect((await revisionOf(r.body)).status).toBe(200);
  });

  it('ends a 5-minute outage on the clock, and starts a later one on it', async () => {
    fake.fault({ path: '/v2/listeners', status: 503, forMs: 5 * MIN });
    fake.fault({ path: '/v2/listeners', status: 502, fromMs: 6 * MIN, forMs: MIN });
    expect((await send('GET', '/v2/listeners')).status).toBe(503);
    await clock.sleep(5 * MIN - 1);
    expect((await send('GET', '/v2/listeners')).status).toBe(503);
    await clock.sleep(1);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    await clock.sleep(MIN);
    expect((await send('GET', '/v2/listeners')).status).toBe(502);
    await clock.sleep(MIN);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
  });

  it('answers a delayMs fault when the clock reaches it, the request counted as parked meanwhile', async () => {
    fake.fault({ path: '/v2/listeners', delayMs: 30_000 });
    const logged: number[] = [];
    fake.onAnswer = (_r, ms) => logged.push(ms);
    const start = clock.now();
    const answer = send('GET', '/v2/listeners');
    let answered = false;
    void answer.then(
      () => (answered = true),
      () => undefined,
    );
    // Time moves while the simulator holds the request: the test's own 10 s pass first.
    await clock.sleep(10_000);
    expect(fake.parked).toBe(1);
    expect(answered).toBe(false);
    const r = await answer;
    fake.onAnswer = undefined;
    expect(r.status).toBe(200);
    expect(r.at).toBe(start + 30_000);
    expect(logged).toEqual([30_000]);
    expect(fake.parked).toBe(0);
    expect(Date.parse(r.headers.get('date')!)).toBe(
      Math.floor((clock.epoch + start + 30_000) / 1000) * 1000,
    );
  });

  it('parks a hanging request until the client gives up on the clock', async () => {
    fake.fault({ path: '/v2/listeners', hang: true });
    const giveUp = new AbortController();
    const start = clock.now();
    const hung = send('GET', '/v2/listeners', undefined, giveUp.signal);
    const gaveUpAt = clock.sleep(5 * MIN).then(() => {
      giveUp.abort();
      return clock.now();
    });
    await expect(hung).rejects.toThrow();
    expect(await gaveUpAt).toBe(start + 5 * MIN);
    await vi.waitFor(() => expect(fake.parked).toBe(0), HANG_GUARD_MS);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
  });

  it('counts the rate-limit window on the clock', async () => {
    fake.rateLimit = { perSecond: 2 };
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    expect((await send('GET', '/v2/listeners')).status).toBe(429);
    await clock.sleep(999);
    expect((await send('GET', '/v2/listeners')).status).toBe(429);
    await clock.sleep(1);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
  });

  it("dates answers and Retry-After on the clock's wall time, skewed by dateSkewMs", async () => {
    await clock.sleep(4321); // off a whole second, so the Date's rounding down shows
    fake.dateSkewMs = -90_000;
    fake.fault({ status: 503, retryAfterDateMs: 2 * MIN });
    const r = await send('GET', '/v2/listeners');
    const date = Math.floor((clock.wall() - 90_000) / 1000) * 1000;
    expect(r.headers.get('date')).toBe(new Date(date).toUTCString());
    expect(r.headers.get('retry-after')).toBe(new Date(date + 2 * MIN).toUTCString());
  });

  it('answers every match during an outage, then normally once it has ended', async () => {
    fake.fault({ path: '/v2/listeners', status: 503, forMs: 1500 });
    for (let i = 0; i < 3; i++) {
      const r = await send('GET', '/v2/listeners');
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBeNull();
    }
    expect((await send('GET', '/v2/deployments')).status).toBe(200);
    await clock.sleep(1500);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    expect(fake.answered.get(503)).toBe(3);
  });

  it('answers 429 with Retry-After beyond the rate, without processing the write', async () => {
    const d = fake.addDeployment({ name: 'agent-rl' });
    fake.rateLimit = { perSecond: 2, retryAfterSeconds: 3 };
    // Ten at the same instant: time stands still while they are on the wire.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send('PATCH', `/v2/deployments/${d.id}`, {
          source_revision_config: { repo_ref: `branch-${i}` },
        }),
      ),
    );
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(2);
    expect(limited).toHaveLength(8);
    for (const r of limited) {
      expect(r.body).toEqual({ detail: 'Rate limit exceeded' });
      expect(r.headers.get('retry-after')).toBe('3');
    }
    // One revision per accepted PATCH: the seeded one plus those answered 200.
    expect(new Set(ok.map((r) => r.body.latest_revision_id)).size).toBe(2);
    expect(fake.revisions(d.id)).toHaveLength(3);
    expect(fake.requests).toHaveLength(10);
    expect(fake.answered.get(200)).toBe(2);
    expect(fake.answered.get(429)).toBe(8);
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(8);
  });

  it('lets requests through again once the window has passed, and reset() lifts it', async () => {
    fake.rateLimit = { perSecond: 1 };
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    const refused = await send('GET', '/v2/listeners');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    await clock.sleep(1000);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    fake.reset();
    expect(fake.rateLimit).toBeUndefined();
    expect(fake.answered.size).toBe(0);
    for (let i = 0; i < 3; i++) expect((await send('GET', '/v2/listeners')).status).toBe(200);
  });

  it('checks the rate limit before the faults: a refused request does not use one up', async () => {
    fake.rateLimit = { perSecond: 1 };
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
    fake.fault({ status: 500 });
    expect((await send('GET', '/v2/listeners')).status).toBe(429);
    fake.rateLimit = undefined;
    expect((await send('GET', '/v2/listeners')).status).toBe(500);
    expect((await send('GET', '/v2/listeners')).status).toBe(200);
  });

  it('switches a delay after DEPLOYED; activate() meanwhile drops the pending switch', async () => {
    fake.activeSwitch = { delayMs: 1000 };
    const kept = fake.addDeployment({ name: 'agent-kept' });
    const switched = fake.addDeployment({ name: 'agent-switched' });
    // Seeded deployments serve their revision at once, whatever activeSwitch says.
    expect(kept.active_revision_id).toBe(kept.latest_revision_id);
    const oldKept = kept.active_revision_id!;
    const oldSwitched = switched.active_revision_id!;
    const deployNew = async (id: string) => {
      fake.timelines.push([{ status: 'DEPLOYED' }]);
      const r = await send('PATCH', `/v2/deployments/${id}`, {
        source_revision_config: { repo_ref: 'next' },
      });
      expect((await revisionOf(r.body)).body.status).toBe('DEPLOYED');
      return r.body.latest_revision_id as string;
    };
    // `kept` first: its pending switch is due no later than `switched`'s.
    await deployNew(kept.id);
    const rev = await deployNew(switched.id);
    fake.activate(kept.id, oldKept);
    await clock.sleep(999);
    expect(await activeOf(switched.id)).toBe(oldSwitched);
    await clock.sleep(1);
    expect(await activeOf(switched.id)).toBe(rev);
    expect(await activeOf(kept.id)).toBe(oldKept);
  });

  it('sends a skewed Date, and a Retry-After date against it; match narrows a fault', async () => {
    fake.dateSkewMs = 3_600_000;
    fake.fault({
      method: 'GET',
      match: (req) => req.query.limit === '7',
      status: 503,
      retryAfterDateMs: 2000,
    });
    const plain = await send('GET', '/v2/deployments?limit=1');
    const r = await send('GET', '/v2/deployments?limit=7');

    expect(plain.status).toBe(200);
    expect(r.status).toBe(503);
    const date = Math.floor((clock.wall() + 3_600_000) / 1000) * 1000;
    expect(Date.parse(r.headers.get('date')!)).toBe(date);
    expect(Date.parse(r.headers.get('retry-after')!) - date).toBe(2000);
  });

  it('leaves no timer on the clock when closed with a request parked', async () => {
    const own = new FakeClock();
    const sim2 = await Simulator.start({ clock: own });
    let pending = 0;
    // Time stands still even while the request is parked, so its 60 minutes never pass.
    own.busy = () => pending > 0;
    sim2.fault({ delayMs: 60 * MIN });
    pending++;
    const parked = fetch(`${sim2.url}/v2/listeners`, {
      headers: { 'x-api-key': 'test-api-key' },
    }).finally(() => pending--);
    await vi.waitFor(() => expect(sim2.parked).toBe(1), HANG_GUARD_MS);
    expect(own.pending).toBe(1);
    await sim2.close();
    await expect(parked).rejects.toThrow();
    expect(sim2.parked).toBe(0);
    expect(own.pending).toBe(0);
  });
});
