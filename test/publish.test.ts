// The edge's last step in-process, with renderers that throw: a render that fails (a bug, or data no test foresaw)
// still leaves a summary, a comment, the outputs and the GitHub Deployment's final state. The hostile suite shows the
// case that used to throw (a spread over data-sized arrays) through dist/; here the guard itself.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { useGitHub } from './helpers/github.ts';
import { codehostInputs, useSimulator } from './helpers/setup.ts';

vi.mock('../src/report/summary.ts', async (importActual) => ({
  ...(await importActual<typeof import('../src/report/summary.ts')>()),
  renderSummary: () => Math.max(...new Array<number>(1_000_000).fill(0)),
  renderComment: () => {
    throw new RangeError('a renderer that throws');
  },
}));

const ctx = useSimulator();
const github = useGitHub();
let dir: string;
const saved = { ...process.env };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'publish-'));
});
afterEach(() => {
  process.env = { ...saved };
  process.exitCode = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('a render that throws still gives a summary, a comment and the GitHub Deployment’s final state', async () => {
  const { sim } = ctx;
  sim.addDeployment({ name: 'my-agent' });
  const files = { output: join(dir, 'output'), summary: join(dir, 'summary') };
  const event = join(dir, 'event.json');
  for (const file of Object.values(files)) writeFileSync(file, '');
  writeFileSync(event, JSON.stringify({ number: 7, pull_request: { number: 7 } }));
  const inputs = codehostInputs(sim, 'my-agent', {
    'github-token': 'ghs_test',
    environment: 'preview',
    'pr-comment': 'true',
  });
  for (const [name, value] of Object.entries(inputs))
    process.env[`INPUT_${name.toUpperCase()}`] = value;
  Object.assign(process.env, {
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/agent',
    GITHUB_SHA: 'a'.repeat(40),
    GITHUB_API_URL: github.gh.url,
  });
  const { run } = await import('../src/main.ts');

  await run();

  expect(readFileSync(files.output, 'utf8')).toMatch(/^result<<.*\ndeployed\n/m);
  const fallback = /^### ✅ Deployed\n\nResult: `deployed`. The details could not be rendered here/;
  expect(readFileSync(files.summary, 'utf8')).toMatch(fallback);
  const [comment] = github.gh.commentsOn(7);
  expect(comment?.body).toMatch(/^<!-- agent-deploy-action:my-agent -->\n### ✅ Deployed\n/);
  expect(github.gh.deployments[0]?.statuses.map((s) => s.state)).toEqual([
    'in_progress',
    'success',
  ]);
  expect(process.exitCode).toBeUndefined();
});
