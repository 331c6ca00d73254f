// The command line's edge (`agent-deploy`, dist/cli.js): the arguments read against action.yml, the CI around it
// (ci-registry.ts: GitLab CI, or a terminal), the log on stderr, the system's clock and HTTP, SIGINT/SIGTERM as the
// cancel, and the run; then the outputs (--json on stdout, the dotenv file) and the exit code.
import { COMMANDS } from '../../commands/index.ts';
import { runAction, USER_AGENT } from '../../run.ts';
import { httpTransport } from '../../service/transport.ts';
import { systemClock } from '../../shared/clock.ts';
import { systemGit } from '../git.ts';
import { type ActionTable, actionFile, readActionTable } from './action.ts';
import { type Invocation, parseArgs, UsageError, variableOf } from './args.ts';
import { Console } from './console.ts';
import { dotenv } from './dotenv.ts';
import { EXIT, exitCode } from './exit.ts';
import { RefusedFile, writeOwnFile } from './files.ts';
import { helpText, usageText } from './help.ts';
import { typedOutputs } from './json.ts';
import { detectCi } from './ci-registry.ts';
import { CliHost } from './host.ts';

/** Never rejects: sets process.exitCode. */
export async function run(argv: readonly string[], script: string): Promise<void> {
  const { stdout, stderr, env } = process;
  let invocation: Invocation;
  let table: ActionTable;
  try {
    table = await readActionTable(actionFile(script));
    invocation = parseArgs(argv, table.inputs, Object.keys(COMMANDS));
    if (argv.length === 0 && !env[variableOf('command')])
      throw new UsageError('no command given.', true);
    if (invocation.help) {
      stdout.write(helpText(table, Object.keys(COMMANDS), stdout.columns));
      return;
    }
  } catch (error) {
    const usage = error instanceof UsageError;
    stderr.write(`agent-deploy: ${(error as Error).message}\n`);
    if (usage && error.usage) stderr.write(usageText(Object.keys(COMMANDS)));
    process.exitCode = usage ? EXIT.invalid : EXIT.failed;
    return;
  }
  if (invocation.version) {
    stdout.write(`${USER_AGENT}\n`);
    return;
  }

  const controller = new AbortController();
  // The first SIGINT (Ctrl-C, or GitLab's cancel) stops the run, which still reports what it has; a second one
  // ends the process at once.
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted && signal === 'SIGINT') process.exit(EXIT.cancelled);
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const transport = httpTransport(USER_AGENT);
  const cwd = process.cwd();
  const ci = await detectCi(env, cwd, transport);
  const console = new Console(stderr, {
    live: stderr.isTTY === true,
    color: stderr.isTTY === true && !env.NO_COLOR,
    debug: invocation.debug,
    clock: systemClock,
  });
  const host = new CliHost({
    flags: invocation.flags,
    env,
    ci,
    console,
    cwd,
    summaryFile: invocation.summaryFile ?? ci.files.summary,
  });
  try {
    const report = await runAction({
      host,
      clock: systemClock,
      transport,
      signal: controller.signal,
      git: systemGit,
    });
    console.close();
    const written = writeDotenv(invocation.dotenv ?? ci.files.dotenv, host.outputs, console, cwd);
    if (invocation.json)
      stdout.write(`${JSON.stringify(typedOutputs(host.outputs, table.outputs))}\n`);
    // A person at a terminal reads them too (a pipe or a CI's log gets only what --json asks for).
    else if (stdout.isTTY) stdout.write(outputsText(host.outputs));
    process.exitCode = exitCode(report, written && host.failure === undefined);
  } finally {
    transport.dispose();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The outputs as a dotenv file, when one is asked for (or GitLab CI's default); false when it was not written: a
 * file refused (a symbolic link, outside the working directory) is a warning naming it, another error the failure.
 */
function writeDotenv(
  file: string | undefined,
  outputs: Record<string, string>,
  console: Console,
  cwd: string,
): boolean {
  if (!file) return true;
  const { text, left } = dotenv(outputs);
  for (const { name, why } of left)
    console.log.warning(`Output ${name} is left out of ${file}: ${why}.`);
  try {
    writeOwnFile(file, text, cwd);
    return true;
  } catch (error) {
    if (error instanceof RefusedFile)
      console.log.warning(`Could not write the outputs: ${error.message}.`);
    else console.error(`Could not write the outputs to ${file}: ${(error as Error).message}`);
    return false;
  }
}

/** The outputs as aligned `name  value` lines (values are one line already: the output sink). */
export function outputsText(outputs: Record<string, string>): string {
  const width = Math.max(0, ...Object.keys(outputs).map((name) => name.length));
  return Object.entries(outputs)
    .map(([name, value]) => `${name.padEnd(width)}  ${value}\n`)
    .join('');
}
