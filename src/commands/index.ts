// The commands of the action, one file each: a new command is a new file here and a case below.
import type { FollowContext } from '../deploy/follow.ts';
import type { Settings } from '../inputs/index.ts';
import { deploy } from './deploy.ts';
import { redeploy } from './redeploy.ts';
import { status } from './status.ts';
import { tokenMetadata } from './token-metadata.ts';

/** What every command gets: the service, the run's report (which only commands write), a logger. */
export type CommandContext = FollowContext;

/** Runs the command the inputs name; fills `report` as it goes (also when it throws). */
export function runCommand(ctx: CommandContext, settings: Settings): Promise<void> {
  switch (settings.command) {
    case 'deploy':
      return deploy(ctx, settings);
    case 'redeploy':
      return redeploy(ctx, settings);
    case 'status':
      return status(ctx, settings);
    case 'token-metadata':
      return tokenMetadata(ctx, settings);
  }
}
