// When it fails, say why, through the bundled action as the runner runs it (issue 24): the one representative case,
// a build that fails after a revision that worked; the rest is in-process in test/deploy/diagnose.test.ts.
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { codehostInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

it('names both refs and commits, and what to look at next, when a build fails after one that worked', async () => {
  const { sim } = ctx;
  const dep = sim.addDeployment({ name: 'my-agent' });
  const good = sim.revision(dep.id, dep.active_revision_id!)!;
  sim.timelines.push([{ status: 'QUEUED', ms: 50 }, { status: 'BUILD_FAILED' }]);

  const run = await runAction({
    inputs: codehostInputs(sim, 'my-agent', { 'repo-ref': 'feature' }),
  });

  const failed = sim.revision(dep.id, sim.deployment(dep.id)!.latest_revision_id!)!;
  const goodSha = good.source_revision_config.repo_commit_sha!;
  const failedSha = failed.source_revision_config.repo_commit_sha!;
  expect(run.code).toBe(1);
  expect(run.outputs).toMatchObject({ result: 'failed', 'revision-status': 'BUILD_FAILED' });
  expect(run.summary).toContain('#### What changed since it last worked');
  expect(run.summary).toContain('| **Ref** (changed) | `main` | `feature` |');
  expect(run.summary).toContain(`| **Commit** (changed) | \`${goodSha}\` | \`${failedSha}\` |`);
  expect(run.stdout).toContain(
    `What changed since it last worked: revision ${good.id} (active before this run, DEPLOYED) → revision ${failed.id} (BUILD_FAILED): ref 'main' → 'feature'; commit '${goodSha}' → '${failedSha}'`,
  );
  expect(run.errors).toEqual([
    expect.stringMatching(
      /ended BUILD_FAILED\. Next: Read the revision's build log .*graph-config-path/,
    ),
  ]);
  expect(sim.requestsTo('GET', `/v2/deployments/${dep.id}/revisions/${good.id}`)).toHaveLength(1);
});
