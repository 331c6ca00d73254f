// command: promote through the bundled action as the runner runs it: a codehost promotion, from-revision-id, the
// image check and its digest warning, and image-uri refused as an input. The other cases run in-process
// (test/commands/promote.test.ts).
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { baseInputs, useSimulator } from '../../helpers/setup.ts';
import type { Simulator } from '../../simulator/server.ts';

const ctx = useSimulator();

const writes = (sim: Simulator) => sim.writes().map((r) => [r.method, r.path, r.body]);
/** The one write of a codehost promotion: the target's PATCH with the promoted commit as its ref. */
const patchOf = (id: string, commit: string | null) => [
  [
    'PATCH',
    `/v2/deployments/${id}`,
    { source_revision_config: { repo_ref: commit, graph_config_path: 'graph.json' } },
  ],
];

it("promotes a codehost revision: the source's commit sent as repo_ref, deployed from that commit", async () => {
  const { sim } = ctx;
  const staging = sim.addDeployment({ name: 'agent-staging' });
  const prod = sim.addDeployment({ name: 'agent-prod' });
  const sourceRevision = staging.active_revision_id!;
  const commit = sim.revision(staging.id, sourceRevision)!.source_revision_config.repo_commit_sha;

  const run = await runAction({
    inputs: baseInputs(sim, { command: 'promote', from: 'agent-staging', name: 'agent-prod' }),
  });

  expect(run.errors).toEqual([]);
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  expect(writes(sim)).toEqual(patchOf(prod.id, commit));
  expect(run.outputs).toMatchObject({
    result: 'deployed',
    'deployment-id': prod.id,
    'revision-id': sim.deployment(prod.id)!.active_revision_id,
    'commit-sha': commit,
    'promoted-from': staging.id,
    'source-revision-id': sourceRevision,
  });
  expect(run.summary).toContain(
    `| Promoted from | agent-staging (revision \`${sourceRevision}\`, commit \`${commit}\`) |`,
  );
  expect(sim.revisions(staging.id)).toHaveLength(1);
});

it('promotes from-revision-id, the revision that was evaluated, after a later one went live on the source', async () => {
  const { sim } = ctx;
  const preview = sim.addDeployment({ name: 'agent-pr-7' });
  const evaluated = preview.active_revision_id!;
  const commit = sim.revision(preview.id, evaluated)!.source_revision_config.repo_commit_sha;
  sim.addRevision(preview.id, [{ status: 'DEPLOYED' }]);
  const prod = sim.addDeployment({ name: 'agent-prod' });

  const run = await runAction({
    inputs: baseInputs(sim, {
      command: 'promote',
      from: 'agent-pr-7',
      'from-revision-id': evaluated,
      name: 'agent-prod',
    }),
  });

  expect(run.errors).toEqual([]);
  expect(sim.deployment(preview.id)!.active_revision_id).not.toBe(evaluated);
  expect(writes(sim)).toEqual(patchOf(prod.id, commit));
  expect(run.outputs).toMatchObject({
    result: 'deployed',
    'commit-sha': commit,
    'source-revision-id': evaluated,
  });
});

it('docker: fails naming both images when the service runs another, and warns that a tag has no digest', async () => {
  const { sim } = ctx;
  const tag = 'registry.example/agent:latest';
  const staging = sim.addDeployment({
    name: 'agent-staging',
    source: 'external_docker',
    source_revision_config: { image_uri: tag },
  });
  const prod = sim.addDeployment({ name: 'agent-prod', source: 'external_docker' });
  const other = `registry.example/agent@sha256:${'9f'.repeat(32)}`;
  sim.fault({
    method: 'GET',
    path: new RegExp(`^/v2/deployments/${prod.id}/revisions/`),
    transform: (body) => ({
      ...body,
      source_revision_config: { ...body.source_revision_config, image_uri: other },
    }),
  });

  const run = await runAction({
    inputs: baseInputs(sim, { command: 'promote', from: 'agent-staging', name: 'agent-prod' }),
  });

  expect(run.code).toBe(1);
  expect(run.outputs.result).toBe('failed');
  expect(run.errors).toHaveLength(1);
  expect(run.errors[0]).toContain(
    `has image ${other}, not image ${tag} of revision ${staging.active_revision_id} of 'agent-staging'`,
  );
  const warnings = run.stdout.split('\n').filter((l) => l.startsWith('::warning::'));
  expect(warnings).toEqual([expect.stringContaining(`::warning::Image ${tag} of revision`)]);
  expect(warnings[0]).toContain('has no digest (@sha256:…)');
  expect(run.summary).toContain('has no digest');
});

it('refuses an image-uri of two lines, naming the input, before any request', async () => {
  const { sim } = ctx;

  const run = await runAction({
    inputs: baseInputs(sim, {
      name: 'agent-prod',
      'image-uri': 'registry.example/agent:v1\nregistry.example/evil:v1',
    }),
  });

  expect(run.code).toBe(1);
  expect(run.errors).toEqual([
    "Input 'image-uri': the value (50 characters) is not one image reference: it holds white space, a line break or a control character; give the image alone, e.g. registry.example.com/team/agent@sha256:<digest>.",
  ]);
  expect(sim.requests).toEqual([]);
});
