// A merge request pipeline that is not its project's own, through the command line's host in-process (on the world's
// fake clock, against a fake GitLab): what the GitLab context reads of it (context.test.ts) becomes the same refusals
// as on pull_request_target, in the command line's words, before any request.
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { GITLAB_TOKEN, MERGE_REQUEST_VARIABLES, useGitLab } from '../../helpers/gitlab.ts';
import { useWorld } from '../../helpers/run.ts';
import { baseInputs } from '../../helpers/setup.ts';

const world = useWorld();
const fakes = useGitLab();

/** Merge request !12 of acme/agent (project 7), with GITLAB_TOKEN, and `extra` over it. */
const mergeRequestJob = (extra: Record<string, string | undefined>) => ({
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'acme/agent',
  CI_PROJECT_ID: '7',
  CI_COMMIT_SHA: 'c'.repeat(40),
  ...MERGE_REQUEST_VARIABLES,
  CI_API_V4_URL: fakes.gitlab.apiUrl,
  GITLAB_TOKEN,
  ...extra,
});

describe("a merge request pipeline that is not its project's own", () => {
  it('without CI_MERGE_REQUEST_SOURCE_PROJECT_ID is taken for a fork: preview refused before any request', async () => {
    world.sim.addDeployment({ name: 'my-agent' });

    const run = await runCliInProcess(world, {
      inputs: baseInputs(world.sim, { name: 'my-agent', preview: 'true' }),
      env: mergeRequestJob({ CI_MERGE_REQUEST_SOURCE_PROJECT_ID: undefined }),
    });

    expect(run.code).toBe(2);
    expect(run.failure).toContain(
      "--preview / AGENT_DEPLOY_PREVIEW: preview: true runs in a pull request's own run, not a pipeline for merge request !12 from a fork",
    );
    expect(world.sim.requests).toEqual([]);
    expect(fakes.gitlab.writes()).toEqual([]);
  });

  it("of a fork, run in the parent project: no default repo-ref (the fork's branch), an explicit one is deployed", async () => {
    world.sim.addDeployment({ name: 'my-agent' });
    const env = mergeRequestJob({
      CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99',
      CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result',
    });

    const refused = await runCliInProcess(world, {
      inputs: baseInputs(world.sim, { name: 'my-agent' }),
      env,
    });

    expect(refused.code).toBe(2);
    expect(refused.failure).toMatch(
      /^--repo-ref \/ AGENT_DEPLOY_REPO_REF is required on a pipeline for merge request !12 from a fork/,
    );
    expect(world.sim.requests).toEqual([]);

    const given = await runCliInProcess(world, {
      inputs: baseInputs(world.sim, { name: 'my-agent', 'repo-ref': 'main' }),
      env,
    });

    expect(given.outputs.result).toBe('deployed');
    const patch = world.sim.writes().find((request) => request.method === 'PATCH');
    expect(patch?.body).toMatchObject({ source_revision_config: { repo_ref: 'main' } });
  });
});
