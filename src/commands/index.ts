// The commands of the action. A command is one file (its settings, its run, whether it writes, its headlines) and
// one entry below.
import { InputError } from '../core/errors.ts';
import type { HostContext } from '../core/host.ts';
import type { Result } from '../core/report.ts';
import type { FollowContext } from '../deploy/follow.ts';
import { type Inputs, type ReadInput, readInputs } from '../inputs/index.ts';
import { deploy } from './deploy.ts';
import { previewClose } from './preview-close.ts';
import { promote } from './promote.ts';
import { redeploy } from './redeploy.ts';
import { status } from './status.ts';
import { tokenMetadata } from './token-metadata.ts';

/** What every command gets: the service, the run's report, a logger and the transport (for verify-url). */
export type CommandContext = FollowContext;

export interface Command<S> {
  /** Its settings from the validated inputs; throws InputError for one it needs and is missing. */
  settings(inputs: Inputs): S;
  /** Runs it; fills the report as it goes (also when it throws). */
  run(ctx: CommandContext, settings: S): Promise<void>;
  /** Whether it writes to the service: only a write is recorded as a deployment (GitHub Deployment). */
  writes: boolean;
  /** The summary's heading for a successful result, where this command's differs from the usual one. */
  headlines?: Partial<Record<Result, string>>;
}

export const COMMANDS = {
  deploy,
  redeploy,
  promote,
  status,
  'preview-close': previewClose,
  'token-metadata': tokenMetadata,
};

type CommandName = keyof typeof COMMANDS;
const COMMAND_NAMES = Object.keys(COMMANDS) as [CommandName, ...CommandName[]];

/** The settings of any command: what the parser of the command the inputs name answers. */
export type Settings = ReturnType<(typeof COMMANDS)[CommandName]['settings']>;

/** Every input validated, then the command they name and its settings. */
export async function parseSettings(
  read: ReadInput,
  context: HostContext,
): Promise<{ command: Command<Settings>; settings: Settings }> {
  const inputs = await readInputs(read, context, COMMAND_NAMES);
  const command = COMMANDS[inputs.command as CommandName] as Command<Settings> | undefined;
  if (!command) throw new InputError('command', `is not one of ${COMMAND_NAMES.join(', ')}.`);
  return { command, settings: command.settings(inputs) };
}
