import { follow, FOLLOW_RESULTS } from '../deploy/follow.ts';
import { describeTarget, findTarget } from '../deploy/lookup.ts';
import { notFound } from '../deploy/near-names.ts';
import { planOf } from '../deploy/request.ts';
import { conclude } from '../core/report.ts';
import { PLANNED } from '../core/result.ts';
import { success } from '../core/outcome.ts';
import { checkVerifiable, verifyCheck } from '../deploy/verify.ts';
import { redeployIntent, writeDeployment } from '../deploy/write.ts';
import {
  type CommonSettings,
  type DeploymentRef,
  type FollowSettings,
  type Inputs,
  targetRef,
} from '../inputs/index.ts';
import { InputError } from '../core/errors.ts';
import { redeployRevision } from '../service/calls.ts';
import { DeployError } from '../core/errors.ts';
import type { Command, CommandContext } from './command.ts';

interface RedeploySettings extends CommonSettings, FollowSettings {
  command: 'redeploy';
  target: DeploymentRef;
  revisionId: string;
}

/** Redeploys a chosen revision of an existing deployment, then follows it as deploy does. */
export const redeploy: Command<RedeploySettings> = {
  settings: (inputs: Inputs) => {
    if (!inputs.revisionId)
      throw new InputError(
        'revision-id',
        "is required for command 'redeploy'; give the uuid of the revision to redeploy.",
      );
    return {
      ...inputs.common,
      ...inputs.follow,
      command: 'redeploy',
      target: targetRef(inputs),
      revisionId: inputs.revisionId,
    };
  },
  run: redeployRun,
  writes: true,
  results: [...FOLLOW_RESULTS, PLANNED],
};

async function redeployRun(ctx: CommandContext, settings: RedeploySettings): Promise<void> {
  const { client, report, log } = ctx;
  report.phase = 'lookup';
  const target = await findTarget(client, settings.target);
  if (!target)
    throw new DeployError(
      await notFound(
        client,
        describeTarget(settings.target),
        'redeploy needs an existing deployment',
        ctx.words,
      ),
    );
  report.deployment = target;
  report.previousRevisionId = target.active_revision_id ?? undefined;
  const verify = checkVerifiable(settings, target);
  const call = redeployRevision(target.id, settings.revisionId);
  if (settings.dryRun) {
    report.plan = { ...planOf('redeploy', call), verify };
    return conclude(report, success(PLANNED));
  }
  report.phase = 'redeploy';
  log.info(`Redeploying revision ${settings.revisionId} of '${target.name}'`);
  const written = await writeDeployment(
    ctx,
    call,
    redeployIntent(client, target, settings.revisionId),
  );
  const revisionId = written.revisionId ?? settings.revisionId;
  report.revisionCreated =
    revisionId !== target.latest_revision_id && revisionId !== settings.revisionId;
  return follow(ctx, settings, written.deployment, {
    revisionId,
    check: verifyCheck(settings, verify),
    priorLatest: target.latest_revision_id ?? undefined,
  });
}
