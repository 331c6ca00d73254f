import { type Expectation, follow, FOLLOW_RESULTS } from '../deploy/follow.ts';
import { findByName, findListed, findTarget, LISTING_LAG_MS } from '../deploy/lookup.ts';
import { activeRevision, planAgainstLive, skipUnchanged } from '../deploy/live.ts';
import { findNearNames, nearNameMessage, partialCheck } from '../deploy/near-names.ts';
import { success } from '../core/outcome.ts';
import { conclude } from '../core/report.ts';
import { NO_CHANGE, PLANNED } from '../core/result.ts';
import { changedFields, checkCreatable, createBody, patchBody, planOf } from '../deploy/request.ts';
import { resolveListener, resolveRepository } from '../deploy/resolve.ts';
import { checkVerifiable, checkVerifiableCreated, verifyCheck } from '../deploy/verify.ts';
import {
  carries,
  describeValues,
  readAfterWrite,
  valuesOf,
  whilePending,
  writeDeployment,
} from '../deploy/write.ts';
import { type DeploySettings, deploySettings } from '../inputs/index.ts';
import { createDeployment, patchDeployment } from '../service/calls.ts';
import { HttpError } from '../service/errors.ts';
import { CancelledError } from '../shared/time.ts';
import { DeployError, PossiblyAppliedError } from '../core/errors.ts';
import { outcomeUnknown } from '../service/retry.ts';
import type { CreateDeploymentBody, Deployment, Listener } from '../service/schemas.ts';
import { seconds } from '../shared/time.ts';
import { sameRepoUrl } from '../shared/url.ts';
import type { Command, CommandContext } from './command.ts';

/** The main job: find or create the deployment by name, trigger a revision, follow it. */
export const deploy: Command<DeploySettings> = {
  settings: deploySettings,
  run: deployRun,
  writes: true,
  results: [...FOLLOW_RESULTS, NO_CHANGE, PLANNED],
};

async function deployRun(ctx: CommandContext, settings: DeploySettings): Promise<void> {
  ctx.report.phase = 'lookup';
  return deployTo(ctx, settings, await findTarget(ctx.client, settings.target));
}

/**
 * Deploy after the lookup: creates the target when `existing` (the lookup's answer) is undefined, else updates it,
 * then follows the revision, which must also meet `expect` when given. Every check that needs no write comes first.
 */
export async function deployTo(
  ctx: CommandContext,
  settings: DeploySettings,
  existing: Deployment | undefined,
  expect?: Expectation,
): Promise<void> {
  const { target } = settings;
  const listener = settings.listener
    ? await resolveListener(ctx.client, settings.listener, settings.k8sNamespace)
    : undefined;
  // Not created by this run after all (another change made one of that name meanwhile): updated as found.
  if (!existing && target.id === undefined)
    existing = await create(ctx, settings, target.name, listener, expect);
  if (existing) return update(ctx, settings, existing, listener, expect);
}

/** Creates the deployment and follows it; answers another change's deployment of that name, to update instead. */
async function create(
  ctx: CommandContext,
  settings: DeploySettings,
  name: string,
  listener: Listener | undefined,
  expect: Expectation | undefined,
): Promise<Deployment | undefined> {
  const { client, report, log, words } = ctx;
  // A preview's name is generated, never typed: no near name to guard against.
  const near = settings.create === 'always' || settings.preview ? [] : await nearNames(ctx, name);
  const { tenantId } = client;
  if (settings.create === false) {
    throw new DeployError(
      near.length > 0
        ? nearNameMessage(name, near, {
            tenantId,
            why: 'create is false',
            otherwise: `to create '${name}', ${words.set('create', 'always')}`,
            words,
          })
        : `No deployment is named '${name}'${tenantId ? ` in tenant ${tenantId}` : ''} and create is false: check name${tenantId ? ' and tenant-id' : ''}, or create it (${words.set('create', 'true')}).`,
    );
  }
  if (near.length > 0) {
    // Not created: a misspelt name would make a second deployment beside the one meant.
    const integration =
      needsRepository(settings) && !settings.integrationId ? ' and integration-id' : '';
    throw new DeployError(
      nearNameMessage(name, near, {
        tenantId,
        why: 'nothing was created',
        otherwise: `to create '${name}' beside it, ${words.set('create', 'always')}${integration}`,
        words,
      }),
    );
  }
  report.phase = 'resolve';
  checkCreatable(name, settings, words);
  const { integrationId } = settings;
  const repo =
    needsRepository(settings) && integrationId
      ? await resolveRepository(client, { ...settings, integrationId })
      : undefined;
  const body = createBody(name, settings, repo, listener);
  const verify = checkVerifiableCreated(settings, name);
  if (settings.dryRun || settings.skipUnchanged)
    await planAgainstLive(ctx, settings, body, undefined, undefined);
  if (settings.dryRun) {
    report.plan = { ...planOf('create', createDeployment(body)), verify };
    conclude(report, success(PLANNED));
    return;
  }
  report.phase = 'create';
  log.info(`No deployment is named '${name}': creating it (${settings.source}).`);
  const { deployment, ours } = await createOnce(ctx, body);
  if (ours !== true) {
    // Perhaps this run's create, and its first revision: not known, unless the update's write makes one (true then).
    if (ours === undefined) {
      report.created = undefined;
      if (deployment.latest_revision_id !== null) report.revisionCreated = undefined;
    }
    return deployment;
  }
  report.created = true;
  report.revisionCreated = deployment.latest_revision_id !== null;
  await follow(ctx, settings, deployment, {
    revisionId: deployment.latest_revision_id ?? undefined,
    check: verifyCheck(settings, checkVerifiableCreated(settings, name, deployment)),
    expect,
  });
}

async function update(
  ctx: CommandContext,
  settings: DeploySettings,
  existing: Deployment,
  listener: Listener | undefined,
  expect: Expectation | undefined,
): Promise<void> {
  const { report, log } = ctx;
  report.deployment = existing;
  report.previousRevisionId = existing.active_revision_id ?? undefined;
  log.info(
    `Found deployment '${existing.name}' (${existing.id}); active revision: ${existing.active_revision_id ?? 'none'}.`,
  );
  checkSource(settings, existing);
  const body = patchBody(settings, existing, listener);
  const call = patchDeployment(existing.id, body);
  // Read before the write: what the service answers after it never chooses where the check goes.
  const verify = checkVerifiable(settings, existing);
  if (settings.dryRun || settings.skipUnchanged) {
    report.phase = 'plan';
    const active = await activeRevision(ctx.client, existing);
    const changes = await planAgainstLive(ctx, settings, body, existing, active);
    if (!settings.dryRun && skipUnchanged(ctx, existing, active, changes)) return;
  }
  if (settings.dryRun) {
    report.plan = { ...planOf('update', call), verify };
    return conclude(report, success(PLANNED));
  }
  const changes = changedFields(body);
  if (changes.length === 0) {
    // An empty PATCH could only be a no-op; not sending it keeps the run read-only.
    report.revisionId = existing.latest_revision_id ?? undefined;
    log.info(`No input sets a field of '${existing.name}': nothing to send, nothing to wait for.`);
    return conclude(report, success(NO_CHANGE));
  }
  report.phase = 'update';
  report.sent = changes;
  log.info(
    `Updating deployment '${existing.name}' (${existing.id}), sending ${changes.join(', ')}`,
  );
  const sent = body.source_revision_config ?? {};
  const written = await writeDeployment(ctx, call, {
    before: existing,
    values: () => Promise.resolve(sent),
  });
  report.deployment = written.deployment;
  if (!written.revisionId) {
    report.revisionId = written.deployment.latest_revision_id ?? undefined;
    log.info('The service created no new revision: nothing to wait for.');
    return conclude(report, success(NO_CHANGE));
  }
  report.revisionCreated = true;
  return follow(ctx, settings, written.deployment, {
    revisionId: written.revisionId,
    check: verifyCheck(settings, verify),
    expect,
    priorLatest: existing.latest_revision_id ?? undefined,
  });
}

/**
 * The create, sent once. After a failure that may have taken effect (no answer, a reset, a 5xx, a 429, a 409) the
 * name is looked up before anything else, and a deployment found is used: this run's when it carries the values
 * the create sent (or another change's, updated then). Found nowhere, the create goes again only after a 429 (the
 * service did not process it); after anything else the lookup repeats for a while, as a listing may lag behind a
 * create, and the run then ends saying the deployment may have been created: a create is never sent again on a guess.
 */
async function createOnce(ctx: CommandContext, body: CreateDeploymentBody): Promise<Created> {
  const pending = {
    request: 'POST /v2/deployments',
    check: `the deployments named '${body.name}'`,
  };
  try {
    return await whilePending(ctx, pending, () => createUntilKnown(ctx, body));
  } catch (error) {
    // A create that may have been applied (a cancel while it was unanswered keeps it pending): `created` is not known.
    if (error instanceof PossiblyAppliedError || ctx.report.pendingWrite)
      ctx.report.created = undefined;
    throw error;
  }
}

/** The deployment a create left, and whether it is this run's: undefined when that cannot be told. */
interface Created {
  deployment: Deployment;
  ours: boolean | undefined;
}

async function createUntilKnown(
  { client, report, log }: CommandContext,
  body: CreateDeploymentBody,
): Promise<Created> {
  const { name } = body;
  const { request, check } = report.pendingWrite!;
  for (let sends = 1; ; sends++) {
    if (sends > 1) {
      if (client.clock.signal.aborted) throw new CancelledError();
      report.pendingWrite = { request, check };
    }
    try {
      return { deployment: await client.send(createDeployment(body)), ours: true };
    } catch (error) {
      const taken = error instanceof HttpError && error.status === 409;
      if (!taken && !outcomeUnknown(error)) throw error;
      // Only a 429 says the create was not processed. A 409 to this run's first create is another change's name; one
      // after an earlier send of this run's may answer that send.
      const refused = error instanceof HttpError && error.status === 429;
      const othersName = taken && sends === 1;
      log.warning(
        othersName
          ? `Create answered 409: a deployment named '${name}' exists now; looking it up.`
          : taken
            ? `Create answered 409 after an earlier send of this run's: the deployment of that name may be this run's own; looking it up.`
            : refused
              ? `${error.message} Looking '${name}' up before sending it again.`
              : `${error.message} The create may have taken effect: looking '${name}' up again before anything else.`,
      );
      const missed = () =>
        log.info(
          `No deployment named '${name}' is listed yet: a listing may lag behind a create, so it is looked up again at least every 5 s for up to ${seconds(LISTING_LAG_MS)}.`,
        );
      const { deployment: found, lookups } = await readAfterWrite(
        client,
        error as Error,
        check,
        async (reader) =>
          refused
            ? { deployment: await findByName(reader, name), lookups: 1 }
            : findListed(reader, name, missed),
        refused ? 0 : LISTING_LAG_MS,
      );
      if (found) {
        // After any failure but a 409 to the first send the deployment may be this run's: its values tell. Other
        // values after an answer that may mean it was applied (not a 429) may be another change's since: not known.
        const same = !othersName && madeFrom(found, body);
        const ours = same ? true : othersName || refused ? false : undefined;
        const theirs = `${describeValues(valuesOf(found.source_revision_config), client.excerpt)}; this run sent ${describeValues(body.source_revision_config, client.excerpt)}`;
        log.info(
          ours
            ? `Deployment '${name}' (${found.id}) exists now with the values this run sent: it is taken as this run's create.`
            : ours === false
              ? `Deployment '${name}' (${found.id}) exists now, made by another change (${theirs}): updating it as found.`
              : `Deployment '${name}' (${found.id}) exists now with other values (${theirs}): this run's create changed since by another change, or another change's; updating it as found (whether this run created it is not known).`,
        );
        return { deployment: found, ours };
      }
      const looked = `${lookups} ${lookups === 1 ? 'lookup' : 'lookups'}`;
      if (othersName)
        throw new DeployError(
          `Creating '${name}' answered 409 (name taken) but no deployment of that name is visible to this key and tenant after ${looked} over ${seconds(LISTING_LAG_MS)}; check tenant-id.`,
        );
      if (!refused)
        throw new PossiblyAppliedError(
          `${error.message} The create may have been applied: no deployment named '${name}' is listed after ${looked} over ${seconds(LISTING_LAG_MS)}, and a create is never sent again on a guess. Check the deployments named '${name}' on the service before running the job again: if this create took effect, the next run's lookup finds it.`,
        );
      report.pendingWrite = undefined;
      const delay = client.resendDelay(request, error, sends);
      if (delay === undefined) {
        error.message += ` The lookup does not show '${name}': the service did not take the create, and it was not sent again in time.`;
        throw error;
      }
      log.info(
        `The lookup shows no deployment named '${name}': the service did not take the create. Sending it again in ${seconds(delay)}.`,
      );
      await client.clock.time.sleep(delay, client.clock.signal);
    }
  }
}

/** Whether a deployment found after a lost create answer is the one it asked for: its source and values. */
function madeFrom(found: Deployment, body: CreateDeploymentBody): boolean {
  const repoUrl = body.source_config.repo_url;
  return (
    found.source === body.source &&
    carries(found.source_revision_config, body.source_revision_config) &&
    (repoUrl === undefined || sameRepoUrl(found.source_config.repo_url ?? '', repoUrl))
  );
}

/**
 * The deployments one typo away from `name`, which none has. A search that could not look everywhere is said in the
 * log and the summary.
 */
async function nearNames({ client, report, log }: CommandContext, name: string) {
  const found = await findNearNames(client, name);
  log.debug(
    `Names one typo away from '${name}': searched ${found.terms.map((t) => `'${t}'`).join(', ') || 'nothing'} in ${found.requests} requests; found ${found.near.length}.`,
  );
  const partial = partialCheck(name, found);
  if (partial) {
    log.notice(partial);
    report.notes.push(partial);
  }
  return found.near;
}

function needsRepository(s: DeploySettings): boolean {
  return s.source === 'codehost' && (!s.repoUrl || !s.integrationId || !s.repoRef);
}

function checkSource(s: DeploySettings, existing: Deployment): void {
  // A source the user chose (or implied with image-uri) must match; the plain default adopts what exists.
  const explicit = s.sourceGiven || s.imageUri !== undefined;
  if (explicit && existing.source !== s.source) {
    const why = s.sourceGiven
      ? `source is '${s.source}'`
      : `image-uri implies source '${s.source}'`;
    throw new DeployError(
      `Deployment '${existing.name}' has source '${existing.source}', but ${why}, and a source cannot change. ${s.sourceGiven ? 'Fix source' : 'Drop image-uri'} or use another name.`,
    );
  }
}
