// Loaded with a dynamic import only when a GitHub feature applies: Octokit stays out of the main bundle.
import { getOctokit } from '@actions/github';
import type { RunReport } from '../deploy/report.ts';
import type { Logger } from '../logger.ts';
import type { RunClock } from '../service/client.ts';
import type { CallLimits, GitHubApi } from './api.ts';
import { upsertComment } from './comment.ts';
import type { GitHubWork } from './context.ts';
import { absoluteHttpUrl } from '../shared/url.ts';
import { createDeployment, finalStatus, setDeploymentStatus } from './deployments.ts';

const CALL_TIMEOUT_MS = 10_000;
/** GitHub rejects a deployment (status) description longer than 140 characters. */
const DESCRIPTION_MAX = 140;
// After a cancel the runner sends SIGTERM 7.5 s after SIGINT: the last calls must fit well before it.
const CANCELLED_CALL_TIMEOUT_MS = 2_000;

/** Octokit at GITHUB_API_URL (getOctokit's default), without retries: every call is made once. */
export function connect(token: string, userAgent: string): GitHubApi {
  return getOctokit(token, { userAgent });
}

export interface SessionOptions {
  work: GitHubWork;
  /** The deployment's name (or id) as the inputs give it, for the GitHub Deployment's description. */
  target: string;
  customUrl?: string;
  runUrl?: string;
  clock: RunClock;
  /** The edge's sink for a GitHub API field: redacted, one line, at most `max` characters. */
  field: (text: string, max: number) => string;
}

/** The GitHub side of one run: a GitHub Deployment marked in_progress at the start, then its end and the comment. */
export class GitHubSession {
  private readonly api: GitHubApi;
  private readonly log: Logger;
  private readonly options: SessionOptions;
  private deploymentId?: number;

  private constructor(api: GitHubApi, log: Logger, options: SessionOptions) {
    this.api = api;
    this.log = log;
    this.options = options;
  }

  static async open(api: GitHubApi, log: Logger, options: SessionOptions): Promise<GitHubSession> {
    const session = new GitHubSession(api, log, options);
    const { work, clock, field } = options;
    if (!work.environment) return session;
    // Within the deploy's own deadline, and stopped by a cancel.
    const limits: CallLimits = {
      timeoutMs: Math.min(CALL_TIMEOUT_MS, Math.max(1000, clock.deadline - clock.time.now())),
      signal: clock.signal,
    };
    session.deploymentId = await createDeployment(
      api,
      log,
      {
        repo: work.repo,
        environment: work.environment.name,
        sha: work.environment.sha,
        description: field(`agent-deploy-action: ${options.target}`, DESCRIPTION_MAX),
      },
      limits,
    );
    if (session.deploymentId !== undefined && !clock.signal.aborted) {
      await setDeploymentStatus(
        api,
        log,
        {
          repo: work.repo,
          deploymentId: session.deploymentId,
          status: {
            state: 'in_progress',
            description: field(`Deploying ${options.target}`, DESCRIPTION_MAX),
            environmentUrl: session.url(options.customUrl),
            logUrl: options.runUrl,
          },
        },
        limits,
      );
    }
    return session;
  }

  /**
   * The environment URL, redacted like any field. GitHub links it as given: a bare host becomes https://host, and
   * anything that is not then a plain http(s) URL (javascript:, spaces, credentials) is left out.
   */
  private url(value: string | null | undefined): string | undefined {
    return value ? absoluteHttpUrl(this.options.field(value, 2000)) : undefined;
  }

  /** The GitHub Deployment's last status and the pull request comment, side by side. */
  async finish(report: RunReport, comment: { name: string; body: string }): Promise<void> {
    const { work, customUrl, runUrl, field } = this.options;
    const limits: CallLimits = {
      timeoutMs: report.cancelled ? CANCELLED_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
    };
    const url = this.url(report.deployment?.source_config.custom_url ?? customUrl);
    const { state, description } = finalStatus(report);
    await Promise.all([
      this.deploymentId !== undefined &&
        setDeploymentStatus(
          this.api,
          this.log,
          {
            repo: work.repo,
            deploymentId: this.deploymentId,
            status: {
              state,
              description: field(description, DESCRIPTION_MAX),
              environmentUrl: url,
              logUrl: runUrl,
            },
          },
          limits,
        ),
      work.comment &&
        upsertComment(
          this.api,
          this.log,
          { repo: work.repo, issueNumber: work.comment.issueNumber, ...comment },
          limits,
        ),
    ]);
  }
}
