// After a write that made (or chose) a revision: wait for it, check the deployment serves it and the agent answers,
// roll back when asked, and conclude the run. Shared by deploy, redeploy and promote.
import type { FollowSettings } from '../inputs/index.ts';
import { DeployError } from '../core/errors.ts';
import type { Deployment, Revision } from '../service/schemas.ts';
import { CancelledError, compact, seconds } from '../shared/time.ts';
import { withoutQuery } from '../shared/url.ts';
import { confirmActive, reread } from './active.ts';
import {
  afterRollback,
  diagnose,
  failed,
  type Mismatch,
  NOTHING_TO_ROLL_BACK,
  noRollbackAfterTimeout,
  settle,
  success,
} from '../core/outcome.ts';
import { conclude, type RunReport, type Verdict } from '../core/report.ts';
import {
  DEPLOYED,
  FAILED,
  ROLLED_BACK,
  type ResultKind,
  SKIPPED,
  SKIPPED_REFUSED,
  SUBMITTED,
  TIMED_OUT,
  UNHEALTHY,
} from '../core/result.ts';
import type { FollowContext } from './context.ts';
import { compareWithLastGood, setupOf, WaitDiagnostics } from './diagnose.ts';
import { rollBack } from './rollback.ts';
import { verify, type VerifyCheck } from './verify.ts';
import { waitForRevision, type Watch } from './wait.ts';

/** What a follow ends with, besides the run's failed: for the results of the commands that follow a revision. */
export const FOLLOW_RESULTS: readonly ResultKind[] = [
  DEPLOYED,
  SUBMITTED,
  SKIPPED,
  SKIPPED_REFUSED,
  TIMED_OUT,
  UNHEALTHY,
  ROLLED_BACK,
];

/** What a command asks of its revision beyond DEPLOYED and serving (promote: its commit); undefined when it is so. */
export type Expectation = (revision: Revision) => Mismatch | undefined;

/** How a follow is asked for: the revision, verify-url as resolved before the write, and the latest before it. */
interface Followed {
  revisionId: string | undefined;
  check?: VerifyCheck;
  /** What the revision must be beyond DEPLOYED and serving (promote). */
  expect?: Expectation;
  /** The deployment's latest revision before this run's write: one still in progress may be ahead of this one. */
  priorLatest?: string;
}

/** Where a check that had no URL to check failed, and what to do. */
const NO_VERIFY_URL = {
  phase: 'verify',
  next: "The deployment exists now: add custom-url (the agent's address) to this step, and the next run sets it and checks verify-url there.",
};

/** The results after which the run says what changed since the deployment last worked. */
const EXPLAINED = new Set([FAILED, TIMED_OUT, UNHEALTHY, ROLLED_BACK].map((kind) => kind.name));

/**
 * Follows `revisionId`, the revision the write that answered `written` made or chose, to the run's end. `check` is
 * verify-url as resolved before the write, or for a deployment this run created, against the create's answer
 * (verifyCheck): never re-resolved against a custom_url the service answers later. A revision that misses `expect`
 * fails like one that ends unhealthy (and is rolled back so). A run that ends failed, timed out or unhealthy then
 * says what changed since it last worked.
 */
export async function follow(
  ctx: FollowContext,
  settings: FollowSettings & { timeoutMs: number },
  written: Deployment,
  followed: Followed,
): Promise<void> {
  const { report, log } = ctx;
  await followToEnd(ctx, settings, written, followed);
  if (report.revisionId && !report.cancelled && report.result && EXPLAINED.has(report.result))
    await compareWithLastGood(ctx, {
      deploymentId: report.deployment?.id ?? written.id,
      revisionId: report.revisionId,
    });
  const { requests } = report.diagnostics;
  if (requests) log.info(`Diagnostics cost ${requests} extra request${requests === 1 ? '' : 's'}.`);
}

async function followToEnd(
  ctx: FollowContext,
  settings: FollowSettings & { timeoutMs: number },
  written: Deployment,
  { revisionId, check, expect, priorLatest }: Followed,
): Promise<void> {
  const { client, report, log, transport } = ctx;
  report.deployment = written;
  report.revisionId = revisionId;
  if (!revisionId)
    throw new DeployError(
      `The service answered without a latest_revision_id for '${written.name}': there is no revision to wait for.`,
    );
  if (!settings.wait) {
    log.info(
      `Revision ${revisionId} submitted; not waiting (wait: false)${settings.verify ? ', so verify-url is not checked' : ''}.`,
    );
    return conclude(report, success(SUBMITTED));
  }
  report.phase = 'wait';
  const ids = { deploymentId: written.id, revisionId };
  const diagnostics = new WaitDiagnostics(ctx, ids, {
    pollIntervalMs: settings.pollIntervalMs,
    stuckAfterMs: settings.stuckAfterMs,
    priorLatest,
  });
  const watch = await waitForRevision(
    client,
    ids,
    {
      pollIntervalMs: settings.pollIntervalMs,
      triggeredAt: client.clock.time.now(),
      fresh: report.revisionCreated === true,
      afterPoll: diagnostics.afterPoll,
    },
    log,
  );
  recordWatch(report, watch);
  if (watch.outcome === 'cancelled') throw new CancelledError();
  report.phase = 'report';
  const status = watch.revision?.status ?? 'unknown';

  if (watch.outcome !== 'deployed') {
    const deployment = (await reread(client, written.id, log)) ?? written;
    report.deployment = deployment;
    const verdict = settle(watch.outcome, revisionId, status, {
      allowSkipped: settings.allowSkipped,
      limit: client.clock.limit,
      setup: setupOf(report, ctx.excerpt),
      cutShort: watch.cutShort,
    });
    if (watch.outcome === 'failed' && settings.rollbackOnFailure)
      return rollbackAndConclude(
        ctx,
        settings,
        { deployment, revisionId },
        {
          why: `ended ${status}`,
          status,
          verdict,
        },
      );
    if (watch.outcome === 'timed-out' && settings.rollbackOnFailure)
      report.notes.push(noRollbackAfterTimeout(revisionId, report.previousRevisionId));
    return conclude(report, verdict);
  }

  report.phase = 'activate';
  const serving = await confirmActive(
    client,
    {
      ...ids,
      // A DEPLOYED outcome comes from a revision read.
      createdAt: watch.revision?.created_at ?? '',
      previous: report.previousRevisionId,
    },
    settings.pollIntervalMs,
  );
  report.deployment = serving.deployment;
  if (serving.state === 'not-switched') {
    const still = !serving.activeId
      ? 'has no active revision'
      : serving.activeId === report.previousRevisionId
        ? `still serves revision ${serving.activeId}`
        : `serves revision ${serving.activeId}, created before this one,`;
    return conclude(
      report,
      failed(
        FAILED,
        `Revision ${revisionId} is DEPLOYED, but deployment '${serving.deployment.name}' ${still} ${seconds(serving.waitedMs)} later: the service did not switch to it.`,
        {
          phase: 'activate',
          next: 'Check the deployment in the service: the switch may be stuck, or another run may have put an older revision back.',
        },
      ),
    );
  }
  if (serving.state === 'superseded') {
    const note = `Revision ${revisionId} went live and was then superseded: revision ${serving.activeId} is active now.`;
    log.info(note);
    report.notes.push(note);
  }
  // Live but wrong: failed, and rolled back when asked, like a revision that never answers verify-url.
  const liveButBroken = (why: string, verdict: Verdict, where?: Mismatch['where']) =>
    settings.rollbackOnFailure
      ? rollbackAndConclude(
          ctx,
          settings,
          { deployment: serving.deployment, revisionId },
          { why, status: 'DEPLOYED', verdict, where },
        )
      : conclude(report, verdict);

  const mismatch = watch.revision && expect?.(watch.revision);
  if (mismatch) {
    return liveButBroken(
      mismatch.why,
      failed(FAILED, `Revision ${revisionId} ${mismatch.why}.`, mismatch.where),
      mismatch.where,
    );
  }

  if (check?.problem !== undefined) {
    // A deployment this run created, whose custom_url (the create's answer) gives verify-url nothing to check.
    report.phase = 'verify';
    report.verification = {
      url: settings.verify?.url ?? '',
      ok: false,
      attempts: 0,
      lastAnswer: check.problem,
    };
    const why = `is DEPLOYED and was not checked: verify-url ${check.problem}`;
    return liveButBroken(
      why,
      failed(UNHEALTHY, `Revision ${revisionId} ${why}`, NO_VERIFY_URL),
      NO_VERIFY_URL,
    );
  }
  if (check?.url !== undefined) {
    report.phase = 'verify';
    const { url, timeoutMs } = check;
    const seen = await verify(url, timeoutMs, {
      transport,
      signal: client.clock.signal,
      time: client.clock.time,
      log,
    });
    report.verification = seen;
    if (!seen.ok) {
      const why = `is DEPLOYED but ${withoutQuery(url)} did not answer 2xx within verify-timeout ${compact(timeoutMs)} (${seen.attempts} attempts; last: ${seen.lastAnswer ?? 'none'})`;
      return liveButBroken(
        why,
        failed(
          UNHEALTHY,
          `Revision ${revisionId} ${why}.`,
          diagnose('DEPLOYED', setupOf(report, ctx.excerpt)),
        ),
      );
    }
  }
  conclude(report, success(DEPLOYED));
}

function recordWatch(report: RunReport, watch: Watch): void {
  report.revision = watch.revision ?? report.revision;
  report.timeline = watch.timeline;
  report.waitStarted = watch.startedAt;
  report.waitEnded = watch.endedAt;
}

/**
 * Puts back the revision that was active before this run, waits for it, and still fails the run. The outputs and
 * the summary stay about the revision this run wrote; the rollback is reported beside it. With nothing to go back
 * to, the run ends with the verdict it had without a rollback.
 */
async function rollbackAndConclude(
  ctx: FollowContext,
  settings: FollowSettings & { timeoutMs: number },
  { deployment, revisionId }: { deployment: Deployment; revisionId: string },
  broken: { why: string; status: string; verdict: Verdict; where?: Mismatch['where'] },
): Promise<void> {
  const { client, report, log } = ctx;
  const { why, status, where } = broken;
  const previous = report.previousRevisionId;
  if (!previous || previous === revisionId) {
    report.notes.push(NOTHING_TO_ROLL_BACK);
    return conclude(report, broken.verdict);
  }
  report.phase = 'rollback';
  log.info(
    `Revision ${revisionId} ${why}; rolling back to revision ${previous}, the one active before this run.`,
  );
  // A window of its own: the failed revision may have used up the run's.
  const window = client.within(
    client.clock.time.now() + settings.timeoutMs,
    `timeout ${compact(settings.timeoutMs)} of the rollback`,
  );
  const end = await rollBack(
    { ...ctx, client: window },
    deployment,
    previous,
    settings.pollIntervalMs,
  );
  report.rollback = { revisionId: end.revisionId, status: end.status, ok: end.ok };
  report.deployment = (await reread(client, deployment.id, log)) ?? report.deployment;
  conclude(
    report,
    afterRollback(
      { revisionId, status, why, where },
      previous,
      end,
      window.clock.limit,
      setupOf(report, ctx.excerpt),
    ),
  );
}
