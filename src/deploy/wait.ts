import type { Logger } from '../logger.ts';
import { getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { HttpError, NetworkError } from '../service/errors.ts';
import { isTransient } from '../service/retry.ts';
import type { Revision } from '../service/schemas.ts';
import { classify, isKnownStatus, type Outcome } from '../service/statuses.ts';
import type { Clock } from '../shared/clock.ts';
import { CancelledError, seconds } from '../shared/time.ts';
import type { TimelineEntry } from './report.ts';

/** How a wait ended: a terminal status, the deadline, or the job's cancellation. */
export type WaitOutcome = Outcome | 'timed-out' | 'cancelled';

/** What a wait saw: the caller records it. */
export interface Watch {
  outcome: WaitOutcome;
  /** The revision as last read (absent when no read answered). */
  revision?: Revision;
  timeline: TimelineEntry[];
  /** On the client's clock (monotonic ms), like the timeline. */
  startedAt: number;
  endedAt: number;
}

/**
 * Polls one revision until a terminal status, the client's deadline, or a cancel. Gaps grow from a quarter of the
 * interval to the interval, so a live revision is seen within one interval and the number of reads stays near
 * duration/interval; while the service rate-limits, they stretch. Reads that fail transiently (after their own
 * retries) are skipped, not fatal: the build goes on regardless.
 */
export async function waitForRevision(
  client: ServiceClient,
  ids: { deploymentId: string; revisionId: string },
  options: { pollIntervalMs: number; triggeredAt: number },
  log: Logger,
): Promise<Watch> {
  const { deadline, signal, time } = client.clock;
  const watch: Watch = {
    outcome: 'timed-out',
    timeline: [],
    startedAt: options.triggeredAt,
    endedAt: options.triggeredAt,
  };
  const unknownSeen = new Set<string>();
  let gap = options.pollIntervalMs / 4;
  let warned = false;
  try {
    for (;;) {
      const remaining = deadline - time.now();
      const pause = client.pace.stretch(gap);
      // The read that falls on the deadline is the last one: a revision that went live meanwhile still counts.
      const lastRead = remaining <= pause;
      await time.sleep(Math.max(0, Math.min(pause, remaining)), signal);
      gap = Math.min(gap * 2, options.pollIntervalMs);
      try {
        const revision = await client.send(getRevision(ids.deploymentId, ids.revisionId));
        watch.revision = revision;
        record(watch, revision.status, ids.revisionId, time.now(), log);
        if (!isKnownStatus(revision.status) && !unknownSeen.has(revision.status)) {
          unknownSeen.add(revision.status);
          log.info(
            `Revision status ${revision.status} is not one this action knows; waiting through it as in progress.`,
          );
        }
        const outcome = classify(revision.status);
        if (outcome !== 'in-progress') return end(watch, outcome, time);
      } catch (error) {
        const transient =
          (error instanceof NetworkError || error instanceof HttpError) && isTransient(error);
        if (!transient) throw error;
        if (!warned) log.warning(`Reading the revision failed (${error.message}); still waiting.`);
        warned = true;
      }
      if (lastRead) return end(watch, 'timed-out', time);
    }
  } catch (error) {
    if (error instanceof CancelledError || signal.aborted) return end(watch, 'cancelled', time);
    throw error;
  }
}

function record(watch: Watch, status: string, revisionId: string, now: number, log: Logger): void {
  const current = watch.timeline.at(-1);
  if (current && current.status === status) {
    current.until = now;
    return;
  }
  if (current) {
    current.until = now;
    log.info(
      `Revision ${revisionId}: ${current.status} → ${status} (after ${seconds(now - current.since)}, seen by polling)`,
    );
  } else {
    log.info(`Revision ${revisionId}: ${status}`);
  }
  watch.timeline.push({ status, since: current ? now : watch.startedAt, until: now });
}

function end(watch: Watch, outcome: WaitOutcome, time: Clock): Watch {
  watch.outcome = outcome;
  watch.endedAt = time.now();
  return watch;
}
