// What a CI adds to the command line run in it: its facts, its tokens, its integrations, its files, and its words.
// Each CI is one folder under src/hosts/ exporting a `CiKind`; src/hosts/cli/ci-registry.ts lists them.
import type { HostContext, Integration, IntegrationRun } from '../../core/host.ts';
import type { Transport } from '../../service/transport.ts';

/** The CI the command runs in, as the run sees it. */
export interface Ci {
  /** Its facts (repository, ref, event, change, workspace) and its words (core/words.ts). */
  context: HostContext;
  /** Its tokens: hidden like api-key from the first line. */
  secrets: string[];
  /** Its features beside the deploy (GitLab's merge request note); `input` reads an input as given. */
  integrations(run: IntegrationRun, input: (name: string) => string): Integration[];
  /** Where the outputs and the summary are written when the arguments do not say. */
  files: CiFiles;
}

export interface CiFiles {
  /** The outputs as a dotenv file (GitLab's `artifacts: reports: dotenv:`). */
  dotenv?: string;
  /** The summary as Markdown. */
  summary?: string;
}

/** A CI the command line knows: how to tell it runs there, and what it adds then. */
export interface CiKind {
  /** Whether the command runs in it, from the environment alone (GITLAB_CI=true). */
  detect(env: NodeJS.ProcessEnv): boolean;
  /** The CI of this run: its facts read from `env` (and the checkout), its integrations over `transport`. */
  build(env: NodeJS.ProcessEnv, cwd: string, transport: Transport): Promise<Ci>;
}
