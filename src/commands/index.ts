// The commands of the action. A command is one file (a Command: command.ts) and one entry below.
import type { HostContext } from '../core/host.ts';
import { itemInputs, ofItem } from '../inputs/deployments.ts';
import { type DeploymentRef, type ReadInput, readInputs } from '../inputs/index.ts';
import { Mistakes } from '../inputs/mistakes.ts';
import type { Command } from './command.ts';
import { deploy } from './deploy.ts';
import { drift } from './drift.ts';
import { previewClose } from './preview-close.ts';
import { promote } from './promote.ts';
import { redeploy } from './redeploy.ts';
import { status } from './status.ts';
import { tokenMetadata } from './token-metadata.ts';

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
 * every item's. Throws one InputError naming every mistake found, of the step and of every item.
 */
export async function parseSettings(
  read: ReadInput,
  context: HostContext,
): Promise<{ command: Command<Settings>; settings: Settings; set?: SetSettings }> {
  const mistakes = new Mistakes();
  const inputs = await readInputs(read, context, COMMAND_NAMES, mistakes);
  const command = COMMANDS[inputs.command as CommandName] as Command<Settings>;
  const items = await itemInputs(read, inputs, context, COMMAND_NAMES, mistakes);
  if (!items) {
    const settings = mistakes.check(() => command.settings(inputs), true);
    mistakes.throwIfAny();
    return { command, settings: settings! };
  }
  const set: SetSettings = {
    items: items.flatMap(({ name, inputs: own }) => {
      const settings = mistakes.check(() => {
        try {
          return command.settings(own);
        } catch (error) {
          throw ofItem(error, name);
        }
      }, true);
      // The commands that take a list (inputs/deployments.ts) each act on one deployment.
      return settings && 'target' in settings ? [{ name, settings }] : [];
    }),
    maxParallel: inputs.maxParallel,
    failFast: inputs.failFast,
  };
  mistakes.throwIfAny();
  return { command, settings: set.items[0]!.settings, set };
}
