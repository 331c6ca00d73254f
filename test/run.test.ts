// Whole runs (src/run.ts) as a user reads them: a result and a summary on every run, the usual mistakes of a new
// user ending in one message that points at the fix, and a failure line that carries the summary's next step.
import { getOctokit } from '@actions/github';
import { describe, expect, it } from 'vitest';
import { esc } from '../src/shared/markdown.ts';
import { useGitHub } from './helpers/github.ts';
import { runInProcess, useWorld } from './helpers/run.ts';
import { baseInputs, codehostInputs } from './helpers/setup.ts';

const world = useWorld();
const github = useGitHub();
const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);

describe('the summary', () => {
  it('writes a readable summary: result, ids, ref, commit and the status timeline', async () => {
    const { sim } = world;
    const target = sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([
      { status: 'QUEUED', ms: 400 },
      { status: 'BUILDING', ms: 1000 },
      { status: 'DEPLOYING', ms: 1000 },
      { status: 'DEPLOYED' },
    ]);

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.code).toBe(0);
    const s = run.summary;
    expect(s).toContain('### ✅ Deployed: my-agent');
    expect(s).toContain(`| Deployment | my-agent (\`${target.id}\`) |`);
    expect(s).toContain(`| Revision | \`${run.outputs['revision-id']}\` (new) |`);
    expect(s).toContain('| Ref | `main` |');
    expect(s).toContain(`| Commit | \`${run.outputs['commit-sha']}\` |`);
    // Reads 0.25 s, 0.75 s, 1.75 s and 2.75 s after the PATCH (gaps growing to poll-interval), on the fake clock.
    expect(s).toContain(
      [
        '| `QUEUED` | +0.0 s | 0.8 s |',
        '| `BUILDING` | +0.8 s | 1.0 s |',
        '| `DEPLOYING` | +1.8 s | 1.0 s |',
        '| `DEPLOYED` | +2.8 s | — |',
      ].join('\n'),
    );
    expect(s).toContain('| Waited | 2.8 s |');
  });
});

describe('errors that point at the cause', () => {
  it('a base-url with a path of its own names base-url and the full URL requested; nothing is written', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'base-url': `${sim.url}/api` }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`GET ${sim.url}/api/v2/deployments failed: HTTP 404`);
    expect(run.errors[0]).toContain('Check base-url');
    expect(run.errors[0]).not.toContain('Check the id');
    expect(sim.writes()).toEqual([]);
  });

  it("reduces a proxy's HTML error page to its content type and title", async () => {
    const { sim } = world;
    sim.fault({
      method: 'GET',
      status: 404,
      contentType: 'text/html; charset=utf-8',
      rawBody: `<!DOCTYPE html><html><head><title>404 Not Found</title><style>${'b{}'.repeat(500)}</style></head><body><h1>nginx</h1></body></html>`,
    });

    const run = await runInProcess(world, { inputs: codehost('my-agent') });

    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      'an HTML page (text/html; charset=utf-8, titled "404 Not Found")',
    );
    expect(run.errors[0]).toContain('Check base-url');
    expect(run.errors[0]).not.toContain('<');
    expect(run.errors[0]!.length).toBeLessThan(400);
  });

  it('a timeout given in seconds is named with its value', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);

    const run = await runInProcess(world, { inputs: codehost('my-agent', { timeout: '3' }) });

    expect(run.outputs.result).toBe('timed-out');
    expect(run.errors[0]).toContain('was still BUILDING when timeout 3s ran out');
    expect(run.ms).toBe(3000);
  });

  it('a source mismatch caused by image-uri names image-uri', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { name: 'my-agent', 'image-uri': 'registry.example/agent:1' }),
    });

    expect(run.code).toBe(1);
    expect(run.errors[0]).toContain(
      "has source 'codehost', but image-uri implies source 'external_docker'",
    );
    expect(run.errors[0]).toContain('Drop image-uri');
    expect(sim.writes()).toEqual([]);
  });

  it("a message quoting the service's data whole is cut as the log's line is: the comment keeps its table", async () => {
    const { sim } = world;
    // A source as long as the service may send one (64 KiB a string): the mismatch's message quotes it.
    sim.addDeployment({ name: 'my-agent', source: 's'.repeat(60_000) as 'codehost' });

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, {
        name: 'my-agent',
        'image-uri': 'registry.example/agent:1',
        'github-token': 'ghs_test',
        'pr-comment': 'true',
      }),
      env: { GITHUB_EVENT_NAME: 'pull_request' },
      event: { number: 7, pull_request: { number: 7 } },
      github: getOctokit('ghs_test', { baseUrl: github.gh.url }),
    });

    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toMatch(/^Deployment 'my-agent' has source 's+…/);
    const failure = run.summary.split('\n').find((line) => line.startsWith('**'));
    expect(failure!.length).toBeLessThan(4100);
    // Whole, the failure line above the table was longer than a comment may be, and the comment was cut there.
    const [comment] = github.gh.commentsOn(7);
    expect(comment?.body).toContain('| Result | `failed` |');
    expect(sim.writes()).toEqual([]);
  });
});

describe('a result and a summary on every run', () => {
  it('a 401 gives result=failed and a summary that says what to check', async () => {
    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'api-key': 'wrong-key' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.summary).toContain('### ❌ Failed: my-agent');
    expect(run.summary).toContain('HTTP 401');
    expect(run.summary).toContain('api-key');
  });

  it('an invalid input gives result=failed and a summary naming the input and the accepted form', async () => {
    const run = await runInProcess(world, { inputs: codehost('my-agent', { wait: 'yes' }) });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.summary).toContain('Input \'wait\': "yes" is not a boolean; use true or false.');
    expect(run.summary).toContain('Failed in: inputs');
    expect(world.sim.requests).toEqual([]);
  });
});

describe('the failure line', () => {
  it.each(['BUILD_FAILED', 'DEPLOY_FAILED'])(
    'of a revision that ended %s says what to look at next, as the summary does',
    async (status) => {
      const { sim } = world;
      sim.addDeployment({ name: 'my-agent' });
      sim.timelines.push([{ status: 'BUILDING', ms: 2000 }, { status }]);

      const run = await runInProcess(world, { inputs: codehostInputs(sim, 'my-agent') });

      const next = run.report.failure?.next ?? '';
      expect(next).not.toBe('');
      const revision = run.outputs['revision-id'];
      expect(run.errors).toEqual([`Revision ${revision} ended ${status}. Next: ${next}`]);
      expect(run.summary).toContain(`Next: ${esc(next)}`);
    },
  );

  it('of a timed-out revision says what to do about the time', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);

    const run = await runInProcess(world, {
      inputs: codehostInputs(sim, 'my-agent', { timeout: '20s' }),
    });

    expect(run.errors[0]).toMatch(
      /was still BUILDING when timeout 20s ran out\. Next: The revision keeps going on the service\. The build was still running: raise timeout/,
    );
  });
});
