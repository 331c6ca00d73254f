// preview and preview-name: which runs may have a preview, the name they give it, and the defaults a preview
// changes (pr-comment, environment, repo-ref). Every refusal comes before any request (the settings are all a
// refused run gets).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { slug } from '../../src/shared/text.ts';
import { settingsOf } from '../helpers/core.ts';

const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-preview-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = { 'base-url': 'https://api.example.com', 'api-key': 'key', name: 'support-agent' };

/** The runner's variables for pull request #7 from `head` (a branch of this repository unless `fork`). */
function pullRequest(
  head = 'feature/Support-Chat',
  options: { fork?: boolean; event?: string } = {},
) {
  const file = join(dir, `event-${Math.random()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      number: 7,
      pull_request: {
        number: 7,
        head: {
          ref: head,
          sha: 'b'.repeat(40),
          repo: { full_name: options.fork ? 'someone/agent' : 'acme/agent' },
        },
        base: { repo: { full_name: 'acme/agent' } },
      },
    }),
  );
  return {
    GITHUB_EVENT_NAME: options.event ?? 'pull_request',
    GITHUB_EVENT_PATH: file,
    GITHUB_REPOSITORY: 'acme/agent',
    GITHUB_HEAD_REF: head,
    GITHUB_REF_NAME: '7/merge',
  };
}

const settings = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = pullRequest()) =>
  settingsOf({ ...BASE, preview: 'true', ...inputs }, env);
const refusal = (inputs: Record<string, string>, env?: NodeJS.ProcessEnv) =>
  settings(inputs, env).then(
    () => 'accepted',
    (error: Error) => error.message,
  );

describe('preview: true', () => {
  it('names the deployment {name}-pr-{number}, deploys the head branch, comments and records a preview environment', async () => {
    expect(await settings({})).toMatchObject({
      command: 'deploy',
      target: { name: 'support-agent-pr-7' },
      repoRef: 'feature/Support-Chat',
      prComment: true,
      environment: 'preview',
      preview: { name: 'support-agent-pr-7', number: 7, closing: false },
    });
  });

  it('keeps what the workflow gives: repo-ref, pr-comment: false, another environment', async () => {
    expect(
      await settings({ 'repo-ref': 'main', 'pr-comment': 'false', environment: 'pr-previews' }),
    ).toMatchObject({ repoRef: 'main', prComment: false, environment: 'pr-previews' });
  });

  it('leaves the defaults of a run without a preview as they were', async () => {
    const plain = await settingsOf(BASE, pullRequest());
    expect(plain).toMatchObject({ target: { name: 'support-agent' }, prComment: false });
    expect(plain).not.toHaveProperty('environment', expect.anything());
    expect(plain.preview).toBeUndefined();
  });

  it.each([
    ['{name}-{branch}-{number}', 'feature/Support-Chat', 'support-agent-feature-support-chat-7'],
    ['{branch}-{number}', '__Fix: crash in /chat (again)!__', 'fix-crash-in-chat-again-7'],
    ['pr{number}-{name}', 'x', 'pr7-support-agent'],
    ['preview-{number}', 'x', 'preview-7'],
  ])('fills %s for branch %j as %s', async (template, head, name) => {
    const s = await settingsOf(
      { ...BASE, preview: 'true', 'preview-name': template },
      pullRequest(head),
    );
    expect(s).toMatchObject({ target: { name }, preview: { name } });
  });

  it('slugs a branch: ASCII letters lower-cased, each run of other characters one -, trimmed', () => {
    expect(slug('--Ünïcode__Bränch--')).toBe('n-code-br-nch');
    expect(slug('///')).toBe('');
    // Letters that lower-case into ASCII ones are not ASCII letters: KELVIN SIGN, and İ (i and a combining dot).
    expect(slug('\u212Aelvin-\u0130stanbul')).toBe('elvin-stanbul');
    expect(slug('ﬁx/ＡＢＣ-Z')).toBe('x-z');
  });

  it('slugs any branch to a-z, 0-9 and single inner dashes (every character of the first 64 Ki code points)', () => {
    const every = Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i))
      .filter((c) => !/[\uD800-\uDFFF]/.test(c))
      .join('');
    for (let at = 0; at < every.length; at += 997) {
      const branch = `A${every.slice(at, at + 997)}z`;
      expect(slug(branch)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it.each([
    ['{name}-{branch}', 'support-agent'],
    ['{branch}', 'main'],
    ['{name}', 'x'],
    ['support-agent-pr-7', 'x'],
  ])(
    'refuses %j, which has no {number}: a branch could name another deployment',
    async (template, head) => {
      expect(await refusal({ 'preview-name': template }, pullRequest(head))).toContain(
        "Input 'preview-name' must contain {number}",
      );
    },
  );

  it('refuses a name that is name itself', async () => {
    expect(
      await refusal({ name: 'support-agent-pr-7', 'preview-name': 'support-agent-pr-{number}' }),
    ).toContain(
      `Input 'preview-name' must not make "support-agent-pr-7", the deployment in name: a preview is a deployment of its own`,
    );
  });

  it.each([
    [
      { name: 'Support_Agent' },
      `Input 'preview-name' must make a name of 1 to 63 characters of a-z, 0-9 and '-', but makes "Support_Agent-pr-7"`,
    ],
    [
      { 'preview-name': '{name}-{branch}-{number}', name: 'a'.repeat(50) },
      `but makes "${'a'.repeat(50)}-feature-support-chat-7"`,
    ],
    [
      { 'preview-name': '{nmae}-pr-{number}' },
      `Input 'preview-name': {nmae} is not a placeholder; use {name}, {number}, {branch}.`,
    ],
    [{ name: '' }, "Input 'name' is required: preview-name uses {name}"],
    [
      { 'deployment-id': '123e4567-e89b-42d3-a456-426614174000' },
      "Input 'deployment-id' cannot be used with preview: true",
    ],
    [{ command: 'status' }, "Input 'preview' applies to command deploy, not 'status'"],
  ])('refuses %j: %s', async (inputs, message) => {
    expect(await refusal(inputs)).toContain(message);
  });

  it('needs no name when preview-name does not use it', async () => {
    expect(await settings({ name: '', 'preview-name': 'chat-pr-{number}' })).toMatchObject({
      target: { name: 'chat-pr-7' },
    });
  });

  it('refuses a push, naming the event', async () => {
    expect(await refusal({}, { GITHUB_EVENT_NAME: 'push', GITHUB_REF_NAME: 'main' })).toBe(
      "Input 'preview': preview: true needs a pull request's run (on: pull_request), but this run (event 'push') has no pull request; run it there, or drop it from this job.",
    );
  });

  it('refuses pull_request_target: secrets for code the pull request’s author chooses', async () => {
    expect(await refusal({}, pullRequest('feature', { event: 'pull_request_target' }))).toContain(
      "preview: true runs in a pull request's own run, not pull_request_target",
    );
  });

  it('refuses a fork, saying why and what to do, before asking for the key it cannot have', async () => {
    const message = await refusal({ 'api-key': '' }, pullRequest('feature', { fork: true }));
    expect(message).toContain('refuses pull request #7: it comes from a fork');
    expect(message).toContain('The code-hosting integration sees only this repository');
    expect(message).toContain("a fork's run gets no secrets");
    expect(message).toContain(
      'if: github.event.pull_request.head.repo.full_name == github.repository',
    );
  });
});

describe('command: preview-close', () => {
  it('closes the preview preview-name names, whatever preview says', async () => {
    expect(await settings({ command: 'preview-close', preview: '' })).toMatchObject({
      command: 'preview-close',
      target: { name: 'support-agent-pr-7' },
      prComment: true,
      environment: 'preview',
      preview: { name: 'support-agent-pr-7', number: 7, closing: true },
    });
  });

  it.each([
    [
      'a push',
      { GITHUB_EVENT_NAME: 'push' },
      "Input 'command': preview-close needs a pull request's run",
    ],
    [
      'a fork',
      pullRequest('x', { fork: true }),
      "Input 'command': preview-close refuses pull request #7",
    ],
  ])('refuses %s', async (_, env, message) => {
    expect(await refusal({ command: 'preview-close' }, env)).toContain(message);
  });
});
