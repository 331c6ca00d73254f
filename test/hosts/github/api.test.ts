// A failed GitHub call says what failed, through a real Octokit: the network (DNS, refused, reset: no permission
// helps), the rate limit (403 or 429 with none left, or Retry-After), the token (401), its permission (403, 404), or
// GitHub itself; and, for a command that deploys nothing, never "the deploy".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/core/logger.ts';
import { unaffected } from '../../../src/hosts/best-effort.ts';
import { bestEffort, type GitHubApi } from '../../../src/hosts/github/api.ts';
import { systemClock } from '../../../src/shared/clock.ts';
import { useGitHub } from '../../helpers/github.ts';
import { HANG_GUARD_MS } from '../../helpers/hang-guard.ts';
import { runInProcess, useWorld } from '../../helpers/run.ts';
import { codehostInputs } from '../../helpers/setup.ts';

/** GitHub as a loopback server that answers every request with `answer`. */
let answer: { status: number; headers?: Record<string, string>; body?: unknown } = { status: 200 };
const server = createServer((_, res) => {
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(JSON.stringify(answer.body ?? {}));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const CALL = {
  what: 'Creating the GitHub Deployment',
  permission: 'deployments: write',
  route: 'POST /repos/{owner}/{repo}/deployments',
  params: { owner: 'acme', repo: 'agent' },
};
const DEPLOYS = unaffected({ writes: true, dryRun: false });

/** The warning a call through `api` leaves. */
async function warningOf(api: GitHubApi, tail = DEPLOYS): Promise<string> {
  const said: string[] = [];
  const log: Logger = { debug() {}, info() {}, notice() {}, warning: (m) => said.push(m) };
  // The machine's clock (these calls are not the world's), and no limit load could reach: the hang guard's.
  const result = await bestEffort(api, log, CALL, {
    time: systemClock,
    timeoutMs: HANG_GUARD_MS,
    unaffected: tail,
  });
  expect(result).toBeUndefined();
  expect(said).toHaveLength(1);
  return said[0]!;
}

/** Octokit over a fetch that fails as Node's does when the network fails: a TypeError whose cause has the code. */
function failingNetwork(code: string, message: string): GitHubApi {
  const fetch = () =>
    Promise.reject(
      new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) }),
    );
  return getOctokit('t', { baseUrl: 'https://api.github.example', request: { fetch } });
}

describe('what failed', () => {
  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND api.github.example'],
    ['ECONNRESET', 'read ECONNRESET'],
  ])('the network (%s): no permission is blamed', async (code, message) => {
    const warning = await warningOf(failingNetwork(code, message));
    expect(warning).toBe(
      `Creating the GitHub Deployment failed (network error ${code}: ${message}); GitHub's API could not be reached from the runner: check its network, its proxy and GITHUB_API_URL. The deploy is not affected.`,
    );
  });

  it('a refused connection, on a real socket', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((done) => closed.close(() => done()));

    const warning = await warningOf(getOctokit('t', { baseUrl: `http://127.0.0.1:${port}` }));
    expect(warning).toMatch(/failed \(network error ECONNREFUSED: /);
    expect(warning).not.toContain('permissions');
  });

  it.each([
    [
      'a 403 with no requests left',
      {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000000' },
        body: { message: 'API rate limit exceeded' },
      },
      "(403 API rate limit exceeded); GitHub's API rate limit for this token is spent; it resets at 2023-11-14T22:13:20.000Z, and a best-effort call is not retried",
    ],
    [
      'a 403 whose reset is past any date (data: no time is made of it)',
      {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '99999999999999' },
        body: { message: 'API rate limit exceeded' },
      },
      "(403 API rate limit exceeded); GitHub's API rate limit for this token is spent, and a best-effort call is not retried",
    ],
    [
      'a 429 asking to wait',
      { status: 429, headers: { 'retry-after': '60' }, body: { message: 'Too Many Requests' } },
      "(429 Too Many Requests); GitHub's API rate limit for this token is spent; GitHub asks to wait 60 s, and a best-effort call is not retried",
    ],
    [
      'a secondary rate limit: 403 with Retry-After',
      {
        status: 403,
        headers: { 'retry-after': '30' },
        body: { message: 'You have exceeded a secondary rate limit' },
      },
      'GitHub asks to wait 30 s',
    ],
    [
      'a 403 of a missing permission',
      { status: 403, body: { message: 'Resource not accessible by integration' } },
      '(403 Resource not accessible by integration); give the job `permissions: deployments: write` (or a github-token that has it).',
    ],
    [
      'a 404, as GitHub hides what a token may not see',
      { status: 404, body: { message: 'Not Found' } },
      '(404 Not Found); give the job `permissions: deployments: write`',
    ],
    [
      'a 401',
      { status: 401, body: { message: 'Bad credentials' } },
      '(401 Bad credentials); github-token was refused: it is expired, revoked or not a token.',
    ],
    [
      'a 502',
      { status: 502, body: { message: 'Server Error' } },
      '(502 Server Error); GitHub failed or refused the call, and a best-effort call is not retried.',
    ],
  ])('%s', async (_, given, expected) => {
    answer = given;
    const warning = await warningOf(getOctokit('t', { baseUrl: url }));
    expect(warning).toContain(expected);
    if (!expected.includes('permissions')) expect(warning).not.toContain('permissions');
  });
});

describe('the last words', () => {
  it('a command that deploys nothing never speaks of the deploy', () => {
    expect(unaffected({ writes: true, dryRun: false })).toBe('The deploy is not affected.');
    expect(unaffected({ writes: true, dryRun: true })).toBe(
      "The step's result does not depend on it.",
    );
    expect(unaffected({ writes: false, dryRun: false })).toBe(
      "The step's result does not depend on it.",
    );
  });

  describe('a preview-close whose GitHub calls fail', () => {
    const world = useWorld();
    const github = useGitHub(world);

    it('warns in words that fit it', async () => {
      github.gh.forbidden = true;
      const run = await runInProcess(world, {
        inputs: codehostInputs(world.sim, 'support-agent', {
          command: 'preview-close',
          'github-token': 'ghs_token0123456789',
        }),
        github: getOctokit('ghs_token0123456789', { baseUrl: github.gh.url }),
        env: {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_HEAD_REF: 'feature',
          GITHUB_REF: 'refs/pull/7/merge',
          GITHUB_REF_NAME: '7/merge',
        },
        event: {
          action: 'closed',
          number: 7,
          pull_request: {
            number: 7,
            head: { sha: 'b'.repeat(40), ref: 'feature', repo: { full_name: 'acme/agent' } },
            base: { ref: 'main', repo: { full_name: 'acme/agent' } },
          },
        },
      });

      expect(run.outputs.result).toBe('closed');
      const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning::'));
      expect(warnings.length).toBeGreaterThan(0);
      for (const warning of warnings) {
        expect(warning).not.toContain('deploy is not affected');
        expect(warning).toContain("The step's result does not depend on it.");
      }
    });
  });
});
