// command: promote (issue 20): the source's active DEPLOYED revision, its commit or its image, deployed to the target
// and checked as deploy checks, with every check that needs no write before the first write. Every case ends by
// checking that the source was never written to.
import { getOctokit } from '@actions/github';
import { afterEach, describe, expect, it } from 'vitest';
import { useGitHub } from '../helpers/github.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, INTEGRATION } from '../helpers/setup.ts';
import type { Deployment } from '../simulator/server.ts';

const world = useWorld();
const github = useGitHub();
/** The source of the test, and how many revisions it was seeded with. */
let source: { id: string; revisions: number } | undefined;

/** A promote from `from` to `name`, and anything else. */
const promote = (from: string, name: string, extra: Record<string, string> = {}) =>
  baseInputs(world.sim, { command: 'promote', from, name, timeout: '30s', ...extra });

/** The source as seeded: its active revision and what it carries. */
function seedSource(d: Parameters<typeof world.sim.addDeployment>[0]): {
  dep: Deployment;
  revisionId: string;
  commit: string | null;
  image: string | null;
} {
  const { sim } = world;
  const dep = sim.addDeployment(d);
  source = { id: dep.id, revisions: sim.revisions(dep.id).length };
  const revisionId = dep.active_revision_id ?? '';
  const config = sim.revision(dep.id, revisionId)?.source_revision_config;
  return {
    dep,
    revisionId,
    commit: config?.repo_commit_sha ?? null,
    image: config?.image_uri ?? null,
  };
}

/** The source is never written to: no write names it, and it holds the revisions it was seeded with. */
afterEach(() => {
  if (!source) return;
  const { sim } = world;
  const { id, revisions } = source;
  source = undefined;
  expect(sim.writes().filter((r) => r.path.includes(id))).toEqual([]);
  expect(sim.revisions(id)).toHaveLength(revisions);
});

const patches = () => world.sim.requestsTo('PATCH', /^\/v2\/deployments\//);

describe('promote, codehost', () => {
  it("sends the source revision's commit as repo_ref and ends deployed, built from that commit", async () => {
    const { sim } = world;
    const staging = seedSource({
      name: 'agent-staging',
      source_revision_config: { repo_ref: 'main', graph_config_path: 'agents/graph.json' },
    });
    const prod = sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.errors).toEqual([]);
    expect(staging.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(patches()).toHaveLength(1);
    expect(patches()[0]!.path).toBe(`/v2/deployments/${prod.id}`);
    expect(patches()[0]!.body).toEqual({
      source_revision_config: { repo_ref: staging.commit, graph_config_path: 'agents/graph.json' },
    });
    const revisionId = sim.deployment(prod.id)!.active_revision_id!;
    expect(sim.revision(prod.id, revisionId)!.source_revision_config.repo_commit_sha).toBe(
      staging.commit,
    );
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'deployment-id': prod.id,
      'revision-id': revisionId,
      'revision-created': 'true',
      'commit-sha': staging.commit,
      'promoted-from': staging.dep.id,
      'source-revision-id': staging.revisionId,
    });
    expect(run.summary).toContain('### ✅ Promoted: agent-prod');
    expect(run.summary).toContain(
      `| Promoted from | agent-staging (revision \`${staging.revisionId}\`, commit \`${staging.commit}\`) |`,
    );
  });

  it('creates a missing target from the repository and integration of the source, by the source uuid', async () => {
    const { sim } = world;
    const staging = seedSource({
      name: 'agent-staging',
      source_config: { repo_url: 'https://codehost.example/acme/agent' },
    });

    const run = await runInProcess(world, {
      inputs: promote(staging.dep.id, 'agent-prod', { 'graph-config-path': 'prod/graph.json' }),
    });

    expect(run.errors).toEqual([]);
    const creates = sim.requestsTo('POST', '/v2/deployments');
    expect(creates).toHaveLength(1);
    expect(creates[0]!.body).toMatchObject({
      name: 'agent-prod',
      source: 'codehost',
      source_config: {
        integration_id: INTEGRATION,
        repo_url: 'https://codehost.example/acme/agent',
      },
      source_revision_config: { repo_ref: staging.commit, graph_config_path: 'prod/graph.json' },
    });
    // Nothing to look up: the repository is the source's, not one found for GITHUB_REPOSITORY.
    expect(sim.requestsTo('GET', /\/repos$/)).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      created: 'true',
      'commit-sha': staging.commit,
      'promoted-from': staging.dep.id,
    });
  });

  it('fails naming both commits when the build is of another commit', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const prod = sim.addDeployment({ name: 'agent-prod' });
    const before = prod.active_revision_id;
    const other = 'b'.repeat(40);
    sim.builtCommits = [other];

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      result: 'failed',
      'revision-status': 'DEPLOYED',
      'commit-sha': other,
      'promoted-from': staging.dep.id,
      'source-revision-id': staging.revisionId,
    });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `was built from commit ${other}, not from commit ${staging.commit}`,
    );
    expect(run.errors[0]).toContain(`of revision ${staging.revisionId} of 'agent-staging'`);
    expect(run.report.failure?.phase).toBe('build');
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(sim.requestsTo('POST')).toEqual([]);
    // Not rolled back without rollback-on-failure: the other commit is what serves now.
    expect(sim.deployment(prod.id)!.active_revision_id).not.toBe(before);
  });

  it('rolls a build of another commit back with rollback-on-failure, as an unhealthy revision', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const prod = sim.addDeployment({ name: 'agent-prod' });
    const before = prod.active_revision_id!;
    sim.builtCommits = ['c'.repeat(40)];

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', { 'rollback-on-failure': 'true' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('rolled-back');
    expect(run.errors[0]).toContain(`not from commit ${staging.commit}`);
    expect(run.errors[0]).toContain(`rolled back to revision ${before}, which is DEPLOYED again`);
    expect(run.report.failure?.phase).toBe('build');
    expect(
      sim.requestsTo('POST', `/v2/deployments/${prod.id}/revisions/${before}/redeploy`),
    ).toHaveLength(1);
    expect(sim.deployment(prod.id)!.active_revision_id).toBe(before);
  });

  it('says what was sent when the service refuses a commit sha as repo_ref', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const prod = sim.addDeployment({ name: 'agent-prod' });
    sim.fault({
      method: 'PATCH',
      status: 422,
      body: {
        detail: [
          {
            loc: ['body', 'source_revision_config', 'repo_ref'],
            msg: 'not a branch or tag',
            type: 'value_error',
          },
        ],
      },
    });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-created': 'false' });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`PATCH /v2/deployments/${prod.id} failed: HTTP 422`);
    expect(run.errors[0]).toContain('not a branch or tag');
    expect(run.errors[0]).toContain(
      `Promote sent repo_ref '${staging.commit}', the commit of revision ${staging.revisionId} of 'agent-staging'`,
    );
    expect(run.errors[0]).toContain('Tag that commit and deploy the tag');
    expect(sim.revisions(prod.id)).toHaveLength(1);
  });

  it('prints the resolved PATCH in a dry run and writes nothing', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const prod = sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', { 'dry-run': 'true' }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'planned',
      'promoted-from': staging.dep.id,
      'source-revision-id': staging.revisionId,
    });
    expect(sim.writes()).toEqual([]);
    expect(run.stdout).toContain(`PATCH ${sim.url}/v2/deployments/${prod.id}`);
    expect(run.stdout).toContain(`"repo_ref": "${staging.commit}"`);
    expect(run.summary).toContain(`"repo_ref": "${staging.commit}"`);
  });
});

describe('promote, docker', () => {
  it('copies image_uri byte for byte', async () => {
    const { sim } = world;
    // Case, a port, a digest and characters a normaliser might touch: all sent as they are.
    const image = 'Registry.Example:5000/Team/agent_x@sha256:' + '0123456789abcdef'.repeat(4);
    const staging = seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: image },
    });
    const prod = sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.errors).toEqual([]);
    expect(staging.image).toBe(image);
    expect(patches()).toHaveLength(1);
    expect(patches()[0]!.body).toEqual({ source_revision_config: { image_uri: image } });
    const revisionId = sim.deployment(prod.id)!.active_revision_id!;
    expect(sim.revision(prod.id, revisionId)!.source_revision_config.image_uri).toBe(image);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'revision-id': revisionId,
      'promoted-from': staging.dep.id,
      'source-revision-id': staging.revisionId,
    });
    expect(run.summary).toContain(`image \`${image}\``);
  });
});

describe('promote, refused before any write', () => {
  it('a source without an active revision', async () => {
    const { sim } = world;
    seedSource({ name: 'agent-staging', activeRevision: false });
    sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toContain("Deployment 'agent-staging'");
    expect(run.errors[0]).toContain('has no active revision, so there is nothing to promote');
    expect(sim.writes()).toEqual([]);
  });

  it('a source whose active revision is not DEPLOYED', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const failed = sim.addRevision(staging.dep.id, [{ status: 'DEPLOY_FAILED' }]);
    sim.activate(staging.dep.id, failed.id);
    sim.addDeployment({ name: 'agent-prod' });
    source = { id: staging.dep.id, revisions: 2 };

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(
      `Revision ${failed.id}, the active revision of 'agent-staging', is DEPLOY_FAILED, not DEPLOYED`,
    );
    expect(run.outputs).not.toHaveProperty('source-revision-id');
    expect(
      sim.requestsTo('GET', `/v2/deployments/${staging.dep.id}/revisions/${failed.id}`),
    ).toHaveLength(1);
    expect(sim.writes()).toEqual([]);
  });

  it('a target of another kind (codehost to docker)', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(
      "Target 'agent-prod' has source 'external_docker' and 'agent-staging' has 'codehost'",
    );
    // Known by then, so set: which revision would have been promoted.
    expect(run.outputs['source-revision-id']).toBe(staging.revisionId);
    expect(sim.writes()).toEqual([]);
  });

  it('a target of another kind (docker to codehost)', async () => {
    const { sim } = world;
    seedSource({ name: 'agent-staging', source: 'external_docker' });
    sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(
      "has source 'codehost' and 'agent-staging' has 'external_docker'",
    );
    expect(sim.writes()).toEqual([]);
  });

  it('a source revision without repo_commit_sha', async () => {
    const { sim } = world;
    seedSource({ name: 'agent-staging' });
    sim.addDeployment({ name: 'agent-prod' });
    sim.fault({
      method: 'GET',
      path: /\/revisions\//,
      transform: (body) => ({
        ...body,
        source_revision_config: { ...body.source_revision_config, repo_commit_sha: null },
      }),
    });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain('has no repo_commit_sha');
    expect(sim.writes()).toEqual([]);
  });

  it('a target that is the source', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', { 'deployment-id': staging.dep.id, name: '' }),
    });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain('from and the target both name deployment');
    expect(sim.writes()).toEqual([]);
  });

  it('a source that does not exist', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, { inputs: promote('agent-stagign', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain("Input 'from': no deployment is named 'agent-stagign'");
    expect(sim.writes()).toEqual([]);
  });

  it.each([
    [{ from: '' }, "Input 'from' is required for command 'promote'"],
    [{ 'repo-ref': 'main' }, "Input 'repo-ref' cannot be used with command 'promote'"],
    [
      { 'image-uri': 'registry.example/a:1' },
      "Input 'image-uri' cannot be used with command 'promote'",
    ],
    [{ 'from-revision-id': 'latest' }, 'Input \'from-revision-id\': "latest" is not a uuid'],
    [
      { command: 'deploy', 'from-revision-id': '22222222-2222-4222-8222-222222222222' },
      "Input 'from-revision-id' applies to command promote, not 'deploy'",
    ],
    [
      {
        name: '',
        deployments: '[{"name": "agent-prod", "from": "agent-staging"}]',
        'from-revision-id': '22222222-2222-4222-8222-222222222222',
      },
      "Input 'from-revision-id' cannot be used with deployments",
    ],
  ])('inputs %o, before any request', async (extra, message) => {
    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', extra),
    });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(message);
    expect(world.sim.requests).toEqual([]);
  });
});

describe('promote from-revision-id: the revision that was evaluated, not the active one', () => {
  it('promotes that revision after the source moved on (a later push went live on it)', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const prod = sim.addDeployment({ name: 'agent-prod' });
    // The pull request got another push after the evaluation: a newer revision is active on the source now.
    const later = sim.addRevision(staging.dep.id, [{ status: 'DEPLOYED' }], {
      repo_ref: 'feature',
    });
    source = { id: staging.dep.id, revisions: 2 };
    expect(sim.deployment(staging.dep.id)!.active_revision_id).toBe(later.id);

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', { 'from-revision-id': staging.revisionId }),
    });

    expect(run.errors).toEqual([]);
    expect(patches().map((r) => [r.path, r.body])).toEqual([
      [
        `/v2/deployments/${prod.id}`,
        {
          source_revision_config: { repo_ref: staging.commit, graph_config_path: 'graph.json' },
        },
      ],
    ]);
    expect(later.source_revision_config.repo_commit_sha).not.toBe(staging.commit);
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'commit-sha': staging.commit,
      'source-revision-id': staging.revisionId,
      'promoted-from': staging.dep.id,
    });
    // Read on the source, by its id: the one read of a source revision.
    expect(
      sim.requestsTo('GET', new RegExp(`^/v2/deployments/${staging.dep.id}/revisions/`)),
    ).toEqual([
      expect.objectContaining({
        path: `/v2/deployments/${staging.dep.id}/revisions/${staging.revisionId}`,
      }),
    ]);
  });

  it('refuses a revision of another deployment (404 on the source), naming from and from-revision-id, before any write', async () => {
    const { sim } = world;
    const staging = seedSource({ name: 'agent-staging' });
    const other = sim.addDeployment({ name: 'agent-other' });
    sim.addDeployment({ name: 'agent-prod' });

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', {
        'from-revision-id': other.active_revision_id!,
      }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('HTTP 404');
    expect(run.errors[0]).toContain(
      `Check from and from-revision-id: ${other.active_revision_id} is not a revision of deployment 'agent-staging' (${staging.dep.id})`,
    );
    expect(run.outputs).not.toHaveProperty('source-revision-id');
    expect(sim.writes()).toEqual([]);
  });

  it.each(['BUILDING', 'BUILD_FAILED'] as const)(
    'refuses a revision that is %s, before any write',
    async (status) => {
      const { sim } = world;
      const staging = seedSource({ name: 'agent-staging' });
      sim.addDeployment({ name: 'agent-prod' });
      const chosen = sim.addRevision(
        staging.dep.id,
        status === 'BUILDING' ? [{ status: 'BUILDING', ms: 3_600_000 }] : [{ status }],
      );
      source = { id: staging.dep.id, revisions: 2 };

      const run = await runInProcess(world, {
        inputs: promote('agent-staging', 'agent-prod', { 'from-revision-id': chosen.id }),
      });

      expect(run.code).toBe(1);
      expect(run.errors).toEqual([
        `Revision ${chosen.id} of 'agent-staging' (from-revision-id) is ${status}, not DEPLOYED: only a revision that went live, and so could be evaluated, is promoted. Wait until it is DEPLOYED, or give the revision your evaluation ran against. Nothing was written.`,
      ]);
      expect(sim.writes()).toEqual([]);
    },
  );
});

describe('promote, docker: the image checked, and pinned by digest', () => {
  const DIGEST = `registry.example/agent@sha256:${'ab12'.repeat(16)}`;

  it('fails naming both images when the new revision runs another image', async () => {
    const { sim } = world;
    const staging = seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: DIGEST },
    });
    const prod = sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });
    const other = `registry.example/agent@sha256:${'cd34'.repeat(16)}`;
    rewriteImages(prod.id, other);

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ result: 'failed', 'revision-status': 'DEPLOYED' });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      `has image ${other}, not image ${DIGEST} of revision ${staging.revisionId} of 'agent-staging', which was promoted`,
    );
    expect(run.report.failure?.phase).toBe('build');
    expect(patches().map((r) => r.body)).toEqual([
      { source_revision_config: { image_uri: DIGEST } },
    ]);
  });

  it('rolls another image back with rollback-on-failure, as another commit is', async () => {
    const { sim } = world;
    seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: DIGEST },
    });
    const prod = sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });
    const before = prod.active_revision_id!;
    rewriteImages(prod.id, 'registry.example/agent:latest', { except: before });

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', { 'rollback-on-failure': 'true' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('rolled-back');
    expect(run.errors[0]).toContain('has image registry.example/agent:latest, not image');
    expect(run.errors[0]).toContain(`rolled back to revision ${before}, which is DEPLOYED again`);
    expect(
      sim.requestsTo('POST', `/v2/deployments/${prod.id}/revisions/${before}/redeploy`),
    ).toHaveLength(1);
  });

  it('warns in the log and the summary when the image has no digest, and promotes it', async () => {
    const { sim } = world;
    const tag = 'registry.example/agent:latest';
    seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: tag },
    });
    sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    const warning = run.lines.filter((l) => l.level === 'warning').map((l) => l.text);
    expect(warning).toEqual([expect.stringContaining(`Image ${tag} of revision`)]);
    expect(warning[0]).toContain('has no digest (@sha256:…)');
    expect(warning[0]).toContain('by digest');
    // Escaped for Markdown there (a zero-width space keeps @sha256 from being a mention).
    expect(run.summary).toContain(`> Image ${tag} of revision`);
    expect(run.summary).toContain('has no digest');
    expect(run.summary).toContain('promote that revision.');
  });

  it('quotes images as long as the service may send cut, so the comment keeps its table', async () => {
    const { sim } = world;
    const image = (tag: string) => `registry.example/agent:${tag.repeat(60_000)}`;
    seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: image('a') },
    });
    const prod = sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });
    rewriteImages(prod.id, image('b'));

    const run = await runInProcess(world, {
      inputs: promote('agent-staging', 'agent-prod', {
        'github-token': 'ghs_test',
        'pr-comment': 'true',
      }),
      env: { GITHUB_EVENT_NAME: 'pull_request' },
      event: { number: 7, pull_request: { number: 7 } },
      github: getOctokit('ghs_test', { baseUrl: github.gh.url }),
    });

    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toMatch(
      /has image registry\.example\/agent:b{400,500}…, not image registry\.example\/agent:a{400,500}… of revision/,
    );
    // Quoted whole, the two images made the failure line, above the table, longer than a comment may be: cut there.
    const [comment] = github.gh.commentsOn(7);
    expect(comment?.body).toContain('| Result | `failed` |');
  });

  it('says nothing of digests for an image pinned by one', async () => {
    const { sim } = world;
    seedSource({
      name: 'agent-staging',
      source: 'external_docker',
      source_revision_config: { image_uri: DIGEST },
    });
    sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.errors).toEqual([]);
    expect(`${run.stdout}${run.summary}`).not.toContain('digest');
  });

  it("refuses a source revision whose image_uri holds a line break: the service's answer is a schema error", async () => {
    const { sim } = world;
    seedSource({ name: 'agent-staging', source: 'external_docker' });
    sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });
    sim.fault({
      method: 'GET',
      path: /\/revisions\//,
      transform: (body) => ({
        ...body,
        source_revision_config: {
          ...body.source_revision_config,
          image_uri: 'registry.example/agent:v1\nregistry.example/evil:v1',
        },
      }),
    });

    const run = await runInProcess(world, { inputs: promote('agent-staging', 'agent-prod') });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(
      "answered with an unexpected body: field 'source_revision_config.image_uri': not an image reference on one line",
    );
    expect(sim.writes()).toEqual([]);
  });

  /** The target's revisions read as running `image` (the service took another one), but for `except`. */
  function rewriteImages(
    deploymentId: string,
    image: string,
    { except }: { except?: string } = {},
  ) {
    world.sim.fault({
      method: 'GET',
      path: new RegExp(`^/v2/deployments/${deploymentId}/revisions/`),
      transform: (body: { id: string; source_revision_config: object }) =>
        body.id === except
          ? body
          : {
              ...body,
              source_revision_config: { ...body.source_revision_config, image_uri: image },
            },
    });
  }
});
