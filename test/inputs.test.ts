import { describe, expect, it } from 'vitest';
import { InputError, parseInputs, parseSecrets } from '../src/inputs.ts';

const BASE = { 'base-url': 'https://api.example.com/', 'api-key': 'key', name: 'my-agent' };
const parse = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) =>
  parseInputs((name) => ({ ...BASE, ...inputs })[name] ?? '', env);

describe('parseSecrets', () => {
  it('reads NAME=value lines: = inside values, comments, blank lines and CRLF', () => {
    expect(parseSecrets('A=x=y==\r\n# B=skipped\r\n\r\n  C = spaced value \r\nD=')).toEqual([
      { name: 'A', value: 'x=y==' },
      { name: 'C', value: 'spaced value' },
      { name: 'D', value: '' },
    ]);
  });

  it('reads a JSON object over several lines, values of several lines included', () => {
    expect(parseSecrets('{\n  "A": "line 1\\nline 2",\n  "B": "b"\n}')).toEqual([
      { name: 'A', value: 'line 1\nline 2' },
      { name: 'B', value: 'b' },
    ]);
  });

  it('is absent when the input is not given, so nothing is sent', () => {
    expect(parseSecrets(undefined)).toBeUndefined();
  });
});

describe('parseInputs', () => {
  it('applies the contract defaults', () => {
    const s = parse({}, { GITHUB_REF_NAME: 'main', GITHUB_REPOSITORY: 'acme/agent' });
    expect(s).toMatchObject({
      command: 'deploy',
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

  it.each([
    ['900', 900_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['1.5m', 90_000],
  ])('reads timeout %s as %i ms', (timeout, ms) => {
    expect(parse({ timeout }).timeoutMs).toBe(ms);
  });

  it('reads booleans in any case', () => {
    expect(parse({ wait: 'FALSE', 'dry-run': 'True' })).toMatchObject({
      wait: false,
      dryRun: true,
    });
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:8080'])(
    'allows http:// for the loopback host of %s',
    (url) => {
      expect(parse({ 'base-url': url }).baseUrl).toBe(url);
    },
  );

  it('takes the PR head branch as the ref, and a tag in full', () => {
    expect(parse({}, { GITHUB_HEAD_REF: 'feature', GITHUB_REF_NAME: '12/merge' }).repoRef).toBe(
      'feature',
    );
    const tag = { GITHUB_REF_TYPE: 'tag', GITHUB_REF: 'refs/tags/v1', GITHUB_REF_NAME: 'v1' };
    expect(parse({}, tag).repoRef).toBe('refs/tags/v1');
  });

  it('throws an InputError naming the input, never quoting a long value', () => {
    const long = 'k'.repeat(64);
    const error = (() => {
      try {
        parse({ 'deployment-id': long });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      "Input 'deployment-id': the value (64 characters) is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000.",
    );
  });
});
