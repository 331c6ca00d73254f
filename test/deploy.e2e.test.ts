import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { baseInputs, INTEGRATION, useSimulator, codehostInputs } from './helpers/setup.ts';

const ctx = useSimulator();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(ctx.sim, name, extra);

describe('deploy', () => {
  it('creates a missing deployment with the repository the integration lists for GITHUB_REPOSITORY', async () => {
    const { sim } = ctx;
    sim.addRepository(INTEGRATION, { owner: 'someone', name: 'else' });
    sim.addRepository(INTEGRATION, {
      owner: 'Acme',
      name: 'Agent',
      url: 'https://codehost.example/Acme/Agent',
    });

    const run = await runAction({ inputs: codehost('my-agent') });

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
    const headers = posts[0]!.headers;
    expect(headers['x-api-key']).toBe('test-api-key');
    expect(headers['content-type']).toBe('application/json');
    expect(headers.accept).toBe('application/json');
    expect(headers['user-agent']).toMatch(/^agent-deploy-action\/\d+\.\d+\.\d+/);
  });

  it('updates the exact name found on the third of several pages, and reports the old active revision', async () => {
    const { sim } = ctx;
    sim.addDeployments(210, (i) => `my-agent-old-${i}`);
    const target = sim.addDeployment({ name: 'my-agent' });
    const oldActive = target.active_revision_id!;
    sim.addDeployments(39, (i) => `x-my-agent-${i}`);

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    const lookups = sim.requestsTo('GET', '/v2/deployments').filter((r) => r.query.name_contains);
    expect(
      lookups.map((r) => [r.query.name_contains, r.query.limit, r.query.offset ?? '0']),
    ).toEqual([
      ['my-agent', '100', '0'],
      ['my-agent', '100', '100'],
      ['my-agent', '100', '200'],
      // The empty page ends the listing: a short one may only be a server's cap.
      ['my-agent', '100', '250'],
    ]);
    const patches = sim.requestsTo('PATCH');
    expect(patches.map((r) => r.path)).toEqual([`/v2/deployments/${target.id}`]);
    expect(patches[0]!.body).toEqual({
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    });
    expect(sim.requestsTo('POST')).toHaveLength(0);
    expect(run.outputs).toMatchObject({
      created: 'false',
      'revision-created': 'true',
      result: 'deployed',
      'deployment-id': target.id,
      'previous-revision-id': oldActive,
    });
    expect(run.outputs['revision-id']).not.toBe(oldActive);
    expect(sim.deployment(target.id)!.active_revision_id).toBe(run.outputs['revision-id']);
  });

  it('fails the step on BUILD_FAILED, keeps the ids in the outputs and names the status in the summary', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'BUILDING', ms: 100 },
      { status: 'BUILD_FAILED' },
    ]);

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'deployment-id': target.id,
      'revision-status': 'BUILD_FAILED',
    });
    expect(run.outputs['revision-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.errors.join('\n')).toContain('BUILD_FAILED');
    expect(run.summary).toContain('BUILD\\_FAILED');
    expect(run.summary).toContain('Failed in: build. Next: Read the revision');
  });

  it('ends no-change, green, without polling, when the PATCH yields no new revision', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.patchCreatesRevision = false;

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'no-change', 'revision-created': 'false' });
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(0);
  });

  it('sends no PATCH when no input sets a field of an existing docker deployment', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({
      name: 'edge-agent',
      source: 'external_docker',
      source_revision_config: { image_uri: 'registry.example/edge:v1' },
    });

    const run = await runAction({ inputs: baseInputs(sim, { name: 'edge-agent' }) });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'no-change',
      'revision-id': target.latest_revision_id!,
      'revision-created': 'false',
    });
  });

  it('times out close to the deadline on a revision stuck in BUILDING', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILDING' }]);

    const run = await runAction({ inputs: codehost('my-agent', { timeout: '3s' }) });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'timed-out', 'revision-status': 'BUILDING' });
    expect(run.errors.join()).toContain('still BUILDING');
    expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(2.9);
    expect(Number(run.outputs.duration)).toBeLessThan(4);
  });

  it.each([
    ['SKIPPED', 'false', 1, 'skipped'],
    ['SKIPPED', 'true', 0, 'skipped'],
    ['INTERRUPTED', 'false', 1, 'failed'],
  ])(
    'a revision ending %s with allow-skipped %s exits %i with result %s',
    async (status, allow, code, result) => {
      const { sim } = ctx;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status }]);

      const run = await runAction({ inputs: codehost('my-agent', { 'allow-skipped': allow }) });

      expect(run.code).toBe(code);
      expect(run.outputs.result).toBe(result);
    },
  );

  it('waits through a status it does not know, logging it once', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 50 },
      { status: 'WARMING_UP', ms: 1500 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    expect(run.stdout.match(/WARMING_UP is not one this action knows/g)).toHaveLength(1);
  });

  it('ends submitted without polling when wait is false', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({ inputs: codehost('my-agent', { wait: 'false' }) });

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'submitted', 'revision-created': 'true' });
    expect(sim.requestsTo('GET', /\/revisions\//)).toHaveLength(0);
  });

  it('refuses two deployments with exactly the name, listing both ids, writing nothing', async () => {
    const { sim } = ctx;
    const a = sim.addDeployment({ name: 'twin' });
    const b = sim.addDeployment({ name: 'twin' });
    sim.addDeployment({ name: 'twin-2' });

    const run = await runAction({ inputs: codehost('twin') });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(a.id);
    expect(run.errors[0]).toContain(b.id);
    expect(sim.writes()).toEqual([]);
  });

  it('writes a readable summary: result, ids, ref, commit and the status timeline', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 400 },
      { status: 'BUILDING', ms: 1000 },
      { status: 'DEPLOYING', ms: 1000 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runAction({ inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    const s = run.summary;
    expect(s).toContain('### ✅ Deployed: my-agent');
    expect(s).toContain(`| Deployment | my-agent (\`${target.id}\`) |`);
    expect(s).toContain(`| Revision | \`${run.outputs['revision-id']}\` (new) |`);
    expect(s).toContain('| Ref | `main` |');
    expect(s).toContain(`| Commit | \`${run.outputs['commit-sha']}\` |`);
    const timeline = [...s.matchAll(/^\| `(\w+)` \| \+(\d+\.\d) s \| (\d+\.\d s|—) \|$/gm)].map(
      (m) => m[1],
    );
    expect(timeline).toEqual(['QUEUED', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    expect(s).toMatch(/^\| `DEPLOYED` \| \+\d+\.\d s \| — \|$/m);
  });
});

describe('status', () => {
  it('reads only and reports the latest revision', async () => {
    const { sim } = ctx;
    const target = sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: baseInputs(sim, { command: 'status', name: 'my-agent' }),
    });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      'deployment-id': target.id,
      'revision-id': target.latest_revision_id!,
      'revision-status': 'DEPLOYED',
      result: 'deployed',
    });
  });

  it('fails when the deployment does not exist', async () => {
    const run = await runAction({
      inputs: baseInputs(ctx.sim, { command: 'status', name: 'ghost' }),
    });
    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain("No deployment is named 'ghost'");
  });
});
