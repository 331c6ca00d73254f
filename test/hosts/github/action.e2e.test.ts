// The bundled action as the runner runs it (INPUT_* variables in; GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and runner
// commands out): each command once and a refused input. What each command does is tested in-process
// (test/commands/); here the point is that dist/ wires it to the runner. Each case has a simulator of its own, so
// the cases run at once.
import { describe, expect, it } from 'vitest';
import { runAction } from '../../helpers/action.ts';
import { API_KEY, baseInputs, codehostInputs, INTEGRATION } from '../../helpers/setup.ts';
import { Simulator } from '../../simulator/server.ts';

/** A simulator for one case, closed after it. */
async function withSimulator(test: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await Simulator.start({ apiKey: API_KEY });
  try {
    await test(sim);
  } finally {
    await sim.close();
  }
}

describe.concurrent('the bundled action', () => {
  it('deploy creates a missing deployment: outputs, a summary, and its own headers on the wire', () =>
    withSimulator(async (sim) => {
      sim.addRepository(INTEGRATION, {
        owner: 'acme',
        name: 'agent',
        url: 'https://codehost.example/acme/agent',
      });

      const run = await runAction({ inputs: codehostInputs(sim, 'my-agent') });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      const created = sim.deploymentsNamed('my-agent')[0]!;
      expect(run.outputs).toMatchObject({
        result: 'deployed',
        created: 'true',
        'revision-created': 'true',
        'deployment-id': created.id,
        'deployment-name': 'my-agent',
        'revision-id': created.active_revision_id!,
        'revision-status': 'DEPLOYED',
        'previous-revision-id': '',
      });
      expect(run.outputs['commit-sha']).toMatch(/^[0-9a-f]{40}$/);
      expect(run.summary).toContain('### ✅ Deployed: my-agent');
      expect(run.summary).toContain(
        `| Deployment | my-agent (\`${created.id}\`), created by this run |`,
      );
      expect(run.stdout).toContain(`Result: deployed (revision ${created.active_revision_id})`);
      const posts = sim.requestsTo('POST', '/v2/deployments');
      expect(posts).toHaveLength(1);
      const headers = posts[0]!.headers;
      expect(headers['x-api-key']).toBe(API_KEY);
      expect(headers['content-type']).toBe('application/json');
      expect(headers.accept).toBe('application/json');
      // The bundle's version: the User-Agent comes from package.json at build time.
      expect(headers['user-agent']).toMatch(/^agent-deploy-action\/\d+\.\d+\.\d+$/);
      expect(sim.requests.every((r) => r.headers['user-agent'] === headers['user-agent'])).toBe(
        true,
      );
    }));

  it('redeploy makes an older revision live again', () =>
    withSimulator(async (sim) => {
      const dep = sim.addDeployment({ name: 'my-agent' });
      const r0 = dep.active_revision_id!;
      const r1 = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }]).id;

      const run = await runAction({
        inputs: baseInputs(sim, { command: 'redeploy', name: 'my-agent', 'revision-id': r0 }),
      });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      expect(sim.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST /v2/deployments/${dep.id}/revisions/${r0}/redeploy`,
      ]);
      expect(run.outputs).toMatchObject({
        result: 'deployed',
        'revision-id': r0,
        'previous-revision-id': r1,
        'revision-status': 'DEPLOYED',
      });
      expect(sim.deployment(dep.id)!.active_revision_id).toBe(r0);
    }));

  it('status reports the latest revision and writes nothing', () =>
    withSimulator(async (sim) => {
      const dep = sim.addDeployment({ name: 'my-agent' });

      const run = await runAction({
        inputs: baseInputs(sim, { command: 'status', name: 'my-agent' }),
      });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      expect(sim.writes()).toEqual([]);
      expect(run.outputs).toMatchObject({
        result: 'deployed',
        'deployment-id': dep.id,
        'revision-id': dep.latest_revision_id!,
        'revision-status': 'DEPLOYED',
      });
      expect(run.summary).toContain('### 📋 Status: live: my-agent');
    }));

  it('token-metadata sends exactly the fields given', () =>
    withSimulator(async (sim) => {
      const token = sim.addToken({ provider_account_label: 'old', is_default: false });

      const run = await runAction({
        inputs: baseInputs(sim, {
          command: 'token-metadata',
          'token-id': token.id,
          'provider-account-label': 'ci-bot',
        }),
      });

      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      expect(sim.writes().map((r) => [r.method, r.path, r.body])).toEqual([
        ['PATCH', `/v2/auth/tokens/${token.id}/metadata`, { provider_account_label: 'ci-bot' }],
      ]);
      expect(run.outputs.result).toBe('updated');
      expect(token.provider_account_label).toBe('ci-bot');
    }));

  it('an invalid input fails the step with one error line, before any request', () =>
    withSimulator(async (sim) => {
      const run = await runAction({ inputs: codehostInputs(sim, 'my-agent', { wait: 'yes' }) });

      expect(run.code).toBe(1);
      const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error'));
      expect(errors).toEqual([
        '::error::Input \'wait\': "yes" is not a boolean; use true or false.',
      ]);
      expect(run.outputs.result).toBe('failed');
      expect(run.summary).toContain('Failed in: inputs');
      expect(sim.requests).toEqual([]);
    }));
});
