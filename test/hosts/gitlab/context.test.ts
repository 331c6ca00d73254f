// A GitLab CI job's CI_* variables as the host context: the same facts the GitHub host reads from the runner.
import { describe, expect, it } from 'vitest';
import { readGitLabContext } from '../../../src/hosts/gitlab/context.ts';
import { MERGE_REQUEST_VARIABLES } from '../../helpers/gitlab.ts';

const PUSH = {
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'acme/platform/agent',
  CI_PROJECT_ID: '7',
  CI_PROJECT_DIR: '/builds/acme/platform/agent',
  CI_COMMIT_REF_NAME: 'main',
  CI_PIPELINE_SOURCE: 'push',
  CI_API_V4_URL: 'https://gitlab.example/api/v4',
  CI_JOB_URL: 'https://gitlab.example/acme/platform/agent/-/jobs/99',
};
const MERGE_REQUEST = {
  ...PUSH,
  ...MERGE_REQUEST_VARIABLES,
};

describe('the GitLab CI context', () => {
  it('of a push: the project (its group path as the owner), the branch, the checkout and the job', () => {
    expect(readGitLabContext(PUSH, '/cwd')).toEqual({
      host: {
        repository: { owner: 'acme/platform', name: 'agent' },
        ref: 'main',
        event: 'push',
        workspace: '/builds/acme/platform/agent',
        runUrl: 'https://gitlab.example/acme/platform/agent/-/jobs/99',
      },
      gitlab: { apiUrl: 'https://gitlab.example/api/v4', projectId: '7', mergeRequest: undefined },
    });
  });

  it('of a merge request pipeline: the change, its source branch as the ref', () => {
    const { host, gitlab } = readGitLabContext(MERGE_REQUEST, '/cwd');
    expect(host.ref).toBe('feature/login');
    expect(host.change).toEqual({ number: 12, headRef: 'feature/login', fromFork: false });
    expect(gitlab).toMatchObject({ projectId: '7', mergeRequest: 12 });
  });

  it.each([
    ['a push: the pipeline commit', PUSH, {}, 'c'.repeat(40)],
    ['a merge request pipeline: its head', MERGE_REQUEST, {}, 'c'.repeat(40)],
    [
      "a merged-results pipeline: the source branch's head, not the merge commit",
      MERGE_REQUEST,
      { CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: 'e'.repeat(40) },
      'e'.repeat(40),
    ],
  ])('the commit of the ref, in %s', (_, variables, extra, commit) => {
    const env = { ...variables, CI_COMMIT_SHA: 'c'.repeat(40), ...extra };
    expect(readGitLabContext(env, '/cwd').host.commit).toBe(commit);
  });

  it("of a merge request from a fork, in the fork: the source project differs, the ref is the fork's branch", () => {
    const { host, gitlab } = readGitLabContext(
      { ...MERGE_REQUEST, CI_PROJECT_ID: '99', CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99' },
      '/cwd',
    );
    expect(host.change?.fromFork).toBe(true);
    // The fork's own pipeline holds the fork's variables only: its branch is its owner's to deploy.
    expect(host.untrustedHead).toBeUndefined();
    expect(host.ref).toBe('feature/login');
    // The note goes to the merge request's own project.
    expect(gitlab.projectId).toBe('7');
  });

  it.each([
    ['merged results in the parent', { CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result' }],
    ['a detached pipeline the parent ran', { CI_MERGE_REQUEST_EVENT_TYPE: 'detached' }],
  ])(
    "of a fork's merge request run in the parent project (%s): no default ref, as on pull_request_target",
    (_, extra) => {
      const { host } = readGitLabContext(
        {
          ...MERGE_REQUEST,
          ...extra,
          CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99',
          CI_COMMIT_SHA: 'c'.repeat(40),
        },
        '/cwd',
      );
      expect(host.change).toEqual({ number: 12, headRef: 'feature/login', fromFork: true });
      expect(host.untrustedHead).toBe('a pipeline for merge request !12 from a fork');
      expect(host.ref).toBeUndefined();
      expect(host.commit).toBeUndefined();
    },
  );

  it.each([
    ['without the source project', { CI_MERGE_REQUEST_SOURCE_PROJECT_ID: undefined }],
    ['with an empty source project', { CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '' }],
    [
      'without either',
      { CI_MERGE_REQUEST_SOURCE_PROJECT_ID: undefined, CI_MERGE_REQUEST_PROJECT_ID: undefined },
    ],
  ])("of a merge request %s: taken for a fork's, with no default ref", (_, missing) => {
    const { host } = readGitLabContext({ ...MERGE_REQUEST, ...missing }, '/cwd');
    expect(host.change?.fromFork).toBe(true);
    expect(host.ref).toBeUndefined();
    expect(host.untrustedHead).toBeDefined();
  });

  it("of a merge request without the target project, run in its source project: a fork's, with its own branch", () => {
    const { host } = readGitLabContext(
      { ...MERGE_REQUEST, CI_MERGE_REQUEST_PROJECT_ID: '' },
      '/cwd',
    );
    expect(host.change?.fromFork).toBe(true);
    // The source project's own pipeline: its variables, its members' branch.
    expect(host.untrustedHead).toBeUndefined();
    expect(host.ref).toBe('feature/login');
  });

  it('of a tag: the tag in full, as the service needs it', () => {
    const { host } = readGitLabContext(
      { ...PUSH, CI_COMMIT_REF_NAME: 'v1.2.0', CI_COMMIT_TAG: 'v1.2.0' },
      '/cwd',
    );
    expect(host.ref).toBe('refs/tags/v1.2.0');
  });

  it('of a bare environment: the working directory, nothing else', () => {
    expect(readGitLabContext({ GITLAB_CI: 'true' }, '/cwd')).toEqual({
      host: {
        repository: undefined,
        ref: undefined,
        event: undefined,
        workspace: '/cwd',
        runUrl: undefined,
      },
      gitlab: { apiUrl: undefined, projectId: undefined, mergeRequest: undefined },
    });
  });
});
