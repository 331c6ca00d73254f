// Outside GitHub Actions, the repository a create looks for in the integration's listing is the checkout's origin
// remote, read with the git on PATH: every form a clone's origin takes, and a first deploy with no repo-url.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseRemoteUrl } from '../../../src/hosts/cli/origin.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { useWorld } from '../../helpers/run.ts';
import { codehostInputs, INTEGRATION } from '../../helpers/setup.ts';

describe('the owner/name of a remote URL', () => {
  it.each([
    ['https://github.com/acme/agent', 'acme', 'agent'],
    ['https://github.com/acme/agent.git', 'acme', 'agent'],
    ['https://github.com/acme/agent/', 'acme', 'agent'],
    ['https://user:token@github.com/acme/agent.git', 'acme', 'agent'],
    ['http://localhost:3000/acme/agent.git', 'acme', 'agent'],
    ['git@github.com:acme/agent.git', 'acme', 'agent'],
    ['git@github.com:acme/agent', 'acme', 'agent'],
    ['github.com:acme/agent.git', 'acme', 'agent'],
    ['ssh://git@github.com/acme/agent.git', 'acme', 'agent'],
    ['ssh://git@gitlab.example:2222/acme/platform/agent.git', 'acme/platform', 'agent'],
    ['git://git.example/acme/agent.git', 'acme', 'agent'],
    ['https://gitlab.example/acme/platform/agent.git', 'acme/platform', 'agent'],
  ])('%s', (url, owner, name) => {
    expect(parseRemoteUrl(url)).toEqual({ owner, name });
  });

  it.each([
    '/home/me/agent',
    './agent',
    '../agent.git',
    'file:///home/me/agent.git',
    'https://github.com/agent',
    'git@github.com:agent.git',
    'https://github.com/acme/../agent',
    'C:\\src\\agent',
    '',
  ])('none in %j', (url) => {
    expect(parseRemoteUrl(url)).toBeUndefined();
  });
});

describe('a first deploy from a checkout, with no repo-url', () => {
  const world = useWorld();
  const checkout = (origin?: string) => (dir: string) => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    if (origin) git('remote', 'add', 'origin', origin);
  };

  it.each(['git@github.com:Acme/Agent.git', 'https://github.com/acme/agent.git'])(
    "finds %s in the integration's listing and creates from its url",
    async (origin) => {
      world.sim.addRepository(INTEGRATION, { owner: 'acme', name: 'other' });
      world.sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
      const run = await runCliInProcess(world, {
        inputs: codehostInputs(world.sim, 'my-agent'),
        prepare: checkout(origin),
      });

      expect(run.failure).toBeUndefined();
      expect(run.outputs.result).toBe('deployed');
      expect(world.sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
        source_config: { repo_url: 'https://codehost.example/acme/agent' },
        source_revision_config: { repo_ref: 'main' },
      });
    },
  );

  it('a checkout without origin: repo-url is asked for, saying why, before any write', async () => {
    const run = await runCliInProcess(world, {
      inputs: codehostInputs(world.sim, 'my-agent'),
      prepare: checkout(),
    });
    expect(run.code).toBe(2);
    expect(run.failure).toContain(
      "--repo-url / AGENT_DEPLOY_REPO_URL is required to create a codehost deployment when no repository is known (the working directory is not a git checkout with an origin remote): give the repository's URL.",
    );
    expect(world.sim.writes()).toEqual([]);
  });

  it('an origin that is a local path names no repository', async () => {
    const run = await runCliInProcess(world, {
      inputs: codehostInputs(world.sim, 'my-agent'),
      prepare: checkout('/srv/git/agent'),
    });
    expect(run.failure).toContain(
      'when no repository is known (the origin remote is not a URL of the form host/owner/name)',
    );
  });
});
