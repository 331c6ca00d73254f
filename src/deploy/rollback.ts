import type { Logger } from '../logger.ts';
import { redeployRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { CancelledError } from '../shared/time.ts';
import type { Rollback } from './report.ts';
import { waitForRevision } from './wait.ts';

export interface RollbackEnd extends Rollback {
  timedOut: boolean;
  /** Why the rollback itself failed (its redeploy or a read), when it did. */
  problem?: string;
}

/**
 * Redeploys the revision that was active before this run and waits for it, within the window of `client` (a
 * rollback gets its own: the failed revision may have used up the run's). Answers what happened; a cancel is
 * thrown on.
 */
export async function rollBack(
  client: ServiceClient,
  ids: { deploymentId: string; previous: string },
  pollIntervalMs: number,
  log: Logger,
): Promise<RollbackEnd> {
  let revisionId = ids.previous;
  try {
    const after = await client.send(redeployRevision(ids.deploymentId, ids.previous));
    revisionId = after.latest_revision_id ?? ids.previous;
    const watch = await waitForRevision(
      client,
      { deploymentId: ids.deploymentId, revisionId },
      {
        pollIntervalMs,
        triggeredAt: client.clock.time.now(),
        fresh: revisionId !== ids.previous,
      },
      log,
    );
    if (watch.outcome === 'cancelled') throw new CancelledError();
    return {
      revisionId,
      status: watch.revision?.status,
      ok: watch.outcome === 'deployed',
      timedOut: watch.outcome === 'timed-out',
    };
  } catch (error) {
    if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
    return { revisionId, ok: false, timedOut: false, problem: (error as Error).message };
  }
}
