import { redeployRevision } from '../service/calls.ts';
import type { Deployment } from '../service/schemas.ts';
import { CancelledError } from '../shared/time.ts';
import type { Rollback } from '../core/report.ts';
import type { FollowContext } from './context.ts';
import { waitForRevision } from './wait.ts';
import { redeployIntent, writeDeployment } from './write.ts';

interface RollbackEnd extends Rollback {
  timedOut: boolean;
  /** Why the rollback itself failed (its redeploy or a read), when it did. */
  problem?: string;
}

/**
 * Redeploys `previous`, the revision that was active before this run, of `deployment` (as last read) and waits for
 * it, within the window of `ctx.client` (a rollback gets its own: the failed revision may have used up the run's).
 * Answers what happened; a cancel is thrown on.
 */
export async function rollBack(
  ctx: FollowContext,
  deployment: Deployment,
  previous: string,
  pollIntervalMs: number,
): Promise<RollbackEnd> {
  const { client, log } = ctx;
  let revisionId = previous;
  try {
    const written = await writeDeployment(
      ctx,
      redeployRevision(deployment.id, previous),
      redeployIntent(client, deployment, previous),
    );
    revisionId = written.revisionId ?? previous;
    const watch = await waitForRevision(
      client,
      { deploymentId: deployment.id, revisionId },
      {
        pollIntervalMs,
        triggeredAt: client.clock.time.now(),
        fresh: revisionId !== previous,
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
