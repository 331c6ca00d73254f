// The plan against the live deployment in whole runs (deploy/live.ts): what a dry run shows, what skip-unchanged sends
// and does not send, and the commit compared through a real git repository made here. In-process, on the fake clock.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { esc } from '../../src/shared/markdown.ts';
import { monorepo } from '../helpers/git.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs, INTEGRATION, plannedCreate } from '../helpers/setup.ts';

const world = useWorld();
const LIVE = '1'.repeat(40);
/** The commit of the runner's push (runnerVariables' GITHUB_SHA). */
const PUSHED = 'a'.repeat(40);

const codehost = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, extra);
const changesOf = (outputs: Record<string, string>) =>
  JSON.parse(outputs.changes ?? 'null') as Record<string, Record<string, unknown>> | null;

const repos: string[] = [];
afterEach(() => {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A deployment whose live revision was built from `commit`, with the simulator's defaults otherwise. */
function live(
  name: string,
  commit = LIVE,
  extra: Parameters<typeof world.sim.addDeployment>[0] = { name },
) {
  world.sim.builtCommits = [commit];
  return world.sim.addDeployment({ ...extra, name });
}

describe('dry-run shows the plan', () => {
  it('of an existing deployment: the changes output and the summary table, nothing written', async () => {
    const { sim } = world;
    live('my-agent', LIVE, {
      name: 'my-agent',
      source_config: { resource_spec: { min_scale: 1, memory_mb: 1024 } },
    });

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', {
        'dry-run': 'true',
        'resource-spec': 'min_scale: 1\nmemory_mb: 2048',
        'install-command': 'pip install -e .',
      }),
    });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('planned');
    expect(sim.writes()).toEqual([]);
    expect(changesOf(run.outputs)).toEqual({
      'my-agent': {
        commit: { live: LIVE, wanted: PUSHED },
        'resource_spec.memory_mb': { live: 1024, wanted: 2048 },
        'source_config.install_command': { live: null, wanted: 'pip install -e .' },
      },
    });
    expect(run.summary).toContain(
      [
        '#### The plan: live against these inputs',
        '',
        '| Field | Live | Wanted |',
        '|---|---|---|',
        `| \`commit\` | \`${LIVE}\` | \`${PUSHED}\` |`,
        '| `resource_spec.memory_mb` | `1024` | `2048` |',
        // A command may hold a credential no mask covers in a comment: a word stands for it.
        '| `source_config.install_command` | — | _set_ |',
      ].join('\n'),
    );
    // The request is still printed in the log, the plan before it.
    expect(run.stdout).toContain("The plan for 'my-agent' against what is live: 3 changes.");
    expect(run.stdout).toContain("  resource_spec.memory_mb: '1024' → '2048'");
    expect(run.stdout).toContain('Dry run: nothing is written to the service.');
  });

  it('a live resource_spec key the given spec lacks: removed, in the table and the log', async () => {
    live('my-agent', PUSHED, {
      name: 'my-agent',
      source_config: { resource_spec: { min_scale: 1, max_scale: 3 } },
    });

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'dry-run': 'true', 'resource-spec': 'min_scale: 1' }),
    });

    expect(changesOf(run.outputs)).toEqual({
      'my-agent': { 'resource_spec.max_scale': { live: 3, wanted: null } },
    });
    expect(run.summary).toContain('| `resource_spec.max_scale` | `3` | _removed_ |');
    expect(run.stdout).toContain("  resource_spec.max_scale: '3' → removed");
  });

  it('of a deployment that does not exist yet: created, with what the create sends', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });

    const run = await runInProcess(world, { inputs: codehost('new-agent', { 'dry-run': 'true' }) });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(changesOf(run.outputs)).toEqual({
      'new-agent': plannedCreate(PUSHED),
    });
    expect(run.summary).toContain('| `deployment` | — | _created_ |');
  });

  it('nothing to change: {} and a sentence', async () => {
    live('my-agent', PUSHED);

    const run = await runInProcess(world, { inputs: codehost('my-agent', { 'dry-run': 'true' }) });

    expect(changesOf(run.outputs)).toEqual({ 'my-agent': {} });
    expect(run.summary).toContain('Nothing to change: every value these inputs set is live.');
  });
});

describe('skip-unchanged', () => {
  it('sends nothing when nothing changed and the live revision is DEPLOYED and the latest', async () => {
    const { sim } = world;
    const dep = live('my-agent', PUSHED);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'skip-unchanged': 'true' }),
    });

    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'no-change',
      'revision-id': dep.active_revision_id!,
      'revision-status': 'DEPLOYED',
      'commit-sha': PUSHED,
      changes: JSON.stringify({ 'my-agent': {} }),
    });
    // The lookup and the active revision's read: nothing else.
    expect(sim.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    expect(run.summary).toContain(
      esc(
        `Nothing sent (skip-unchanged): revision ${dep.active_revision_id} (commit ${PUSHED}) is DEPLOYED, active and the latest, and every value these inputs set is live.`,
      ),
    );
  });

  it('deploys as usual when the commit changed', async () => {
    const { sim } = world;
    live('my-agent');

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'skip-unchanged': 'true' }),
    });

    expect(run.outputs.result).toBe('deployed');
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(changesOf(run.outputs)).toEqual({
      'my-agent': { commit: { live: LIVE, wanted: PUSHED } },
    });
    expect(run.stdout).toContain(
      "skip-unchanged: deploying 'my-agent', as the plan changes commit.",
    );
  });

  it('deploys when the latest revision is not the active one (it failed), though the plan is empty', async () => {
    const { sim } = world;
    const dep = live('my-agent', PUSHED);
    const active = dep.active_revision_id;
    const failed = sim.addRevision(dep.id, [{ status: 'BUILD_FAILED' }]);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'skip-unchanged': 'true' }),
    });

    expect(run.outputs.result).toBe('deployed');
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(run.stdout).toContain(
      `skip-unchanged: deploying 'my-agent', as the latest revision ${failed.id} is not the active one (${active}).`,
    );
  });

  it('deploys when repo-ref is not the ref of the event: its commit is not known here', async () => {
    const { sim } = world;
    live('my-agent', PUSHED);

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'skip-unchanged': 'true', 'repo-ref': 'release' }),
    });

    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(changesOf(run.outputs)!['my-agent']).toMatchObject({
      repo_ref: { live: 'main', wanted: 'release' },
      commit: { live: PUSHED, wanted: null },
    });
    expect(run.summary).toContain(
      `\`commit\`: ${esc("repo-ref 'release' is not the ref of this run's event ('main'), so the commit it is at is not known here")}`,
    );
  });

  it('secrets on both sides cannot be compared: not sent, and the summary says so', async () => {
    const { sim } = world;
    live('my-agent', PUSHED, { name: 'my-agent', secrets: [{ name: 'API_KEY', value: 'old' }] });

    const run = await runInProcess(world, {
      inputs: codehost('my-agent', { 'skip-unchanged': 'true', secrets: 'API_KEY=rotated-value' }),
    });

    expect(run.outputs.result).toBe('no-change');
    expect(sim.writes()).toEqual([]);
    expect(run.summary).toContain(
      esc(
        "Secrets API_KEY: the deployment has it too, and the service never returns a secret's value, so a new value cannot be seen. They were not sent: to send a new value, run without skip-unchanged.",
      ),
    );
    expect(run.summary).not.toContain('rotated-value');
  });
});

describe('paths: the commit against the checkout', () => {
  const agents = ['agent-a', 'agent-b', 'agent-c'];

  it('a monorepo of three agents, one changed: one PATCH, two no-change', async () => {
    const { sim } = world;
    const repo = monorepo(agents, ['agent-a']);
    repos.push(repo.dir);
    sim.builtCommits = agents.map(() => repo.base);
    const deps = agents.map((name) => sim.addDeployment({ name }));

    const run = await runInProcess(world, {
      inputs: codehostInputs(sim, '', {
        name: '',
        'skip-unchanged': 'true',
        deployments: JSON.stringify(agents.map((name) => ({ name, paths: [`${name}/**`] }))),
      }),
      env: { GITHUB_WORKSPACE: repo.dir, GITHUB_SHA: repo.head },
    });

    expect(run.errors).toEqual([]);
    expect(sim.requestsTo('PATCH').map((r) => r.path)).toEqual([`/v2/deployments/${deps[0]!.id}`]);
    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    expect(Object.values(results).map((r) => r.result)).toEqual([
      'deployed',
      'no-change',
      'no-change',
    ]);
    // The worst of them: no-change ranks above deployed.
    expect(run.outputs.result).toBe('no-change');
    expect(changesOf(run.outputs)).toEqual({
      'agent-a': { commit: { live: repo.base, wanted: repo.head } },
      'agent-b': {},
      'agent-c': {},
    });
    expect(run.summary).toContain('`commit`: 1 changed file in paths: agent-a/main.py');
    expect(run.summary).toContain(
      esc(
        `Commit ${repo.base} → ${repo.head} changes 2 files, none in paths: no change to this deployment.`,
      ),
    );
  });

  it('the live commit missing from the checkout (a shallow clone): it deploys, saying why', async () => {
    const { sim } = world;
    const repo = monorepo(['agent-a'], []);
    repos.push(repo.dir);
    live('agent-a', LIVE);

    const run = await runInProcess(world, {
      inputs: codehost('agent-a', { 'skip-unchanged': 'true', paths: 'agent-a/' }),
      env: { GITHUB_WORKSPACE: repo.dir, GITHUB_SHA: repo.head },
    });

    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(run.summary).toContain(
      `\`commit\`: ${esc(`the commits could not be compared: commit ${LIVE} (the live revision's) is not in the checkout's history, which is shallow or another branch's; fetch the whole history (actions/checkout with fetch-depth: 0)`)}`,
    );
  });

  it('no checkout at all: it deploys, saying why', async () => {
    const { sim } = world;
    live('agent-a', LIVE);

    const run = await runInProcess(world, {
      inputs: codehost('agent-a', { 'skip-unchanged': 'true', paths: 'agent-a/**' }),
    });

    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(run.summary).toMatch(
      /`commit`: the commits could not be compared: \S+ is not a git checkout/,
    );
  });
});
