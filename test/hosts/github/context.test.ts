import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readContext } from '../../../src/hosts/github/context.ts';

/** The context of a run whose event payload is `payload`. */
function contextOf(event: string, payload: unknown, env: Record<string, string> = {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'agent-deploy-event-')), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  return readContext(
    { GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: file, GITHUB_REPOSITORY: 'acme/agent', ...env },
    '/work',
  );
}

const pullRequest = (head: unknown) => ({
  pull_request: {
    number: 7,
    head: { ref: 'feature/x', sha: 'b'.repeat(40), repo: head },
    base: { repo: { full_name: 'acme/agent' } },
  },
});

describe('the GitHub runner as a host context', () => {
  it('a pull request from a branch of this repository: its number, head branch and head commit', () => {
    const { host, github } = contextOf('pull_request', pullRequest({ full_name: 'acme/agent' }), {
      GITHUB_HEAD_REF: 'feature/x',
      GITHUB_SHA: 'c'.repeat(40),
    });
    expect(host.change).toEqual({ number: 7, headRef: 'feature/x', fromFork: false });
    expect(host.ref).toBe('feature/x');
    expect(github).toMatchObject({ pullRequest: 7, sha: 'b'.repeat(40) });
    // The head branch is at the head commit; GITHUB_SHA is the merge commit, which no deploy builds.
    expect(host.commit).toBe('b'.repeat(40));
  });

  it.each([
    ['another repository', { full_name: 'someone/agent' }],
    ['a deleted fork', null],
  ])('a pull request from %s is from a fork', (_, head) => {
    expect(contextOf('pull_request', pullRequest(head)).host.change?.fromFork).toBe(true);
  });

  it('pull_request_target has no default ref: the head is its author’s code in a run with secrets', () => {
    const { host } = contextOf('pull_request_target', pullRequest({ full_name: 'acme/agent' }), {
      GITHUB_HEAD_REF: 'feature/x',
    });
    expect(host.ref).toBeUndefined();
    expect(host.commit).toBeUndefined();
    expect(host.untrustedHead).toBe('pull_request_target');
  });

  it('a push has no change, and a tag is deployed in full', () => {
    const { host } = contextOf(
      'push',
      {},
      {
        GITHUB_REF: 'refs/tags/v1.2.0',
        GITHUB_REF_NAME: 'v1.2.0',
        GITHUB_REF_TYPE: 'tag',
        GITHUB_SHA: 'd'.repeat(40),
      },
    );
    expect(host.change).toBeUndefined();
    expect(host.ref).toBe('refs/tags/v1.2.0');
    expect(host.commit).toBe('d'.repeat(40));
  });
});
