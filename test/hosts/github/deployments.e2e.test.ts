// Several deployments in one step (issue 22) through the bundled action as the runner runs it: one case, with the
// list read from @path in the workspace; the rest run in-process (test/set.test.ts).
import { expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { baseInputs, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();

it('deploys two existing and creates a third with its own graph-config-path: results and a summary naming each', async () => {
  const { sim } = ctx;
  sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  const a = sim.addDeployment({ name: 'agent-a' });
  const b = sim.addDeployment({ name: 'agent-b' });

  const run = await runAction({
    inputs: baseInputs(sim, {
      'integration-id': INTEGRATION,
      'graph-config-path': 'graph.json',
      deployments: '@deploy/agents.yaml',
    }),
    files: {
      'deploy/agents.yaml': [
        '- name: agent-a',
        '- name: agent-b',
        '- name: agent-c',
        '  graph-config-path: agents/c/graph.json',
      ].join('\n'),
    },
  });

  expect(run.errors).toEqual([]);
  expect(run.code).toBe(0);
  const c = sim.deploymentsNamed('agent-c')[0]!;
  expect(sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
    name: 'agent-c',
    source_revision_config: { graph_config_path: 'agents/c/graph.json' },
  });
  expect(run.outputs.result).toBe('deployed');
  const results = JSON.parse(run.outputs.results!) as Record<string, Record<string, unknown>>;
  expect(Object.keys(results)).toEqual(['agent-a', 'agent-b', 'agent-c']);
  for (const [name, dep] of [
    ['agent-a', a],
    ['agent-b', b],
    ['agent-c', c],
  ] as const) {
    const revision = sim.deployment(dep.id)!.active_revision_id;
    expect(results[name]).toMatchObject({
      result: 'deployed',
      'deployment-id': dep.id,
      'revision-id': revision,
      'revision-status': 'DEPLOYED',
    });
    expect(run.summary).toContain(`| ${name} | \`deployed\` | \`${revision}\` | `);
    expect(run.summary).toContain(`### ✅ Deployed: ${name}`);
  }
  expect(run.outputs['deployment-id']).toBeUndefined();
});
