// GitLab CI (GITLAB_CI=true) for the command line: the job's facts, GITLAB_TOKEN as a secret, the merge request note,
// the files a job hands on (the outputs as a dotenv report, the summary as Markdown), and its words: a job gives
// the inputs as its variables.
import type { Ci, CiKind } from '../cli/ci.ts';
import { commandLineWords } from '../cli/words.ts';
import { readGitLabContext } from './context.ts';
import { gitLabIntegrations } from './integration.ts';

/** For `artifacts: reports: dotenv:`, so that `environment: url: $CUSTOM_URL` works. */
export const DOTENV_FILE = 'agent-deploy.env';
export const SUMMARY_FILE = 'agent-deploy-summary.md';

export const gitLab: CiKind = {
  detect: (env) => env.GITLAB_CI === 'true',
  async build(env, cwd, transport): Promise<Ci> {
    const { host, gitlab } = readGitLabContext(env, cwd);
    const token = env.GITLAB_TOKEN?.trim() || undefined;
    return {
      context: {
        ...host,
        words: commandLineWords({
          variables: "the job's variables",
          secretVariable: 'a masked CI/CD variable (Settings › CI/CD › Variables)',
          checkout: "check the job's checkout (GIT_STRATEGY: none fetches no files)",
          noRepository: 'CI_PROJECT_PATH is not set',
          changeRun:
            'a merge request pipeline (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event")',
        }),
      },
      // As the variable holds it, and trimmed: either may be what a line quotes.
      secrets: [env.GITLAB_TOKEN ?? '', token ?? ''],
      integrations: (run, input) => gitLabIntegrations(run, gitlab, token, transport, input),
      files: { dotenv: DOTENV_FILE, summary: SUMMARY_FILE },
    };
  },
};
