// The repository a checkout is a clone of, from its `origin` remote (read by the git on PATH: hosts/git.ts), as
// GITHUB_REPOSITORY says it on a runner. Its owner/name is matched in the integration's listing when repo-url is not
// given.
import type { HostContext } from '../../core/host.ts';
import { withoutTrailingSlashes } from '../../shared/url.ts';
import { originUrl } from '../git.ts';

type Repository = NonNullable<HostContext['repository']>;

/** The origin's owner/name, or why there is none (for the message that asks for repo-url). */
export async function originRepository(
  cwd: string,
): Promise<{ repository?: Repository; why: string }> {
  const origin = await originUrl(cwd);
  if ('why' in origin) return { why: origin.why };
  const repository = parseRemoteUrl(origin.url);
  // The URL is not quoted: a remote may carry a token (https://user:token@host/…).
  return repository
    ? { repository, why: '' }
    : { why: 'the origin remote is not a URL of the form host/owner/name' };
}

/**
 * owner/name from a remote URL: `https://host/owner/name(.git)`, `ssh://git@host[:port]/owner/name.git`,
 * `git@host:owner/name.git` (scp-like), `git://host/owner/name`. A GitLab subgroup stays in the owner
 * (group/sub/name → owner group/sub), as its listing names it. A local path is no repository.
 */
export function parseRemoteUrl(url: string): Repository | undefined {
  let path: string | undefined;
  const scheme = /^(?:https?|ssh|git|git\+ssh):\/\/[^/]+\/(.+)$/i.exec(url);
  if (scheme) path = scheme[1];
  else path = scpPath(url);
  if (path === undefined) return undefined;
  const parts = withoutTrailingSlashes(path)
    .replace(/\.git$/i, '')
    .split('/');
  const name = parts.pop();
  const owner = parts.join('/');
  if (!name || !owner || parts.some((part) => part === '' || part === '.' || part === '..'))
    return undefined;
  return { owner, name };
}

/** The path of an scp-like remote, `[user@]host:path`: a host without `/` or white space, a path not absolute. */
function scpPath(url: string): string | undefined {
  const colon = url.indexOf(':');
  const before = url.slice(0, colon);
  const host = before.slice(before.indexOf('@') + 1);
  const path = url.slice(colon + 1);
  if (colon < 1 || host === '' || /[/\s]/.test(before) || path === '' || path.startsWith('/'))
    return undefined;
  return path;
}
