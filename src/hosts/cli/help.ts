// `agent-deploy --help`: the inputs as action.yml lists them (name, default, description), then the command line's
// own options and exit codes; and the short usage a command line without a command gets.
import type { ActionTable } from './action.ts';
import { OPTIONS, variableOf } from './args.ts';
import { EXIT } from './exit.ts';

export function helpText(table: ActionTable, commands: readonly string[], width = 100): string {
  const wrap = (text: string, indent: number) => wrapped(text, indent, Math.max(60, width));
  const inputs = Object.entries(table.inputs).map(([name, input]) => {
    // An expression (`${{ github.token }}`) is the runner's to fill: no default here.
    const shown =
      input.default !== undefined && !input.default.includes('${{')
        ? `default ${input.default}`
        : input.required
          ? 'required'
          : '';
    return [`  --${name} <value>${shown ? `  (${shown})` : ''}`, wrap(input.description, 6)].join(
      '\n',
    );
  });
  const options = Object.entries(OPTIONS).map(([name, option]) => {
    const head = `  --${name}${'value' in option ? ` <${option.value}>` : ''}`;
    return `${head.padEnd(24)}${option.help}`;
  });
  return [
    'Usage: agent-deploy <command> [--<input> <value> ...] [options]',
    '',
    wrap(table.description, 0),
    '',
    `Commands: ${commands.join(', ')}.`,
    '',
    wrap(
      `Inputs (those of action.yml): each a flag, or the variable ${variableOf('<input>')} (upper case, - as _, e.g. ${variableOf('api-key')}); a flag wins. Give api-key as the variable: a flag shows in the process list. An input whose default is true or false may stand alone for true (--dry-run).`,
      0,
    ),
    ...inputs,
    '',
    'Options:',
    ...options,
    '',
    wrap(
      `Logs go to stderr. Exit codes: ${EXIT.ok} success, ${EXIT.failed} the run failed (any failing result), ${EXIT.invalid} invalid input (nothing sent), ${EXIT.cancelled} cancelled.`,
      0,
    ),
    '',
  ].join('\n');
}

/** The short usage, after one line naming what is wrong with a command line that names no command or a misspelt one. */
export function usageText(commands: readonly string[]): string {
  return [
    'usage: agent-deploy <command> [--<input> <value> ...] [options]',
    `  commands: ${commands.join(', ')}`,
    `  example:  ${variableOf('api-key')}=<key> agent-deploy deploy --base-url https://deploy.example.com --name my-agent`,
    '  agent-deploy --help lists every input and option.',
    '',
  ].join('\n');
}

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function wrapped(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${' '.repeat(indent)}${l}`).join('\n');
}
