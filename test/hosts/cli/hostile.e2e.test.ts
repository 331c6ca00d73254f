// Issue 31 through the bundled command line (dist/cli.js) in a GitLab CI job, as a merge request's author or a
// hostile service would attack it, once per sink the command line writes to the job: its two files, planted (a FIFO,
// a symbolic link to a file outside), and the dotenv report of values that a shell would run. The rules themselves
// are tested in-process: each planted file and path in test/hosts/cli/files.test.ts, the dotenv report in
// outputs.test.ts, the merge request pipelines that are not their project's own in test/hosts/gitlab/fork.test.ts,
// the note's GitLab references in notes.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runnerCommands } from '../../helpers/cli.ts';
import { gitLabDotenv, sourced } from '../../helpers/dotenv.ts';
import { PUSH_VARIABLES, useGitLab } from '../../helpers/gitlab.ts';
import { HostileService } from '../../helpers/hostile.ts';
import { API_KEY } from '../../helpers/hostile-checks.ts';
import { INTEGRATION } from '../../helpers/setup.ts';

const fakes = useGitLab();
let service: HostileService;
beforeAll(async () => {
  service = await HostileService.start();
});
beforeEach(() => {
  service.reset();
  // Live at the first read: the statuses are not what these cases attack, and each poll is a second of wall clock.
  service.statuses = ['DEPLOYED'];
});
afterAll(() => service.close());

/** A folder outside the job's working directory, with a file the job's user may write: what must not change. */
let outside: string;
beforeEach(() => {
  outside = mkdtempSync(join(tmpdir(), 'cli-hostile-outside-'));
  writeFileSync(join(outside, 'victim'), 'precious\n');
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));
const victim = () => readFileSync(join(outside, 'victim'), 'utf8');

/** A GitLab CI job of a push to main of acme/agent (project 7), deploying the hostile service's deployment. */
const pushJob = (): Record<string, string> => ({
  ...PUSH_VARIABLES,
  CI_API_V4_URL: fakes.gitlab.apiUrl,
  AGENT_DEPLOY_BASE_URL: service.url,
  AGENT_DEPLOY_API_KEY: API_KEY,
  AGENT_DEPLOY_NAME: service.name,
  AGENT_DEPLOY_INTEGRATION_ID: INTEGRATION,
  AGENT_DEPLOY_GRAPH_CONFIG_PATH: 'graph.json',
  AGENT_DEPLOY_POLL_INTERVAL: '1s',
});

describe('the files a merge request plants where the command line writes', () => {
  it('agent-deploy.env a FIFO (a careless write waits on it forever), agent-deploy-summary.md a symbolic link to a file outside: neither is written, a warning names each', async () => {
    const run = await runCli({
      args: ['deploy'],
      env: pushJob(),
      prepare: (dir) => {
        execFileSync('mkfifo', [join(dir, 'agent-deploy.env')]);
        symlinkSync(join(outside, 'victim'), join(dir, 'agent-deploy-summary.md'));
      },
    });

    expect(victim()).toBe('precious\n');
    expect(run.stderr).toMatch(
      /warning: Could not write the outputs: agent-deploy\.env is not a regular file/,
    );
    expect(run.stderr).toMatch(
      /warning: Could not write the job summary: agent-deploy-summary\.md is a symbolic link, not written/,
    );
    // The deploy happened; the outputs were not handed on: exit 1, as for any file not written.
    expect(run.stderr).toMatch(/Result: deployed/);
    expect(run.code).toBe(1);
    expect(runnerCommands(run)).toEqual([]);
  });
});

describe('the dotenv report of hostile values', () => {
  it('sourced by a real shell sets only what GitLab reads, and runs nothing', async () => {
    service.customUrl = 'https://agent.example/;touch PWNED_SEMI;#';
    // After custom_url and every revision field (repo_commit_sha among them): a second assignment and commands.
    service.padding = ' COMMIT_INJ=1 `touch PWNED_TICK` $(touch PWNED_SUBST) && touch PWNED_AND';

    const run = await runCli({ args: ['deploy'], env: pushJob(), read: ['agent-deploy.env'] });

    const text = run.files['agent-deploy.env']!;
    const gitlab = gitLabDotenv(text);
    expect(gitlab.RESULT).toBeDefined();
    expect(gitlab.CUSTOM_URL).toBeUndefined();
    expect(gitlab.COMMIT_INJ).toBeUndefined();
    expect(run.stderr).toMatch(
      /warning: Output custom-url is left out of agent-deploy\.env: it holds characters a shell would interpret/,
    );
    for (const shell of ['sh', 'bash'] as const) {
      const sourcedBy = sourced(text, shell);
      expect(sourcedBy.stderr, shell).toBe('');
      expect(sourcedBy.files, shell).toEqual([]);
      expect(sourcedBy.variables, shell).toEqual(gitlab);
    }
    expect(runnerCommands(run)).toEqual([]);
  });
});
