// Issue 11: the usual mistakes of a new user end in a message that points at the fix, a result and a summary.
import { describe, expect, it } from 'vitest';
import { runAction } from './helpers/action.ts';
import { baseInputs, codehostInputs, useSimulator } from './helpers/setup.ts';

const ctx = useSimulator();

describe('errors that point at the cause', () => {
  it('a base-url with a path of its own names base-url and the full URL requested; nothing is written', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: codehostInputs(sim, 'my-agent', { 'base-url': `${sim.url}/api` }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`GET ${sim.url}/api/v2/deployments failed: HTTP 404`);
    expect(run.errors[0]).toContain('Check base-url');
    expect(run.errors[0]).not.toContain('Check the id');
    expect(sim.writes()).toEqual([]);
  });

  it("reduces a proxy's HTML error page to its content type and title", async () => {
    const { sim } = ctx;
    sim.fault({
      method: 'GET',
      status: 404,
      contentType: 'text/html; charset=utf-8',
      rawBody: `<!DOCTYPE html><html><head><title>404 Not Found</title><style>${'b{}'.repeat(500)}</style></head><body><h1>nginx</h1></body></html>`,
    });

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent') });

    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(
      'an HTML page (text/html; charset=utf-8, titled "404 Not Found")',
    );
    expect(run.errors[0]).toContain('Check base-url');
    expect(run.errors[0]).not.toContain('<');
    expect(run.errors[0]!.length).toBeLessThan(400);
  });

  it('an id that does not exist is named by its input', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    const missing = '33333333-3333-4333-8333-333333333333';

    const run = await runAction({
      inputs: baseInputs(sim, {
        command: 'redeploy',
        'deployment-id': dep.id,
        'revision-id': missing,
      }),
    });

    expect(run.errors[0]).toContain(
      `Check revision-id: ${missing} is not a revision of deployment ${dep.id}.`,
    );
  });

  it('a timeout given in seconds is named with its value', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    sim.timelines.push([{ status: 'BUILDING' }]);

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent', { timeout: '3' }) });

    expect(run.outputs.result).toBe('timed-out');
    expect(run.errors[0]).toContain('was still BUILDING when timeout 3s ran out');
  });

  it('a source mismatch caused by image-uri names image-uri', async () => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: baseInputs(sim, { name: 'my-agent', 'image-uri': 'registry.example/agent:1' }),
    });

    expect(run.errors[0]).toContain(
      "has source 'codehost', but image-uri implies source 'external_docker'",
    );
    expect(run.errors[0]).toContain('Drop image-uri');
    expect(sim.writes()).toEqual([]);
  });
});

describe('a result and a summary on every run', () => {
  it('a 401 gives result=failed and a summary that says what to check', async () => {
    const { sim } = ctx;

    const run = await runAction({
      inputs: codehostInputs(sim, 'my-agent', { 'api-key': 'wrong-key' }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.summary).toContain('### ❌ Failed: my-agent');
    expect(run.summary).toContain('HTTP 401');
    expect(run.summary).toContain('api-key');
  });

  it('an invalid input gives result=failed and a summary naming the input and the accepted form', async () => {
    const { sim } = ctx;

    const run = await runAction({ inputs: codehostInputs(sim, 'my-agent', { wait: 'yes' }) });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.summary).toContain('Input \'wait\': "yes" is not a boolean; use true or false.');
    expect(run.summary).toContain('Failed in: inputs');
    expect(sim.requests).toEqual([]);
  });
});

describe('command: status', () => {
  it('reads as a status report and never calls the latest revision "previous"', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: baseInputs(sim, { command: 'status', name: 'my-agent' }),
    });

    expect(run.code).toBe(0);
    expect(run.summary).toContain('### 📋 Status: live: my-agent');
    expect(run.summary).toContain(`| Latest revision | \`${dep.latest_revision_id}\` |`);
    expect(run.summary).toContain(`| Active revision | \`${dep.active_revision_id}\` |`);
    expect(run.summary).not.toMatch(/previous|Deployed:/i);
  });
});
