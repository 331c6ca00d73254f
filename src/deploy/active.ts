import { getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { DeployError } from '../core/errors.ts';
import type { Deployment } from '../service/schemas.ts';
import type { Logger } from '../core/logger.ts';
import { CancelledError, compact, DoublingGap } from '../shared/time.ts';

/** The longest the deployment may take to switch to a DEPLOYED revision. */
const SWITCH_WINDOW_CAP_MS = 30_000;

/** Which revision the deployment serves once this run's revision is DEPLOYED. */
type Serving =
  | { state: 'active'; deployment: Deployment }
  /** A revision created after this run's is active now: a newer deploy won. */
  | { state: 'superseded'; deployment: Deployment; activeId: string }
  /** An older revision (the one active before this run, or another), or none, is active when the window ends. */
  | { state: 'not-switched'; deployment: Deployment; activeId: string | null; waitedMs: number };

/**
 * Re-reads the deployment until its active_revision_id is this run's revision. The service may switch a moment
 * after DEPLOYED, so it is re-read within a short window of its own (3 poll intervals, at most 30 s). Another
 * active revision is newer only when its created_at (endpoint 8) is later than this one's: another job's older
 * revision that went live last is not a newer deploy.
 */
export async function confirmActive(
  client: ServiceClient,
  ids: { deploymentId: string; revisionId: string; createdAt: string; previous?: string },
  pollIntervalMs: number,
): Promise<Serving> {
  const windowMs = Math.min(3 * pollIntervalMs, SWITCH_WINDOW_CAP_MS);
  const { time } = client.clock;
  const started = time.now();
  // The window bounds how long the switch is waited for; a read in it may take as long as the run's deadline allows
  // when that is later (a rate-limited service holds it for its Retry-After: no reason to call the revision unserved).
  const reader =
    client.clock.deadline > started + windowMs
      ? client
      : client.within(started + windowMs, `${compact(windowMs)} allowed for the switch`);
  const gap = new DoublingGap(Math.min(1000, pollIntervalMs / 4), pollIntervalMs);
  const newer = newerThan(reader, ids.deploymentId, ids.createdAt);
  for (;;) {
    const deployment = await reader.getDeployment(ids.deploymentId);
    if (!deployment)
      throw new DeployError(
        `Deployment ${ids.deploymentId} is gone: the service no longer lists it.`,
      );
    const active = deployment.active_revision_id;
    if (active === ids.revisionId) return { state: 'active', deployment };
    if (active && active !== ids.previous && (await newer(active)))
      return { state: 'superseded', deployment, activeId: active };
    const waitedMs = time.now() - started;
    if (waitedMs + gap.ms >= windowMs)
      return { state: 'not-switched', deployment, activeId: active, waitedMs };
    await time.sleep(gap.ms, client.clock.signal);
    gap.grow();
  }
}

/**
 * Whether a revision of the deployment was created after `createdAt`, each read once. A revision that cannot be
 * read, or a time that cannot be parsed, is not taken for newer: the switch is then waited for as usual.
 */
function newerThan(
  client: ServiceClient,
  deploymentId: string,
  createdAt: string,
): (revisionId: string) => Promise<boolean> {
  const ours = Date.parse(createdAt);
  const known = new Map<string, Promise<boolean>>();
  return (revisionId) => {
    let newer = known.get(revisionId);
    if (!newer) {
      newer = client.send(getRevision(deploymentId, revisionId)).then(
        (revision) => Date.parse(revision.created_at) > ours,
        (error: unknown) => {
          if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
          return false;
        },
      );
      known.set(revisionId, newer);
    }
    return newer;
  };
}

/**
 * A re-read for the final outputs, in a short window of its own: the run's may be used up by a timed-out wait. It
 * only refreshes what the outputs show, so its failure is a warning (the deployment stays as last read), not the
 * run's result; a cancel goes on.
 */
export async function reread(
  client: ServiceClient,
  deploymentId: string,
  log: Logger,
): Promise<Deployment | undefined> {
  try {
    return await client
      .within(client.clock.time.now() + 10_000, 'final re-read (10s)')
      .getDeployment(deploymentId);
  } catch (error) {
    if (error instanceof CancelledError || client.clock.signal.aborted) throw error;
    log.warning(
      `The final re-read of the deployment failed (${(error as Error).message}); the outputs show it as last read.`,
    );
    return undefined;
  }
}
