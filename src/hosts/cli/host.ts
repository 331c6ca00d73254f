// The command line as a Host: inputs from flags, else AGENT_DEPLOY_* variables; the log on stderr; the outputs kept
// for --json and the dotenv file; the summary to a file when one is named. What the CI around it adds (its facts,
// its token, a merge request note, its words) comes from a `Ci` (ci.ts): GitLab CI's, or a terminal's.
import type { Host, HostContext, Integration, IntegrationRun } from '../../core/host.ts';
import { variableOf } from './args.ts';
import type { Ci } from './ci.ts';
import type { Console } from './console.ts';
import { writeOwnFile } from './files.ts';

interface CliHostOptions {
  flags: ReadonlyMap<string, string>;
  env: NodeJS.ProcessEnv;
  ci: Ci;
  console: Console;
  /** The working directory: the files are written inside it only. */
  cwd: string;
  summaryFile?: string;
}

export class CliHost implements Host {
  readonly outputs: Record<string, string> = {};
  /** The failure line, when the run failed. */
  failure?: string;
  private readonly options: CliHostOptions;

  constructor(options: CliHostOptions) {
    this.options = options;
  }

  get context(): HostContext {
    return this.options.ci.context;
  }

  get log() {
    return this.options.console.log;
  }

  /** A flag wins over the variable. */
  input(name: string): string {
    return this.options.flags.get(name) ?? this.options.env[variableOf(name)] ?? '';
  }

  secrets(): string[] {
    return this.options.ci.secrets;
  }

  /** Neither a terminal nor GitLab's job log takes a mask at run time: the sinks redact every line instead. */
  mask(): void {}

  setOutput(name: string, value: string): void {
    this.outputs[name] = value;
  }

  /** A file refused (a symbolic link, outside the working directory) throws: the run warns, naming it. */
  async summary(markdown: string): Promise<void> {
    const { summaryFile, cwd } = this.options;
    if (summaryFile) writeOwnFile(summaryFile, markdown, cwd);
  }

  fail(line: string): void {
    this.failure = line;
    this.options.console.error(line);
  }

  integrations(run: IntegrationRun): Integration[] {
    return this.options.ci.integrations(run, (name) => this.input(name));
  }
}
