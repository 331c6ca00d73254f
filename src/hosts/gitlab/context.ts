// A GitLab CI job as the host context: its predefined CI_* variables. The merge request's source branch and its
// project are its author's choice: data, like a pull request's head on GitHub. GitLab names the merge request's
// project (CI_MERGE_REQUEST_PROJECT_ID, its target), its source project (CI_MERGE_REQUEST_SOURCE_PROJECT_ID) and the
// project the pipeline runs in (CI_PROJECT_ID): a fork's pipeline runs in the fork, unless the parent runs it.

import type { HostContext } from '../../core/host.ts';

/** What the merge request note needs besides the host context. */
export interface GitLabFacts {
  /** CI_API_V4_URL: the API of the GitLab instance running the job. */
  apiUrl?: string;
  /** The project the merge request belongs to (its target), by id. */
  projectId?: string;
  /** The merge request's iid (`!12`), in a merge request pipeline. */
  mergeRequest?: number;
}

export function readGitLabContext(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { host: Omit<HostContext, 'words'>; gitlab: GitLabFacts } {
  const iid = /^\d+$/.test(env.CI_MERGE_REQUEST_IID ?? '')
    ? Number(env.CI_MERGE_REQUEST_IID)
    : undefined;
  const host: Omit<HostContext, 'words'> = {
    repository: parseProjectPath(env.CI_PROJECT_PATH),
    ref: defaultRef(env),
    event: env.CI_PIPELINE_SOURCE || undefined,
    workspace: env.CI_PROJECT_DIR || cwd,
    runUrl: env.CI_JOB_URL || env.CI_PIPELINE_URL || undefined,
  };
  if (iid !== undefined) {
    const source = env.CI_MERGE_REQUEST_SOURCE_PROJECT_ID || undefined;
    const target = env.CI_MERGE_REQUEST_PROJECT_ID || undefined;
    // Its own project's only when GitLab says so: a pipeline that does not name both projects is taken for a fork's.
    const fromFork = !(source !== undefined && source === target);
    host.change = {
      number: iid,
      headRef: env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || undefined,
      fromFork,
    };
    // A fork's pipeline runs in the fork with the fork's variables, unless a member of the parent runs it there
    // (merged results, or "Run pipeline"): then the parent's secrets meet the fork author's branch and code, as on
    // pull_request_target. Any project but the fork's own counts as the parent.
    if (fromFork && (source === undefined || env.CI_PROJECT_ID !== source)) {
      host.untrustedHead = `a pipeline for merge request !${iid} from a fork`;
      host.ref = undefined;
    }
  }
  // A merged-results pipeline runs on a merge commit; its source branch's head is the commit the ref is at.
  if (host.ref)
    host.commit = env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA || env.CI_COMMIT_SHA || undefined;
  return {
    host,
    gitlab: {
      apiUrl: env.CI_API_V4_URL || undefined,
      projectId: env.CI_MERGE_REQUEST_PROJECT_ID || env.CI_PROJECT_ID || undefined,
      mergeRequest: iid,
    },
  };
}

/** group/subgroup/project: the owner is everything before the last `/`, as the repository listing names it. */
function parseProjectPath(path: string | undefined): HostContext['repository'] {
  const m = /^(\S+)\/([^/\s]+)$/.exec(path ?? '');
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
}

/** The merge request's source branch, else the pipeline's branch, else its tag in full (refs/tags/…). */
function defaultRef(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME) return env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME;
  if (env.CI_COMMIT_TAG) return `refs/tags/${env.CI_COMMIT_TAG}`;
  return env.CI_COMMIT_REF_NAME || undefined;
}
