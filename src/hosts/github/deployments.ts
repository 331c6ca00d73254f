import { afterCancel } from '../../core/outcome.ts';
import type { RunReport } from '../../core/report.ts';
import type { Logger } from '../../core/logger.ts';
import { bestEffort, type CallLimits, type GitHubApi } from './api.ts';
import type { Repo } from './context.ts';

const PERMISSION = 'deployments: write';

type DeploymentState = 'in_progress' | 'success' | 'failure' | 'inactive';

export interface DeploymentStatus {
  state: DeploymentState;
  description: string;
  environmentUrl?: string;
  logUrl?: string;
}

/** Creates the GitHub Deployment of `sha` in `environment`; answers its id, or undefined after a warning. */
export async function createDeployment(
  api: GitHubApi,
  log: Logger,
  d: { repo: Repo; environment: string; sha: string; description: string },
  limits: CallLimits,
): Promise<number | undefined> {
  const answer = await bestEffort(
    api,
    log,
    {
      what: `Creating the GitHub Deployment in environment '${d.environment}'`,
      permission: PERMISSION,
      route: 'POST /repos/{owner}/{repo}/deployments',
      params: {
        ...d.repo,
        ref: d.sha,
        environment: d.environment,
        description: d.description,
        // The deploy is this job's own business: no merge of the default branch, no wait on commit checks
        // (this very job is one of them, still running).
        auto_merge: false,
        required_contexts: [],
      },
    },
    limits,
  );
  if (!answer) return undefined;
  const id = (answer.data as { id?: unknown } | undefined)?.id;
  if (typeof id === 'number') {
    log.info(`GitHub Deployment ${id} created in environment '${d.environment}'.`);
    return id;
  }
  log.warning(
    `Creating the GitHub Deployment answered ${answer.status} without an id; no deployment status is recorded.`,
  );
  return undefined;
}

export async function setDeploymentStatus(
  api: GitHubApi,
  log: Logger,
  d: { repo: Repo; deploymentId: number; status: DeploymentStatus },
  limits: CallLimits,
): Promise<boolean> {
  const { state, description, environmentUrl, logUrl } = d.status;
  const answer = await bestEffort(
    api,
    log,
    {
      what: `Setting GitHub Deployment ${d.deploymentId} to ${state}`,
      permission: PERMISSION,
      route: 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
      params: {
        ...d.repo,
        deployment_id: d.deploymentId,
        state,
        description,
        ...(environmentUrl ? { environment_url: environmentUrl } : {}),
        ...(logUrl ? { log_url: logUrl } : {}),
      },
    },
    limits,
  );
  return answer !== undefined;
}

/**
 * The GitHub Deployment's last status for a finished run. A cancelled run is `inactive`, not `failure`: the
 * revision keeps going on the service and may still go live, so all GitHub can say is that this deployment
 * is not (known to be) the live one. The same holds for a skipped revision when skips are allowed. With
 * `wait: false` the deployment stays `in_progress`: the action never learns the end.
 */
export function finalStatus(report: RunReport): Pick<DeploymentStatus, 'state' | 'description'> {
  const revision = report.revisionId ? `revision ${report.revisionId}` : 'no revision';
  if (report.cancelled)
    return {
      state: 'inactive',
      description: `Job cancelled. ${afterCancel(report) ?? 'No revision was triggered.'}`,
    };
  if (report.ok) {
    switch (report.result) {
      case 'submitted':
        return { state: 'in_progress', description: `Submitted ${revision}; not awaited.` };
      case 'skipped':
        return { state: 'inactive', description: `The service skipped ${revision}.` };
      case 'no-change':
        return { state: 'success', description: 'No change: the live revision already matches.' };
      default:
        return { state: 'success', description: `Deployed ${revision}.` };
    }
  }
  return {
    state: 'failure',
    description: report.failure?.message ?? `Ended ${report.result ?? 'with an error'}.`,
  };
}
