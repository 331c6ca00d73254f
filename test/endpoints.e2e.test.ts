import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runAction } from './helpers/action.ts';
import { baseInputs, INTEGRATION, useSimulator, codehostInputs } from './helpers/setup.ts';

const ctx = useSimulator();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, extra);
const IMAGE = 'registry.example/edge-agent:v2';
const docker = (name: string, extra: Record<string, string> = {}) =>
  baseInputs(ctx.sim, { name, 'image-uri': IMAGE, ...extra });
const redeployPaths = () => ctx.sim.requestsTo('POST', /\/redeploy$/).map((r) => r.path);

describe('redeploy', () => {
  it('redeploys an older revision with one call and waits for it to be DEPLOYED', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    const r1 = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;
    sim.timelines.push([
      { status: 'QUEUED', ms: 100 },
      { status: 'DEPLOYING', ms: 200 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runAction({
      inputs: baseInputs(sim, { command: 'redeploy', name: 'my-agent', 'revision-id': r0 }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.writes().map((r) => r.path)).toEqual([
      `/v2/deployments/${dep.id}/revisions/${r0}/redeploy`,
    ]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'deployment-id': dep.id,
      'revision-id': r0,
      'revision-status': 'DEPLOYED',
      'previous-revision-id': r1,
      'revision-created': 'false',
    });
    expect(
      sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r0}`).length,
    ).toBeGreaterThan(0);
    expect(sim.deployment(dep.id)).toMatchObject({
      active_revision_id: r0,
      latest_revision_id: r0,
    });
  });

  it('waits on the new latest revision when the service redeploys as a new revision', async () => {
    const { sim } = ctx;
    sim.redeployMode = 'new-revision';
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    const r1 = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;

    const run = await runAction({
      inputs: baseInputs(sim, { command: 'redeploy', name: 'my-agent', 'revision-id': r0 }),
    });

    expect(run.code).toBe(0);
    expect(redeployPaths()).toEqual([`/v2/deployments/${dep.id}/revisions/${r0}/redeploy`]);
    const latest = sim.deployment(dep.id)!.latest_revision_id!;
    expect([r0, r1]).not.toContain(latest);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': latest,
      'revision-status': 'DEPLOYED',
      'revision-created': 'true',
    });
    expect(
      sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${latest}`).length,
    ).toBeGreaterThan(0);
    // r0 is read once, to check that the answer's new revision carries its values; never waited on.
    expect(sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r0}`)).toHaveLength(1);
  });
});

describe('rollback-on-failure', () => {
  it('redeploys the revision active before, waits for it, ends rolled-back and fails the step', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    // The PATCH's revision fails; the rollback's redeploy runs the next timeline.
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'DEPLOYING', ms: 100 },
      { status: 'DEPLOY_FAILED' },
    ]);
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'DEPLOYING', ms: 100 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runAction({
      inputs: codehost('my-agent', { 'rollback-on-failure': 'true' }),
    });

    expect(run.code).toBe(1);
    const r1 = run.outputs['revision-id']!;
    expect(r1).not.toBe(r0);
    expect(sim.revision(dep.id, r1)!.status).toBe('DEPLOY_FAILED');
    expect(run.outputs).toMatchObject({
      result: 'rolled-back',
      'revision-status': 'DEPLOY_FAILED',
      'previous-revision-id': r0,
    });
    expect(redeployPaths()).toEqual([`/v2/deployments/${dep.id}/revisions/${r0}/redeploy`]);
    // The redeploy came after the failure was seen, and R0 was waited on afterwards.
    const redeployAt = sim.requestsTo('POST', /\/redeploy$/)[0]!.at;
    const r1Reads = sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r1}`);
    expect(r1Reads.at(-1)!.at).toBeLessThanOrEqual(redeployAt);
    const r0Reads = sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${r0}`);
    expect(r0Reads.some((r) => r.at >= redeployAt)).toBe(true);
    expect(sim.deployment(dep.id)).toMatchObject({
      active_revision_id: r0,
      latest_revision_id: r0,
    });
    expect(sim.revision(dep.id, r0)!.status).toBe('DEPLOYED');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(r1);
    expect(run.errors[0]).toContain(r0);
    expect(run.errors[0]).toContain('DEPLOY_FAILED');
    expect(run.summary).toContain('### ↩️ Rolled back: my-agent');
    expect(run.summary).toContain(`| Rolled back to | \`${r0}\` (\`DEPLOYED\`) |`);
  });

  it('does not roll back when no revision was active before, and says so in the summary', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent', activeRevision: false });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILD_FAILED' }]);

    const run = await runAction({
      inputs: codehost('my-agent', { 'rollback-on-failure': 'true' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'revision-status': 'BUILD_FAILED',
      'previous-revision-id': '',
      'deployment-id': dep.id,
    });
    expect(redeployPaths()).toEqual([]);
    expect(run.summary).toContain('No rollback: no other revision was active before this run');
  });

  it('does not roll back on a time-out, and the summary says why', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const r0 = dep.active_revision_id!;
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILDING' }]);

    const run = await runAction({
      inputs: codehost('my-agent', { 'rollback-on-failure': 'true', timeout: '2s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(redeployPaths()).toEqual([]);
    const r1 = run.outputs['revision-id']!;
    expect(run.summary).toContain(`No rollback: revision ${r1} timed out, not failed`);
    expect(run.summary).toContain(`revision-id: ${r0}`);
  });
});

describe('listener', () => {
  it('resolves a compute_id over the list and sends its uuid and the allowed namespace on create', async () => {
    const { sim } = ctx;
    sim.addListener({ compute_id: 'cluster-b', k8s_namespaces: ['agents'] });
    const l = sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: ['apps', 'agents'] });

    const run = await runAction({
      inputs: docker('edge-agent', { listener: 'cluster-a', 'k8s-namespace': 'agents' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const posts = sim.requestsTo('POST', '/v2/deployments');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({
      name: 'edge-agent',
      source: 'external_docker',
      source_config: { listener_id: l.id, listener_config: { k8s_namespace: 'agents' } },
      source_revision_config: { image_uri: IMAGE },
      secrets: [],
    });
    // One page, and the empty one that ends the listing.
    expect(sim.requestsTo('GET', '/v2/listeners')).toHaveLength(2);
    expect(sim.requestsTo('GET', /^\/v2\/listeners\/./)).toHaveLength(0);
    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
  });

  it('refuses a namespace outside the listener’s list before any write, listing the namespaces', async () => {
    const { sim } = ctx;
    sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: ['apps', 'agents'] });

    const run = await runAction({
      inputs: docker('edge-agent', { listener: 'cluster-a', 'k8s-namespace': 'default' }),
    });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain("k8s-namespace 'default'");
    expect(run.errors[0]).toContain('apps, agents');
  });

  it('reads a listener given by uuid with GET one, without listing', async () => {
    const { sim } = ctx;
    const l = sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: null });

    const run = await runAction({
      inputs: docker('edge-agent', { listener: l.id, 'k8s-namespace': 'anything' }),
    });

    expect(run.code).toBe(0);
    expect(sim.requestsTo('GET', `/v2/listeners/${l.id}`)).toHaveLength(1);
    expect(sim.requestsTo('GET', '/v2/listeners')).toHaveLength(0);
    const body = sim.requestsTo('POST', '/v2/deployments')[0]!.body as {
      source_config: unknown;
    };
    expect(body.source_config).toEqual({
      listener_id: l.id,
      listener_config: { k8s_namespace: 'anything' },
    });
  });

  it.each([
    ['compute_id', 'cluster-z'],
    ['uuid', '99999999-9999-4999-8999-999999999999'],
  ])(
    'fails on an unknown %s before any write, listing the listeners that exist',
    async (_, ref) => {
      const { sim } = ctx;
      const a = sim.addListener({ compute_id: 'cluster-a' });
      const b = sim.addListener({ compute_id: 'cluster-b' });

      const run = await runAction({ inputs: docker('edge-agent', { listener: ref }) });

      expect(run.code).toBe(1);
      expect(sim.writes()).toEqual([]);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain(`'${ref}'`);
      expect(run.errors[0]).toContain(`cluster-a: ${a.id}`);
      expect(run.errors[0]).toContain(`cluster-b: ${b.id}`);
    },
  );

  it('finds a compute_id on the second page of more than 100 listeners', async () => {
    const { sim } = ctx;
    const listeners = Array.from({ length: 150 }, (_, i) =>
      sim.addListener({ compute_id: `cluster-${i}` }),
    );

    const run = await runAction({ inputs: docker('edge-agent', { listener: 'cluster-130' }) });

    expect(run.code).toBe(0);
    expect(
      sim.requestsTo('GET', '/v2/listeners').map((r) => [r.query.limit, r.query.offset ?? '0']),
    ).toEqual([
      ['100', '0'],
      ['100', '100'],
      ['100', '150'],
    ]);
    const body = sim.requestsTo('POST', '/v2/deployments')[0]!.body as {
      source_config: { listener_id: string };
    };
    expect(body.source_config.listener_id).toBe(listeners[130]!.id);
  });
});

describe('repository resolution', () => {
  it.each([
    ['codehost', `/v1/integrations/codehost/${INTEGRATION}/repos`],
    ['forge', `/v1/integrations/forge/codehost/${INTEGRATION}/repos`],
  ] as const)(
    'integration-kind %s lists %s and matches GITHUB_REPOSITORY case-insensitively',
    async (kind, path) => {
      const { sim } = ctx;
      const other = kind === 'codehost' ? 'forge' : 'codehost';
      // The same name under the other kind: taking it would mean the wrong endpoint was asked.
      sim.addRepository(
        INTEGRATION,
        { owner: 'acme', name: 'agent', url: 'https://wrong.example/acme/agent' },
        other,
      );
      sim.addRepository(INTEGRATION, { owner: 'someone', name: 'else' }, kind);
      const url = `https://${kind}.example/ACME/Agent`;
      sim.addRepository(
        INTEGRATION,
        { owner: 'ACME', name: 'Agent', url, default_branch: 'trunk' },
        kind,
      );

      const run = await runAction({
        inputs: codehost('my-agent', { 'integration-kind': kind }),
        // No ref known: the listed repository's default_branch is used.
        env: { GITHUB_REF_NAME: '' },
      });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      expect(sim.requestsTo('GET', /^\/v1\//).map((r) => r.path)).toEqual([path]);
      expect(sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
        source_config: { integration_id: INTEGRATION, repo_url: url },
        source_revision_config: { repo_ref: 'trunk' },
      });
    },
  );

  it('fails when the integration cannot see the repository, listing at most 10 it can', async () => {
    const { sim } = ctx;
    for (let i = 0; i < 12; i++)
      sim.addRepository(INTEGRATION, { owner: 'other-org', name: `repo-${i}` });

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.errors).toHaveLength(1);
    const error = run.errors[0]!;
    expect(error).toContain('acme/agent');
    expect(error).toContain('Grant the integration access');
    for (let i = 0; i < 10; i++) expect(error).toContain(`other-org/repo-${i}`);
    expect(error).not.toContain('other-org/repo-10');
    expect(error).not.toContain('other-org/repo-11');
    expect(error).toContain('2 more');
  });
});

describe('token-metadata', () => {
  it.each([
    [{ 'is-default': 'true' }, { is_default: true }],
    [{ 'provider-account-label': 'ci-bot' }, { provider_account_label: 'ci-bot' }],
  ])('sends exactly the fields given (%o)', async (inputs, body) => {
    const { sim } = ctx;
    const token = sim.addToken({ provider_account_label: 'old', is_default: false });

    const run = await runAction({
      inputs: baseInputs(sim, { command: 'token-metadata', 'token-id': token.id, ...inputs }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const patches = sim.writes();
    expect(patches.map((r) => [r.method, r.path])).toEqual([
      ['PATCH', `/v2/auth/tokens/${token.id}/metadata`],
    ]);
    expect(patches[0]!.body).toEqual(body);
    expect(token).toMatchObject(body);
    expect(run.outputs.result).toBe('updated');
  });

  it("reports the service's refusal for a token of another owner", async () => {
    const { sim } = ctx;
    const token = sim.addToken({ ownedByCaller: false, provider_account_label: 'theirs' });

    const run = await runAction({
      inputs: baseInputs(sim, {
        command: 'token-metadata',
        'token-id': token.id,
        'provider-account-label': 'mine',
      }),
    });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('HTTP 403');
    expect(run.errors[0]).toContain('Only the token owner may update this token.');
    // The contract: result on every run, `failed` when no revision was reached.
    expect(run.outputs.result).toBe('failed');
    expect(token.provider_account_label).toBe('theirs');
  });
});

describe('request mapping', () => {
  const refs = [
    { name: 'OPENAI_API_KEY', secret_name: 'llm-keys', secret_key: 'openai' },
    { name: 'DB_URL', secret_name: 'db', secret_key: 'url' },
  ];

  it.each([
    ['lines', 'OPENAI_API_KEY=llm-keys/openai\n# the database\nDB_URL = db/url\n'],
    ['JSON', JSON.stringify(refs)],
  ])(
    'a docker update puts image-uri in source_revision_config and secret-references (%s) beside it',
    async (_, text) => {
      const { sim } = ctx;
      const dep = sim.addDeployment({ name: 'edge-agent', source: 'external_docker' });

      const run = await runAction({ inputs: docker('edge-agent', { 'secret-references': text }) });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      const patches = sim.requestsTo('PATCH');
      expect(patches.map((r) => r.path)).toEqual([`/v2/deployments/${dep.id}`]);
      expect(patches[0]!.body).toEqual({
        source_revision_config: { image_uri: IMAGE },
        secret_references: refs,
      });
      const stored = sim.deployment(dep.id)!;
      expect(stored.secret_references).toEqual(refs);
      expect(
        sim.revision(dep.id, run.outputs['revision-id']!)!.source_revision_config.image_uri,
      ).toBe(IMAGE);
    },
  );

  it('a resource-spec @file in the workspace arrives in the create body as written', async () => {
    const { sim } = ctx;
    const yaml = `# resources of the edge agent
min_scale: 1
max_scale: 3
cpu: 0.5
memory_mb: 1024
labels:
  team: agents
volumes:
  - name: cache
    emptyDir: {}
  - name: config
    configMap:
      name: agent-config
volume_mounts:
  - name: config
    mountPath: /etc/agent
    readOnly: true
sidecars:
  - name: proxy
    image: registry.example/proxy:1.2
    args: ["--port", "8081"]
    env:
      - name: MODE
        value: sidecar
    resources:
      limits: { cpu: 200m, memory: 128Mi }
    volumeMounts:
      - name: cache
        mountPath: /cache
`;

    const run = await runAction({
      inputs: docker('edge-agent', {
        'resource-spec': '@deploy/resources.yaml',
        'secret-references': 'OPENAI_API_KEY=llm-keys/openai',
      }),
      files: { 'deploy/resources.yaml': yaml },
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const body = sim.requestsTo('POST', '/v2/deployments')[0]!.body as {
      source_config: { resource_spec: unknown };
      secret_references: unknown;
    };
    expect(body.source_config.resource_spec).toEqual(parse(yaml));
    expect(body.source_config.resource_spec).toMatchObject({
      sidecars: [{ name: 'proxy', volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }],
    });
    expect(body.secret_references).toEqual([refs[0]]);
    expect(sim.deploymentsNamed('edge-agent')[0]!.source_config.resource_spec).toEqual(parse(yaml));
  });

  it('sends revision-source on PATCH, and no repo_ref for a revision not built from the repository', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: codehost('my-agent', {
        'revision-source': 'internal_source',
        'source-tarball-path': 'builds/agent.tgz',
      }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.requestsTo('PATCH')[0]!.body).toEqual({
      revision_source: 'internal_source',
      source_revision_config: {
        graph_config_path: 'graph.json',
        source_tarball_path: 'builds/agent.tgz',
      },
    });
    expect(sim.revision(dep.id, run.outputs['revision-id']!)!.source).toBe('internal_source');
  });

  const deploymentLevel = {
    'custom-url': 'https://agent.example.com',
    'install-command': 'npm ci',
    'build-command': 'npm run build',
    'build-on-push': 'true',
  };

  it('deployment-level inputs land in source_config on create', async () => {
    const { sim } = ctx;

    const run = await runAction({
      inputs: codehost('new-agent', {
        ...deploymentLevel,
        'deployment-type': 'prod',
        'repo-url': 'https://codehost.example/acme/agent',
      }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.requestsTo('GET', /^\/v1\//)).toHaveLength(0);
    expect(sim.requestsTo('POST', '/v2/deployments')[0]!.body).toEqual({
      name: 'new-agent',
      source: 'codehost',
      source_config: {
        integration_id: INTEGRATION,
        repo_url: 'https://codehost.example/acme/agent',
        deployment_type: 'prod',
        build_on_push: true,
        custom_url: 'https://agent.example.com',
        install_command: 'npm ci',
        build_command: 'npm run build',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
      secrets: [],
    });
    expect(run.outputs['custom-url']).toBe('https://agent.example.com');
  });

  it('deployment-level inputs land in source_config on update; an unchanged deployment-type is not re-sent', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' }); // deployment_type dev

    const run = await runAction({
      inputs: codehost('my-agent', { ...deploymentLevel, 'deployment-type': 'dev' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.requestsTo('PATCH')[0]!.body).toEqual({
      source_config: {
        build_on_push: true,
        custom_url: 'https://agent.example.com',
        install_command: 'npm ci',
        build_command: 'npm run build',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    });
  });

  it('refuses a deployment-type that differs from the existing one, before any write', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' }); // deployment_type dev

    const run = await runAction({ inputs: codehost('my-agent', { 'deployment-type': 'prod' }) });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.errors[0]).toContain("deployment-type is 'prod'");
    expect(run.errors[0]).toContain("'dev'");
  });
});
