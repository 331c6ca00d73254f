import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Simulator } from './simulator/server.ts';

const INTEGRATION = '11111111-1111-4111-8111-111111111111';
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

function codehostCreate(name: string) {
  return {
    name,
    source: 'codehost',
    source_config: { integration_id: INTEGRATION, repo_url: 'https://codehost.example/acme/agent' },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }],
  };
}

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 2000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
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

  it('pages 250 matches out of 10,000 as 100/100/50/0, fast', async () => {
    const t0 = performance.now();
    sim.addDeployments(10_000, (i) => (i % 40 === 0 ? `Match-${i}` : `svc-${i}`));
    expect(performance.now() - t0).toBeLessThan(1000);
    const sizes: number[] = [];
    const ids = new Set<string>();
    let offset = 0;
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const r = await call('GET', `/v2/deployments?name_contains=match&limit=100&offset=${offset}`);
      expect(performance.now() - t).toBeLessThan(100);
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

  it('redeploys the same revision through a new timeline, or a new revision', async () => {
    const d = sim.addDeployment({ name: 'agent-e' });
    const first = d.latest_revision_id!;
    sim.addRevision(d.id, [{ status: 'DEPLOYED' }], { repo_ref: 'next' });
    sim.timelines.push([{ status: 'DEPLOYING', ms: 20 }, { status: 'DEPLOYED' }]);
    const r = await call('POST', `/v2/deployments/${d.id}/revisions/${first}/redeploy`);
    expect(r.status).toBe(200);
    expect(r.body.latest_revision_id).toBe(first);
    expect(r.body.source_revision_config.repo_ref).toBe('main');
    expect(await revisionStatus(d.id, first)).toBe('DEPLOYING');
    await waitFor(async () =>
      (await readDeployment(d.id)).active_revision_id === first ? 1 : undefined,
    );

    sim.redeployMode = 'new-revision';
    const n = await call('POST', `/v2/deployments/${d.id}/revisions/${first}/redeploy`);
    expect(n.body.latest_revision_id).not.toBe(first);
    expect(
      sim.revision(d.id, n.body.latest_revision_id)!.source_revision_config.repo_commit_sha,
    ).toBe(sim.revision(d.id, first)!.source_revision_config.repo_commit_sha);
    const missing = await call('POST', `/v2/deployments/${d.id}/revisions/${MISSING}/redeploy`);
    expect(missing).toMatchObject({
      status: 404,
      body: { detail: `Revision ID ${MISSING} not found.` },
    });
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
    await expect(
      call('GET', '/v2/listeners', undefined, { signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow();
    expect((await call('GET', '/v2/listeners')).status).toBe(200);
  });

  it('delays an answer', async () => {
    sim.fault({ delayMs: 80 });
    const t = Date.now();
    expect((await call('GET', '/v2/listeners')).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(75);
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
