import type { Integration, IntegrationRun } from '../../core/host.ts';
import type { GitHubApi } from './api.ts';
import { type GitHubContext, plannedGitHubWork } from './context.ts';
import { GitHubSession } from './session.ts';

/**
 * The GitHub features that apply to this run (environment, pr-comment), each reason for one asked for but not
 * applying logged once. `connect` gives the API client; it is called only when a feature applies.
 */
export function gitHubIntegrations(
  run: IntegrationRun,
  context: GitHubContext & { runUrl?: string },
  token: string | undefined,
  connect: (token: string) => Promise<GitHubApi>,
): Integration[] {
  const { work, skipped } = plannedGitHubWork(run, context);
  for (const reason of skipped) run.log.info(reason);
  if (!work) return [];
  if (!token) {
    run.log.notice('github-token is empty, so environment and pr-comment are skipped.');
    return [];
  }
  return [new GitHubSession({ work, run, runUrl: context.runUrl, connect: () => connect(token) })];
}
