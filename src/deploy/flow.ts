import type { Settings } from '../inputs.ts';
import type { Logger } from '../logger.ts';
import type { RunClock, ServiceClient } from '../service/client.ts';
import { CancelledError, DeployError, HttpError, NetworkError } from '../service/errors.ts';
import type { CreateDeploymentBody, Deployment, PatchDeploymentBody } from '../service/schemas.ts';
import { findByName, findTarget } from './lookup.ts';
import type { Plan, Result, RunReport } from './report.ts';
import { changedFields, createBody, given, patchBody } from './request.ts';
import { resolveListener, resolveRepository } from './resolve.ts';
import { classify, type Outcome, waitForRevision } from './wait.ts';

export interface Flow {
  client: ServiceClient;
  settings: Settings;
  report: RunReport;
  log: Logger;
  clock: RunClock;
}

/** Runs the command the inputs name; fills `report` as it goes (also when it throws). */
export async function runCommand(flow: Flow): Promise<void> {
  switch (flow.settings.command) {
    case 'deploy':
      return deploy(flow);
    case 'redeploy':
      return redeploy(flow);
    case 'status':
      return status(flow);
    case 'token-metadata':
      return tokenMetadata(flow);
  }
}

async function deploy(flow: Flow): Promise<void> {
  const { client, settings, report, log } = flow;
  report.phase = 'lookup';
  let existing = await findTarget(client, settings);
  const listener = settings.listener
    ? await resolveListener(client, settings.listener, settings.k8sNamespace)
    : undefined;

  if (!existing) {
    if (!settings.create) {
      throw new DeployError(
        `No deployment is named '${settings.name}' and create is false: create it first, or set create: true.`,
      );
    }
    report.phase = 'resolve';
    const repo = needsRepository(settings) ? await resolveRepository(client, settings) : undefined;
    const body = createBody(settings, repo, listener);
    if (settings.dryRun)
      return plan(report, {
        action: 'create',
        method: 'POST',
        path: '/v2/deployments',
        body: redact(body),
        changes: changedFields(body),
      });
    report.phase = 'create';
    log.info(`No deployment is named '${body.name}': creating it (${body.source}).`);
    const created = await createOnce(flow, body);
    if (created) {
      report.created = true;
      report.revisionCreated = created.latest_revision_id !== null;
      return afterWrite(flow, created);
    }
    // The name was taken meanwhile (409): carry on with the deployment that exists, as an update.
    existing = await findByName(client, body.name);
    if (!existing)
      throw new DeployError(
        `Creating '${body.name}' answered 409 (name taken) but no deployment of that name is visible to this key and tenant; check tenant-id.`,
      );
  }

  report.deployment = existing;
  report.previousRevisionId = existing.active_revision_id ?? undefined;
  log.info(
    `Found deployment '${existing.name}' (${existing.id}); active revision: ${existing.active_revision_id ?? 'none'}.`,
  );
  checkSource(settings, existing);
  const body = patchBody(settings, existing, listener);
  const path = `/v2/deployments/${existing.id}`;
  if (settings.dryRun)
    return plan(report, {
      action: 'update',
      method: 'PATCH',
      path,
      body: redact(body),
      changes: changedFields(body),
    });
  const changes = changedFields(body);
  if (changes.length === 0) {
    // An empty PATCH could only be a no-op; not sending it keeps the run read-only.
    report.revisionId = existing.latest_revision_id ?? undefined;
    log.info(`No input sets a field of '${existing.name}': nothing to send, nothing to wait for.`);
    return finish(report, 'no-change');
  }
  report.phase = 'update';
  log.info(`Updating deployment '${existing.name}' (${existing.id}): ${changes.join(', ')}`);
  const updated = await client.patchDeployment(existing.id, body);
  if (updated.latest_revision_id === existing.latest_revision_id) {
    report.deployment = updated;
    report.revisionId = updated.latest_revision_id ?? undefined;
    log.info('The service created no new revision: nothing to wait for.');
    return finish(report, 'no-change');
  }
  report.revisionCreated = true;
  return afterWrite(flow, updated);
}

/**
 * One create. After an ambiguous failure (no answer, reset, 5xx) the name is looked up again and a deployment
 * found is the one this run created; never a second POST. Returns undefined on 409 (taken by someone else).
 */
async function createOnce(flow: Flow, body: CreateDeploymentBody): Promise<Deployment | undefined> {
  const { client, log } = flow;
  try {
    return await client.createDeployment(body);
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

async function redeploy(flow: Flow): Promise<void> {
  const { client, settings, report, log } = flow;
  report.phase = 'lookup';
  const target = await findTarget(client, settings);
  if (!target)
    throw new DeployError(
      `No deployment is named '${settings.name}': redeploy needs an existing deployment.`,
    );
  report.deployment = target;
  report.previousRevisionId = target.active_revision_id ?? undefined;
  const revisionId = settings.revisionId!;
  const path = `/v2/deployments/${target.id}/revisions/${revisionId}/redeploy`;
  if (settings.dryRun)
    return plan(report, { action: 'redeploy', method: 'POST', path, changes: [] });
  report.phase = 'redeploy';
  log.info(`Redeploying revision ${revisionId} of '${target.name}'`);
  const after = await client.redeployRevision(target.id, revisionId);
  report.revisionCreated =
    after.latest_revision_id !== target.latest_revision_id &&
    after.latest_revision_id !== revisionId;
  return afterWrite(flow, after, revisionId);
}

/** Wait (or not) for the revision a write produced, then re-read and settle the result. */
async function afterWrite(
  flow: Flow,
  written: Deployment,
  fallbackRevision?: string,
): Promise<void> {
  const { client, settings, report, log } = flow;
  report.deployment = written;
  const revisionId = written.latest_revision_id ?? fallbackRevision;
  report.revisionId = revisionId;
  if (!revisionId)
    throw new DeployError(
      `The service answered without a latest_revision_id for '${written.name}': there is no revision to wait for.`,
    );
  if (!settings.wait) {
    log.info(`Revision ${revisionId} submitted; not waiting (wait: false).`);
    return finish(report, 'submitted');
  }
  report.phase = 'wait';
  const outcome = await waitFor(flow, written.id, revisionId);
  report.phase = 'report';
  report.deployment = (await client.getDeployment(written.id)) ?? written;
  if (outcome === 'failed' && settings.rollbackOnFailure) return rollback(flow, revisionId);
  if (outcome === 'timed-out' && settings.rollbackOnFailure) {
    report.notes.push(
      `No rollback: revision ${revisionId} timed out, not failed, and may still go live on the service; a rollback now would race it.${report.previousRevisionId ? ` To go back, run command: redeploy with revision-id: ${report.previousRevisionId}.` : ''}`,
    );
  }
  settle(report, outcome, settings.allowSkipped);
}

function waitFor(flow: Flow, deploymentId: string, revisionId: string): Promise<Outcome> {
  const { client, settings, report, log, clock } = flow;
  return waitForRevision(
    client,
    deploymentId,
    revisionId,
    {
      deadline: clock.deadline,
      pollIntervalMs: settings.pollIntervalMs,
      signal: clock.signal,
      triggeredAt: Date.now(),
    },
    report,
    log,
  );
}

/**
 * Puts back the revision that was active before this run, waits for it, and still fails the run. The outputs and
 * the summary stay about the revision this run wrote; the rollback is reported beside it.
 */
async function rollback(flow: Flow, failedRevisionId: string): Promise<void> {
  const { client, report, log, clock, settings } = flow;
  const previous = report.previousRevisionId;
  const failedStatus = report.revision?.status ?? 'unknown';
  if (!previous || previous === failedRevisionId) {
    report.notes.push(
      'No rollback: no other revision was active before this run, so there is nothing to go back to.',
    );
    return settle(report, 'failed', false);
  }
  const deploymentId = report.deployment!.id;
  report.phase = 'rollback';
  log.info(
    `Revision ${failedRevisionId} ended ${failedStatus}; rolling back to revision ${previous}, the one active before this run.`,
  );
  const kept = {
    revision: report.revision,
    timeline: [...report.timeline],
    waitStarted: report.waitStarted,
    waitEnded: report.waitEnded,
  };
  // The rollback gets a wait window of its own: the failed revision may have used up the first one.
  clock.deadline = Date.now() + settings.timeoutMs;
  let rollbackRevisionId = previous;
  let outcome: Outcome | undefined;
  let rollbackStatus: string | undefined;
  let problem: string | undefined;
  try {
    const after = await client.redeployRevision(deploymentId, previous);
    rollbackRevisionId = after.latest_revision_id ?? previous;
    // While waiting, the log names the revision waited on.
    report.revisionId = rollbackRevisionId;
    outcome = await waitFor(flow, deploymentId, rollbackRevisionId);
    rollbackStatus = report.revision?.status;
  } catch (error) {
    if (error instanceof CancelledError || clock.signal.aborted) throw error;
    problem = (error as Error).message;
  } finally {
    report.revisionId = failedRevisionId;
    report.revision = kept.revision;
    report.timeline = kept.timeline;
    report.waitStarted = kept.waitStarted;
    report.waitEnded = kept.waitEnded;
  }
  const ok = outcome === 'deployed';
  report.rollback = { revisionId: rollbackRevisionId, status: rollbackStatus, ok };
  report.deployment =
    (await client.getDeployment(deploymentId).catch(() => undefined)) ?? report.deployment;
  const target =
    rollbackRevisionId === previous
      ? `revision ${previous}`
      : `revision ${previous} (redeployed as ${rollbackRevisionId})`;
  const rollbackEnd = problem
    ? `failed: ${problem}`
    : outcome === 'timed-out'
      ? `was still ${rollbackStatus ?? 'unknown'} when the timeout ran out`
      : `ended ${rollbackStatus ?? 'unknown'}`;
  const { phase, next } = diagnose(failedStatus);
  fail(
    report,
    ok ? 'rolled-back' : 'failed',
    ok
      ? `Revision ${failedRevisionId} ended ${failedStatus}; rolled back to ${target}, which is DEPLOYED again.`
      : `Revision ${failedRevisionId} ended ${failedStatus}, and the rollback to ${target} ${rollbackEnd}.`,
    {
      phase,
      next: ok
        ? next
        : `${next} The rollback did not finish: check which revision is live in the service.`,
    },
  );
}

function settle(report: RunReport, outcome: Outcome, allowSkipped: boolean): void {
  const status = report.revision?.status ?? 'unknown';
  switch (outcome) {
    case 'deployed':
      return finish(report, 'deployed');
    case 'skipped':
      if (allowSkipped) return finish(report, 'skipped');
      return fail(
        report,
        'skipped',
        `Revision ${report.revisionId} was SKIPPED by the service; set allow-skipped: true if that is fine.`,
        {
          phase: 'wait',
          next: 'A skipped revision is usually superseded by a newer one; check the deployment in the service.',
        },
      );
    case 'failed':
      return fail(
        report,
        'failed',
        `Revision ${report.revisionId} ended ${status}.`,
        diagnose(status),
      );
    case 'timed-out':
      return fail(
        report,
        'timed-out',
        `Revision ${report.revisionId} was still ${status} when the timeout ran out.`,
        {
          phase: 'wait',
          next: 'The revision keeps going on the service: raise timeout if builds take this long, or check the service for a stuck queue.',
        },
      );
  }
}

/** Where a failed revision broke, and what to look at next. */
function diagnose(status: string): { phase: string; next: string } {
  switch (status) {
    case 'BUILD_FAILED':
      return {
        phase: 'build',
        next: "Read the revision's build log in the service; check install-command, build-command and graph-config-path.",
      };
    case 'DEPLOY_FAILED':
      return {
        phase: 'deploy',
        next: "The image built but did not start: read the revision's deploy log; check secrets, resource-spec and the app's start-up.",
      };
    case 'CREATE_FAILED':
      return {
        phase: 'revision set-up',
        next: 'The service could not set the revision up: check the repository access, the ref and the source configuration.',
      };
    case 'INTERRUPTED':
      return {
        phase: 'deploy (interrupted)',
        next: 'The revision was interrupted, often by a newer revision of the same deployment: re-run the job if it should be live.',
      };
    default:
      return { phase: 'wait', next: 'Check the revision in the service.' };
  }
}

async function status(flow: Flow): Promise<void> {
  const { client, settings, report } = flow;
  report.phase = 'lookup';
  const target = await findTarget(client, settings);
  if (!target) throw new DeployError(`No deployment is named '${settings.name}'.`);
  report.deployment = target;
  report.previousRevisionId = target.active_revision_id ?? undefined;
  report.revisionId = target.latest_revision_id ?? undefined;
  if (!report.revisionId) return finish(report, 'no-change');
  report.revision = await client.getRevision(target.id, report.revisionId);
  const outcome = classify(report.revision.status);
  finish(
    report,
    outcome === 'in-progress' ? 'submitted' : outcome === 'timed-out' ? 'failed' : outcome,
  );
}

async function tokenMetadata(flow: Flow): Promise<void> {
  const { client, settings, report, log } = flow;
  const body = given({
    provider_account_label: settings.providerAccountLabel,
    is_default: settings.isDefault,
  });
  const path = `/v2/auth/tokens/${settings.tokenId}/metadata`;
  if (settings.dryRun)
    return plan(report, {
      action: 'update',
      method: 'PATCH',
      path,
      body,
      changes: Object.keys(body),
    });
  report.phase = 'token-metadata';
  const token = await client
    .updateTokenMetadata(settings.tokenId!, body)
    .catch((error: unknown) => {
      // The generic 403 hint is about the key and tenant; here the usual cause is ownership.
      if (error instanceof HttpError && error.status === 403) {
        throw new DeployError(
          `${error.message} Only the owner of token ${settings.tokenId} may change its metadata: use an api-key of the token's owner.`,
        );
      }
      throw error;
    });
  const changes = Object.entries(body).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  log.info(`Token ${token.id} updated: ${changes.join(', ')}`);
  report.notes.push(`Token ${token.id} updated: ${changes.join(', ')}.`);
  finish(report, 'updated');
}

function needsRepository(s: Settings): boolean {
  return s.source === 'codehost' && (!s.repoUrl || !s.integrationId || !s.repoRef);
}

function checkSource(s: Settings, existing: Deployment): void {
  // A source the user chose (or implied with image-uri) must match; the plain default adopts what exists.
  const explicit = s.sourceGiven || s.imageUri !== undefined;
  if (explicit && existing.source !== s.source) {
    throw new DeployError(
      `Deployment '${existing.name}' has source '${existing.source}', not '${s.source}', and a source cannot change. Use the matching source inputs or another name.`,
    );
  }
}

function plan(report: RunReport, p: Plan): void {
  report.plan = p;
  finish(report, 'planned');
}

function finish(report: RunReport, result: Result): void {
  report.result = result;
  report.ok = true;
}

function fail(
  report: RunReport,
  result: Result,
  message: string,
  where: { phase: string; next: string },
): void {
  report.result = result;
  report.ok = false;
  report.failure = { ...where, message };
}

/** The request as it would be sent, secret values replaced. */
function redact(body: CreateDeploymentBody | PatchDeploymentBody): unknown {
  return {
    ...body,
    ...(body.secrets ? { secrets: body.secrets.map((s) => ({ name: s.name, value: '***' })) } : {}),
  };
}
