import type { Logger } from '../core/logger.ts';
import { getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import {
  DeadlineError,
  HttpError,
  NetworkError,
  ResponseError,
  RetryAfterError,
} from '../service/errors.ts';
import { isTransient } from '../service/retry.ts';
import type { Revision } from '../service/schemas.ts';
import { classify, isKnownStatus, type Outcome } from '../service/statuses.ts';
import type { Clock } from '../shared/clock.ts';
import { CancelledError, DoublingGap, seconds } from '../shared/time.ts';
import type { TimelineEntry } from '../core/report.ts';

/** How long a revision this run just made may answer 404: the service may be eventually consistent. */
const NOT_VISIBLE_MS = 30_000;
/** Malformed answers (HTML, a body that fails the schema) in a row that end the wait: one may be a proxy's hiccup. */
const MALFORMED_IN_A_ROW = 3;

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
  /** What ended the wait before the deadline did, when it timed out so: the service asking to wait past it. */
  cutShort?: string;
}

/** Told after each poll that did not end the wait (answered or not), with what the wait has seen so far. */
type AfterPoll = (watch: Watch) => Promise<void>;

/**
 * Polls one revision until a terminal status, the client's deadline, or a cancel. Gaps grow from a quarter of the
 * interval to the interval, so a live revision is seen within one interval and the number of reads stays near
 * duration/interval; while the service rate-limits, they stretch. Reads that fail transiently (after their own
 * retries) are skipped, not fatal: the build goes on regardless. So are a malformed answer (up to two in a row) and,
 * for a revision this run just made (`fresh`), a 404 in its first 30 s. `afterPoll` (the run's diagnostics) may read
 * more between polls; only a cancel it throws ends the wait. A read the deadline cuts ends it timed-out too, and so
 * does a Retry-After that ends past the deadline, at once.
 */
export async function waitForRevision(
  client: ServiceClient,
  ids: { deploymentId: string; revisionId: string },
  options: { pollIntervalMs: number; triggeredAt: number; fresh: boolean; afterPoll?: AfterPoll },
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
  const gap = new DoublingGap(options.pollIntervalMs / 4, options.pollIntervalMs);
  let warned = false;
  let malformed = 0;
  let unseen = false;
  const show = (done: boolean) => {
    const current = watch.timeline.at(-1);
    if (current) log.progress?.({ ...ids, status: current.status, since: current.since, done });
  };
  try {
    for (;;) {
      const remaining = deadline - time.now();
      const pause = client.pace.stretch(gap.ms);
      // The read that falls on the deadline is the last one: a revision that went live meanwhile still counts.
      const lastRead = remaining <= pause;
      await time.sleep(Math.max(0, Math.min(pause, remaining)), signal);
      gap.grow();
      try {
        const revision = await client.send(getRevision(ids.deploymentId, ids.revisionId));
        malformed = 0;
        watch.revision = revision;
        record(watch, revision.status, ids.revisionId, time.now(), log);
        show(false);
        if (!isKnownStatus(revision.status) && !unknownSeen.has(revision.status)) {
          unknownSeen.add(revision.status);
          log.info(
            `Revision status ${revision.status} is not one this action knows; waiting through it as in progress.`,
          );
        }
        const outcome = classify(revision.status);
        if (outcome !== 'in-progress') return end(watch, outcome, time);
      } catch (error) {
        // The deadline cut the read (or came before it could start): the wait has timed out, whatever the read was.
        if (error instanceof DeadlineError) return end(watch, 'timed-out', time);
        // The service asked to wait past the deadline: no read can tell more in time, so the wait ends now.
        if (error instanceof RetryAfterError) {
          watch.cutShort = error.message;
          return end(watch, 'timed-out', time);
        }
        malformed = error instanceof ResponseError ? malformed + 1 : 0;
        if (malformed >= MALFORMED_IN_A_ROW)
          throw new ResponseError(
            `${(error as Error).message} (${MALFORMED_IN_A_ROW} answers in a row to the status read)`,
          );
        const notYet =
          options.fresh &&
          error instanceof HttpError &&
          error.status === 404 &&
          time.now() - options.triggeredAt < NOT_VISIBLE_MS;
        const transient =
          (error instanceof NetworkError || error instanceof HttpError) && isTransient(error);
        if (notYet) {
          if (!unseen)
            log.info(
              `Revision ${ids.revisionId} answers 404 just after it was made: the service may not show it yet. Reading it again for up to ${NOT_VISIBLE_MS / 1000} s.`,
            );
          unseen = true;
        } else if (!transient && malformed === 0) throw error;
        else if (!warned) {
          log.warning(`Reading the revision failed (${(error as Error).message}); still waiting.`);
          warned = true;
        }
      }
      if (lastRead) return end(watch, 'timed-out', time);
      await options.afterPoll?.(watch);
    }
  } catch (error) {
    if (error instanceof CancelledError || signal.aborted) return end(watch, 'cancelled', time);
    throw error;
  } finally {
    show(true);
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
