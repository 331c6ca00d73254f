// command: promote through the bundled action as the runner runs it; the other cases run in-process
// (test/commands/promote.test.ts).
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { baseInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

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
  expect(sim.writes().map((r) => [r.method, r.path, r.body])).toEqual([
    [
      'PATCH',
      `/v2/deployments/${prod.id}`,
      { source_revision_config: { repo_ref: commit, graph_config_path: 'graph.json' } },
    ],
  ]);
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
