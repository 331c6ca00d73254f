// The GitHub Actions runner as a Host: inputs from INPUT_*, runner commands for masking, outputs, summary and the
// failure, and the GitHub features (a GitHub Deployment, a pull request comment) as an integration.
import * as core from '@actions/core';
import type { Host, HostContext, Integration, IntegrationRun } from '../../core/host.ts';
import type { GitHubApi } from './api.ts';
import { type GitHubContext, readContext } from './context.ts';
import { gitHubIntegrations } from './integrations.ts';

export class GitHubHost implements Host {
  readonly context: HostContext;
  readonly log = {
    debug: (line: string) => core.debug(line),
    info: (line: string) => core.info(line),
    warning: (line: string) => core.warning(line),
    notice: (line: string) => core.notice(line),
  };
  private readonly github: GitHubContext;
  private readonly env: NodeJS.ProcessEnv;
  private readonly userAgent: string;

  constructor(env: NodeJS.ProcessEnv, cwd: string, userAgent: string) {
    this.env = env;
    this.userAgent = userAgent;
    ({ host: this.context, github: this.github } = readContext(env, cwd));
  }

  input(name: string): string {
    return core.getInput(name);
  }

  /** github-token, hidden like api-key from the first line. */
  secrets(): string[] {
    return [core.getInput('github-token')];
  }

  mask(value: string): void {
    core.setSecret(value);
  }

  setOutput(name: string, value: string): void {
    core.setOutput(name, value);
  }

  async summary(markdown: string): Promise<void> {
    if (!this.env.GITHUB_STEP_SUMMARY) return;
    await core.summary.addRaw(markdown).write({ overwrite: false });
  }

  fail(line: string): void {
    core.setFailed(line);
  }

  integrations(run: IntegrationRun): Integration[] {
    return gitHubIntegrations(
      run,
      { ...this.github, runUrl: this.context.runUrl },
      core.getInput('github-token') || undefined,
      (token) => this.connect(token),
    );
  }

  /** Octokit, in a chunk of its own: a run without a GitHub feature neither loads nor parses it. */
  private async connect(token: string): Promise<GitHubApi> {
    const { connect } = await import('./octokit.ts');
    return connect(token, this.userAgent);
  }
}
