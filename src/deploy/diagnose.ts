// Why a deploy is slow or failed, from the ten endpoints (the service's build logs are not among them): the
// deployment's own status as every read saw it, the revision this run's sits behind, a wait with no change for
// stuck-after, and on failure the revision that last worked beside this run's. Its reads are few and bounded (each
// in a short window of its own, counted in report.diagnostics.requests), and a failed one costs only its finding:
// diagnostics never change a run's result.
import type { Logger } from '../core/logger.ts';
import { deploymentStatusMeaning, type Setup, whatChanged } from '../core/outcome.ts';
import type { Comparison, RevisionValues, RunReport } from '../core/report.ts';
import type { Excerpt } from '../core/sinks.ts';
import type { DeploymentRef } from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import type { DeploymentObserver, ServiceClient } from '../service/client.ts';
import type { Revision } from '../service/schemas.ts';
import { classify } from '../service/statuses.ts';
import { CancelledError, compact, seconds } from '../shared/time.ts';
import type { FollowContext } from './context.ts';
import type { Watch } from './wait.ts';

/** How long one diagnostics read may take, retries included: it must not hold up the wait it explains. */
const READ_WINDOW_MS = 10_000;
/** A read during the wait keeps to the run's deadline; one after it (the run's may be used up) has its own. */
const DURING_WAIT = { duringWait: true };
const AFTER_WAIT = { duringWait: false };
/** Queue checks per wait at most: one per waiting status the revision sits in (QUEUED, AWAITING_BUILD, …). */
const QUEUE_CHECKS = 3;

/**
 * Records the deployment's own status whenever an answer shows it other than READY, and logs each such status once
 * with its meaning. Only the deployment the run acts on counts: the one in the report, else the one the inputs name.
 */
export function watchDeploymentStatus(
  report: RunReport,
  log: Logger,
  target: DeploymentRef | undefined,
): DeploymentObserver {
  return (deployment) => {
    const ours = report.deployment
      ? deployment.id === report.deployment.id
      : target?.id
        ? deployment.id.toLowerCase() === target.id.toLowerCase()
        : deployment.name === target?.name;
    const seen = report.diagnostics.deploymentStatuses;
    if (!ours || deployment.status === 'READY' || seen.includes(deployment.status)) return;
    seen.push(deployment.status);
    log.info(
      `Deployment '${deployment.name}' is ${deployment.status}: ${deploymentStatusMeaning(deployment.status)}`,
    );
  };
}

/**
 * What the advice for a failure names, from the deployment and revision as last read and what the wait saw; the
 * values it quotes, through `excerpt`.
 */
export function setupOf(report: RunReport, excerpt: Excerpt): Setup {
  const d = report.deployment;
  const config = d?.source_config;
  const values = report.revision?.source_revision_config ?? d?.source_revision_config;
  const quote = (value: string | null | undefined, max = 80) =>
    value ? excerpt(value, max) : undefined;
  return {
    source: d?.source,
    ref: quote(values?.repo_ref),
    commit: quote(values?.repo_commit_sha, 40),
    image: quote(values?.image_uri),
    graphConfigPath: quote(values?.graph_config_path),
    installCommand: Boolean(config?.install_command),
    buildCommand: Boolean(config?.build_command),
    resourceSpec: Boolean(config?.resource_spec && Object.keys(config.resource_spec).length),
    secrets: d?.secrets.length ?? 0,
    secretReferences: d?.secret_references?.length ?? 0,
    listenerId: config?.listener_id ?? undefined,
    namespace: quote(config?.listener_config?.k8s_namespace),
    queuedBehind: report.diagnostics.queuedBehind?.revisionId,
    deploymentStatuses: report.diagnostics.deploymentStatuses,
  };
}

/** A status in which a revision waits its turn rather than works. */
function waiting(status: string): boolean {
  return status === 'QUEUED' || status.startsWith('AWAITING_');
}

/** What a diagnostics read gave: the answer, or why there is none. */
type Read<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

/**
 * One diagnostics read: counted, within `READ_WINDOW_MS` (and during the wait, the run's deadline); a failure is its
 * problem, a cancel goes on.
 */
async function readOnce<T>(
  { client, report, log }: FollowContext,
  read: (reader: ServiceClient) => Promise<T>,
  { duringWait }: { duringWait: boolean },
): Promise<Read<T>> {
  report.diagnostics.requests++;
  const end = client.clock.time.now() + READ_WINDOW_MS;
  try {
    const reader = client.within(
      duringWait ? Math.min(client.clock.deadline, end) : end,
      'a diagnostics read (10s)',
    );
    return { value: await read(reader) };
  } catch (error) {
    if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
    log.debug(`A diagnostics read failed: ${(error as Error).message}`);
    return { problem: (error as Error).message };
  }
}

const revision = (deploymentId: string, revisionId: string) => (reader: ServiceClient) =>
  reader.send(getRevision(deploymentId, revisionId));
const deployment = (id: string) => (reader: ServiceClient) => reader.getDeployment(id);

/**
 * Watches a wait for what a person would ask about: is the revision queued behind another one (said once), and has
 * nothing changed for stuck-after (warned once, with what is known). Its `afterPoll` goes to waitForRevision.
 */
export class WaitDiagnostics {
  private readonly checked = new Set<string>();
  private stuckWarned = false;
  private readonly ctx: FollowContext;
  private readonly ids: { deploymentId: string; revisionId: string };
  private readonly options: {
    pollIntervalMs: number;
    stuckAfterMs: number;
    /** The latest revision before this run's write: one still in progress is one this run's may queue behind. */
    priorLatest?: string;
  };

  constructor(
    ctx: FollowContext,
    ids: WaitDiagnostics['ids'],
    options: WaitDiagnostics['options'],
  ) {
    this.ctx = ctx;
    this.ids = ids;
    this.options = options;
  }

  readonly afterPoll = async (watch: Watch): Promise<void> => {
    const now = this.ctx.client.clock.time.now();
    const current = watch.timeline.at(-1);
    // Sitting, not passing through: a queue that clears within a poll interval needs no explanation.
    if (
      current &&
      waiting(current.status) &&
      now - current.since >= this.options.pollIntervalMs &&
      !this.ctx.report.diagnostics.queuedBehind &&
      !this.checked.has(current.status) &&
      this.checked.size < QUEUE_CHECKS
    ) {
      this.checked.add(current.status);
      await this.checkQueue(current.status);
    }
    const since = current?.since ?? watch.startedAt;
    if (!this.stuckWarned && now - since >= this.options.stuckAfterMs) {
      this.stuckWarned = true;
      await this.warnStuck(current?.status, now - since);
    }
  };

  /** Whether another revision in progress is ahead of this run's: the deployment's latest, or the one before. */
  private async checkQueue(ownStatus: string): Promise<void> {
    const { deploymentId, revisionId } = this.ids;
    const { value: latest } = await readOnce(this.ctx, deployment(deploymentId), DURING_WAIT);
    const candidates = new Set(
      [latest?.latest_revision_id, this.options.priorLatest].filter(
        (id): id is string =>
          Boolean(id) && id !== revisionId && id !== this.ctx.report.previousRevisionId,
      ),
    );
    for (const id of candidates) {
      const { value: other } = await readOnce(this.ctx, revision(deploymentId, id), DURING_WAIT);
      if (!other || classify(other.status) !== 'in-progress') continue;
      this.ctx.report.diagnostics.queuedBehind = {
        revisionId: other.id,
        status: other.status,
        ownStatus,
      };
      this.ctx.log.info(
        `Revision ${revisionId} is ${ownStatus} behind revision ${other.id} (${other.status}, created ${other.created_at}), another change's: it will likely start when that one ends.`,
      );
      return;
    }
  }

  /** The one warning after stuck-after without a status change, with what a deployment re-read adds. */
  private async warnStuck(status: string | undefined, forMs: number): Promise<void> {
    const { ctx, ids } = this;
    const { client, report, log } = ctx;
    report.diagnostics.stuck = { status: status ?? 'unknown', forMs };
    const { value: found } = await readOnce(ctx, deployment(ids.deploymentId), DURING_WAIT);
    const known: string[] = [];
    const behind = report.diagnostics.queuedBehind;
    if (behind) known.push(`it is queued behind revision ${behind.revisionId} (${behind.status})`);
    if (found) {
      // A status other than READY has had its meaning logged as the read saw it (watchDeploymentStatus).
      known.push(`deployment '${found.name}' is ${found.status}`);
      if (found.latest_revision_id && found.latest_revision_id !== ids.revisionId)
        known.push(`its latest revision is now ${found.latest_revision_id}, not this one`);
      known.push(`its active revision is ${found.active_revision_id ?? 'none'}`);
    } else known.push('the deployment could not be re-read');
    const left = client.clock.deadline - client.clock.time.now();
    log.warning(
      `Revision ${ids.revisionId} has shown no status change for ${seconds(forMs)} (stuck-after ${compact(this.options.stuckAfterMs)}): ${status ? `still ${status}` : 'no status read yet'}; ${known.join('; ')}. Waiting on: ${seconds(left)} of ${client.clock.limit} left.`,
    );
  }
}

/** A revision's values as the comparison shows them. */
function valuesOf(revision: Revision): RevisionValues {
  const config = revision.source_revision_config;
  return {
    id: revision.id,
    status: revision.status,
    ref: config.repo_ref ?? undefined,
    commit: config.repo_commit_sha ?? undefined,
    image: config.image_uri ?? undefined,
    graphConfigPath: config.graph_config_path ?? undefined,
  };
}

/**
 * On failure, timeout or unhealthy: the revision active before the run (endpoint 8) beside this run's, said in
 * one log line and kept for the summary. At most two reads: the one before, and this run's when no read of it
 * answered during the wait.
 */
export async function compareWithLastGood(
  ctx: FollowContext,
  ids: { deploymentId: string; revisionId: string },
): Promise<void> {
  const { report, log } = ctx;
  const previous = report.previousRevisionId;
  const ours =
    report.revision?.id === ids.revisionId
      ? report.revision
      : (await readOnce(ctx, revision(ids.deploymentId, ids.revisionId), AFTER_WAIT)).value;
  const comparison: Comparison = {
    failed: ours ? valuesOf(ours) : { id: ids.revisionId },
    sent: report.sent ?? [],
  };
  if (previous === ids.revisionId) comparison.before = comparison.failed;
  else if (previous) {
    const before = await readOnce(ctx, revision(ids.deploymentId, previous), AFTER_WAIT);
    if (before.value) comparison.before = valuesOf(before.value);
    else comparison.problem = before.problem;
  }
  report.diagnostics.lastGood = comparison;
  log.info(whatChanged(comparison, previous, ctx.excerpt));
}
