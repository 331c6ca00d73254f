// What a create refers to, resolved before any write: the listener (by compute_id or uuid) and its namespaces, and
// the repository the integration lists for the workflow's own.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs, dockerInputs, IMAGE, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);
const docker = (name: string, extra: Record<string, string> = {}) =>
  dockerInputs(world.sim, name, extra);

describe('listener', () => {
  it('resolves a compute_id over the list and sends its uuid and the allowed namespace on create', async () => {
    const { sim } = world;
    sim.addListener({ compute_id: 'cluster-b', k8s_namespaces: ['agents'] });
    const l = sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: ['apps', 'agents'] });

    const run = await runInProcess(world, {
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
    const { sim } = world;
    sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: ['apps', 'agents'] });

    const run = await runInProcess(world, {
      inputs: docker('edge-agent', { listener: 'cluster-a', 'k8s-namespace': 'default' }),
    });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain("k8s-namespace 'default'");
    expect(run.errors[0]).toContain('apps, agents');
  });

  it('reads a listener given by uuid with GET one, without listing', async () => {
    const { sim } = world;
    const l = sim.addListener({ compute_id: 'cluster-a', k8s_namespaces: null });

    const run = await runInProcess(world, {
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
      const { sim } = world;
      const a = sim.addListener({ compute_id: 'cluster-a' });
      const b = sim.addListener({ compute_id: 'cluster-b' });

      const run = await runInProcess(world, { inputs: docker('edge-agent', { listener: ref }) });

      expect(run.code).toBe(1);
      expect(sim.writes()).toEqual([]);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toContain(`'${ref}'`);
      expect(run.errors[0]).toContain(`cluster-a: ${a.id}`);
      expect(run.errors[0]).toContain(`cluster-b: ${b.id}`);
    },
  );

  it('finds a compute_id on the second page of more than 100 listeners', async () => {
    const { sim } = world;
    const listeners = Array.from({ length: 150 }, (_, i) =>
      sim.addListener({ compute_id: `cluster-${i}` }),
    );

    const run = await runInProcess(world, {
      inputs: docker('edge-agent', { listener: 'cluster-130' }),
    });

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
      const { sim } = world;
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

      const run = await runInProcess(world, {
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
    const { sim } = world;
    for (let i = 0; i < 12; i++)
      sim.addRepository(INTEGRATION, { owner: 'other-org', name: `repo-${i}` });

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

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
