import { readFileSync } from 'node:fs';
import type { Settings } from '../inputs/index.ts';

/** What the GitHub features need from the workflow run; read without Octokit, so a run that needs none stays light. */
export interface GitHubContext {
  repo?: Repo;
  /** The commit deployed: the PR head on pull_request events (GITHUB_SHA is a merge commit there). */
  sha?: string;
  pullRequest?: number;
  runUrl?: string;
}

export interface Repo {
  owner: string;
  repo: string;
}

/** The GitHub work one run does. */
export interface GitHubWork {
  repo: Repo;
  environment?: { name: string; sha: string };
  comment?: { issueNumber: number };
}

const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

export function readGitHubContext(env: NodeJS.ProcessEnv): GitHubContext {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const ctx: GitHubContext = {
    repo: owner && repo ? { owner, repo } : undefined,
    sha: env.GITHUB_SHA || undefined,
  };
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID)
    ctx.runUrl = `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  if (PR_EVENTS.has(env.GITHUB_EVENT_NAME ?? '') && env.GITHUB_EVENT_PATH) {
    try {
      const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        number?: unknown;
        pull_request?: { number?: unknown; head?: { sha?: unknown } };
      };
      const pr = event.pull_request;
      const number = pr?.number ?? event.number;
      if (typeof number === 'number') ctx.pullRequest = number;
      if (typeof pr?.head?.sha === 'string') ctx.sha = pr.head.sha;
    } catch {
      // No payload: the features that need it say so in `skipped`.
    }
  }
  return ctx;
}

/**
 * Which GitHub features apply, and why the others given do not. A GitHub Deployment records a write (deploy,
 * redeploy), never a dry run or a read; a comment needs a pull request and a deployment name.
 */
export function plannedGitHubWork(
  settings: Settings,
  ctx: GitHubContext,
): { work?: GitHubWork; skipped: string[] } {
  const skipped: string[] = [];
  let environment: GitHubWork['environment'];
  let comment: GitHubWork['comment'];
  const { environment: wanted, prComment } = settings.github;
  if (wanted) {
    if (settings.dryRun) skipped.push('environment: a dry run records no GitHub Deployment.');
    else if (settings.command !== 'deploy' && settings.command !== 'redeploy')
      skipped.push(`environment: command '${settings.command}' records no GitHub Deployment.`);
    else if (!ctx.sha) skipped.push('environment: no commit (GITHUB_SHA) to record it for.');
    else environment = { name: wanted, sha: ctx.sha };
  }
  if (prComment) {
    if (settings.command === 'token-metadata')
      skipped.push('pr-comment: command token-metadata has no deployment to comment on.');
    else if (ctx.pullRequest === undefined)
      skipped.push(
        'pr-comment: not a pull_request event, so there is no pull request to comment on.',
      );
    else comment = { issueNumber: ctx.pullRequest };
  }
  if (!environment && !comment) return { skipped };
  if (!ctx.repo)
    return { skipped: [...skipped, 'environment, pr-comment: GITHUB_REPOSITORY is not set.'] };
  return { work: { repo: ctx.repo, environment, comment }, skipped };
}
