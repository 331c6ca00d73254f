// The commands of the action. A command is one file (its settings, its run, whether it writes, its headlines) and
// one entry below.
import { InputError } from '../core/errors.ts';
import type { Git, HostContext } from '../core/host.ts';
import type { Result } from '../core/report.ts';
import type { FollowContext } from '../deploy/follow.ts';
import { itemInputs, ofItem } from '../inputs/deployments.ts';
import { type DeploymentRef, type Inputs, type ReadInput, readInputs } from '../inputs/index.ts';
import { deploy } from './deploy.ts';
import { drift } from './drift.ts';
import { previewClose } from './preview-close.ts';
import { promote } from './promote.ts';
import { redeploy } from './redeploy.ts';
import { status } from './status.ts';
import { tokenMetadata } from './token-metadata.ts';

/**
 * What every command gets: the service, the run's report, a logger, the transport (for verify-url) and the checkout's
 * git (for the plan's paths).
 */
export type CommandContext = FollowContext & { git: Git };

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
  drift,
  'preview-close': previewClose,
  'token-metadata': tokenMetadata,
};

type CommandName = keyof typeof COMMANDS;
const COMMAND_NAMES = Object.keys(COMMANDS) as [CommandName, ...CommandName[]];

/** The settings of any command: what the parser of the command the inputs name answers. */
export type Settings = ReturnType<(typeof COMMANDS)[CommandName]['settings']>;

/** The settings of a command that acts on one deployment: each item of a list is one. */
type TargetSettings = Extract<Settings, { target: DeploymentRef }>;

/** Several deployments in one step (`deployments`): each item's settings, and how they run. */
export interface SetSettings {
  items: { name: string; settings: TargetSettings }[];
  maxParallel: number;
  failFast: boolean;
}

/**
 * Every input validated, then the command they name and its settings. With `deployments`, every item's settings
 * too, in `set`; `settings` are then the first item's, whose step-wide fields (the key, timeout, environment, …) are
 * every item's.
 */
export async function parseSettings(
  read: ReadInput,
  context: HostContext,
): Promise<{ command: Command<Settings>; settings: Settings; set?: SetSettings }> {
  const inputs = await readInputs(read, context, COMMAND_NAMES);
  const command = COMMANDS[inputs.command as CommandName] as Command<Settings> | undefined;
  if (!command) throw new InputError('command', `is not one of ${COMMAND_NAMES.join(', ')}.`);
  const items = await itemInputs(read, inputs, context, COMMAND_NAMES);
  if (!items) return { command, settings: command.settings(inputs) };
  const set: SetSettings = {
    items: items.map(({ name, inputs: own }) => {
      let settings: Settings;
      try {
        settings = command.settings(own);
      } catch (error) {
        throw ofItem(error, name);
      }
      // The commands that take a list (inputs/deployments.ts) each act on one deployment.
      if (!('target' in settings)) throw new InputError('command', 'does not take deployments.');
      return { name, settings };
    }),
    maxParallel: inputs.maxParallel,
    failFast: inputs.failFast,
  };
  return { command, settings: set.items[0]!.settings, set };
}
