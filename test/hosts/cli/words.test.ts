// Messages in the host's words: on the command line an input is its flag and its variable (`--name` /
// `AGENT_DEPLOY_NAME`), in GitLab CI one of the job's variables; never a workflow step's `with:`, actions/checkout
// or a YAML `key: value` of a step. In-process, on the world's fake clock.
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { useWorld } from '../../helpers/run.ts';
import { API_KEY, INTEGRATION } from '../../helpers/setup.ts';

const world = useWorld();
const GITLAB = { GITLAB_CI: 'true', CI_PROJECT_DIR: '', CI_COMMIT_REF_NAME: 'main' };

/** What GitHub's words look like: none may reach a terminal or a GitLab job. */
const GITHUB_WORDS = /with:|actions\/checkout|\$\{\{|the step's|\b(create|name|source|command): \S/;

const base = () => ({ 'base-url': world.sim.url, 'api-key': API_KEY, timeout: '30s' });

describe('on the command line, inputs are named as flags and variables', () => {
  it('every invalid input at once, exit 2, nothing sent', async () => {
    const run = await runCliInProcess(world, {
      inputs: { 'api-key': API_KEY, name: 'my-agent', timeout: '10x', create: 'maybe' },
    });

    expect(run.code).toBe(2);
    expect(run.failure).toBe(
      'The inputs have 3 mistakes; nothing was sent. --base-url / AGENT_DEPLOY_BASE_URL is required; give --base-url <value> or set the variable AGENT_DEPLOY_BASE_URL. --timeout / AGENT_DEPLOY_TIMEOUT: "10x" is not a duration; use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m. --create / AGENT_DEPLOY_CREATE: "maybe" is not true, always or false; use true (create a name that is not one typo away from a deployment\'s), always or false.',
    );
    expect(world.sim.requests).toEqual([]);
  });

  it('the key is asked for as a variable, never as a flag', async () => {
    const run = await runCliInProcess(world, {
      inputs: { 'base-url': world.sim.url, name: 'my-agent' },
    });
    expect(run.failure).toBe(
      '--api-key / AGENT_DEPLOY_API_KEY is required; give it as the variable AGENT_DEPLOY_API_KEY, not as a flag (a flag shows in the process list).',
    );
  });

  it('what a create needs, all at once and exit 2, with why no repository is known', async () => {
    const run = await runCliInProcess(world, { inputs: { ...base(), name: 'new-agent' } });

    expect(run.code).toBe(2);
    expect(run.failure).toContain(
      "'new-agent' does not exist yet, and creating it needs 3 inputs not given; nothing was written. --integration-id / AGENT_DEPLOY_INTEGRATION_ID is required",
    );
    expect(run.failure).toContain(
      '--graph-config-path / AGENT_DEPLOY_GRAPH_CONFIG_PATH is required',
    );
    expect(run.failure).toContain(
      '--repo-url / AGENT_DEPLOY_REPO_URL is required to create a codehost deployment when no repository is known (the working directory is not a git checkout',
    );
    expect(world.sim.writes()).toEqual([]);
  });

  it('a near name: the ways on as flags', async () => {
    world.sim.addDeployment({ name: 'support-agent' });
    const run = await runCliInProcess(world, {
      inputs: { ...base(), name: 'support-agnet', 'integration-id': INTEGRATION },
    });
    expect(run.code).toBe(1);
    expect(run.failure).toContain(
      "For 'support-agent', add --name support-agent (or set AGENT_DEPLOY_NAME=support-agent); to create 'support-agnet' beside it, add --create always (or set AGENT_DEPLOY_CREATE=always).",
    );
  });

  it('a file missing from the working directory: run it in the checkout', async () => {
    const run = await runCliInProcess(world, {
      inputs: { ...base(), name: 'my-agent', 'resource-spec': '@spec.yaml' },
    });
    expect(run.failure).toBe(
      "--resource-spec / AGENT_DEPLOY_RESOURCE_SPEC cannot read spec.yaml: no such file in the workspace; check the path after @ (run agent-deploy in the repository's checkout: @paths are read from the working directory).",
    );
  });
});

describe('in GitLab CI, inputs are the job variables', () => {
  it('a near name: set the variable in the job', async () => {
    world.sim.addDeployment({ name: 'support-agent' });
    const run = await runCliInProcess(world, {
      inputs: { ...base(), name: 'support-agnet', 'integration-id': INTEGRATION },
      env: GITLAB,
    });
    expect(run.failure).toContain(
      "For 'support-agent', set AGENT_DEPLOY_NAME: support-agent in the job's variables, or add --name support-agent; to create 'support-agnet' beside it, set AGENT_DEPLOY_CREATE: always in the job's variables, or add --create always.",
    );
  });

  it('the key as a masked CI/CD variable; the repository from CI_PROJECT_PATH', async () => {
    const run = await runCliInProcess(world, {
      inputs: { 'base-url': world.sim.url, name: 'new-agent' },
      env: GITLAB,
    });
    expect(run.failure).toBe(
      '--api-key / AGENT_DEPLOY_API_KEY is required; set AGENT_DEPLOY_API_KEY as a masked CI/CD variable (Settings › CI/CD › Variables).',
    );
    const create = await runCliInProcess(world, {
      inputs: { ...base(), name: 'new-agent' },
      env: GITLAB,
    });
    expect(create.failure).toContain('when no repository is known (CI_PROJECT_PATH is not set)');
  });
});

describe('no GitHub words outside GitHub', () => {
  const MISTAKES: Record<string, string>[] = [
    {},
    { name: 'my-agent', 'api-key': 'a key' },
    { name: 'my-agent', 'image-uri': 'r.example/a:1', source: 'codehost' },
    { name: 'my-agent', 'build-on-push': 'true', 'repo-ref': 'refs/tags/v1' },
    { name: 'my-agent', 'from-revision-id': INTEGRATION },
    { name: 'my-agent', deployments: '[{name: a}]' },
    { name: 'my-agent', 'resource-spec': '@missing.yaml' },
    { name: 'new-agent' },
    { name: 'support-agnet' },
    { name: 'support-agnet', create: 'false' },
    { command: 'status', name: 'support-agnet' },
  ];
  it.each([
    ['a terminal', {}],
    ['GitLab CI', GITLAB],
  ])('in %s', async (_, env) => {
    for (const inputs of MISTAKES) {
      world.sim.reset();
      world.sim.addDeployment({ name: 'support-agent' });
      const run = await runCliInProcess(world, {
        inputs: { 'base-url': world.sim.url, 'api-key': API_KEY, ...inputs },
        env,
      });
      expect(run.failure, JSON.stringify(inputs)).toBeDefined();
      expect(run.failure, JSON.stringify(inputs)).not.toMatch(GITHUB_WORDS);
      expect(run.failure, JSON.stringify(inputs)).not.toMatch(/\bInput '/);
    }
  });
});
