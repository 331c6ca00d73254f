// The command line's arguments, read against action.yml's inputs: their form only (the run checks the values).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/commands/index.ts';
import { parse } from 'yaml';
import type { ActionTable } from '../../../src/hosts/cli/action.ts';
import { OPTIONS, parseArgs, variableOf } from '../../../src/hosts/cli/args.ts';
import { helpText } from '../../../src/hosts/cli/help.ts';
import { outputType, typedOutputs } from '../../../src/hosts/cli/json.ts';

const action = parse(
  readFileSync(resolve(import.meta.dirname, '../../../action.yml'), 'utf8'),
) as ActionTable;
const read = (...argv: string[]) => parseArgs(argv, action.inputs, Object.keys(COMMANDS));
const flags = (...argv: string[]) => Object.fromEntries(read(...argv).flags);

describe('the arguments', () => {
  it('give the command first, then each input as --<input> <value> or --<input>=<value>', () => {
    expect(flags('deploy', '--name', 'my-agent', '--timeout=15m', '--secrets', 'A=1\nB=2')).toEqual(
      {
        command: 'deploy',
        name: 'my-agent',
        timeout: '15m',
        secrets: 'A=1\nB=2',
      },
    );
    expect(flags('--name', 'my-agent', 'status')).toEqual({ command: 'status', name: 'my-agent' });
    expect(flags('--tenant-id', '')).toEqual({ 'tenant-id': '' });
  });

  it('let an input whose default is a boolean stand alone for true', () => {
    expect(flags('deploy', '--dry-run', '--wait', 'false', '--name', 'a')).toEqual({
      command: 'deploy',
      'dry-run': 'true',
      wait: 'false',
      name: 'a',
    });
    // Before the command, a switch keeps a word that is not a boolean as the command.
    expect(flags('--dry-run', 'deploy')).toEqual({ 'dry-run': 'true', command: 'deploy' });
    // After it, the word is the switch's value, for the run to refuse naming the input.
    expect(flags('deploy', '--wait', 'maybe')).toEqual({ command: 'deploy', wait: 'maybe' });
  });

  it("read the command line's own options beside the inputs", () => {
    const invocation = read(
      'status',
      '--json',
      '--dotenv',
      'out.env',
      '--summary-file=s.md',
      '--debug',
    );
    expect(invocation).toMatchObject({
      json: true,
      dotenv: 'out.env',
      summaryFile: 's.md',
      debug: true,
      help: false,
    });
    expect(read('-h').help).toBe(true);
  });

  it.each([
    [['deploy', '--nmae', 'x'], 'unknown option --nmae (did you mean --name?)'],
    [['deploy', '--frobnicate', 'x'], 'unknown option --frobnicate: agent-deploy --help'],
    [['deploy', '-n', 'x'], 'unknown option -n: options are spelled out'],
    [['deploy', '--name'], '--name needs a value: --name <value>.'],
    [['deploy', '--name', '--wait'], '--name needs a value'],
    [['deploy', '--summary-file'], '--summary-file needs a value: --summary-file <file>.'],
    [['deploy', '--name', 'a', '--name', 'b'], '--name is given twice'],
    [['deploy', 'status'], "an unexpected argument (number 2) after the command 'deploy'"],
    [['deploy', '--command', 'status'], 'the command is given twice'],
    [['deploy', '--json=yes'], '--json takes no value (or true/false).'],
    [['--json=yes'], '--json takes no value (or true/false).'],
    // A key typed in the wrong place, short or long, is never echoed.
    [
      ['deploy', 'k3y0123456789abc'],
      "an unexpected argument (number 2) after the command 'deploy'",
    ],
    [['k3y0123456789abc', '--name', 'a'], /^the first argument is not a command\.$/],
    [['deplyo', '--name', 'a'], "the first argument is not a command (did you mean 'deploy'?)."],
    [['stauts'], "the first argument is not a command (did you mean 'status'?)."],
    [['preview-clsoe'], "the first argument is not a command (did you mean 'preview-close'?)."],
    [['ship'], /^the first argument is not a command\.$/],
    [
      ['deploy', '--sk-live-0123456789abcdef0123456789abcdef01'],
      'an unknown option: agent-deploy --help',
    ],
  ])('refuse %j with one line', (argv, message) => {
    expect(() => read(...argv)).toThrow(message);
  });

  it('name the variable of each input AGENT_DEPLOY_<INPUT>', () => {
    expect(variableOf('api-key')).toBe('AGENT_DEPLOY_API_KEY');
    expect(variableOf('poll-interval')).toBe('AGENT_DEPLOY_POLL_INTERVAL');
  });

  it("never name an option like an input: an input of action.yml is always the action's", () => {
    for (const option of Object.keys(OPTIONS)) expect(action.inputs).not.toHaveProperty([option]);
  });
});

describe('--help', () => {
  const help = helpText(action, ['deploy', 'status'], 100);

  it('lists every input with its default or (required), and its description', () => {
    for (const [name, input] of Object.entries(action.inputs)) {
      const at = help.indexOf(`\n  --${name} <value>`);
      expect(at, name).toBeGreaterThan(0);
      const entry = help.slice(at, help.indexOf('\n  --', at + 1));
      if (input.required) expect(entry, name).toContain('(required)');
      else if (input.default !== undefined && !input.default.includes('${{'))
        expect(entry, name).toContain(`(default ${input.default})`);
      expect(entry.replace(/\s+/g, ' '), name).toContain(input.description.replace(/\s+/g, ' '));
    }
  });

  it('lists the options, the commands and the exit codes, within the width', () => {
    for (const option of Object.keys(OPTIONS)) expect(help).toContain(`\n  --${option}`);
    expect(help).toContain('Commands: deploy, status.');
    expect(help).toContain('0 success, 1 the run failed');
    const wide = help.split('\n').filter((line) => line.length > 100 && !line.startsWith('  --'));
    expect(wide).toEqual([]);
  });
});

describe('--json', () => {
  it('types each output as action.yml describes it', () => {
    const types = Object.fromEntries(
      Object.entries(action.outputs).map(([name, { description }]) => [
        name,
        outputType(description),
      ]),
    );
    expect(Object.entries(types).filter(([, type]) => type !== 'string')).toEqual([
      ['created', 'boolean'],
      ['revision-created', 'boolean'],
      ['duration', 'number'],
      ['verified', 'boolean'],
      ['changes', 'object'],
      ['results', 'object'],
    ]);
  });

  it('gives booleans, numbers and objects their type, none as null, text as text', () => {
    expect(
      typedOutputs(
        {
          result: 'deployed',
          created: 'true',
          'revision-created': '',
          verified: 'false',
          duration: '12.5',
          'previous-revision-id': '',
          results: '{"agent-a":{"result":"deployed","verified":true,"duration":3}}',
        },
        action.outputs,
      ),
    ).toEqual({
      result: 'deployed',
      created: true,
      'revision-created': null,
      verified: false,
      duration: 12.5,
      'previous-revision-id': '',
      results: { 'agent-a': { result: 'deployed', verified: true, duration: 3 } },
    });
  });
});
