import { planOf } from '../deploy/request.ts';
import { conclude } from '../core/report.ts';
import { DEPLOYED, PLANNED, type ResultKind } from '../core/result.ts';
import { success } from '../core/outcome.ts';
import { type CommonSettings, type Inputs } from '../inputs/index.ts';
import { InputError } from '../core/errors.ts';
import type { TokenMetadataBody } from '../service/schemas.ts';
import { updateTokenMetadata } from '../service/calls.ts';
import { whilePending } from '../deploy/write.ts';
import { HttpError } from '../service/errors.ts';
import { DeployError, PossiblyAppliedError } from '../core/errors.ts';
import { outcomeUnknown } from '../service/retry.ts';
import type { Command, CommandContext } from './command.ts';

interface TokenMetadataSettings extends CommonSettings {
  command: 'token-metadata';
  tokenId: string;
  /** provider_account_label and/or is_default: at least one. */
  metadata: TokenMetadataBody;
}

/** The token's metadata was written. */
const UPDATED: ResultKind = {
  name: 'updated',
  fails: false,
  rank: DEPLOYED.rank,
  headline: '✅ Updated',
};

/** PATCH a provider token's label and/or default flag: only the fields given. */
export const tokenMetadata: Command<TokenMetadataSettings> = {
  settings: (inputs: Inputs) => {
    if (!inputs.tokenId)
      throw new InputError(
        'token-id',
        "is required for command 'token-metadata'; give the token's id.",
      );
    if (Object.keys(inputs.metadata).length === 0)
      throw new InputError(
        'provider-account-label',
        "and 'is-default' are both missing; command 'token-metadata' needs at least one of them.",
      );
    return {
      ...inputs.common,
      command: 'token-metadata',
      tokenId: inputs.tokenId,
      metadata: inputs.metadata,
    };
  },
  run: tokenMetadataRun,
  writes: true,
  results: [UPDATED, PLANNED],
  // A dry run's plan writes to the token, not to a deployment.
  summary: () => ({ planTarget: 'the token' }),
};

async function tokenMetadataRun(
  ctx: CommandContext,
  settings: TokenMetadataSettings,
): Promise<void> {
  const { client, report, log } = ctx;
  const call = updateTokenMetadata(settings.tokenId, settings.metadata);
  if (settings.dryRun) {
    report.plan = planOf('update', call);
    return conclude(report, success(PLANNED));
  }
  report.phase = 'token-metadata';
  const pending = { request: `${call.method} ${call.path}`, check: `token ${settings.tokenId}` };
  const token = await whilePending(
    ctx,
    pending,
    () =>
      client.send(call).catch((error: unknown) => {
        // The generic 403 hint is about the key and tenant; here the usual cause is ownership.
        if (error instanceof HttpError && error.status === 403) {
          throw new DeployError(
            `${error.message} Only the owner of token ${settings.tokenId} may change its metadata: use an api-key of the token's owner.`,
          );
        }
        // A lost answer (a 429 was not processed): nothing reads a token back, so it is never sent again on a guess.
        if (outcomeUnknown(error) && !(error instanceof HttpError && error.status === 429)) {
          throw new PossiblyAppliedError(
            `${error.message} The update may have been applied all the same, and a token update is never sent again on a guess: check token ${settings.tokenId}'s metadata on the service before running the job again.`,
          );
        }
        throw error;
      }),
    // A token's update makes no revision, applied or not: revision-created stays false.
    false,
  );
  const changes = Object.entries(settings.metadata).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  log.info(`Token ${token.id} updated: ${changes.join(', ')}`);
  report.notes.push(`Token ${token.id} updated: ${changes.join(', ')}.`);
  conclude(report, success(UPDATED));
}
