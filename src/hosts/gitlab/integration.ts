// The merge request note as an integration: in a merge request pipeline with GITLAB_TOKEN, the run's result table
// as one note per deployment, written once the run has ended. Best effort: it never fails the deploy.
import type { Integration, IntegrationRun } from '../../core/host.ts';
import type { RunReport } from '../../core/report.ts';
import type { Transport } from '../../service/transport.ts';
import { isSecureOrLoopback } from '../../shared/url.ts';
import { unaffected } from '../best-effort.ts';
import { GitLabApi } from './api.ts';
import type { GitLabFacts } from './context.ts';
import { upsertNote } from './notes.ts';

const CALL_TIMEOUT_MS = 10_000;
// A cancelled job is on its way out (a terminal's Ctrl-C, GitLab's cancel): the note must not hold it up.
const CANCELLED_CALL_TIMEOUT_MS = 2_000;

/**
 * The note when it applies, else none, with the reason logged once where a user may have expected one. `input`
 * reads an input as given: an explicit `pr-comment: false` turns the note off.
 */
export function gitLabIntegrations(
  run: IntegrationRun,
  facts: GitLabFacts,
  token: string | undefined,
  transport: Transport,
  input: (name: string) => string,
): Integration[] {
  const { log } = run;
  if (run.environment)
    log.info(
      "environment: in GitLab CI the job's own environment: keyword records the deployment; the input is for GitHub Actions.",
    );
  if (facts.mergeRequest === undefined) return [];
  const mr = `merge request !${facts.mergeRequest}`;
  if (input('pr-comment').trim() !== '' && !run.prComment) return [];
  if (run.target === undefined) {
    log.info(`No note on ${mr}: command ${run.command} has no deployment to report.`);
    return [];
  }
  if (!token) {
    log.info(
      `No note on ${mr}: GITLAB_TOKEN is not set (with a token that has the api scope, each deployment gets one note).`,
    );
    return [];
  }
  if (!facts.apiUrl || !facts.projectId) {
    log.warning(`No note on ${mr}: CI_API_V4_URL or CI_PROJECT_ID is not set.`);
    return [];
  }
  let url: URL;
  try {
    url = new URL(facts.apiUrl);
  } catch {
    log.warning(`No note on ${mr}: CI_API_V4_URL is not a URL.`);
    return [];
  }
  if (!isSecureOrLoopback(url)) {
    log.warning(
      `No note on ${mr}: CI_API_V4_URL is not https, and GITLAB_TOKEN is not sent in the clear.`,
    );
    return [];
  }
  const api = new GitLabApi({ transport, apiUrl: facts.apiUrl, token, log });
  return [new MergeRequestNote(api, run, facts.projectId, facts.mergeRequest)];
}

class MergeRequestNote implements Integration {
  private readonly api: GitLabApi;
  private readonly run: IntegrationRun;
  private readonly projectId: string;
  private readonly mergeRequest: number;

  constructor(api: GitLabApi, run: IntegrationRun, projectId: string, mergeRequest: number) {
    this.api = api;
    this.run = run;
    this.projectId = projectId;
    this.mergeRequest = mergeRequest;
  }

  /** Nothing to show before the end: GitLab shows the running job itself. */
  async start(): Promise<void> {}

  async finish(report: RunReport, comment: { name: string; body: string }): Promise<void> {
    const { run } = this;
    await upsertNote(
      this.api,
      run.log,
      { projectId: this.projectId, mergeRequest: this.mergeRequest, ...comment },
      {
        time: run.time,
        timeoutMs: report.cancelled ? CANCELLED_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
        unaffected: unaffected(run),
      },
    );
  }
}
