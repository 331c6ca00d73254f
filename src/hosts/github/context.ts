import { readFileSync } from 'node:fs';
import type { HostContext, IntegrationRun } from '../../core/host.ts';
import { gitHubWords } from './words.ts';

/** What the GitHub features need from the workflow run; read without Octokit, so a run that needs none stays light. */
export interface GitHubContext {
  repo?: Repo;
  /** The commit deployed: the PR head on pull_request events (GITHUB_SHA is a merge commit there). */
  sha?: string;
  pullRequest?: number;
}

export interface Repo {
  owner: string;
  repo: string;
}

/** A pull request's preview, as its GitHub Deployments' payload names it. */
export interface PreviewDeployment {
  pullRequest: number;
  name: string;
}

/** The GitHub work one run does. */
export interface GitHubWork {
  repo: Repo;
  /** The GitHub Deployment to record; a preview's is transient and its payload names the pull request. */
  environment?: { name: string; sha: string; preview?: PreviewDeployment };
  /** A closed pull request's preview: its GitHub Deployments in `environment` are marked inactive. */
  close?: PreviewDeployment & { environment: string };
  /** The pull request comment; a closed preview's is updated when there is one, never created. */
  comment?: { issueNumber: number; create: boolean };
}

const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

/** The run as the runner describes it in its variables and the event payload. */
export function readContext(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { host: HostContext; github: GitHubContext } {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const event = env.GITHUB_EVENT_NAME || undefined;
  const github: GitHubContext = {
    repo: owner && repo ? { owner, repo } : undefined,
    sha: env.GITHUB_SHA || undefined,
  };
  // pull_request_target runs the base's workflow with its secrets, for a head its author controls.
  const untrusted = event === 'pull_request_target';
  const host: HostContext = {
    repository: parseRepository(env.GITHUB_REPOSITORY),
    ref: untrusted ? undefined : defaultRef(env),
    event,
    untrustedHead: untrusted ? event : undefined,
    workspace: env.GITHUB_WORKSPACE || cwd,
    words: gitHubWords,
  };
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID)
    host.runUrl = `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  if (PR_EVENTS.has(event ?? '') && env.GITHUB_EVENT_PATH) {
    try {
      const payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        number?: unknown;
        pull_request?: {
          number?: unknown;
          head?: { sha?: unknown; ref?: unknown; repo?: { full_name?: unknown } | null };
          base?: { repo?: { full_name?: unknown } };
        };
      };
      const pr = payload.pull_request;
      const number = pr?.number ?? payload.number;
      if (typeof number === 'number') {
        github.pullRequest = number;
        const head = pr?.head?.repo?.full_name;
        const base = pr?.base?.repo?.full_name;
        host.change = {
          number,
          headRef: typeof pr?.head?.ref === 'string' ? pr.head.ref : env.GITHUB_HEAD_REF,
          // A deleted fork leaves head.repo null: not this repository either way.
          fromFork:
            typeof base === 'string' &&
            (pr?.head?.repo === null || (typeof head === 'string' && head !== base)),
        };
      }
      if (typeof pr?.head?.sha === 'string') github.sha = pr.head.sha;
    } catch {
      // No payload: the features that need it say so when they are skipped.
    }
  }
  // The commit of the default ref: the pushed one, or a pull request's head (GITHUB_SHA is a merge commit there).
  if (host.ref) host.commit = github.sha;
  return { host, github };
}

function parseRepository(value: string | undefined): HostContext['repository'] {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(value ?? '');
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
}

/** The pushed branch, the PR's head branch, or a tag as refs/tags/… (the service needs tags in full). */
function defaultRef(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_HEAD_REF) return env.GITHUB_HEAD_REF;
  if (env.GITHUB_REF_TYPE === 'tag' && env.GITHUB_REF?.startsWith('refs/tags/'))
    return env.GITHUB_REF;
  return env.GITHUB_REF_NAME || undefined;
}

/**
 * Which GitHub features apply, and why the others asked for do not. A GitHub Deployment records a write of a
 * deployment, never a dry run or a read, and a closed preview's are marked inactive; a comment needs a pull request
 * and a deployment.
 */
export function plannedGitHubWork(
  run: IntegrationRun,
  ctx: GitHubContext,
): { work?: GitHubWork; skipped: string[] } {
  const skipped: string[] = [];
  let environment: GitHubWork['environment'];
  let close: GitHubWork['close'];
  let comment: GitHubWork['comment'];
  const preview = run.preview && { pullRequest: run.preview.number, name: run.preview.name };
  const closing = run.preview?.closing === true;
  if (run.environment) {
    if (run.dryRun) skipped.push('environment: a dry run records no GitHub Deployment.');
    else if (closing && preview) close = { ...preview, environment: run.environment };
    // A write of something other than a deployment (token-metadata's) has no deployment to record.
    else if (!run.writes || run.target === undefined)
      skipped.push(`environment: command '${run.command}' records no GitHub Deployment.`);
    else if (!ctx.sha) skipped.push('environment: no commit (GITHUB_SHA) to record it for.');
    else environment = { name: run.environment, sha: ctx.sha, preview };
  }
  if (run.prComment) {
    if (run.target === undefined)
      skipped.push(`pr-comment: command ${run.command} has no deployment to comment on.`);
    else if (ctx.pullRequest === undefined)
      skipped.push(
        'pr-comment: not a pull_request event, so there is no pull request to comment on.',
      );
    else comment = { issueNumber: ctx.pullRequest, create: !closing };
  }
  if (!environment && !close && !comment) return { skipped };
  if (!ctx.repo)
    return { skipped: [...skipped, 'environment, pr-comment: GITHUB_REPOSITORY is not set.'] };
  return { work: { repo: ctx.repo, environment, close, comment }, skipped };
}
