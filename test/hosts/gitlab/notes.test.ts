// The merge request note, in-process on a fake clock against a fake GitLab: one note per deployment, only the
// token's own, best effort, and GITLAB_TOKEN never shown.
import { describe, expect, it } from 'vitest';
import { dotenv } from '../../../src/hosts/cli/dotenv.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import {
  GITLAB_TOKEN,
  gitLabReferences,
  MERGE_REQUEST_VARIABLES,
  quickActions,
  TOKEN_USER,
  useGitLab,
} from '../../helpers/gitlab.ts';
import { htmlFromData, linksFromData, liveMentions } from '../../helpers/hostile-checks.ts';
import { useWorld } from '../../helpers/run.ts';
import { baseInputs } from '../../helpers/setup.ts';

const world = useWorld();
const fakes = useGitLab();
const MARKER = '<!-- agent-deploy-action:my-agent -->';

const mergeRequestJob = (extra: Record<string, string> = {}) => ({
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'acme/agent',
  CI_PROJECT_ID: '7',
  ...MERGE_REQUEST_VARIABLES,
  CI_API_V4_URL: fakes.gitlab.apiUrl,
  GITLAB_TOKEN,
  ...extra,
});

const deploy = (env: Record<string, string>, inputs: Record<string, string> = {}) => {
  world.sim.addDeployment({ name: 'my-agent' });
  return runCliInProcess(world, {
    inputs: baseInputs(world.sim, { name: 'my-agent', ...inputs }),
    env,
  });
};

describe('the merge request note', () => {
  it('leaves a marked note that another user wrote as it is, and writes its own', async () => {
    const { gitlab } = fakes;
    const author = { id: 1, username: 'mr-author' };
    const theirs = gitlab.addNote('7', 12, `${MARKER}\nlooks deployed to me`, author);
    gitlab.addNote('7', 12, `${MARKER}\nadded by GitLab`, TOKEN_USER, true);

    const run = await deploy(mergeRequestJob());

    expect(run.outputs.result).toBe('deployed');
    expect(gitlab.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v4/projects/7/merge_requests/12/notes',
      'GET /api/v4/user',
      'POST /api/v4/projects/7/merge_requests/12/notes',
    ]);
    expect(theirs.body).toBe(`${MARKER}\nlooks deployed to me`);
    const mine = gitlab.notesOn('7', 12).filter((n) => n.author.id === TOKEN_USER.id && !n.system);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body.startsWith(`${MARKER}\n`)).toBe(true);
  });

  it("is a warning when GitLab refuses, never the deploy's failure, and its answer never shows the token", async () => {
    const { gitlab } = fakes;
    gitlab.forbidden = true;
    gitlab.refusal = `403 Forbidden: token ${GITLAB_TOKEN} lacks the api scope`;

    const run = await deploy(mergeRequestJob());

    expect(run.outputs.result).toBe('deployed');
    expect(run.failure).toBeUndefined();
    expect(run.stderr).toContain(
      'warning: Reading the notes of merge request !12 failed (403 Forbidden: token *** lacks the api scope); GITLAB_TOKEN needs the api scope',
    );
    expect(run.stderr).not.toContain(GITLAB_TOKEN);
    // Notes it cannot read, it does not add to: no blind create.
    expect(gitlab.writes()).toEqual([]);
  });

  it('is not written with pr-comment: false, nor without GITLAB_TOKEN, nor outside a merge request pipeline', async () => {
    const { gitlab } = fakes;

    const off = await deploy(mergeRequestJob(), { 'pr-comment': 'false' });
    world.sim.reset();
    const noToken = await deploy(mergeRequestJob({ GITLAB_TOKEN: '' }));
    world.sim.reset();
    const push = await deploy(
      mergeRequestJob({ CI_MERGE_REQUEST_IID: '', CI_PIPELINE_SOURCE: 'push' }),
    );

    for (const run of [off, noToken, push]) expect(run.outputs.result).toBe('deployed');
    expect(gitlab.requests).toEqual([]);
    expect(noToken.stderr).toContain('No note on merge request !12: GITLAB_TOKEN is not set');
    expect(off.stderr).not.toContain('note');
    expect(push.stderr).not.toContain('note');
  });

  it('never sends the token in the clear: an http:// API that is not this machine gets nothing', async () => {
    const run = await deploy(mergeRequestJob({ CI_API_V4_URL: 'http://gitlab.example/api/v4' }));

    expect(run.outputs.result).toBe('deployed');
    expect(run.stderr).toContain(
      'warning: No note on merge request !12: CI_API_V4_URL is not https, and GITLAB_TOKEN is not sent in the clear.',
    );
  });

  it("links no GitLab reference from data: a deployment's name of them all is shown, escaped", async () => {
    const name = 'agent !12 #12 &5 %"v1" $123 ~label ~"a b" @user ^1 g/p!7';
    const dep = world.sim.addDeployment({ name });

    const run = await runCliInProcess(world, {
      inputs: baseInputs(world.sim, { 'deployment-id': dep.id }),
      env: mergeRequestJob(),
    });

    expect(run.outputs.result).toBe('deployed');
    const [note] = fakes.gitlab.notesOn('7', 12);
    const body = note!.body;
    expect(body).toContain('agent \\!12 \\#12 \\&5 \\%"v1" \\$123 \\~label');
    expect(gitLabReferences(body)).toEqual([]);
    expect(quickActions(body)).toEqual([]);
    expect(htmlFromData(body, body.slice(0, body.indexOf('\n')))).toEqual([]);
    expect(liveMentions(body)).toEqual([]);
    expect(linksFromData(body)).toEqual([]);
    expect(body).not.toContain(GITLAB_TOKEN);
  });

  it('is written for a dry run too: the plan on the merge request', async () => {
    const run = await deploy(mergeRequestJob(), { 'dry-run': 'true' });

    expect(run.outputs.result).toBe('planned');
    expect(world.sim.writes()).toEqual([]);
    expect(fakes.gitlab.notesOn('7', 12)).toHaveLength(1);
  });

  it('is one note for a list of deployments, whose --json carries results (the dotenv report not: JSON has quotes)', async () => {
    const { gitlab } = fakes;
    for (const name of ['agent-a', 'agent-b']) world.sim.addDeployment({ name });

    const run = await runCliInProcess(world, {
      inputs: baseInputs(world.sim, { deployments: '[{name: agent-a}, {name: agent-b}]' }),
      env: mergeRequestJob(),
    });

    expect(run.outputs.result).toBe('deployed');
    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    expect(Object.keys(results)).toEqual(['agent-a', 'agent-b']);
    expect(dotenv(run.outputs).text).toMatch(/^RESULT=deployed$/m);
    expect(dotenv(run.outputs).text).not.toContain('RESULTS=');
    const notes = gitlab.notesOn('7', 12);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body.startsWith('<!-- agent-deploy-action:agent-a, agent-b -->\n')).toBe(true);
    expect(notes[0]!.body).toContain('| agent-b | `deployed` |');
  });
});
