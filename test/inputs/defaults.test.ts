// One source for the inputs' defaults: action.yml gives them to the runner, the parser to every other host (the
// command line, tests). Each input left out must read as action.yml's default written out.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { settingsOf } from '../helpers/core.ts';

const action = parse(readFileSync(resolve(import.meta.dirname, '../../action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};
/** Expressions are the runner's to fill (`${{ github.token }}`): no other host can. */
const defaults = Object.entries(action.inputs)
  .filter(([, input]) => input.default !== undefined && !input.default.includes('${{'))
  .map(([name, input]) => [name, input.default!] as const);
/** What must be given, and verify-url so that verify-timeout is read. */
const REQUIRED = {
  'base-url': 'https://api.example.com',
  'api-key': 'key',
  name: 'my-agent',
  'verify-url': 'https://agent.example.com/ok',
};
const ENV = { GITHUB_REPOSITORY: 'acme/agent', GITHUB_REF_NAME: 'main' };

describe('the defaults of action.yml', () => {
  it('cover the inputs that have one', () => {
    expect(defaults.map(([name]) => name)).toEqual(
      expect.arrayContaining(['command', 'timeout', 'poll-interval', 'wait', 'verify-timeout']),
    );
  });

  it.each(defaults)('%s: left out reads as its default %j written out', async (name, value) => {
    const left = await settingsOf(REQUIRED, ENV);
    const given = await settingsOf({ ...REQUIRED, [name]: value }, ENV);
    expect(given).toEqual(left);
  });
});
