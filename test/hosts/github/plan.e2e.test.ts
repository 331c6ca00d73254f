// The plan against the live state (issue 35) through the bundled action, as the runner runs it: skip-unchanged over
// a monorepo made with the git on PATH (the checkout's git as dist/ hands it to the run), and command drift found
// and not found. The rest, a dry run's plan among it, runs in-process: test/deploy/plan.test.ts,
// test/deploy/live.test.ts, test/commands/drift.test.ts.
import { rmSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { monorepo } from '../../helpers/git.ts';
import { baseInputs, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const PUSHED = 'a'.repeat(40);

const repos: string[] = [];
afterEach(() => {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const codehost = (extra: Record<string, string>) =>
  baseInputs(ctx.sim, {
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    ...extra,
  });

it('skip-unchanged over a monorepo of three agents, one changed: one PATCH, two no-change', async () => {
  const { sim } = ctx;
  const agents = ['agent-a', 'agent-b', 'agent-c'];
  const repo = monorepo(agents, ['agent-b']);
  repos.push(repo.dir);
  sim.builtCommits = agents.map(() => repo.base);
  const deps = agents.map((name) => sim.addDeployment({ name }));

  const run = await runAction({
    inputs: codehost({
      'skip-unchanged': 'true',
      deployments: agents.map((name) => `- name: ${name}\n  paths: ${name}/**`).join('\n'),
    }),
    env: { GITHUB_WORKSPACE: repo.dir, GITHUB_SHA: repo.head },
  });

  expect(run.errors).toEqual([]);
  expect(run.code).toBe(0);
  expect(sim.requestsTo('PATCH').map((r) => r.path)).toEqual([`/v2/deployments/${deps[1]!.id}`]);
  const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
  expect(Object.entries(results).map(([name, r]) => [name, r.result])).toEqual([
    ['agent-a', 'no-change'],
    ['agent-b', 'deployed'],
    ['agent-c', 'no-change'],
  ]);
  expect(JSON.parse(run.outputs.changes!)).toEqual({
    'agent-a': {},
    'agent-b': { commit: { live: repo.base, wanted: repo.head } },
    'agent-c': {},
  });
  expect(run.summary).toContain('Nothing sent \\(skip-unchanged\\)');
});

it('drift: in sync, then a value changed by hand is found, the step failing; nothing written', async () => {
  const { sim } = ctx;
  sim.builtCommits = [PUSHED];
  const dep = sim.addDeployment({ name: 'my-agent' });
  const inputs = codehost({ command: 'drift', name: 'my-agent', 'build-on-push': 'false' });

  const quiet = await runAction({ inputs });

  expect(quiet.errors).toEqual([]);
  expect(quiet.code).toBe(0);
  expect(quiet.outputs).toMatchObject({ result: 'in-sync', changes: '{"my-agent":{}}' });
  expect(quiet.summary).toContain('### ✅ In sync: my-agent');

  // Someone turns build-on-push on in the service's console.
  sim.deployment(dep.id)!.source_config.build_on_push = true;
  const found = await runAction({ inputs });

  expect(found.code).toBe(1);
  expect(found.outputs.result).toBe('drifted');
  expect(found.errors[0]).toContain(
    "Deployment 'my-agent' has drifted: source_config.build_on_push differs from these inputs.",
  );
  expect(JSON.parse(found.outputs.changes!)).toEqual({
    'my-agent': { 'source_config.build_on_push': { live: true, wanted: false } },
  });
  expect(found.summary).toContain('| `source_config.build_on_push` | `true` | `false` |');
  expect(sim.writes()).toEqual([]);
});
