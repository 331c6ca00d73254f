// The GitHub features of one run, as an integration: a GitHub Deployment marked in_progress at the start (or, when
// a preview closes, its pull request's marked inactive), then its end and the pull request comment. Octokit is imported only when one of them applies, into a chunk of its own.
import type { Integration, IntegrationRun } from '../../core/host.ts';
import type { RunReport } from '../../core/report.ts';
import { absoluteHttpUrl } from '../../shared/url.ts';
import type { CallLimits, GitHubApi } from './api.ts';
import { upsertComment } from './comment.ts';
import type { GitHubWork } from './context.ts';
import {
  closePreviewDeployments,
  createDeployment,
  finalStatus,
  setDeploymentStatus,
} from './deployments.ts';

const CALL_TIMEOUT_MS = 10_000;
/** GitHub rejects a deployment (status) description longer than 140 characters. */
const DESCRIPTION_MAX = 140;
// After a cancel the runner sends SIGTERM 7.5 s after SIGINT: the last calls must fit well before it.
const CANCELLED_CALL_TIMEOUT_MS = 2_000;

interface SessionOptions {
  work: GitHubWork;
  run: IntegrationRun;
  runUrl?: string;
  /** Octokit, or a fake of it: called once, by start(). */
  connect: () => Promise<GitHubApi>;
}

export class GitHubSession implements Integration {
  private readonly options: SessionOptions;
  private api?: GitHubApi;
  private deploymentId?: number;

  constructor(options: SessionOptions) {
    this.options = options;
  }

  async start(): Promise<void> {
    const { work, run, runUrl } = this.options;
    const { log } = run;
    try {
      this.api = await this.options.connect();
    } catch (error) {
      log.warning(`The GitHub features are skipped: ${(error as Error).message}`);
      return;
    }
    // Within the deploy's own deadline, and stopped by a cancel.
    const limits: CallLimits = {
      time: run.time,
      timeoutMs: Math.min(CALL_TIMEOUT_MS, Math.max(1000, run.deadline - run.time.now())),
      signal: run.signal,
    };
    // A closed preview's deployments do not wait for the service's answer: they are inactive whatever it says.
    if (work.close) {
      const { environment, ...preview } = work.close;
      await closePreviewDeployments(
        this.api,
        log,
        {
          repo: work.repo,
          environment,
          preview,
          status: {
            state: 'inactive',
            // What stays on the service is the comment's and the summary's to say, once the service has answered.
            description: `Pull request #${preview.pullRequest} closed.`,
            logUrl: runUrl,
          },
        },
        { ...limits, deadline: run.deadline },
      );
      return;
    }
    if (!work.environment) return;
    const { preview } = work.environment;
    this.deploymentId = await createDeployment(
      this.api,
      log,
      {
        repo: work.repo,
        environment: work.environment.name,
        sha: work.environment.sha,
        description: log.field(`agent-deploy-action: ${run.target ?? ''}`, DESCRIPTION_MAX),
        preview,
      },
      limits,
    );
    if (this.deploymentId !== undefined && !run.signal.aborted) {
      await setDeploymentStatus(
        this.api,
        log,
        {
          repo: work.repo,
          deploymentId: this.deploymentId,
          status: {
            state: 'in_progress',
            description: log.field(`Deploying ${run.target ?? ''}`, DESCRIPTION_MAX),
            environmentUrl: this.url(run.customUrl),
            logUrl: runUrl,
            autoInactive: preview ? false : undefined,
          },
        },
        limits,
      );
    }
  }

  /**
   * The environment URL, redacted like any field. GitHub links it as given: a bare host becomes https://host, and
   * anything that is not then a plain http(s) URL (javascript:, spaces, credentials) is left out.
   */
  private url(value: string | null | undefined): string | undefined {
    return value ? absoluteHttpUrl(this.options.run.log.field(value, 2000)) : undefined;
  }

  /** The GitHub Deployment's last status and the pull request comment, side by side. */
  async finish(report: RunReport, comment: { name: string; body: string }): Promise<void> {
    const { api } = this;
    if (!api) return;
    const { work, run, runUrl } = this.options;
    const { log } = run;
    const limits: CallLimits = {
      time: run.time,
      timeoutMs: report.cancelled ? CANCELLED_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
    };
    const url = this.url(report.deployment?.source_config.custom_url ?? run.customUrl);
    const { state, description } = finalStatus(report);
    await Promise.all([
      this.deploymentId !== undefined &&
        setDeploymentStatus(
          api,
          log,
          {
            repo: work.repo,
            deploymentId: this.deploymentId,
            status: {
              state,
              description: log.field(description, DESCRIPTION_MAX),
              environmentUrl: url,
              logUrl: runUrl,
              autoInactive: work.environment?.preview ? false : undefined,
            },
          },
          limits,
        ),
      work.comment &&
        upsertComment(api, log, { repo: work.repo, ...work.comment, ...comment }, limits),
    ]);
  }
}
