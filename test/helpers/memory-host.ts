// The GitHub host without the runner: the same context (read from runner variables and an event file) and the same
// GitHub integrations, with the log, outputs, summary and failure kept in memory, so the whole run can be tested
// in-process, many at once, on a fake clock.
import type { Host, HostContext, Integration, IntegrationRun } from '../../src/core/host.ts';
import type { GitHubApi } from '../../src/hosts/github/api.ts';
import { type GitHubContext, readContext } from '../../src/hosts/github/context.ts';
import { gitHubIntegrations } from '../../src/hosts/github/integrations.ts';

type Level = 'debug' | 'info' | 'notice' | 'warning' | 'error';

export class MemoryHost implements Host {
  readonly context: HostContext;
  /** Every line, as the run said it. */
  readonly lines: { level: Level; text: string }[] = [];
  readonly outputs: Record<string, string> = {};
  readonly masked: string[] = [];
  /** For each masked value, how many lines had been said before it: where the runner's log shows its mask command. */
  readonly maskedAt: number[] = [];
  summaryText = '';
  failure?: string;
  readonly log = {
    debug: (text: string) => this.lines.push({ level: 'debug', text }),
    info: (text: string) => this.lines.push({ level: 'info', text }),
    notice: (text: string) => this.lines.push({ level: 'notice', text }),
    warning: (text: string) => this.lines.push({ level: 'warning', text }),
  };
  private readonly github: GitHubContext;
  private readonly inputs: Record<string, string>;
  private readonly api?: GitHubApi;

  constructor(inputs: Record<string, string>, env: NodeJS.ProcessEnv, api?: GitHubApi) {
    this.inputs = inputs;
    this.api = api;
    ({ host: this.context, github: this.github } = readContext(env, env.GITHUB_WORKSPACE ?? '.'));
  }

  input(name: string): string {
    return this.inputs[name] ?? '';
  }

  secrets(): string[] {
    return [this.input('github-token')];
  }

  mask(value: string): void {
    this.masked.push(value);
    this.maskedAt.push(this.lines.length);
  }

  setOutput(name: string, value: string): void {
    this.outputs[name] = value;
  }

  async summary(markdown: string): Promise<void> {
    this.summaryText += markdown;
  }

  fail(line: string): void {
    this.failure = line;
    this.lines.push({ level: 'error', text: line });
  }

  integrations(run: IntegrationRun): Integration[] {
    const { api } = this;
    return gitHubIntegrations(
      run,
      { ...this.github, runUrl: this.context.runUrl },
      this.inputs['github-token'] || undefined,
      async (token) => {
        if (!api) throw new Error(`no fake GitHub for token ${token.length} characters long`);
        return api;
      },
    );
  }
}
