// The run's last step with renderers that throw: a render that fails (a bug, or data no test foresaw) still leaves a
// summary, a comment, the outputs and the GitHub Deployment's final state. The hostile suite shows the case that used
// to throw (a spread over data-sized arrays) through dist/; here the guard itself.
import { getOctokit } from '@actions/github';
import { expect, it, vi } from 'vitest';
import { useGitHub } from '../helpers/github.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

vi.mock('../../src/report/summary.ts', async (importActual) => ({
  ...(await importActual<typeof import('../../src/report/summary.ts')>()),
  renderSummary: () => Math.max(...new Array<number>(1_000_000).fill(0)),
  renderComment: () => {
    throw new RangeError('a renderer that throws');
  },
}));

const world = useWorld();
const github = useGitHub();

it('a render that throws still gives a summary, a comment and the GitHub Deployment’s final state', async () => {
  const { sim } = world;
  sim.addDeployment({ name: 'my-agent' });

  const run = await runInProcess(world, {
    inputs: codehostInputs(sim, 'my-agent', {
      'github-token': 'ghs_test',
      environment: 'preview',
      'pr-comment': 'true',
    }),
    env: { GITHUB_EVENT_NAME: 'pull_request' },
    event: { number: 7, pull_request: { number: 7 } },
    github: getOctokit('ghs_test', { baseUrl: github.gh.url }),
  });

  expect(run.code).toBe(0);
  expect(run.outputs.result).toBe('deployed');
  const fallback = /^### ✅ Deployed\n\nResult: `deployed`. The details could not be rendered here/;
  expect(run.summary).toMatch(fallback);
  const [comment] = github.gh.commentsOn(7);
  expect(comment?.body).toMatch(/^<!-- agent-deploy-action:my-agent -->\n### ✅ Deployed\n/);
  expect(github.gh.deployments[0]?.statuses.map((s) => s.state)).toEqual([
    'in_progress',
    'success',
  ]);
  const warnings = run.lines.filter((l) => l.level === 'warning').map((l) => l.text);
  expect(warnings).toEqual([
    expect.stringMatching(
      /^Could not render the job summary \(RangeError: .*\); a short one stands in\.$/,
    ),
    'Could not render the pull request comment (RangeError: a renderer that throws); a short one stands in.',
  ]);
});
