import type { Logger } from '../logger.ts';
import type { ServiceClient } from '../service/client.ts';
import { HttpError, NetworkError } from '../service/errors.ts';
import { isTransient } from '../service/retry.ts';
import { seconds, sleep } from '../shared/time.ts';
import type { RunReport } from './report.ts';

const SUCCESS = new Set(['DEPLOYED']);
const FAILURE = new Set(['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'INTERRUPTED']);
const IN_PROGRESS = new Set([
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'UNKNOWN',
]);

export type Outcome = 'deployed' | 'failed' | 'skipped' | 'timed-out';

export interface WaitOptions {
  deadline: number;
  pollIntervalMs: number;
  signal: AbortSignal;
  /** When the revision was triggered: the first status is counted from here. */
  triggeredAt: number;
}

export function classify(status: string): Outcome | 'in-progress' {
  if (SUCCESS.has(status)) return 'deployed';
  if (FAILURE.has(status)) return 'failed';
  if (status === 'SKIPPED') return 'skipped';
  return 'in-progress';
}

/**
 * Polls one revision until a terminal status or the deadline. Gaps grow from a quarter of the interval to the
 * interval, so a live revision is seen within one interval and the number of reads stays near duration/interval.
 * Reads that fail transiently (after their own retries) are skipped, not fatal: the build goes on regardless.
 */
export async function waitForRevision(
  client: ServiceClient,
  deploymentId: string,
  revisionId: string,
  options: WaitOptions,
  report: RunReport,
  log: Logger,
): Promise<Outcome> {
  const { deadline, pollIntervalMs, signal } = options;
  report.timeline.length = 0;
  report.waitStarted = options.triggeredAt;
  const unknownSeen = new Set<string>();
  let gap = pollIntervalMs / 4;
  let warned = false;
  for (;;) {
    const remaining = deadline - Date.now();
    // While the service rate-limits, the gaps stretch, so a matrix of jobs backs off together.
    const pause = client.pace.stretch(gap);
    // The read that falls on the deadline is the last one: a revision that went live meanwhile still counts.
    const lastRead = remaining <= pause;
    await sleep(Math.max(0, Math.min(pause, remaining)), signal);
    gap = Math.min(gap * 2, pollIntervalMs);
    try {
      const revision = await client.getRevision(deploymentId, revisionId);
      report.revision = revision;
      record(revision.status, options.triggeredAt, report, log);
      if (
        classify(revision.status) === 'in-progress' &&
        !IN_PROGRESS.has(revision.status) &&
        !unknownSeen.has(revision.status)
      ) {
        unknownSeen.add(revision.status);
        log.info(
          `Revision status ${revision.status} is not one this action knows; waiting through it as in progress.`,
        );
      }
      const outcome = classify(revision.status);
      if (outcome !== 'in-progress') return done(report, outcome);
    } catch (error) {
      const transient =
        (error instanceof NetworkError || error instanceof HttpError) && isTransient(error);
      if (!transient) throw error;
      if (!warned) log.warning(`Reading the revision failed (${error.message}); still waiting.`);
      warned = true;
    }
    if (lastRead) return done(report, 'timed-out');
  }
}

function record(status: string, triggeredAt: number, report: RunReport, log: Logger): void {
  const now = Date.now();
  const timeline = report.timeline;
  const current = timeline.at(-1);
  if (current && current.status === status) {
    current.until = now;
    return;
  }
  if (current) {
    current.until = now;
    log.info(
      `Revision ${report.revisionId}: ${current.status} → ${status} after ${seconds(now - current.since)}`,
    );
  } else {
    log.info(`Revision ${report.revisionId}: ${status}`);
  }
  timeline.push({ status, since: current ? now : triggeredAt, until: now });
}

function done(report: RunReport, outcome: Outcome): Outcome {
  report.waitEnded = Date.now();
  return outcome;
}
