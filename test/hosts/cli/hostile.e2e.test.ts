// Issue 31 through the bundled command line (dist/cli.js) in a GitLab CI job, as a merge request's author or a
// hostile service would attack it, once per sink the command line writes to the job: its two files, planted (a FIFO,
// a symbolic link to a file outside), the dotenv report of values that a shell would run, and each GitLab item of
// issue 31 once (a merge request pipeline that is not its project's own, the note's GitLab references). The rules
// themselves are tested in-process: each planted file and path in test/hosts/cli/files.test.ts, the dotenv report in
// outputs.test.ts, the pipelines in test/hosts/gitlab/fork.test.ts, the note's references in notes.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runnerCommands } from '../../helpers/cli.ts';
import { gitLabDotenv, sourced } from '../../helpers/dotenv.ts';
import {
  GITLAB_TOKEN,
  gitLabReferences,
  MERGE_REQUEST_VARIABLES,
  PUSH_VARIABLES,
  quickActions,
  useGitLab,
} from '../../helpers/gitlab.ts';
import { HostileService } from '../../helpers/hostile.ts';
import {
  API_KEY,
  htmlFromData,
  linksFromData,
  liveMentions,
} from '../../helpers/hostile-checks.ts';
import { INTEGRATION } from '../../helpers/setup.ts';

const fakes = useGitLab();
let service: HostileService;
beforeAll(async () => {
  service = await HostileService.start();
});
beforeEach(() => {
  service.reset();
  // Live at the first read: the statuses are not what these cases attack, and the polls between them are wall clock.
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

/** The same project's merge request !12, with GITLAB_TOKEN. */
const mergeRequestJob = (): Record<string, string> => ({
  ...pushJob(),
  ...MERGE_REQUEST_VARIABLES,
  GITLAB_TOKEN,
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

describe("a merge request pipeline that is not its project's own", () => {
  it('without CI_MERGE_REQUEST_SOURCE_PROJECT_ID is taken for a fork: preview refused before any request', async () => {
    const env = mergeRequestJob();
    delete env.CI_MERGE_REQUEST_SOURCE_PROJECT_ID;

    const run = await runCli({ args: ['deploy', '--preview', 'true'], env });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--preview / AGENT_DEPLOY_PREVIEW: preview: true runs in a pull request's own run, not a pipeline for merge request !12 from a fork",
    );
    expect(service.requests).toEqual([]);
    expect(fakes.gitlab.writes()).toEqual([]);
  });

  it("of a fork, run in the parent project: no default repo-ref (the fork's branch), an explicit one is deployed", async () => {
    const env = {
      ...mergeRequestJob(),
      CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99',
      CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result',
    };

    const refused = await runCli({ args: ['deploy'], env });

    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /error: --repo-ref \/ AGENT_DEPLOY_REPO_REF is required on a pipeline for merge request !12 from a fork/,
    );
    expect(service.requests).toEqual([]);

    const given = await runCli({ args: ['deploy', '--repo-ref', 'main'], env });

    expect(given.stderr).toMatch(/Result: deployed/);
    expect(service.requestsTo('patch')[0]?.body).toMatchObject({
      source_revision_config: { repo_ref: 'main' },
    });
  });
});

describe('the merge request note', () => {
  it("links no GitLab reference, mention or HTML from the service's data", async () => {
    service.name = 'agent !12 #12 &5 %"v1" $123 ~label ~"a b" @user ^1 group/project!34';
    const id = String(service.targetDeployment().id);

    const run = await runCli({
      args: ['deploy', '--name', '', '--deployment-id', id],
      env: mergeRequestJob(),
    });

    expect(run.stderr).toMatch(/Result: deployed/);
    const [note] = fakes.gitlab.notesOn('7', 12);
    const body = note!.body;
    const marker = body.slice(0, body.indexOf('\n'));
    expect(body).toContain('agent \\!12 \\#12 \\&5 \\%"v1" \\$123 \\~label');
    expect(gitLabReferences(body)).toEqual([]);
    expect(quickActions(body)).toEqual([]);
    expect(htmlFromData(body, marker)).toEqual([]);
    expect(liveMentions(body)).toEqual([]);
    expect(linksFromData(body)).toEqual([]);
    expect(body).not.toContain(GITLAB_TOKEN);
    expect(runnerCommands(run)).toEqual([]);
  });
});
