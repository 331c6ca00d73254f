import { follow } from '../deploy/follow.ts';
import { findById, findByName } from '../deploy/lookup.ts';
import { success } from '../deploy/outcome.ts';
import { planOf } from '../deploy/plan.ts';
import { conclude } from '../deploy/report.ts';
import { changedFields, createBody, patchBody } from '../deploy/request.ts';
import { resolveListener, resolveRepository } from '../deploy/resolve.ts';
import { checkVerifiable, verifyCheck } from '../deploy/verify.ts';
import type { DeploySettings } from '../inputs/index.ts';
import { createDeployment, patchDeployment } from '../service/calls.ts';
import { DeployError, HttpError, NetworkError } from '../service/errors.ts';
import type { CreateDeploymentBody, Deployment, Listener } from '../service/schemas.ts';
import type { CommandContext } from './index.ts';

/** The main job: find or create the deployment by name, trigger a revision, follow it. */
export async function deploy(ctx: CommandContext, settings: DeploySettings): Promise<void> {
  const { client, report } = ctx;
  report.phase = 'lookup';
  const { target } = settings;
  let existing =
    target.id === undefined
      ? await findByName(client, target.name)
      : await findById(client, target);
  const listener = settings.listener
    ? await resolveListener(client, settings.listener, settings.k8sNamespace)
    : undefined;
  if (!existing && target.id === undefined) {
    const created = await create(ctx, settings, target.name, listener);
    if (created !== 'taken') return;
    // The name was taken meanwhile (409): carry on with the deployment that exists, as an update.
    existing = await findByName(client, target.name);
    if (!existing)
      throw new DeployError(
        `Creating '${target.name}' answered 409 (name taken) but no deployment of that name is visible to this key and tenant; check tenant-id.`,
      );
  }
  if (existing) return update(ctx, settings, existing, listener);
}

async function create(
  ctx: CommandContext,
  settings: DeploySettings,
  name: string,
  listener: Listener | undefined,
): Promise<'taken' | undefined> {
  const { client, report, log } = ctx;
  if (!settings.create) {
    throw new DeployError(
      `No deployment is named '${name}' and create is false: create it first, or set create: true.`,
    );
  }
  report.phase = 'resolve';
  const repo = needsRepository(settings)
    ? await resolveRepository(client, settings, name)
    : undefined;
  const body = createBody(name, settings, repo, listener);
  const verify = checkVerifiable(settings, settings.customUrl);
  if (settings.dryRun) {
    report.plan = { ...planOf('create', createDeployment(body)), verify };
    conclude(report, success('planned'));
    return;
  }
  report.phase = 'create';
  log.info(`No deployment is named '${name}': creating it (${settings.source}).`);
  const created = await createOnce(ctx, body);
  if (!created) return 'taken';
  report.created = true;
  report.revisionCreated = created.latest_revision_id !== null;
  await follow(ctx, settings, created, { check: verifyCheck(settings, verify) });
}

async function update(
  ctx: CommandContext,
  settings: DeploySettings,
  existing: Deployment,
  listener: Listener | undefined,
): Promise<void> {
  const { client, report, log } = ctx;
  report.deployment = existing;
  report.previousRevisionId = existing.active_revision_id ?? undefined;
  log.info(
    `Found deployment '${existing.name}' (${existing.id}); active revision: ${existing.active_revision_id ?? 'none'}.`,
  );
  checkSource(settings, existing);
  const body = patchBody(settings, existing, listener);
  const call = patchDeployment(existing.id, body);
  // Read before the write: what the service answers after it never chooses where the check goes.
  const verify = checkVerifiable(settings, settings.customUrl ?? existing.source_config.custom_url);
  if (settings.dryRun) {
    report.plan = { ...planOf('update', call), verify };
    return conclude(report, success('planned'));
  }
  const changes = changedFields(body);
  if (changes.length === 0) {
    // An empty PATCH could only be a no-op; not sending it keeps the run read-only.
    report.revisionId = existing.latest_revision_id ?? undefined;
    log.info(`No input sets a field of '${existing.name}': nothing to send, nothing to wait for.`);
    return conclude(report, success('no-change'));
  }
  report.phase = 'update';
  log.info(
    `Updating deployment '${existing.name}' (${existing.id}), sending ${changes.join(', ')}`,
  );
  const updated = await client.send(call);
  if (updated.latest_revision_id === existing.latest_revision_id) {
    report.deployment = updated;
    report.revisionId = updated.latest_revision_id ?? undefined;
    log.info('The service created no new revision: nothing to wait for.');
    return conclude(report, success('no-change'));
  }
  report.revisionCreated = true;
  return follow(ctx, settings, updated, { check: verifyCheck(settings, verify) });
}

/**
 * One create. After an ambiguous failure (no answer, reset, 5xx) the name is looked up again and a deployment
 * found is the one this run created; never a second POST. Answers undefined on 409 (taken by someone else).
 */
async function createOnce(
  { client, log }: CommandContext,
  body: CreateDeploymentBody,
): Promise<Deployment | undefined> {
  try {
    return await client.send(createDeployment(body));
  } catch (error) {
    if (error instanceof HttpError && error.status === 409) {
      log.info(`Create answered 409: '${body.name}' exists now; updating it instead.`);
      return undefined;
    }
    const ambiguous =
      (error instanceof NetworkError && !error.notSent) ||
      (error instanceof HttpError && error.status >= 500);
    if (!ambiguous) throw error;
    log.warning(
      `Create failed ambiguously (${(error as Error).message}); looking '${body.name}' up again before anything else.`,
    );
    const found = await findByName(client, body.name);
    if (!found) throw error;
    log.info(`The create did take effect: deployment ${found.id}.`);
    return found;
  }
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
