// The deploy command, the whole action in-process on a fake clock: find or create the deployment by name, trigger a
// revision, follow it to its end. Lookup, resolution, request bodies, the wait and rollbacks have files of their own
// under test/deploy/.
import { describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { API_KEY, baseInputs, codehostInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);

describe('deploy', () => {
  it('creates a missing deployment with the repository the integration lists for GITHUB_REPOSITORY', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'someone', name: 'else' });
    sim.addRepository(INTEGRATION, {
      owner: 'Acme',
      name: 'Agent',
      url: 'https://codehost.example/Acme/Agent',
    });

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({
      created: 'true',
      'revision-created': 'true',
      result: 'deployed',
      'deployment-name': 'my-agent',
      'revision-status': 'DEPLOYED',
      'previous-revision-id': '',
    });
    const posts = sim.requestsTo('POST', '/v2/deployments');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({
      name: 'my-agent',
      source: 'codehost',
      source_config: {
        integration_id: INTEGRATION,
        repo_url: 'https://codehost.example/Acme/Agent',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
      secrets: [],
    });
    expect(sim.requestsTo('GET', `/v1/integrations/codehost/${INTEGRATION}/repos`)).toHaveLength(1);
    const created = sim.deploymentsNamed('my-agent')[0]!;
    expect(run.outputs['deployment-id']).toBe(created.id);
    expect(run.outputs['revision-id']).toBe(created.active_revision_id);
    expect(run.outputs['commit-sha']).toMatch(/^[0-9a-f]{40}$/);
    // The User-Agent is the bundle's: test/hosts/github/action.e2e.test.ts checks it on the wire.
    const headers = posts[0]!.headers;
    expect(headers['x-api-key']).toBe(API_KEY);
    expect(headers['content-type']).toBe('application/json');
    expect(headers.accept).toBe('application/json');
  });

  it('updates an existing deployment and reports the revision it waited for', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const before = dep.active_revision_id;
    sim.timelines.push([{ status: 'BUILDING', ms: 200 }, { status: 'DEPLOYED' }]);

    const { report } = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(report).toMatchObject({ result: 'deployed', ok: true, revisionCreated: true });
    expect(report.previousRevisionId).toBe(before);
    expect(report.revision?.status).toBe('DEPLOYED');
    expect(sim.deployment(dep.id)!.active_revision_id).toBe(report.revisionId);
  });

  it('updates an existing deployment without integration-id', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { name: 'my-agent', 'graph-config-path': 'graph.json' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
  });

  it('names every input a create needs at once when the lookup finds nothing, after reads only', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { name: 'new-agent' }),
      env: { GITHUB_REPOSITORY: '' },
    });

    expect(run.code).toBe(1);
    expect(run.errors).toEqual([
      "'new-agent' does not exist yet, and creating it needs 3 inputs not given; nothing was written. Input 'integration-id' is required to create a codehost deployment: give the uuid of the code-hosting integration (the service's integrations page). Input 'graph-config-path' is required to create a codehost deployment: give the path of the graph configuration file in the repository. Input 'repo-url' is required to create a codehost deployment when no repository is known (GITHUB_REPOSITORY is not set): give the repository's URL.",
    ]);
    expect(run.report.failure?.phase).toBe('inputs');
    expect(sim.requests.length).toBeGreaterThan(0);
    expect(sim.writes()).toEqual([]);
  });

  it('names the one input a create of an image needs', async () => {
    const run = await runInProcess(world, {
      inputs: baseInputs(world.sim, { name: 'edge-agent', source: 'external_docker' }),
    });

    expect(run.errors).toEqual([
      "'edge-agent' does not exist yet, and creating it needs an input not given; nothing was written. Input 'image-uri' is required to create an external_docker deployment: give the image to run.",
    ]);
    expect(world.sim.writes()).toEqual([]);
  });

  it('fails the step on BUILD_FAILED, keeps the ids in the outputs and names the status in the summary', async () => {
    const { sim } = world;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'BUILDING', ms: 100 },
      { status: 'BUILD_FAILED' },
    ]);

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'deployment-id': target.id,
      'revision-status': 'BUILD_FAILED',
      'revision-id': sim.deployment(target.id)!.latest_revision_id!,
    });
    expect(run.outputs['revision-id']).not.toBe(target.active_revision_id);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('BUILD_FAILED');
    expect(run.summary).toContain('BUILD\\_FAILED');
    expect(run.summary).toContain('Failed in: build. Next: Read the revision');
  });

  it('ends no-change, green, without polling, when the PATCH yields no new revision', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.patchCreatesRevision = false;

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'no-change', 'revision-created': 'false' });
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(0);
  });

  it('ends submitted without polling when wait is false', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: codehost('my-agent', { wait: 'false' }) });

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'submitted', 'revision-created': 'true' });
    expect(run.outputs.duration).toBeUndefined();
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(0);
  });

  it('times out at the deadline on a revision stuck in BUILDING, whatever the timeout', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILDING' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { timeout: '30m', 'poll-interval': '10s' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(run.errors.join()).toContain('still BUILDING when timeout 30m ran out');
    // The wait ends on the deadline itself: the whole run is the timeout, to the millisecond.
    expect(run.ms).toBe(30 * 60_000);
    expect(Number(run.outputs.duration)).toBe(30 * 60);
  });

  it('a dry run plans the very call a run would send, and sends no write', async () => {
    const { sim } = world;
    const dep = sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'dry-run': 'true' }) });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('planned');
    expect(run.report.plan).toMatchObject({
      action: 'update',
      method: 'PATCH',
      path: `/v2/deployments/${dep.id}`,
    });
    expect(run.stdout).toContain(`PATCH ${sim.url}/v2/deployments/${dep.id}`);
    expect(sim.writes()).toEqual([]);
  });
});
