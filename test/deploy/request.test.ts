// What the inputs become on the wire: the create and PATCH bodies, field by field, and nothing sent that no input
// asked for.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, codehostInputs, dockerInputs, IMAGE, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);
const docker = (name: string, extra: Record<string, string> = {}) =>
  dockerInputs(world.sim, name, extra);

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
      const { sim } = world;
      const dep = sim.addDeployment({ name: 'edge-agent', source: 'external_docker' });

      const run = await runInProcess(world, {
        inputs: docker('edge-agent', { 'secret-references': text }),
      });

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
    const { sim } = world;
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

    const run = await runInProcess(world, {
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
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
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
    const { sim } = world;

    const run = await runInProcess(world, {
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
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' }); // deployment_type dev

    const run = await runInProcess(world, {
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
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' }); // deployment_type dev

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'deployment-type': 'prod' }),
    });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.errors[0]).toContain("deployment-type is 'prod'");
    expect(run.errors[0]).toContain("'dev'");
  });

  it('sends no PATCH when no input sets a field of an existing docker deployment', async () => {
    const { sim } = world;
    const target = sim.addDeployment({
      name: 'edge-agent',
      source: 'external_docker',
      source_revision_config: { image_uri: 'registry.example/edge:v1' },
    });

    const run = await runInProcess(world, { inputs: baseInputs(sim, { name: 'edge-agent' }) });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'no-change',
      'revision-id': target.latest_revision_id!,
      'revision-created': 'false',
    });
  });

  it('a resource-spec @file in the workspace arrives in the PATCH body of an update', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { name: 'my-agent', 'resource-spec': '@deploy/spec.yaml' }),
      files: { 'deploy/spec.yaml': 'min_scale: 1\nmax_scale: 3\n' },
    });

    expect(run.errors).toEqual([]);
    expect(sim.requestsTo('PATCH')[0]!.body).toMatchObject({
      source_config: { resource_spec: { min_scale: 1, max_scale: 3 } },
    });
  });
});
