// Issue 31 through the command line (dist/cli.js) in a GitLab merge request pipeline, against the hostile fake
// service: no runner masks anything there, so the redactor alone keeps every secret, in every encoding, out of
// stderr, --json, the dotenv report, the summary file and the merge request note; an answer about another resource
// and a repo_commit_sha that is not one fail naming the endpoint; a list's summary file and note keep every
// deployment's row. test/core/hostile.test.ts has the rest in-process.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli, runnerCommands } from '../../helpers/cli.ts';
import { GITLAB_TOKEN, MERGE_REQUEST_VARIABLES, useGitLab } from '../../helpers/gitlab.ts';
import {
  fullWidth,
  HostileService,
  htmlEntities,
  percentEveryByte,
  revisionAnswer,
} from '../../helpers/hostile.ts';
import {
  API_KEY,
  htmlFromData,
  linksFromData,
  liveMentions,
  SECRET,
  secretPieces,
  TAB_SECRET,
} from '../../helpers/hostile-checks.ts';
import { useFake } from '../../helpers/loopback.ts';
import { INTEGRATION } from '../../helpers/setup.ts';

const hostile = useFake('service', () => HostileService.start());
const fakes = {
  get service() {
    return hostile.service;
  },
  get gitlab() {
    return gitlab.gitlab;
  },
};
const gitlab = useGitLab();
const FILES = ['agent-deploy.env', 'agent-deploy-summary.md'];

/** A job of merge request !12's pipeline, the inputs as its CI/CD variables, against the hostile service. */
function job(inputs: Record<string, string> = {}): Record<string, string> {
  const all: Record<string, string> = {
    'base-url': fakes.service.url,
    'api-key': API_KEY,
    name: fakes.service.name,
    secrets: `AGENT_SECRET=${SECRET}\nTAB_SECRET=${TAB_SECRET}`,
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    'poll-interval': '1s',
    // On the system clock: the action's default, which load never reaches (no case here ends by it).
    timeout: '30m',
    ...inputs,
  };
  return {
    GITLAB_CI: 'true',
    CI_PROJECT_PATH: 'acme/agent',
    CI_PROJECT_ID: '7',
    CI_API_V4_URL: fakes.gitlab.apiUrl,
    CI_JOB_URL: 'https://gitlab.example/acme/agent/-/jobs/99',
    ...MERGE_REQUEST_VARIABLES,
    GITLAB_TOKEN,
    ...Object.fromEntries(
      Object.entries(all).map(([name, value]) => [
        `AGENT_DEPLOY_${name.toUpperCase().replaceAll('-', '_')}`,
        value,
      ]),
    ),
  };
}

/** The command line in that job, then the checks every run must pass; what it left, the note included. */
async function hostileCli(command: string, inputs: Record<string, string> = {}) {
  const run = await runCli({ args: [command, '--json'], env: job(inputs), read: FILES });
  const note = fakes.gitlab.notesOn('7', 12).at(-1)?.body ?? '';
  const sinks = {
    stdout: run.stdout,
    stderr: run.stderr,
    dotenv: run.files['agent-deploy.env'] ?? '',
    summary: run.files['agent-deploy-summary.md'] ?? '',
    note,
  };
  const secrets = { 'api-key': API_KEY, secret: SECRET, 'tab secret': TAB_SECRET, GITLAB_TOKEN };
  expect(secretPieces(sinks, secrets)).toEqual([]);
  // The log; --json on stdout is the outputs' JSON, whose values are data as the service gave it, on one line.
  expect(runnerCommands({ ...run, stdout: '' })).toEqual([]);
  for (const markdown of [sinks.summary, note]) {
    expect(htmlFromData(markdown, markdown.split('\n')[0])).toEqual([]);
    expect(liveMentions(markdown)).toEqual([]);
    expect(linksFromData(markdown)).toEqual([]);
  }
  return { ...run, ...sinks, outputs: JSON.parse(run.stdout || '{}') as Record<string, string> };
}

describe('agent-deploy in a GitLab merge request pipeline, against a hostile service', () => {
  it('a deploy: stderr, --json, the dotenv report, the summary file and the note show no piece of a secret', async () => {
    const run = await hostileCli('deploy');

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('deployed');
    expect(run.note).toMatch(/^<!-- agent-deploy-action:my-agent -->\n/);
    expect(run.dotenv).toContain('RESULT=deployed\n');
  });

  it('a 400 that echoes the key in upper case, hex, percent-encoded, full width and entities: the failure line shows none', async () => {
    const forms = [
      API_KEY.toUpperCase(),
      Buffer.from(API_KEY).toString('hex'),
      percentEveryByte(API_KEY),
      fullWidth(API_KEY),
      htmlEntities(API_KEY),
    ];
    fakes.service.on('patch', { status: 400, body: { detail: `bad key ${forms.join(' ')}` } });

    const run = await hostileCli('deploy');

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: PATCH \/v2\/deployments\/\S+ failed: HTTP 400 bad key \*\*\*/m,
    );
    expect(run.note).toContain('bad key \\*\\*\\*');
  });

  it('a status read that answers another revision: an error naming the endpoint', async () => {
    const other = randomUUID();
    fakes.service.on('revision', () => revisionAnswer(other));

    const run = await hostileCli('status');

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /error: .*GET \/v2\/deployments\/[0-9a-f-]{36}\/revisions\/[0-9a-f-]{36} answered about revision/,
    );
    expect(run.outputs['revision-status'] ?? '').toBe('');
  });

  it('a repo_commit_sha that is not 7 to 64 hex characters: a schema error naming the endpoint and the field', async () => {
    fakes.service.commit = 'abc1234 COMMIT_INJ=1';

    const run = await hostileCli('status');

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /GET \/v2\/deployments answered with an unexpected body: field '.*repo_commit_sha': not a commit sha/,
    );
    expect(run.dotenv).not.toContain('COMMIT_INJ');
  });

  it('5 deployments answering a custom_url of 1.9 MB: the summary file and the note keep every row', async () => {
    const { service } = fakes;
    const names = ['agent-001', 'agent-002', 'agent-003', 'agent-004', 'agent-005'];
    service.exists = false;
    for (const name of names) service.add(name);
    service.customUrl = `https://agent.example/${'u'.repeat(1_900_000)}`;
    service.statuses = ['DEPLOYED'];

    const run = await hostileCli('deploy', {
      name: '',
      deployments: JSON.stringify(names.map((name) => ({ name }))),
    });

    expect(run.code).toBe(0);
    const rows = (markdown: string) =>
      markdown.split('\n').filter((line) => /^\| agent-\d{3} \| `deployed` \|/.test(line));
    expect(rows(run.summary)).toHaveLength(5);
    expect(rows(run.note)).toHaveLength(5);
    expect(run.note).toMatch(/_\(The sections? of \d more deployments? left out: over 5\d KiB\. /);
  });
});
