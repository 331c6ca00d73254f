import { afterCancel } from '../../core/outcome.ts';
import type { RunReport } from '../../core/report.ts';
import type { Logger } from '../../core/logger.ts';
import type { CallLimits } from '../best-effort.ts';
import { bestEffort, type GitHubApi } from './api.ts';
import type { PreviewDeployment, Repo } from './context.ts';

const PERMISSION = 'deployments: write';
const PER_PAGE = 100;
// A guard: an environment's deployments are listed newest first, and a pull request's previews are among the
// newest; 1,000 of them are read at most.
const MAX_PAGES = 10;

type DeploymentState = 'in_progress' | 'success' | 'failure' | 'inactive';

export interface DeploymentStatus {
  state: DeploymentState;
  description: string;
  environmentUrl?: string;
  logUrl?: string;
  /** false for a preview's: its success must not mark other pull requests' previews inactive. */
  autoInactive?: false;
}

/** What a preview's GitHub Deployment carries, and what finds it again when its pull request closes. */
function previewPayload(preview: PreviewDeployment): Record<string, unknown> {
  return { pull_request: preview.pullRequest, deployment: preview.name };
}

/**
 * Creates the GitHub Deployment of `sha` in `environment`; answers its id, or undefined after a warning. A preview's
 * is transient (it goes when the pull request closes) and its payload names the pull request.
 */
export async function createDeployment(
  api: GitHubApi,
  log: Logger,
  d: {
    repo: Repo;
    environment: string;
    sha: string;
    description: string;
    preview?: PreviewDeployment;
  },
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
        ...(d.preview ? { transient_environment: true, payload: previewPayload(d.preview) } : {}),
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
  const { state, description, environmentUrl, logUrl, autoInactive } = d.status;
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
        ...(autoInactive === false ? { auto_inactive: false } : {}),
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

/**
 * Marks a closed pull request's preview deployments in `environment` inactive: those whose payload names the pull
 * request and the preview (another pull request's, or another preview of this one, are left as they are). Answers
 * how many were marked, or undefined when they could not be listed. Stops at `deadline` or a cancel.
 */
export async function closePreviewDeployments(
  api: GitHubApi,
  log: Logger,
  c: { repo: Repo; environment: string; preview: PreviewDeployment; status: DeploymentStatus },
  limits: CallLimits & { deadline: number },
): Promise<number | undefined> {
  const ids = await previewDeployments(api, log, c, limits);
  if (!ids) return undefined;
  const what = `GitHub Deployment${ids.length === 1 ? '' : 's'} of ${c.preview.name} for pull request #${c.preview.pullRequest} in environment '${c.environment}'`;
  if (!ids.length) {
    log.info(`No ${what}: nothing to mark inactive.`);
    return 0;
  }
  let marked = 0;
  for (const deploymentId of ids) {
    if (limits.signal?.aborted || limits.time.now() >= limits.deadline) {
      log.warning(
        `Marked ${marked} of ${ids.length} ${what} inactive before the time ran out; run the job again to mark the others.`,
      );
      return marked;
    }
    if (
      await setDeploymentStatus(api, log, { repo: c.repo, deploymentId, status: c.status }, limits)
    )
      marked++;
  }
  log.info(`Marked ${marked} of ${ids.length} ${what} inactive.`);
  return marked;
}

/** The ids of the preview's deployments in the environment, newest first; undefined when they cannot be read. */
async function previewDeployments(
  api: GitHubApi,
  log: Logger,
  c: { repo: Repo; environment: string; preview: PreviewDeployment },
  limits: CallLimits,
): Promise<number[] | undefined> {
  const ids: number[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await bestEffort(
      api,
      log,
      {
        what: `Listing the GitHub Deployments in environment '${c.environment}'`,
        permission: PERMISSION,
        route: 'GET /repos/{owner}/{repo}/deployments',
        params: { ...c.repo, environment: c.environment, per_page: PER_PAGE, page },
      },
      limits,
    );
    if (!answer) return undefined;
    const deployments = Array.isArray(answer.data) ? (answer.data as unknown[]) : [];
    for (const deployment of deployments) {
      const { id, payload } = (deployment ?? {}) as { id?: unknown; payload?: unknown };
      if (typeof id === 'number' && names(payload, c.preview)) ids.push(id);
    }
    if (deployments.length < PER_PAGE) return ids;
  }
  log.warning(
    `Environment '${c.environment}' has more than ${MAX_PAGES * PER_PAGE} GitHub Deployments; only the newest were checked for pull request #${c.preview.pullRequest}'s.`,
  );
  return ids;
}

/** Whether a deployment's payload (GitHub answers an object, or a string of JSON) is the preview's own. */
function names(payload: unknown, preview: PreviewDeployment): boolean {
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = payload.length <= 65_536 ? (JSON.parse(payload) as unknown) : undefined;
    } catch {
      value = undefined;
    }
  }
  const own = previewPayload(preview);
  const given = (value ?? {}) as Record<string, unknown>;
  return Object.entries(own).every(([key, v]) => given[key] === v);
}
