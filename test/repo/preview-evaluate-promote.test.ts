// docs/preview-evaluate-promote.md, end to end against the simulator: the page's own workflows and pipeline (read
// from the page, not copied), their action steps and command lines in-process on the fake clock, and their
// evaluation scripts in bash against a stub evals/run.sh that prints the score. What it must show: the revision that
// was evaluated is the one production gets, a low score never reaches production, and the preview closes.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  docBlocks,
  MERGE_REQUEST_PIPELINE,
  pullRequestEvent as event,
  runPipeline,
  runWorkflow,
  type Script,
  useRecipeWorld,
} from '../helpers/recipes.ts';
import { API_KEY } from '../helpers/setup.ts';

const { world, github, agents } = useRecipeWorld();

const PAGE = 'docs/preview-evaluate-promote.md';
const page = docBlocks().filter((b) => b.page === PAGE);
const [pullRequestWorkflow, closeWorkflow] = page.filter((b) => b.kind === 'github');
const pipeline = page.find((b) => b.kind === 'gitlab');
const PREVIEW_URL = 'https://my-agent-pr-7.preview.example.com';

const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-evals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The evaluation as a runner runs it: the page's script in bash (-eo pipefail, as GitHub's `run:`), in a checkout
 * whose evals/run.sh prints `score`; what it was asked to evaluate goes into `asked`.
 */
function evaluation(score: string, asked: string[]): (script: Script) => boolean {
  return ({ script, env }) => {
    const checkout = mkdtempSync(join(dir, 'checkout-'));
    mkdirSync(join(checkout, 'evals'));
    writeFileSync(
      join(checkout, 'evals/run.sh'),
      `#!/bin/sh\nprintf '%s\\n' "$1" >> asked\necho ${score}\n`,
    );
    chmodSync(join(checkout, 'evals/run.sh'), 0o755);
    const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: checkout,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    asked.push(...readFileSync(join(checkout, 'asked'), 'utf8').trim().split('\n'));
    expect(run.stdout).toContain(`Score: ${score} (threshold: 0.85)`);
    return run.status === 0;
  };
}

const secrets = { DEPLOY_API_KEY: API_KEY };

/** The pull request workflow's run for pull request #7's opening, its evaluation scoring `score`. */
const openedWith = (score: string, asked: string[] = []) =>
  runWorkflow(pullRequestWorkflow!.text, {
    world,
    gh: github.gh,
    secrets,
    event: event('opened'),
    run: evaluation(score, asked),
  });

describe("the pull request's workflow", () => {
  it('finds the two workflows and the pipeline on the page', () => {
    expect(page.map((b) => b.kind)).toEqual(['github', 'github', 'gitlab']);
  });

  it('promotes the evaluated preview revision to production after a passing score: its commit, built there', async () => {
    const { sim } = world;
    const asked: string[] = [];

    const jobs = await openedWith('0.91', asked);

    expect(Object.fromEntries(Object.entries(jobs).map(([id, j]) => [id, j.result]))).toEqual({
      preview: 'success',
      evaluate: 'success',
      promote: 'success',
    });
    // The evaluation ran against the preview, at the address its step gave.
    expect(asked).toEqual([PREVIEW_URL]);
    const preview = sim.deploymentsNamed('my-agent-pr-7')[0]!;
    const evaluated = jobs.preview!.outputs['revision-id']!;
    expect(evaluated).toBe(preview.active_revision_id);
    const commit = sim.revision(preview.id, evaluated)!.source_revision_config.repo_commit_sha;
    const promote = jobs.promote!.runs[0]!;
    expect(promote.outputs).toMatchObject({
      result: 'deployed',
      created: 'true',
      'promoted-from': preview.id,
      'source-revision-id': evaluated,
      'commit-sha': commit,
      verified: 'true',
    });
    const production = sim.deploymentsNamed('my-agent')[0]!;
    expect(sim.requestsTo('POST', '/v2/deployments').at(-1)!.body).toMatchObject({
      name: 'my-agent',
      source_revision_config: { repo_ref: commit },
      source_config: { custom_url: 'https://my-agent.example.com' },
    });
    expect(
      sim.revision(production.id, production.active_revision_id!)!.source_revision_config
        .repo_commit_sha,
    ).toBe(commit);
    expect(agents.agent.requests.map((r) => r.path)).toEqual(['/ok', '/ok']);
  });

  it('fails the evaluation on a low score: promote is skipped, production never written', async () => {
    const { sim } = world;
    const asked: string[] = [];

    const jobs = await openedWith('0.62', asked);

    expect(asked).toEqual([PREVIEW_URL]);
    expect(jobs.evaluate!.result).toBe('failure');
    expect(jobs.promote!.result).toBe('skipped');
    expect(sim.deploymentsNamed('my-agent')).toEqual([]);
    expect(sim.writes().every((r) => r.method === 'POST' && r.path === '/v2/deployments')).toBe(
      true,
    );
  });

  /** The run of the first push, with a second push to the pull request deployed while it awaits its approval. */
  async function raced(workflow: string) {
    const { sim } = world;
    let later: string | undefined;
    const jobs = await runWorkflow(workflow, {
      world,
      gh: github.gh,
      secrets,
      event: event('opened'),
      run: async (script) => {
        const passed = evaluation('0.91', [])(script);
        // The second push's run gets as far as its own preview (its evaluation still running).
        const second = await runWorkflow(workflow, {
          world,
          gh: github.gh,
          secrets,
          event: event('synchronize', 'c'.repeat(40)),
          jobs: ['preview'],
        });
        later = second.preview!.outputs['revision-id'];
        return passed;
      },
    });
    const preview = sim.deploymentsNamed('my-agent-pr-7')[0]!;
    const commitOf = (revision: string | undefined) =>
      sim.revision(preview.id, revision!)!.source_revision_config.repo_commit_sha;
    const production = sim.deploymentsNamed('my-agent')[0]!;
    return {
      jobs,
      evaluated: commitOf(jobs.preview!.outputs['revision-id']),
      later: commitOf(later),
      active: preview.active_revision_id,
      laterId: later,
      shipped: sim.revision(production.id, production.active_revision_id!)!.source_revision_config
        .repo_commit_sha,
    };
  }

  it('ships the revision that was evaluated, though a later push went live on the preview meanwhile', async () => {
    const { jobs, evaluated, later, active, laterId, shipped } = await raced(
      pullRequestWorkflow!.text,
    );

    expect(jobs.promote!.result).toBe('success');
    expect(active).toBe(laterId);
    expect(later).not.toBe(evaluated);
    expect(shipped).toBe(evaluated);
    expect(jobs.promote!.runs[0]!.outputs['source-revision-id']).toBe(
      jobs.preview!.outputs['revision-id'],
    );
  });

  it('(without from-revision-id the same run would ship the later, unevaluated push: the line matters)', async () => {
    const without = pullRequestWorkflow!.text.replace(/^ *from-revision-id: .*\n/m, '');
    expect(without).not.toBe(pullRequestWorkflow!.text);

    const { evaluated, later, shipped } = await raced(without);

    expect(shipped).toBe(later);
    expect(shipped).not.toBe(evaluated);
  });

  it('closes the preview when the pull request closes: its GitHub Deployments inactive, nothing written', async () => {
    await openedWith('0.91');
    const writes = world.sim.writes().length;

    const jobs = await runWorkflow(closeWorkflow!.text, {
      world,
      gh: github.gh,
      secrets,
      event: event('closed'),
    });

    expect(jobs.close!.runs[0]!.outputs.result).toBe('closed');
    expect(world.sim.writes()).toHaveLength(writes);
    const previews = github.gh.deployments.filter((d) => d.environment === 'preview');
    expect(previews).toHaveLength(1);
    expect(previews[0]!.statuses.at(-1)).toMatchObject({ state: 'inactive' });
  });
});

describe('the GitLab pipeline', () => {
  const variables = { ...MERGE_REQUEST_PIPELINE, AGENT_DEPLOY_API_KEY: API_KEY };

  it("promotes the preview's REVISION_ID when played after a passing evaluation, and on_stop closes the preview", async () => {
    const { sim } = world;
    const asked: string[] = [];

    const jobs = await runPipeline(pipeline!.text, {
      world,
      variables,
      play: ['promote'],
      run: evaluation('0.9', asked),
    });

    expect(Object.fromEntries(Object.entries(jobs).map(([id, j]) => [id, j.result]))).toEqual({
      preview: 'success',
      'close-preview': 'manual',
      evaluate: 'success',
      promote: 'success',
    });
    expect(asked).toEqual([PREVIEW_URL]);
    const preview = sim.deploymentsNamed('my-agent-pr-7')[0]!;
    expect(jobs.promote!.dotenv).toMatchObject({
      RESULT: 'deployed',
      PROMOTED_FROM: preview.id,
      SOURCE_REVISION_ID: jobs.preview!.dotenv.REVISION_ID,
    });

    // The merge request merged: GitLab plays the preview environment's on_stop job.
    const stop = await runPipeline(pipeline!.text, {
      world,
      variables,
      only: ['close-preview'],
      play: ['close-preview'],
    });
    expect(stop['close-preview']!.dotenv.RESULT).toBe('closed');
  });

  it('leaves production alone after a failing evaluation: promote cannot be played', async () => {
    const jobs = await runPipeline(pipeline!.text, {
      world,
      variables,
      play: ['promote'],
      run: evaluation('0.4', []),
    });

    expect(jobs.evaluate!.result).toBe('failure');
    expect(jobs.promote!.result).toBe('skipped');
    expect(world.sim.deploymentsNamed('my-agent')).toEqual([]);
  });
});
