// A write of an existing deployment (PATCH, redeploy) whose effect the run must know. When its answer is lost, the
// deployment is re-read before anything else; when it answers, the answer is checked against the request. Either
// way the revision the run follows carries what it sent: another change's revision is never reported as its own.
// whilePending, which every write goes through, tells a cancel which write may have been applied.
import { type Call, getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Logger } from '../core/logger.ts';
import type { Excerpt } from '../core/sinks.ts';
import { CancelledError, UnsentError } from '../shared/time.ts';
import { DeployError, PossiblyAppliedError } from '../core/errors.ts';
import { outcomeUnknown } from '../service/retry.ts';
import type { Deployment, SourceRevisionConfigRequest } from '../service/schemas.ts';
import { compact, seconds } from '../shared/time.ts';
import type { FollowContext } from './context.ts';
import type { PendingWrite } from '../core/report.ts';

/** The revision-level values a revision is told apart by. */
export type Values = SourceRevisionConfigRequest;
const VALUE_KEYS = ['repo_ref', 'image_uri', 'graph_config_path', 'source_tarball_path'] as const;

/** Re-reads after an answer that does not show the write (it may lag it): right away, then 1 s and 2 s later. */
const RECHECK_GAPS_MS = [0, 1000, 2000];
/** The least time a re-read after a lost answer gets, when the run's deadline cut the write itself. */
const REREAD_MS = 10_000;

/** What a write meant to do, to tell its revision from another change's. */
interface Intent {
  /** The deployment as read before the write. */
  before: Deployment;
  /** The revision-level values its revision carries, read when first needed (a redeploy's: the chosen revision's). */
  values: () => Promise<Values>;
  /** redeploy: the revision chosen, which may itself become the latest again. */
  chosen?: string;
}

export interface Written {
  deployment: Deployment;
  /** This write's revision; absent when the service made none (the values were already there). */
  revisionId?: string;
}

type Sighting =
  | { kind: 'ours'; revisionId: string }
  | { kind: 'unchanged' }
  /** A new latest revision with other values: another change's. */
  | { kind: 'other'; revisionId: string; values: Values }
  /** The redeploy of the revision that was already the latest, unanswered: the deployment cannot tell. */
  | { kind: 'unknown' };

/**
 * The intent of redeploying `revisionId` of `before`: that revision latest again, or a new one with its values.
 * Those are read only when an answer must be told from another change's (a service may redeploy as a new revision).
 */
export function redeployIntent(
  client: ServiceClient,
  before: Deployment,
  revisionId: string,
): Intent {
  let values: Promise<Values> | undefined;
  return {
    before,
    chosen: revisionId,
    values: () =>
      (values ??= client.send(getRevision(before.id, revisionId)).then(
        (revision) => valuesOf(revision.source_revision_config),
        // Only the chosen revision's values tell the redeploy's revision from another change's.
        unknownIfFails(
          client,
          (why) =>
            `Whether the redeploy of revision ${revisionId} made a revision of its own cannot be told: reading that revision failed (${why}). Check deployment '${before.name}' (${before.id}) on the service before running the job again.`,
        ),
      )),
  };
}

/** The values of `config` (a deployment's or a revision's) that a revision is told apart by. */
export function valuesOf(config: Deployment['source_revision_config']): Values {
  const values: Values = {};
  for (const key of VALUE_KEYS) if (config[key] != null) values[key] = config[key];
  return values;
}

/** Whether `config` has every value of `values`. A write that sent none matches any revision. */
export function carries(config: Deployment['source_revision_config'], values: Values): boolean {
  return VALUE_KEYS.every((key) => values[key] === undefined || config[key] === values[key]);
}

/**
 * "repo_ref 'main', graph_config_path 'graph.json'", or what a write without such values sent. Each value is quoted
 * through `excerpt` (the service's client's): a value cut before redaction could keep part of a secret.
 */
export function describeValues(values: Values, excerpt: Excerpt): string {
  const shown = VALUE_KEYS.filter((key) => values[key] !== undefined).map(
    (key) => `${key} '${excerpt(values[key]!, 80)}'`,
  );
  return shown.length ? shown.join(', ') : 'no revision-level value';
}

/**
 * Sends `call` and answers what it did. A failure after which it may have taken effect (see outcomeUnknown) is
 * followed by a re-read of the deployment: a new latest revision that carries the values is this write's; the
 * latest unchanged means it did not take effect, and it is sent again within mayResend's bounds; another
 * change's revision ends the run, as it cannot tell whether its own write took effect. An answer is checked
 * against the intent the same way.
 */
export async function writeDeployment(
  ctx: FollowContext,
  call: Call<Deployment>,
  intent: Intent,
): Promise<Written> {
  const { before } = intent;
  return whilePending(
    ctx,
    { request: `${call.method} ${call.path}`, check: `deployment '${before.name}' (${before.id})` },
    () => sendUntilKnown(ctx, call, intent),
  );
}

/**
 * Runs `work`, a write and what tells its outcome, with `write` recorded in the report: a cancel meanwhile reports
 * it as possibly applied, unless the cancel came before it went out (UnsentError). The record goes when `work` ends
 * any other way (its error tells what is known); `work` clears it while nothing is in flight (before a write goes
 * again) and sets it back before sending. A deployment's
 * write left possibly applied (by a cancel, or a PossiblyAppliedError) makes revision-created unknown, unless an
 * earlier write of the run made one; a write that makes no revision (`revisions: false`: a token's) leaves it false.
 */
export async function whilePending<T>(
  { client, report }: FollowContext,
  write: PendingWrite,
  work: () => Promise<T>,
  revisions = true,
): Promise<T> {
  if (client.clock.signal.aborted) throw new CancelledError();
  report.pendingWrite = write;
  try {
    const done = await work();
    report.pendingWrite = undefined;
    return done;
  } catch (error) {
    const cancelled = client.clock.signal.aborted;
    if (error instanceof UnsentError && error.request === write.request)
      report.pendingWrite = undefined;
    const unknown = (cancelled && report.pendingWrite) || error instanceof PossiblyAppliedError;
    if (unknown && revisions && report.revisionCreated === false)
      report.revisionCreated = undefined;
    if (!cancelled) report.pendingWrite = undefined;
    throw error;
  }
}

async function sendUntilKnown(
  ctx: FollowContext,
  call: Call<Deployment>,
  intent: Intent,
): Promise<Written> {
  const { client, report, log } = ctx;
  const { before } = intent;
  const label = `${call.method} ${call.path}`;
  const pending = report.pendingWrite;
  for (let sends = 1; ; sends++) {
    if (sends > 1) {
      if (client.clock.signal.aborted) throw new CancelledError();
      report.pendingWrite = pending;
    }
    let answer: Deployment;
    try {
      answer = await client.send(call);
    } catch (error) {
      if (!outcomeUnknown(error)) throw error;
      log.warning(
        `${error.message} It may have taken effect: re-reading deployment '${before.name}' before anything else.`,
      );
      const now = await readAfterWrite(
        client,
        error,
        `deployment '${before.name}' (${before.id})`,
        (reader) => reader.getDeployment(before.id),
      );
      if (!now) throw gone(before);
      const seen = await sight(now, intent, false);
      if (seen.kind === 'ours') {
        log.info(
          `It did: the latest revision is now ${seen.revisionId}, with ${describeValues(await intent.values(), client.excerpt)}. Following it.`,
        );
        return { deployment: now, revisionId: seen.revisionId };
      }
      if (seen.kind === 'other')
        throw new PossiblyAppliedError(
          `${error.message} The deployment's latest revision is now ${seen.revisionId}, with ${describeValues(seen.values, client.excerpt)}, not this run's ${describeValues(await intent.values(), client.excerpt)}: another change (a concurrent job?) came meanwhile, so whether this run's write took effect cannot be told, and it is not sent again. ${oneAtATime(before.name)}`,
        );
      if (seen.kind === 'unknown')
        throw new PossiblyAppliedError(
          `${error.message} Revision ${intent.chosen} was already the latest, so the deployment cannot show whether the redeploy took effect: check the revision on the service before redeploying it again.`,
        );
      report.pendingWrite = undefined;
      const delay = client.resendDelay(label, error, sends);
      if (delay === undefined) {
        const sent = `sent ${sends} ${sends === 1 ? 'time' : 'times'}`;
        // Another job's redeploy of the latest revision makes it the latest again over this write's: the latest
        // alone cannot prove nothing happened once the deployment changed since the lookup.
        if (now.updated_at !== before.updated_at)
          throw new PossiblyAppliedError(
            `${error.message} The re-read shows the latest revision unchanged (${sent}), but the deployment changed since it was read (updated_at), as another job redeploying that revision would change it: whether this write made a revision is not known. ${oneAtATime(before.name)}`,
          );
        error.message += ` The re-read shows it did not take effect (${sent}).`;
        throw error;
      }
      log.info(
        `The re-read shows that ${label} did not take effect: sending it again in ${seconds(delay)}.`,
      );
      await client.clock.time.sleep(delay, client.clock.signal);
      continue;
    }
    return checkAnswer(ctx, label, answer, intent);
  }
}

/** Whose revision an answer or a re-read shows as the latest. */
async function sight(deployment: Deployment, intent: Intent, answered: boolean): Promise<Sighting> {
  const latest = deployment.latest_revision_id;
  const before = intent.before.latest_revision_id;
  if (latest !== null && latest === intent.chosen)
    return answered || latest !== before
      ? { kind: 'ours', revisionId: latest }
      : { kind: 'unknown' };
  if (latest === null || latest === before) return { kind: 'unchanged' };
  const values = await intent.values();
  const config = deployment.source_revision_config;
  if (carries(config, values)) return { kind: 'ours', revisionId: latest };
  return { kind: 'other', revisionId: latest, values: valuesOf(config) };
}

/**
 * An answer that shows this write's revision is taken; one whose latest revision is unchanged and already carries
 * the values means no new revision. Otherwise the answer lags the write, or another change's revision answered:
 * the deployment is re-read a few times for this write's own revision, and without it the run ends naming both, or
 * (the latest still unchanged, without the values) saying another job may have redeployed that revision over it.
 */
async function checkAnswer(
  { client, report, log }: FollowContext,
  label: string,
  answer: Deployment,
  intent: Intent,
): Promise<Written> {
  const seen = await sight(answer, intent, true);
  const { name, id, latest_revision_id: before } = intent.before;
  if (seen.kind === 'ours' && seen.revisionId === before)
    return redeployedLatest(client, log, answer, intent);
  if (seen.kind === 'ours') return { deployment: answer, revisionId: seen.revisionId };
  const values = await intent.values();
  if (seen.kind !== 'other' && carries(answer.source_revision_config, values))
    return { deployment: answer };
  const concurrent =
    seen.kind === 'other'
      ? `${label} answered with revision ${seen.revisionId}, which carries ${describeValues(seen.values, client.excerpt)}, not this run's ${describeValues(values, client.excerpt)}: a concurrent change answered (another job deploying '${name}'?).`
      : undefined;
  log.warning(
    concurrent
      ? `${concurrent} Re-reading the deployment for this run's own revision.`
      : `${label} answered with the latest revision unchanged and without ${describeValues(values, client.excerpt)}: the answer may lag the write. Re-reading the deployment.`,
  );
  let last = answer;
  let lastSeen: Sighting = seen;
  for (const gap of RECHECK_GAPS_MS) {
    await client.clock.time.sleep(gap, client.clock.signal);
    // The write was applied, or not: only the read could tell.
    const now = await client
      .getDeployment(id)
      .catch(
        unknownIfFails(
          client,
          (why) =>
            `${label} answered without a revision of this run's, and the re-read that would find it failed (${why}): check deployment '${name}' (${id}) on the service before running the job again.`,
        ),
      );
    if (!now) throw gone(intent.before);
    last = now;
    lastSeen = await sight(now, intent, true);
    if (lastSeen.kind !== 'ours') continue;
    if (concurrent)
      report.notes.push(
        `${concurrent} This run's revision is ${lastSeen.revisionId}, found by re-reading the deployment. ${oneAtATime(name)}`,
      );
    log.info(
      `Revision ${lastSeen.revisionId} carries ${describeValues(values, client.excerpt)}: following it.`,
    );
    return { deployment: now, revisionId: lastSeen.revisionId };
  }
  if (concurrent || lastSeen.kind === 'other') {
    const latest =
      lastSeen.kind === 'other' &&
      (seen.kind !== 'other' || lastSeen.revisionId !== seen.revisionId)
        ? ` The latest revision is now ${lastSeen.revisionId}, with ${describeValues(lastSeen.values, client.excerpt)}.`
        : '';
    throw new PossiblyAppliedError(
      `${concurrent ?? `${label} answered without a revision of this run's.`}${latest} No revision with this run's values is the latest after ${RECHECK_GAPS_MS.length} re-reads, so none is followed or reported as this run's: another job's revision may have replaced it. ${oneAtATime(name)}`,
    );
  }
  // The values there without a new revision: the service took them in place, as contract step 3 reads it.
  if (carries(last.source_revision_config, values)) return { deployment: last };
  // A 2xx answer means the write was applied, and its values were not there: it made a revision, which another
  // job's redeploy of the revision that was the latest (a rollback) may have put behind that one again.
  throw new PossiblyAppliedError(
    `${label} was applied, but after ${RECHECK_GAPS_MS.length} re-reads deployment '${name}' still shows ${before === null ? 'no revision' : `revision ${before}`} as the latest, without this run's ${describeValues(values, client.excerpt)}: another job may have redeployed that revision over this run's, so none is followed or reported as this run's. ${oneAtATime(name)}`,
  );
}

/**
 * The redeploy of the revision that was already the latest, answered with it still the latest: what a service that
 * redeploys in place answers, and what an answer that lags the new revision a service made of it shows too. One
 * re-read tells them apart: a new latest revision with the chosen one's values is this redeploy's. Without that read,
 * the answer stands.
 */
async function redeployedLatest(
  client: ServiceClient,
  log: Logger,
  answer: Deployment,
  intent: Intent,
): Promise<Written> {
  const { before, chosen } = intent;
  const now = await client.getDeployment(before.id).catch((error: unknown) => {
    if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
    return undefined;
  });
  const latest = now?.latest_revision_id;
  if (now && latest && latest !== before.latest_revision_id) {
    const values = await intent.values();
    if (carries(now.source_revision_config, values)) {
      log.info(
        `The service made revision ${latest} of revision ${chosen}, with ${describeValues(values, client.excerpt)}: following it.`,
      );
      return { deployment: now, revisionId: latest };
    }
  }
  return { deployment: answer, revisionId: chosen };
}

/**
 * What a write whose outcome is unknown did, read with `read` within the run's deadline, or a short window when
 * that is gone (the deadline may have cut the write): 10 s, and `longerMs` more for a read that repeats. The read
 * goes at once, past a hold that the write's own answer may have set. A failed read leaves the outcome unknown: the
 * error says both, and that `where` is to be checked.
 */
export async function readAfterWrite<T>(
  client: ServiceClient,
  writeError: Error,
  where: string,
  read: (reader: ServiceClient) => Promise<T>,
  longerMs = 0,
): Promise<T> {
  const { time, deadline } = client.clock;
  const windowMs = REREAD_MS + longerMs;
  const reader = (
    deadline - time.now() >= windowMs
      ? client
      : client.within(time.now() + windowMs, `re-read after the write (${compact(windowMs)})`)
  ).urgent();
  return read(reader).catch(
    unknownIfFails(
      client,
      (why) =>
        `${writeError.message} It may have taken effect, and the read that would tell failed too (${why}): check ${where} on the service before running the job again.`,
    ),
  );
}

/** A read that would tell what a write did, failed: a cancel stays one, anything else leaves the write unknown. */
function unknownIfFails(client: ServiceClient, say: (why: string) => string) {
  return (error: unknown): never => {
    if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
    throw new PossiblyAppliedError(say((error as Error).message));
  };
}

function gone(before: Deployment): DeployError {
  return new DeployError(
    `Deployment '${before.name}' (${before.id}) is gone: the service no longer lists it (deleted meanwhile?). Run the job again.`,
  );
}

/** The advice when jobs race on one deployment. */
function oneAtATime(name: string): string {
  return `Let the jobs that deploy '${name}' run one at a time: a workflow concurrency group (concurrency: deploy-${name}).`;
}
