import type { Logger } from '../../core/logger.ts';
import { type CallLimits, commentMarker } from '../best-effort.ts';
import { bestEffort, type GitHubApi } from './api.ts';
import type { Repo } from './context.ts';

const PERMISSION = 'pull-requests: write';
const PER_PAGE = 100;
// A guard, not a limit anyone should meet: 5,000 comments on one pull request.
const MAX_PAGES = 50;

/**
 * Creates the pull request's comment for deployment `name` (unless `create` is false), or updates the one that
 * carries its marker and was written by the token's own identity, so a pull request has one comment per deployment
 * however many runs it sees. A comment by anyone else (the PR's author, say) that carries the marker is never
 * touched. Answers what it did, or undefined (after a warning, when something failed). When the comments or the
 * identity cannot be read, nothing is written: a blind create could duplicate.
 */
export async function upsertComment(
  api: GitHubApi,
  log: Logger,
  c: { repo: Repo; issueNumber: number; name: string; body: string; create?: boolean },
  limits: CallLimits,
): Promise<'created' | 'updated' | undefined> {
  const marker = commentMarker(c.name);
  const body = `${marker}\n${c.body}`;
  const marked = await markedComments(api, log, c, marker, limits);
  if (marked === null) return undefined;
  let found: number | undefined;
  // Whose token this is matters only when a comment carries the marker: most runs never ask.
  if (marked.length) {
    const self = await viewer(api, log, limits);
    if (!self) return undefined;
    found = marked.find((comment) => writtenBy(comment.user, self))?.id;
  }
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
  if (c.create === false) {
    log.info(`Pull request #${c.issueNumber} has no comment of ${c.name} to update.`);
    return undefined;
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

/** Who the token acts as: a user for a personal token, a bot (github-actions[bot]) for GITHUB_TOKEN or an app. */
interface Identity {
  login: string;
  id?: number;
}

/** GraphQL's viewer answers for every kind of token; REST `GET /user` refuses GITHUB_TOKEN. */
async function viewer(
  api: GitHubApi,
  log: Logger,
  limits: CallLimits,
): Promise<Identity | undefined> {
  const answer = await bestEffort(
    api,
    log,
    {
      what: 'Reading who github-token acts as, to find its pull request comment',
      permission: PERMISSION,
      route: 'POST /graphql',
      params: { query: 'query { viewer { login databaseId } }' },
    },
    limits,
  );
  const found = (answer?.data as { data?: { viewer?: { login?: unknown; databaseId?: unknown } } })
    ?.data?.viewer;
  if (typeof found?.login !== 'string') {
    if (answer) log.warning('GitHub did not say who github-token acts as; the comment is skipped.');
    return undefined;
  }
  return {
    login: found.login,
    id: typeof found.databaseId === 'number' ? found.databaseId : undefined,
  };
}

function writtenBy(user: unknown, self: Identity): boolean {
  const { id, login } = (user ?? {}) as { id?: unknown; login?: unknown };
  if (self.id !== undefined) return id === self.id;
  // GraphQL names a bot without the [bot] that REST adds.
  const bare = (name: unknown) =>
    String(name)
      .toLowerCase()
      .replace(/\[bot\]$/, '');
  return typeof login === 'string' && bare(login) === bare(self.login);
}

/** The comments starting with `marker`, oldest first; null when they cannot be read. */
async function markedComments(
  api: GitHubApi,
  log: Logger,
  c: { repo: Repo; issueNumber: number },
  marker: string,
  limits: CallLimits,
): Promise<{ id: number; user: unknown }[] | null> {
  const marked: { id: number; user: unknown }[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await bestEffort(
      api,
      log,
      {
        what: `Reading the comments of pull request #${c.issueNumber}`,
        permission: PERMISSION,
        route: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        params: { ...c.repo, issue_number: c.issueNumber, per_page: PER_PAGE, page },
      },
      limits,
    );
    if (!answer) return null;
    const comments = Array.isArray(answer.data) ? (answer.data as unknown[]) : [];
    for (const comment of comments) {
      const { id, body, user } = comment as { id?: unknown; body?: unknown; user?: unknown };
      if (typeof id === 'number' && typeof body === 'string' && body.startsWith(marker))
        marked.push({ id, user });
    }
    if (comments.length < PER_PAGE) return marked;
  }
  log.warning(
    `Pull request #${c.issueNumber} has more than ${MAX_PAGES * PER_PAGE} comments; not adding another.`,
  );
  return null;
}
