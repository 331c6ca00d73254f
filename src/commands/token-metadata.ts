import { planOf } from '../deploy/plan.ts';
import { conclude } from '../deploy/report.ts';
import { success } from '../deploy/outcome.ts';
import type { TokenMetadataSettings } from '../inputs/index.ts';
import { updateTokenMetadata } from '../service/calls.ts';
import { whilePending } from '../deploy/write.ts';
import { DeployError, HttpError } from '../service/errors.ts';
import type { CommandContext } from './index.ts';

/** PATCH a provider token's label and/or default flag: only the fields given. */
export async function tokenMetadata(
  ctx: CommandContext,
  settings: TokenMetadataSettings,
): Promise<void> {
  const { client, report, log } = ctx;
  const call = updateTokenMetadata(settings.tokenId, settings.metadata);
  if (settings.dryRun) {
    report.plan = planOf('update', call);
    return conclude(report, success('planned'));
  }
  report.phase = 'token-metadata';
  const pending = { request: `${call.method} ${call.path}`, check: `token ${settings.tokenId}` };
  const token = await whilePending(ctx, pending, () => client.send(call)).catch(
    (error: unknown) => {
      // The generic 403 hint is about the key and tenant; here the usual cause is ownership.
      if (error instanceof HttpError && error.status === 403) {
        throw new DeployError(
          `${error.message} Only the owner of token ${settings.tokenId} may change its metadata: use an api-key of the token's owner.`,
        );
      }
      throw error;
    },
  );
  const changes = Object.entries(settings.metadata).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  log.info(`Token ${token.id} updated: ${changes.join(', ')}`);
  report.notes.push(`Token ${token.id} updated: ${changes.join(', ')}.`);
  conclude(report, success('updated'));
}
