// What every host's best-effort calls share (the GitHub Deployment and comment, GitLab's merge request note): their
// bounds and the last words of a failed call's warning. A best-effort call never fails the run, and says so.
import type { IntegrationRun } from '../core/host.ts';
import type { Clock } from '../shared/clock.ts';

/** How long one call may take on the run's clock, and the job's cancellation (absent after a cancel). */
export interface CallLimits {
  time: Clock;
  timeoutMs: number;
  signal?: AbortSignal;
  /** What a failed call leaves as it was, the warning's last sentence (unaffected()). */
  unaffected: string;
}

/** The last words of a failed call's warning: the run's own work, which a best-effort call never changes. */
export function unaffected(run: Pick<IntegrationRun, 'writes' | 'dryRun'>): string {
  return run.writes && !run.dryRun
    ? 'The deploy is not affected.'
    : "The step's result does not depend on it.";
}

/**
 * The hidden first line that finds this deployment's pull request comment or merge request note again; `>` escaped
 * so a name cannot end it.
 */
export function commentMarker(name: string): string {
  return `<!-- agent-deploy-action:${name.replace(/>/g, '&gt;')} -->`;
}
