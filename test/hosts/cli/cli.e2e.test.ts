// The command line through the bundle (dist/cli.js), as a shell runs it: inputs as flags or AGENT_DEPLOY_* variables,
// the log on stderr, --json on stdout, the exit codes, and never a GitHub runner command.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMANDS } from '../../../src/commands/index.ts';
import { runCli, runnerCommands } from '../../helpers/cli.ts';
import { API_KEY, baseInputs, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const action = parse(readFileSync(resolve(import.meta.dirname, '../../../action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
};
const flags = (inputs: Record<string, string>) =>
  Object.entries(inputs).flatMap(([name, value]) => [`--${name}`, value]);

describe('agent-deploy (dist/cli.js)', () => {
  it('deploys with flags: the log on stderr, nothing on stdout, exit 0', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runCli({
      args: [
        'deploy',
        ...flags(baseInputs(ctx.sim, { name: 'my-agent', 'repo-ref': 'release-2' })),
      ],
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Found deployment 'my-agent' (${dep.id})`);
    expect(run.stderr).toMatch(/\nResult: deployed \(revision [0-9a-f-]{36}\)\n$/);
    const [patch] = ctx.sim.requestsTo('PATCH');
    expect(patch?.body).toMatchObject({ source_revision_config: { repo_ref: 'release-2' } });
    // Not a terminal: plain lines, no live line.
    expect(run.stderr).not.toContain('\x1b[');
    expect(runnerCommands(run)).toEqual([]);
  });

  it('takes every input from AGENT_DEPLOY_<INPUT> too, and a flag wins over its variable', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });
    const other = ctx.sim.addDeployment({ name: 'other-agent' });

    const run = await runCli({
      args: ['deploy', '--name', 'my-agent'],
      env: {
        AGENT_DEPLOY_BASE_URL: ctx.sim.url,
        AGENT_DEPLOY_API_KEY: API_KEY,
        AGENT_DEPLOY_NAME: 'other-agent',
        AGENT_DEPLOY_REPO_REF: 'release-3',
        AGENT_DEPLOY_POLL_INTERVAL: '1s',
      },
    });

    expect(run.code).toBe(0);
    const patches = ctx.sim.requestsTo('PATCH');
    expect(patches).toHaveLength(1);
    expect(patches[0]!.path).not.toContain(other.id);
    expect(patches[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(patches[0]!.body).toMatchObject({ source_revision_config: { repo_ref: 'release-3' } });
    expect(run.stderr).not.toContain(API_KEY);
    expect(runnerCommands(run)).toEqual([]);
  });

  it('prints the outputs as one JSON object on stdout with --json, each of its own type', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runCli({
      args: [
        'deploy',
        '--json',
        ...flags(baseInputs(ctx.sim, { name: 'my-agent', 'repo-ref': 'main' })),
      ],
    });

    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    const outputs = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(outputs).toMatchObject({
      result: 'deployed',
      'deployment-id': dep.id,
      'deployment-name': 'my-agent',
      'revision-status': 'DEPLOYED',
      created: false,
      'revision-created': true,
      duration: expect.any(Number),
    });
    for (const name of Object.keys(outputs)) expect(action.outputs).toHaveProperty([name]);
  });

  it('--json gives results as an object, not a string', async () => {
    ctx.sim.addDeployment({ name: 'agent-a' });
    ctx.sim.addDeployment({ name: 'agent-b' });

    const run = await runCli({
      args: [
        'deploy',
        '--json',
        ...flags(
          baseInputs(ctx.sim, {
            deployments: '[{name: agent-a}, {name: agent-b}]',
            'repo-ref': 'main',
          }),
        ),
      ],
    });

    expect(run.code).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: unknown };
    expect(results).toEqual({
      'agent-a': expect.objectContaining({ result: 'deployed', duration: expect.any(Number) }),
      'agent-b': expect.objectContaining({ result: 'deployed', verified: null }),
    });
  });

  it.each([
    [[], 'agent-deploy: no command given.'],
    [
      ['deplyo', '--name', 'my-agent'],
      "agent-deploy: the first argument is not a command (did you mean 'deploy'?).",
    ],
  ])('%j: one line naming the problem, a short usage, exit 2', async (args, line) => {
    const run = await runCli({ args });

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(line);
    expect(lines[1]).toMatch(/^usage: agent-deploy <command>/);
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(run.stderr).toContain(`commands: ${Object.keys(COMMANDS).join(', ')}`);
    expect(ctx.sim.requests).toEqual([]);
  });

  it('exits 1 when the deploy fails, with the failure as the last line', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });
    ctx.sim.timelines.push([{ status: 'QUEUED', ms: 20 }, { status: 'BUILD_FAILED' }]);

    const run = await runCli({
      args: [
        'deploy',
        '--json',
        ...flags(baseInputs(ctx.sim, { name: 'my-agent', 'repo-ref': 'main' })),
      ],
    });

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      result: 'failed',
      'revision-status': 'BUILD_FAILED',
    });
    expect(run.stderr).toMatch(/\nerror: Revision [0-9a-f-]{36} ended BUILD_FAILED\.[^\n]*\n$/);
  });

  // Each usage error and invalid input is tested in-process (args.test.ts, words.test.ts); through the bundle, one of
  // each kind: a usage error above, an invalid input here.
  it('exits 2 on an invalid input, before any request, and reports it in --json too: result failed', async () => {
    const run = await runCli({
      args: [
        'status',
        '--json',
        ...flags(baseInputs(ctx.sim, { name: 'my-agent', wait: 'maybe' })),
      ],
    });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: --wait / AGENT_DEPLOY_WAIT: "maybe"');
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'failed' });
    expect(ctx.sim.requests).toEqual([]);
    expect(runnerCommands(run)).toEqual([]);
  });

  it('stops on SIGINT, reports what it has and exits 130', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });
    ctx.sim.timelines.push([{ status: 'QUEUED', ms: 20 }, { status: 'BUILDING' }]);
    let sent = false;

    const run = await runCli({
      args: [
        'deploy',
        '--json',
        ...flags(baseInputs(ctx.sim, { name: 'my-agent', 'repo-ref': 'main' })),
      ],
      onStderr: (text, child) => {
        if (!sent && text.includes(': BUILDING')) sent = child.kill('SIGINT');
      },
    });

    expect(sent).toBe(true);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('Received SIGINT: stopping now.');
    expect(run.stderr).toMatch(/error: The job was cancelled\. Revision [0-9a-f-]{36} keeps going/);
    expect(JSON.parse(run.stdout)).toMatchObject({ 'revision-status': 'BUILDING' });
  });

  it("never lets the service's words start a runner command", async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });
    ctx.sim.fault({
      method: 'PATCH',
      status: 422,
      body: { detail: 'bad ref\n::error::injected\n::add-mask::x' },
    });

    const run = await runCli({
      args: ['deploy', ...flags(baseInputs(ctx.sim, { name: 'my-agent', 'repo-ref': 'main' }))],
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('injected');
    expect(runnerCommands(run)).toEqual([]);
  });

  it('--help lists every input of action.yml with its default', async () => {
    const run = await runCli({ args: ['--help'] });

    expect(run.code).toBe(0);
    for (const [name, input] of Object.entries(action.inputs)) {
      const line = run.stdout.split('\n').find((l) => l.startsWith(`  --${name} <value>`));
      expect(line, name).toBeDefined();
      if (input.default !== undefined && !input.default.includes('${{'))
        expect(line, name).toContain(`(default ${input.default})`);
    }
    expect(run.stdout).toContain(`Commands: ${Object.keys(COMMANDS).join(', ')}.`);
  });
});
