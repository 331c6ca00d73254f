// `agent-deploy <command> [--<input> <value> …] [options]`: the arguments, read against action.yml's inputs. Only
// their form is checked here (a known name, a value where one is needed, once); the run checks the values.
import { meant } from '../../shared/nearest.ts';
import { type ActionInput, isSwitch } from './action.ts';

/** The command line's own options, beside the inputs: `value` when it takes one. */
export const OPTIONS = {
  json: { help: 'print the outputs as one JSON object on stdout' },
  dotenv: {
    value: 'file',
    help: 'also write the outputs to this dotenv file, NAME=value (in GitLab CI: agent-deploy.env)',
  },
  'summary-file': {
    value: 'file',
    help: 'write the summary as Markdown to this file (in GitLab CI: agent-deploy-summary.md)',
  },
  debug: { help: 'print the debug lines too' },
  help: { help: 'print this help' },
  version: { help: 'print the version' },
} as const satisfies Record<string, { value?: string; help: string }>;

export interface Invocation {
  /** The inputs the arguments give (the command among them), by input name. */
  flags: Map<string, string>;
  json: boolean;
  dotenv?: string;
  summaryFile?: string;
  debug: boolean;
  help: boolean;
  version: boolean;
}

/** Arguments the command line cannot read: one line, before anything runs; `usage`: the short usage follows it. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly usage: boolean;
  constructor(message: string, usage = false) {
    super(message);
    this.usage = usage;
  }
}

export function parseArgs(
  argv: readonly string[],
  inputs: Record<string, ActionInput>,
  commands: readonly string[],
): Invocation {
  const flags = new Map<string, string>();
  const options = new Map<string, string>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      options.set('help', 'true');
      continue;
    }
    if (arg.startsWith('-') && !arg.startsWith('--'))
      throw new UsageError(
        `${shown(arg) ? `unknown option ${arg}` : 'an unknown option'}: options are spelled out, --<name>.`,
      );
    // A stray argument is never quoted, short or long: it may be a key typed without its --api-key.
    if (!arg.startsWith('--')) {
      if (command !== undefined)
        throw new UsageError(
          `an unexpected argument (number ${i + 1}) after the command '${command}': inputs are given as --<input> <value>.`,
        );
      if (!commands.includes(arg)) {
        // Only a likely typo of a command is named: a stray key gets no hint of its own.
        const near = shown(arg) ? meant(arg, commands) : undefined;
        throw new UsageError(
          `the first argument is not a command${near ? ` (did you mean '${near}'?)` : ''}.`,
          true,
        );
      }
      command = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const input = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
    const option = Object.hasOwn(OPTIONS, name) ? OPTIONS[name as keyof typeof OPTIONS] : undefined;
    if (!input && !option) throw new UsageError(unknown(name, inputs));
    // A switch (an input whose default is a boolean, or an option without a value) may stand alone for true. An input
    // switch takes the next argument as its value when it reads as a boolean or the command is already given (a
    // wrong value is then the input's error); before the command, `--dry-run deploy` keeps `deploy` as the command.
    const next = argv[i + 1];
    const takesValue = option ? 'value' in option : true;
    const switchy = option ? !takesValue : isSwitch(input!);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (switchy)
      value =
        input &&
        next !== undefined &&
        !next.startsWith('--') &&
        (command !== undefined || /^(true|false)$/i.test(next))
          ? argv[++i]!
          : 'true';
    else if (next !== undefined && !next.startsWith('--')) value = argv[++i]!;
    else
      throw new UsageError(
        `--${name} needs a value: --${name} <${option && 'value' in option ? option.value : 'value'}>.`,
      );
    const into = input ? flags : options;
    if (into.has(name)) throw new UsageError(`--${name} is given twice; give it once.`);
    into.set(name, value);
  }
  if (command !== undefined) {
    if (flags.has('command'))
      throw new UsageError(
        `the command is given twice ('${command}' and --command); give it once.`,
      );
    flags.set('command', command);
  }
  const on = (name: string) => {
    const value = options.get(name);
    if (value === undefined) return false;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new UsageError(`--${name} takes no value (or true/false).`);
  };
  return {
    flags,
    json: on('json'),
    dotenv: options.get('dotenv'),
    summaryFile: options.get('summary-file'),
    debug: on('debug'),
    help: on('help'),
    version: on('version'),
  };
}

/** The environment variable that gives an input when no flag does: AGENT_DEPLOY_API_KEY for api-key. */
export function variableOf(input: string): string {
  return `AGENT_DEPLOY_${input.toUpperCase().replaceAll('-', '_')}`;
}

/** An argument a message may quote: whole and short, never a long one (a key typed in the wrong place). */
function shown(arg: string): string | undefined {
  return arg.length <= 40 && !/\s/.test(arg) ? arg : undefined;
}

function unknown(name: string, inputs: Record<string, ActionInput>): string {
  if (!shown(name)) return 'an unknown option: agent-deploy --help lists the inputs and options.';
  // Only a likely typo is named: "the nearest" of a made-up option helps nobody.
  const near = meant(name, [...Object.keys(inputs), ...Object.keys(OPTIONS)]);
  return `unknown option --${name}${near ? ` (did you mean --${near}?)` : ''}: agent-deploy --help lists the inputs and options.`;
}
