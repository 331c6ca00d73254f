// command drift (issue 35): the plan against the live deployment, and what is wrong with the live state, read-only.
// In-process on the fake clock; the bundle's case is in test/hosts/github/plan.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { esc } from '../../src/shared/markdown.ts';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { codehostInputs } from '../helpers/setup.ts';

const world = useWorld();
/** The commit of the runner's push (runnerVariables' GITHUB_SHA). */
const PUSHED = 'a'.repeat(40);

const drift = (name: string, extra: Record<string, string> = {}) =>
  codehostInputs(world.sim, name, { command: 'drift', ...extra });

/** A deployment live at the pushed commit, with what the inputs above set: in sync with them. */
function inSync(name: string, extra: Partial<Parameters<typeof world.sim.addDeployment>[0]> = {}) {
  world.sim.builtCommits = [PUSHED];
  return world.sim.addDeployment({ name, ...extra });
}

describe('drift', () => {
  it('in sync: result in-sync, nothing written, the step succeeds', async () => {
    const { sim } = world;
    const dep = inSync('my-agent');

    const run = await runInProcess(world, { inputs: drift('my-agent') });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs).toMatchObject({
      result: 'in-sync',
      'revision-id': dep.active_revision_id!,
      changes: JSON.stringify({ 'my-agent': {} }),
    });
    expect(run.summary).toContain('### ✅ In sync: my-agent');
    expect(run.summary).toContain(
      esc(
        `In sync: revision ${dep.active_revision_id} is DEPLOYED, active and the latest, and every value these inputs set is live.`,
      ),
    );
  });

  it('a value changed by hand: drifted, the step fails naming it, the summary lists it', async () => {
    const { sim } = world;
    inSync('my-agent', {
      source_config: { custom_url: 'https://by-hand.example', resource_spec: { min_scale: 3 } },
    });

    const run = await runInProcess(world, {
      inputs: drift('my-agent', {
        'custom-url': 'https://my-agent.example',
        'resource-spec': 'min_scale: 1',
      }),
    });

    expect(run.code).toBe(1);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs.result).toBe('drifted');
    expect(run.errors).toEqual([
      "Deployment 'my-agent' has drifted: source_config.custom_url, resource_spec.min_scale differ from these inputs. Next: A deploy with these inputs puts back what they set (or change the inputs, if the change on the service is wanted); the job summary lists each difference.",
    ]);
    expect(JSON.parse(run.outputs.changes!)).toEqual({
      'my-agent': {
        'source_config.custom_url': {
          live: 'https://by-hand.example',
          wanted: 'https://my-agent.example',
        },
        'resource_spec.min_scale': { live: 3, wanted: 1 },
      },
    });
    expect(run.summary).toContain('### ⚠️ Drifted: my-agent');
    expect(run.summary).toContain('| `resource_spec.min_scale` | `3` | `1` |');
  });

  it.each([
    [
      'the latest revision failed',
      (id: string) => world.sim.addRevision(id, [{ status: 'BUILD_FAILED' }]),
      (latest: string) => `the latest revision ${latest} ended BUILD_FAILED`,
    ],
    [
      'the latest revision is still building',
      (id: string) => world.sim.addRevision(id, [{ status: 'BUILDING' }]),
      (latest: string) => `the latest revision ${latest} is still BUILDING, not active`,
    ],
  ])('the live state: %s', async (_, change, problem) => {
    const dep = inSync('my-agent');
    const latest = change(dep.id);

    const run = await runInProcess(world, { inputs: drift('my-agent') });

    expect(run.outputs.result).toBe('drifted');
    expect(run.errors[0]).toContain(`Deployment 'my-agent' has drifted: ${problem(latest.id)}.`);
    expect(world.sim.writes()).toEqual([]);
  });

  it("the live state: the deployment's own status other than READY", async () => {
    const dep = inSync('my-agent');
    world.sim.setDeploymentStatus(dep.id, 'UNUSED');

    const run = await runInProcess(world, { inputs: drift('my-agent') });

    expect(run.outputs.result).toBe('drifted');
    expect(run.errors[0]).toContain('the deployment is UNUSED, not READY');
  });

  it('live keys as long as the service may send: the failure line names them cut, the summary keeps its tables', async () => {
    const long = (i: number) => `k${i}`.padEnd(60_000, 'x');
    const labels = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [long(i), 'v']));
    inSync('my-agent', { source_config: { resource_spec: { min_scale: 1, labels } } });

    const run = await runInProcess(world, {
      inputs: drift('my-agent', { 'resource-spec': 'min_scale: 1' }),
    });

    expect(run.outputs.result).toBe('drifted');
    expect(run.errors[0]).toMatch(
      /^Deployment 'my-agent' has drifted: resource_spec\.labels\.k0x+…, .* and 2 more differ from these inputs\. Next: /,
    );
    expect(run.errors[0]!.length).toBeLessThan(3000);
    // Named in full, the twelve keys made a line of 600 KB, and the cut of the summary kept its heading alone.
    expect(run.summary).toContain('| Result | `drifted` |');
    expect(run.summary).toContain('#### The plan: live against these inputs');
    expect(run.summary).not.toContain('left out');
  });

  it('a deployment that does not exist is drift: it would be created', async () => {
    const run = await runInProcess(world, { inputs: drift('gone-agent') });

    expect(run.outputs.result).toBe('drifted');
    expect(run.errors[0]).toContain(
      "Deployment 'gone-agent' has drifted: no deployment is named 'gone-agent'.",
    );
    expect(JSON.parse(run.outputs.changes!)['gone-agent']).toMatchObject({
      deployment: { live: null, wanted: 'created' },
    });
    expect(world.sim.writes()).toEqual([]);
  });

  it('over a list: drifted ranks with failed, in-sync with no-change; one changes output for all', async () => {
    const { sim } = world;
    inSync('agent-a');
    inSync('agent-b', { source_config: { build_on_push: true } });

    const run = await runInProcess(world, {
      inputs: codehostInputs(sim, '', {
        command: 'drift',
        name: '',
        'build-on-push': 'false',
        deployments: '[{name: agent-a}, {name: agent-b}]',
      }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('drifted');
    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    expect(results['agent-a']!.result).toBe('in-sync');
    expect(results['agent-b']!.result).toBe('drifted');
    expect(JSON.parse(run.outputs.changes!)).toEqual({
      'agent-a': {},
      'agent-b': { 'source_config.build_on_push': { live: true, wanted: false } },
    });
    expect(sim.writes()).toEqual([]);
  });
});
