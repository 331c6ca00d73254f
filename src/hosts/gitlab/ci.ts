// GitLab CI (GITLAB_CI=true) for the command line: the job's facts, GITLAB_TOKEN as a secret, the merge request note,
// and the files a job hands on: the outputs as a dotenv report, the summary as Markdown.
import type { Transport } from '../../service/transport.ts';
import type { Ci } from '../cli/host.ts';
import { readGitLabContext } from './context.ts';
import { gitLabIntegrations } from './integration.ts';

/** For `artifacts: reports: dotenv:`, so that `environment: url: $CUSTOM_URL` works. */
export const DOTENV_FILE = 'agent-deploy.env';
export const SUMMARY_FILE = 'agent-deploy-summary.md';

export function isGitLabCi(env: NodeJS.ProcessEnv): boolean {
  return env.GITLAB_CI === 'true';
}

export function gitLabCi(env: NodeJS.ProcessEnv, cwd: string, transport: Transport): Ci {
  const { host, gitlab } = readGitLabContext(env, cwd);
  const token = env.GITLAB_TOKEN?.trim() || undefined;
  return {
    context: host,
    // As the variable holds it, and trimmed: either may be what a line quotes.
    secrets: [env.GITLAB_TOKEN ?? '', token ?? ''],
    integrations: (run, input) => gitLabIntegrations(run, gitlab, token, transport, input),
    files: { dotenv: DOTENV_FILE, summary: SUMMARY_FILE },
  };
}
