// The inputs read into each command's settings: the contract's defaults, the forms each value takes, the runner's
// context as the defaults' source, and one line naming the input for a value it refuses.
import { describe, expect, it } from 'vitest';
import { type DeploySettings } from '../../src/inputs/index.ts';
import { InputError } from '../../src/core/errors.ts';
import { settingsOf } from '../helpers/core.ts';

const BASE: Record<string, string> = {
  'base-url': 'https://api.example.com/',
  'api-key': 'key',
  name: 'my-agent',
};
const all = (inputs: Record<string, string>) => ({ ...BASE, ...inputs });
/** The settings of a deploy (the default command). */
const parse = async (inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) =>
  (await settingsOf(all(inputs), env)) as DeploySettings;

describe('parseInputs', () => {
  it('applies the contract defaults', async () => {
    const s = await parse({}, { GITHUB_REF_NAME: 'main', GITHUB_REPOSITORY: 'acme/agent' });
    expect(s).toMatchObject({
      command: 'deploy',
      target: { name: 'my-agent' },
      baseUrl: 'https://api.example.com',
      create: true,
      source: 'codehost',
      integrationKind: 'codehost',
      wait: true,
      timeoutMs: 30 * 60_000,
      pollIntervalMs: 10_000,
      allowSkipped: false,
      rollbackOnFailure: false,
      dryRun: false,
      repoRef: 'main',
      repository: { owner: 'acme', name: 'agent' },
    });
    expect(s.secrets).toBeUndefined();
  });

  it('gives each command the settings it needs, and no more', async () => {
    const redeploy = await settingsOf(
      all({ command: 'redeploy', 'revision-id': '123e4567-e89b-42d3-a456-426614174000' }),
      {},
    );
    expect(redeploy).toMatchObject({ command: 'redeploy', target: { name: 'my-agent' } });
    expect(redeploy).not.toHaveProperty('source');
    const token = await settingsOf(
      all({ command: 'token-metadata', 'token-id': 't1', 'is-default': 'true' }),
      {},
    );
    expect(token).toMatchObject({ tokenId: 't1', metadata: { is_default: true } });
    expect(token).not.toHaveProperty('target');
  });

  it.each([
    ['900', 900_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['1.5m', 90_000],
  ])('reads timeout %s as %i ms', async (timeout, ms) => {
    expect((await parse({ timeout })).timeoutMs).toBe(ms);
  });

  it('reads booleans in any case', async () => {
    expect(await parse({ wait: 'FALSE', 'dry-run': 'True' })).toMatchObject({
      wait: false,
      dryRun: true,
    });
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:8080'])(
    'allows http:// for the loopback host of %s',
    async (url) => {
      expect((await parse({ 'base-url': url })).baseUrl).toBe(url);
    },
  );

  it('takes the PR head branch as the ref, and a tag in full', async () => {
    const pr = await parse({}, { GITHUB_HEAD_REF: 'feature', GITHUB_REF_NAME: '12/merge' });
    expect(pr.repoRef).toBe('feature');
    const tag = { GITHUB_REF_TYPE: 'tag', GITHUB_REF: 'refs/tags/v1', GITHUB_REF_NAME: 'v1' };
    expect((await parse({}, tag)).repoRef).toBe('refs/tags/v1');
  });

  it('on pull_request_target takes no default ref: a codehost deploy must name one', async () => {
    const env = { GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_HEAD_REF: 'fork-branch' };
    await expect(parse({}, env)).rejects.toThrow(
      "Input 'repo-ref' is required on pull_request_target: that workflow runs with your secrets, and the default would be the pull request's head branch",
    );
    expect((await parse({ 'repo-ref': 'main' }, env)).repoRef).toBe('main');
    expect((await parse({ 'image-uri': 'registry.example/agent:1' }, env)).repoRef).toBeUndefined();
  });

  it.each(['../x', 'a/b', 'a b', '..', '.', 'a..b', 'x'.repeat(201)])(
    'refuses token-id %j, which would rewrite the request path',
    async (tokenId) => {
      const inputs = { command: 'token-metadata', 'token-id': tokenId, 'is-default': 'true' };
      await expect(settingsOf(all(inputs))).rejects.toThrow(
        /^Input 'token-id': .* is not a token id; use the id the service gave the token: letters, digits, '-', '_', '\.' and '~', without '\/', '\.\.' or white space/,
      );
    },
  );

  it('throws an InputError naming the input, never quoting a long value', async () => {
    const error = await parse({ 'deployment-id': 'k'.repeat(64) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      "Input 'deployment-id': the value (64 characters) is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000.",
    );
  });
});
