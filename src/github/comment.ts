import type { Logger } from '../logger.ts';
import { bestEffort, type CallLimits, type GitHubApi } from './api.ts';
import type { Repo } from './context.ts';

const PERMISSION = 'pull-requests: write';
const PER_PAGE = 100;
// A guard, not a limit anyone should meet: 5,000 comments on one pull request.
const MAX_PAGES = 50;

/** The hidden first line that finds this deployment's comment again; `>` escaped so a name cannot end it. */
export function commentMarker(name: string): string {
  return `<!-- agent-deploy-action:${name.replace(/>/g, '&gt;')} -->`;
}

/**
 * Creates the pull request's comment for deployment `name`, or updates the one that carries its marker, so a
 * pull request has one comment per deployment however many runs it sees. Answers what it did, or undefined
 * after a warning. When the comments cannot be read, nothing is written: a blind create could duplicate.
 */
export async function upsertComment(
  api: GitHubApi,
  log: Logger,
  c: { repo: Repo; issueNumber: number; name: string; body: string },
  limits: CallLimits,
): Promise<'created' | 'updated' | undefined> {
  const marker = commentMarker(c.name);
  const body = `${marker}\n${c.body}`;
  const found = await findComment(api, log, c.repo, c.issueNumber, marker, limits);
  if (found === null) return undefined;
  if (found !== undefined) {
    const answer = await bestEffort(
      api,
      log,
      {
        what: `Updating comment ${found} on pull request #${c.issueNumber}`,
        permission: PERMISSION,
        route: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
        params: { ...c.repo, comment_id: found, body },
      },
      limits,
    );
    if (!answer) return undefined;
    log.info(`Updated the comment on pull request #${c.issueNumber}.`);
    return 'updated';
  }
  const answer = await bestEffort(
    api,
    log,
    {
      what: `Commenting on pull request #${c.issueNumber}`,
      permission: PERMISSION,
      route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
      params: { ...c.repo, issue_number: c.issueNumber, body },
    },
    limits,
  );
  if (!answer) return undefined;
  log.info(`Commented on pull request #${c.issueNumber}.`);
  return 'created';
}

/** The id of the oldest comment starting with `marker`; undefined when there is none, null when unreadable. */
async function findComment(
  api: GitHubApi,
  log: Logger,
  repo: Repo,
  issueNumber: number,
  marker: string,
  limits: CallLimits,
): Promise<number | undefined | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await bestEffort(
      api,
      log,
      {
        what: `Reading the comments of pull request #${issueNumber}`,
        permission: PERMISSION,
        route: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        params: { ...repo, issue_number: issueNumber, per_page: PER_PAGE, page },
      },
      limits,
    );
    if (!answer) return null;
    const comments = Array.isArray(answer.data) ? (answer.data as unknown[]) : [];
    for (const comment of comments) {
      const { id, body } = comment as { id?: unknown; body?: unknown };
      if (typeof id === 'number' && typeof body === 'string' && body.startsWith(marker)) return id;
    }
    if (comments.length < PER_PAGE) return undefined;
  }
  log.warning(
    `Pull request #${issueNumber} has more than ${MAX_PAGES * PER_PAGE} comments; not adding another.`,
  );
  return null;
}
