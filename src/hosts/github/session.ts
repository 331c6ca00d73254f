// The GitHub features of one run, as an integration: a GitHub Deployment marked in_progress at the start (or, when
// a preview closes, its pull request's marked inactive), then its end and the pull request comment. With a list of
// deployments, a GitHub Deployment per item (environment `<environment>/<name>`), each marked as its item starts
// and ends, and one comment for the list. Octokit is imported only when one of them applies, into a chunk of its own.
import type { Integration, IntegrationRun, ItemRun } from '../../core/host.ts';
import type { RunReport } from '../../core/report.ts';
import { absoluteHttpUrl } from '../../shared/url.ts';
import { type CallLimits, unaffected } from '../best-effort.ts';
import type { GitHubApi } from './api.ts';
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
/** GitHub's longest environment name. */
const ENVIRONMENT_MAX = 255;
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
  private connection?: Promise<GitHubApi | undefined>;
  /** The run's GitHub Deployment; with a list, each item's by its name. */
  private deploymentId?: number;
  private readonly itemDeployments = new Map<string, number>();

  constructor(options: SessionOptions) {
    this.options = options;
  }

  /** The API, connected once (by start, or by the first item when that comes first); undefined after a warning. */
  private connected(): Promise<GitHubApi | undefined> {
    this.connection ??= this.options.connect().catch((error: unknown) => {
      this.options.run.log.warning(`The GitHub features are skipped: ${(error as Error).message}`);
      return undefined;
    });
    return this.connection;
  }

  async start(): Promise<void> {
    const { work, run, runUrl } = this.options;
    const { log } = run;
    const api = await this.connected();
    if (!api) return;
    // Within the deploy's own deadline, and stopped by a cancel.
    const limits = this.limits(run.deadline);
    // A closed preview's deployments do not wait for the service's answer: they are inactive whatever it says.
    if (work.close) {
      const { environment, ...preview } = work.close;
      await closePreviewDeployments(
        api,
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
    // A list's items each record their own (startItem).
    if (!work.environment || run.items) return;
    this.deploymentId = await this.record(
      api,
      work.environment.name,
      run.target ?? '',
      run.customUrl,
      limits,
    );
  }

  async startItem(item: ItemRun): Promise<void> {
    const { environment } = this.options.work;
    const api = environment && (await this.connected());
    if (!api) return;
    const id = await this.record(
      api,
      `${environment.name}/${item.name}`,
      item.target,
      item.customUrl,
      this.limits(item.deadline),
    );
    if (id !== undefined) this.itemDeployments.set(item.name, id);
  }

  /** Call limits within `deadline`, stopped by a cancel. */
  private limits(deadline: number): CallLimits {
    const { run } = this.options;
    return {
      time: run.time,
      timeoutMs: Math.min(CALL_TIMEOUT_MS, Math.max(1000, deadline - run.time.now())),
      signal: run.signal,
      unaffected: unaffected(run),
    };
  }

  /** A GitHub Deployment of the commit in `environment`, marked in_progress: its id, or undefined after a warning. */
  private async record(
    api: GitHubApi,
    environment: string,
    target: string,
    customUrl: string | undefined,
    limits: CallLimits,
  ): Promise<number | undefined> {
    const { work, run, runUrl } = this.options;
    const { log } = run;
    const preview = work.environment?.preview;
    const id = await createDeployment(
      api,
      log,
      {
        repo: work.repo,
        environment: log.field(environment, ENVIRONMENT_MAX),
        sha: work.environment?.sha ?? '',
        description: log.field(`agent-deploy-action: ${target}`, DESCRIPTION_MAX),
        preview,
      },
      limits,
    );
    if (id !== undefined && !run.signal.aborted) {
      await setDeploymentStatus(
        api,
        log,
        {
          repo: work.repo,
          deploymentId: id,
          status: {
            state: 'in_progress',
            description: log.field(`Deploying ${target}`, DESCRIPTION_MAX),
            environmentUrl: this.url(customUrl),
            logUrl: runUrl,
            autoInactive: preview ? false : undefined,
          },
        },
        limits,
      );
    }
    return id;
  }

  /**
   * The environment URL, redacted like any field. GitHub links it as given: a bare host becomes https://host, and
   * anything that is not then a plain http(s) URL (javascript:, spaces, credentials) is left out.
   */
  private url(value: string | null | undefined): string | undefined {
    return value ? absoluteHttpUrl(this.options.run.log.field(value, 2000)) : undefined;
  }

  /** The item's GitHub Deployment, marked as its item ended. */
  async finishItem(item: ItemRun, report: RunReport): Promise<void> {
    const id = this.itemDeployments.get(item.name);
    const api = id !== undefined && (await this.connected());
    if (!api || id === undefined) return;
    await this.conclude(api, id, report, item.customUrl);
  }

  /** The GitHub Deployment's last status and the pull request comment, side by side. */
  async finish(report: RunReport, comment: { name: string; body: string }): Promise<void> {
    // Nothing to finish when nothing connected (start never ran, or the connection failed).
    const api = this.connection && (await this.connection);
    if (!api) return;
    const { work, run } = this.options;
    await Promise.all([
      this.deploymentId !== undefined &&
        this.conclude(api, this.deploymentId, report, run.customUrl),
      work.comment &&
        upsertComment(
          api,
          run.log,
          { repo: work.repo, ...work.comment, ...comment },
          this.endLimits(report),
        ),
    ]);
  }

  /** A GitHub Deployment's last status, for the run (or the item) that `report` tells the end of. */
  private async conclude(
    api: GitHubApi,
    deploymentId: number,
    report: RunReport,
    customUrl: string | undefined,
  ): Promise<void> {
    const { work, run, runUrl } = this.options;
    const { log } = run;
    const { state, description } = finalStatus(report);
    await setDeploymentStatus(
      api,
      log,
      {
        repo: work.repo,
        deploymentId,
        status: {
          state,
          description: log.field(description, DESCRIPTION_MAX),
          environmentUrl: this.url(report.deployment?.source_config.custom_url ?? customUrl),
          logUrl: runUrl,
          autoInactive: work.environment?.preview ? false : undefined,
        },
      },
      this.endLimits(report),
    );
  }

  /** The last calls' limits: not stopped by the cancel they report, and short after one. */
  private endLimits(report: RunReport): CallLimits {
    return {
      time: this.options.run.time,
      timeoutMs: report.cancelled ? CANCELLED_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
      unaffected: unaffected(this.options.run),
    };
  }
}
