// Several deployments in one step (issue 22), the whole action in-process on a fake clock: the list's items run side
// by side through one service client, with one summary, one `results` output and the worst result; fail-fast, a
// cancel, rollback, promote, status and dry run over a list. The list's parsing has test/inputs/deployments.test.ts;
// the GitHub Deployments and the comment of a list test/hosts/github/deployments.test.ts.
import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../src/report/outputs.ts';
import { runInProcess, useWorld } from './helpers/run.ts';
import { baseInputs, INTEGRATION } from './helpers/setup.ts';
import type { TimelineStep } from './simulator/server.ts';

const world = useWorld();

/** A step with `deployments` (YAML), creating codehost deployments with the test integration. */
const listOf = (deployments: string, extra: Record<string, string> = {}) =>
  baseInputs(world.sim, {
    'integration-id': INTEGRATION,
    'graph-config-path': 'graph.json',
    deployments,
    ...extra,
  });

const results = (outputs: Record<string, string>) =>
  JSON.parse(outputs.results ?? 'null') as Record<string, ItemResult>;

const BUILD_FAILED: TimelineStep[] = [
  { status: 'QUEUED', ms: 100 },
  { status: 'BUILDING', ms: 400 },
  { status: 'BUILD_FAILED' },
];

/** A build that takes `ms` and then goes live. */
const slow = (ms: number): TimelineStep[] => [{ status: 'BUILDING', ms }, { status: 'DEPLOYED' }];

describe('a list of deployments', () => {
  it('deploys two existing and creates a third with its own graph-config-path, with results and one summary', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    const a = sim.addDeployment({ name: 'agent-a' });
    const b = sim.addDeployment({ name: 'agent-b' });

    const run = await runInProcess(world, {
      inputs: listOf(
        `- name: agent-a
- name: agent-b
- name: agent-c
  graph-config-path: agents/c/graph.json`,
      ),
    });

    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    const c = sim.deploymentsNamed('agent-c')[0]!;
    // The item's value over the step's: only agent-c's create carries agents/c/graph.json.
    expect(sim.requestsTo('POST', '/v2/deployments').map((r) => r.body)).toEqual([
      expect.objectContaining({
        name: 'agent-c',
        source_revision_config: { repo_ref: 'main', graph_config_path: 'agents/c/graph.json' },
      }),
    ]);
    const patches = sim.requestsTo('PATCH');
    expect(patches.map((r) => r.path).sort()).toEqual(
      [`/v2/deployments/${a.id}`, `/v2/deployments/${b.id}`].sort(),
    );
    for (const patch of patches)
      expect(patch.body).toEqual({
        source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
      });

    expect(run.outputs.result).toBe('deployed');
    const all = results(run.outputs);
    expect(Object.keys(all)).toEqual(['agent-a', 'agent-b', 'agent-c']);
    const items = [
      ['agent-a', a],
      ['agent-b', b],
      ['agent-c', c],
    ] as const;
    for (const [name, dep] of items) {
      const now = sim.deployment(dep.id)!;
      expect(all[name]).toEqual({
        result: 'deployed',
        'deployment-id': dep.id,
        'revision-id': now.active_revision_id,
        'revision-status': 'DEPLOYED',
        'custom-url': now.source_config.custom_url,
        verified: null,
        duration: expect.any(Number),
      });
    }
    // The single deployment's outputs belong to a one-item list only.
    expect(run.outputs['deployment-id']).toBeUndefined();
    expect(run.outputs['revision-id']).toBeUndefined();

    // One summary: the table of all three, then each one's own section.
    const { summary } = run;
    expect(summary.match(/^### /gm)).toHaveLength(4);
    expect(summary).toContain('### ✅ Deployed: 3 deployments');
    expect(summary).toContain('| Deployment | Result | Revision | Time | URL |');
    for (const [name, dep] of items) {
      const now = sim.deployment(dep.id)!;
      expect(summary).toContain(`| ${name} | \`deployed\` | \`${now.active_revision_id}\` | `);
      expect(summary).toContain(`### ✅ Deployed: ${name}`);
    }
    expect(summary).toContain(`| Deployment | agent-c (\`${c.id}\`), created by this run |`);
    // Each item's lines are led by its name.
    expect(run.stdout).toContain(`[agent-b] Found deployment 'agent-b' (${b.id})`);
    expect(run.stdout).toContain("[agent-c] No deployment is named 'agent-c': creating it");
  });

  it('fails the step for one BUILD_FAILED item while the others deploy', async () => {
    const { sim } = world;
    for (const name of ['agent-a', 'agent-b', 'agent-c']) sim.addDeployment({ name });
    sim.timelinesByName.set('agent-b', [BUILD_FAILED]);

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-b}, {name: agent-c}]'),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    const all = results(run.outputs);
    expect(all['agent-a']!.result).toBe('deployed');
    expect(all['agent-c']!.result).toBe('deployed');
    expect(all['agent-b']).toMatchObject({ result: 'failed', 'revision-status': 'BUILD_FAILED' });
    // The others were not held back by it: each has its revision live.
    for (const name of ['agent-a', 'agent-c']) {
      const dep = sim.deploymentsNamed(name)[0]!;
      expect(dep.active_revision_id).toBe(all[name]!['revision-id']);
    }
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      /^1 of 3 deployments did not succeed: 'agent-b' failed: Revision \S+ ended BUILD_FAILED\. Next: Read the revision's build log/,
    );
    expect(run.summary).toContain('### ❌ Failed: 3 deployments');
    expect(run.summary).toContain('2 deployed, 1 failed.');
    expect(run.summary).toContain('### ❌ Failed: agent-b');
  });

  it('deploys twelve items under a rate limit, the 429s one item meets holding all of them', async () => {
    const { sim } = world;
    const names = Array.from({ length: 12 }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);
    for (const name of names) sim.addDeployment({ name });
    sim.rateLimit = { perSecond: 4, retryAfterSeconds: 1 };

    const run = await runInProcess(world, {
      inputs: listOf(JSON.stringify(names.map((name) => ({ name }))), {
        'max-parallel': '8',
        timeout: '5m',
      }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    const all = results(run.outputs);
    expect(Object.keys(all)).toEqual(names);
    for (const name of names) expect(all[name]!.result).toBe('deployed');
    // One write each that the service took (a PATCH refused with 429 was not processed, and was sent again).
    expect(sim.requestsTo('PATCH').filter((r) => r.status === 200)).toHaveLength(12);
    const limited = sim.requests.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    // After each 429, nothing is sent until its Retry-After is over: the client holds every item, not only the one
    // refused (a request already on its way when the 429 came back may still land, as on any wire).
    const sent = sim.requests.map((r) => r.at);
    for (const refused of limited) {
      const within = sent.filter((at) => at > refused.at + 50 && at < refused.at + 1000);
      expect(within).toEqual([]);
    }
  });

  it('with fail-fast starts no more after one fails: the later items are not-started', async () => {
    const { sim } = world;
    for (const name of ['agent-a', 'agent-b', 'agent-c']) sim.addDeployment({ name });
    sim.timelinesByName.set('agent-a', [BUILD_FAILED]);

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-b}, {name: agent-c}]', {
        'max-parallel': '1',
        'fail-fast': 'true',
      }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    const all = results(run.outputs);
    expect(all['agent-a']!.result).toBe('failed');
    for (const name of ['agent-b', 'agent-c']) {
      expect(all[name]).toEqual({
        result: 'not-started',
        'deployment-id': null,
        'revision-id': null,
        'revision-status': null,
        'custom-url': null,
        verified: null,
        duration: null,
      });
      // Not even looked up.
      expect(sim.requests.filter((r) => r.query.name_contains === name)).toEqual([]);
    }
    expect(sim.requestsTo('PATCH')).toHaveLength(1);
    expect(run.stdout).toContain(
      "fail-fast: 'agent-a' ended failed, so no more deployments of the list start.",
    );
    expect(run.errors[0]).toContain(
      "'agent-b' not-started: Not started: fail-fast stopped the list after 'agent-a' ended failed.",
    );
    expect(run.summary).toContain('| agent-c | `not-started` | — | — | — |');
    expect(run.summary).toContain('### ⏸️ Not started: agent-c');
  });

  it('without fail-fast deploys the rest after one fails', async () => {
    const { sim } = world;
    for (const name of ['agent-a', 'agent-b']) sim.addDeployment({ name });
    sim.timelinesByName.set('agent-a', [BUILD_FAILED]);

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-b}]', { 'max-parallel': '1' }),
    });

    expect(run.outputs.result).toBe('failed');
    expect(results(run.outputs)['agent-b']!.result).toBe('deployed');
  });

  it('on a cancel stops every item and reports each: running ones keep going on the service, the rest never started', async () => {
    const { sim } = world;
    for (const name of ['agent-a', 'agent-b', 'agent-c']) sim.addDeployment({ name });
    sim.defaultTimeline = slow(60_000);

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-b}, {name: agent-c}]', {
        'max-parallel': '2',
      }),
      cancelAfterMs: 1500,
    });

    expect(run.code).toBe(1);
    expect(run.ms).toBe(1500);
    const all = results(run.outputs);
    const revisionOf = (name: string) => sim.deploymentsNamed(name)[0]!.latest_revision_id!;
    for (const name of ['agent-a', 'agent-b'])
      expect(all[name]).toMatchObject({
        result: 'failed',
        'revision-id': revisionOf(name),
        'revision-status': 'BUILDING',
      });
    expect(all['agent-c']!.result).toBe('not-started');
    expect(sim.requests.filter((r) => r.query.name_contains === 'agent-c')).toEqual([]);
    // No read after the cancel.
    const cancelledAt = Math.max(...sim.requests.map((r) => r.at));
    expect(sim.requests.filter((r) => r.at > cancelledAt)).toEqual([]);
    expect(run.stdout).toContain('Received SIGINT: stopping now.');
    expect(run.errors).toHaveLength(1);
    const [line] = run.errors;
    expect(line).toMatch(/^The job was cancelled\. /);
    for (const name of ['agent-a', 'agent-b'])
      expect(line).toContain(
        `'${name}' failed: Revision ${revisionOf(name)} keeps going on the service`,
      );
    expect(line).toContain("'agent-c' not-started: Not started: the job was cancelled first.");
    expect(run.summary).toContain('### ⚠️ Cancelled: 3 deployments');
    expect(run.summary).toContain(`Revision ${revisionOf('agent-a')} keeps going on the service`);
  });

  it('rolls back the item that failed, and only that one', async () => {
    const { sim } = world;
    const a = sim.addDeployment({ name: 'agent-a' });
    const b = sim.addDeployment({ name: 'agent-b' });
    const before = b.active_revision_id;
    sim.timelinesByName.set('agent-b', [BUILD_FAILED]);

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-b}]', { 'rollback-on-failure': 'true' }),
    });

    expect(run.outputs.result).toBe('rolled-back');
    expect(run.code).toBe(1);
    const all = results(run.outputs);
    expect(all['agent-a']!.result).toBe('deployed');
    expect(all['agent-b']!.result).toBe('rolled-back');
    expect(sim.deployment(b.id)!.active_revision_id).toBe(before);
    expect(sim.requestsTo('POST', /\/redeploy$/).map((r) => r.path)).toEqual([
      `/v2/deployments/${b.id}/revisions/${before}/redeploy`,
    ]);
    expect(sim.deployment(a.id)!.active_revision_id).toBe(all['agent-a']!['revision-id']);
  });

  it('with one item also sets the outputs of that deployment', async () => {
    const { sim } = world;
    const a = sim.addDeployment({ name: 'agent-a' });

    const run = await runInProcess(world, { inputs: listOf('- name: agent-a') });

    expect(run.errors).toEqual([]);
    const now = sim.deployment(a.id)!;
    expect(run.outputs).toMatchObject({
      result: 'deployed',
      'deployment-id': a.id,
      'deployment-name': 'agent-a',
      'revision-id': now.active_revision_id,
      'custom-url': now.source_config.custom_url,
    });
    expect(results(run.outputs)['agent-a']!['revision-id']).toBe(now.active_revision_id);
  });

  it('reads the list from @path in the workspace, each item with its own values', async () => {
    const { sim } = world;
    const a = sim.addDeployment({ name: 'agent-a' });
    const b = sim.addDeployment({ name: 'agent-b' });

    const run = await runInProcess(world, {
      inputs: listOf('@deploy/agents.json'),
      files: {
        'deploy/agents.json': JSON.stringify([
          { name: 'agent-a', 'repo-ref': 'release-a' },
          { name: 'agent-b', 'custom-url': 'https://b.example', 'build-on-push': false },
        ]),
      },
    });

    expect(run.errors).toEqual([]);
    const bodyOf = (id: string) => sim.requestsTo('PATCH', `/v2/deployments/${id}`)[0]!.body;
    expect(bodyOf(a.id)).toEqual({
      source_revision_config: { repo_ref: 'release-a', graph_config_path: 'graph.json' },
    });
    expect(bodyOf(b.id)).toEqual({
      source_config: { build_on_push: false, custom_url: 'https://b.example' },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    });
  });
});

describe('a list with the other commands', () => {
  it('promote: each item from its own source', async () => {
    const { sim } = world;
    const sources = ['a', 'b'].map((x) => sim.addDeployment({ name: `staging-${x}` }));
    const targets = ['a', 'b'].map((x) => sim.addDeployment({ name: `prod-${x}` }));

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, {
        command: 'promote',
        deployments: '[{name: prod-a, from: staging-a}, {name: prod-b, from: staging-b}]',
      }),
    });

    expect(run.errors).toEqual([]);
    expect(run.outputs.result).toBe('deployed');
    sources.forEach((source, i) => {
      const commit = sim.revision(source.id, source.active_revision_id!)!.source_revision_config
        .repo_commit_sha;
      expect(sim.requestsTo('PATCH', `/v2/deployments/${targets[i]!.id}`)[0]!.body).toMatchObject({
        source_revision_config: { repo_ref: commit },
      });
    });
    expect(sim.writes().filter((r) => sources.some((s) => r.path.includes(s.id)))).toEqual([]);
    expect(run.summary).toContain('### ✅ Promoted: prod-a');
  });

  it('status: reads each, writes nothing', async () => {
    const { sim } = world;
    sim.addDeployment({ name: 'agent-a' });
    const b = sim.addDeployment({ name: 'agent-b' });
    // Queued for a second: the run's six reads take a moment, paced from the first.
    sim.addRevision(b.id, [{ status: 'QUEUED', ms: 1000 }, ...BUILD_FAILED.slice(1)]);

    const run = await runInProcess(world, {
      inputs: baseInputs(sim, { command: 'status', deployments: '[agent-a, agent-b]' }),
    });

    // A list of names is not a list of items: said before any request.
    expect(run.errors[0]).toMatch(
      /^The inputs have 2 mistakes; nothing was sent\. Input 'deployments': item 1 is text, not a mapping.* Input 'deployments': item 2 is text, not a mapping/,
    );
    expect(sim.requests).toEqual([]);

    const read = await runInProcess(world, {
      inputs: baseInputs(sim, {
        command: 'status',
        deployments: '[{name: agent-a}, {name: agent-b}]',
      }),
    });
    expect(sim.writes()).toEqual([]);
    const all = results(read.outputs);
    expect(all['agent-a']!.result).toBe('deployed');
    expect(all['agent-b']).toMatchObject({ result: 'submitted', 'revision-status': 'QUEUED' });
    expect(read.outputs.result).toBe('submitted');
  });

  it('dry run: plans each, writes nothing', async () => {
    const { sim } = world;
    sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    sim.addDeployment({ name: 'agent-a' });

    const run = await runInProcess(world, {
      inputs: listOf('[{name: agent-a}, {name: agent-new}]', { 'dry-run': 'true' }),
    });

    expect(run.errors).toEqual([]);
    expect(sim.writes()).toEqual([]);
    expect(run.outputs.result).toBe('planned');
    const all = results(run.outputs);
    expect(all['agent-a']!.result).toBe('planned');
    expect(all['agent-new']!.result).toBe('planned');
    expect(run.stdout).toContain('[agent-a] Dry run: nothing is written to the service.');
    expect(run.stdout).toContain('[agent-new] POST ');
    expect(run.summary).toContain('This run would create deployment agent-new');
  });
});
