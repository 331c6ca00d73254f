// The words a run ends with: one place for every result's message and for what to look at next.
import type { PendingWrite, Rollback, RunReport, Verdict } from './report.ts';
import type { WaitOutcome } from '../deploy/wait.ts';

export function success(result: Verdict['result']): Verdict {
  return { result, ok: true };
}

/** The verdict for a revision that was waited on to its end (cancellation is the edge's business). */
export function settle(
  outcome: Exclude<WaitOutcome, 'cancelled'>,
  revisionId: string,
  status: string,
  options: { allowSkipped: boolean; limit: string },
): Verdict {
  switch (outcome) {
    case 'deployed':
      return success('deployed');
    case 'skipped':
      if (options.allowSkipped) return success('skipped');
      return failed(
        'skipped',
        `Revision ${revisionId} was SKIPPED by the service; set allow-skipped: true if that is fine.`,
        {
          phase: 'wait',
          next: 'A skipped revision is usually superseded by a newer one; check the deployment in the service.',
        },
      );
    case 'failed':
      return failed('failed', `Revision ${revisionId} ended ${status}.`, diagnose(status));
    case 'timed-out':
      return failed(
        'timed-out',
        `Revision ${revisionId} was still ${status} when ${options.limit} ran out.`,
        {
          phase: 'wait',
          next: 'The revision keeps going on the service: raise timeout if builds take this long, or check the service for a stuck queue.',
        },
      );
  }
}

/** A closed change's preview: what stays where (the service's interface has no delete). */
export function previewClosed(
  deployment: { name: string; id: string } | undefined,
  name: string,
): string {
  return deployment
    ? `Preview closed; deployment ${deployment.name} (${deployment.id}) stays on the service until deleted there.`
    : `Preview closed; no deployment is named ${name} on the service (it was never deployed), so none stays there.`;
}

/** What a cancel leaves behind when a write had not answered: it may have been applied all the same. */
function unansweredWrite({ request, check }: PendingWrite): string {
  return `${request} had no answer when the job was cancelled: it may have been applied. Check ${check} on the service before running the job again.`;
}

/**
 * What a cancelled job leaves on the service, in a sentence for the failure line, the summary and the GitHub
 * Deployment alike: a write that may have been applied, or a revision that keeps going; undefined when neither.
 */
export function afterCancel({
  pendingWrite,
  revisionId,
}: Pick<RunReport, 'pendingWrite' | 'revisionId'>): string | undefined {
  if (pendingWrite) return unansweredWrite(pendingWrite);
  if (revisionId)
    return `Revision ${revisionId} keeps going on the service: check it there, or run this action with command: status.`;
  return undefined;
}

/** The note when a timed-out revision is not rolled back. */
export function noRollbackAfterTimeout(revisionId: string, previous: string | undefined): string {
  return `No rollback: revision ${revisionId} timed out, not failed, and may still go live on the service; a rollback now would race it.${previous ? ` To go back, run command: redeploy with revision-id: ${previous}.` : ''}`;
}

export const NOTHING_TO_ROLL_BACK =
  'No rollback: no other revision was active before this run, so there is nothing to go back to.';

/** The verdict after a rollback: always a failed step, `rolled-back` when the old revision is live again. */
export function afterRollback(
  broken: { revisionId: string; status: string; why: string },
  previous: string,
  rollback: Rollback & { problem?: string; timedOut: boolean },
  limit: string,
): Verdict {
  const target =
    rollback.revisionId === previous
      ? `revision ${previous}`
      : `revision ${previous} (redeployed as ${rollback.revisionId})`;
  const rollbackEnd = rollback.problem
    ? `failed: ${rollback.problem}`
    : rollback.timedOut
      ? `was still ${rollback.status ?? 'unknown'} when ${limit} ran out`
      : `ended ${rollback.status ?? 'unknown'}`;
  const { phase, next } = diagnose(broken.status);
  return rollback.ok
    ? failed(
        'rolled-back',
        `Revision ${broken.revisionId} ${broken.why}; rolled back to ${target}, which is DEPLOYED again.`,
        {
          phase,
          next,
        },
      )
    : failed(
        'failed',
        `Revision ${broken.revisionId} ${broken.why}, and the rollback to ${target} ${rollbackEnd}.`,
        {
          phase,
          next: `${next} The rollback did not finish: check which revision is live in the service.`,
        },
      );
}

/** Where a failed revision broke, and what to look at next. */
export function diagnose(status: string): { phase: string; next: string } {
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
    case 'DEPLOYED':
      return {
        phase: 'verify',
        next: "The revision is live but the agent did not answer verify-url: read the agent's logs; check its start-up, secrets and the health path.",
      };
    default:
      return { phase: 'wait', next: 'Check the revision in the service.' };
  }
}

export function failed(
  result: Verdict['result'],
  message: string,
  where: { phase: string; next: string },
): Verdict {
  return { result, ok: false, failure: { ...where, message } };
}
