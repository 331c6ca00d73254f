// URLs from the service or the inputs, checked before they become a link, an environment URL or a request.

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Where the action may send a request: https anywhere, http:// only towards the runner itself. */
export function isSecureOrLoopback(url: URL): boolean {
  const loopback = LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
}

/** The URL as given when it is a plain absolute http(s) URL without credentials, else undefined. */
export function httpUrl(url: string): string | undefined {
  if (/[\s<>"'`\u0000-\u001f\u007f-\u009f]/.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.username || parsed.password) return undefined;
  return url;
}

/** A URL the service gives (custom_url), where a bare host means https://host; undefined unless plain http(s). */
export function absoluteHttpUrl(url: string): string | undefined {
  return httpUrl(/^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`);
}

/** A URL as an error message may quote it: everything up to the last `@` (user:password@, however odd) hidden. */
export function withoutCredentials(text: string): string {
  const start = text.indexOf('//');
  const end = text.lastIndexOf('@');
  return start !== -1 && end >= start + 2
    ? `${text.slice(0, start)}//***@${text.slice(end + 1)}`
    : text;
}

/**
 * A URL the run may publish (summary, PR comment, GitHub Deployment status): its query and fragment, which can hold
 * tokens the runner's masking never sees there, shown as `?…`.
 */
export function withoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : `${url.slice(0, end)}?…`;
}

/**
 * The one rule, for create and update alike, for two repository URLs naming the same repository: case, white space
 * around them, a trailing `/` and `.git` aside. One side is the service's: a loop, where `/(\.git)?\/*$/` is
 * quadratic on a long run of slashes.
 */
export function sameRepoUrl(a: string, b: string): boolean {
  const bare = (url: string) => {
    const u = withoutTrailingSlashes(url.trim().toLowerCase());
    return u.endsWith('.git') ? u.slice(0, -4) : u;
  };
  return bare(a) === bare(b);
}

/** The URL without the `/`s it ends with: a loop, as `/\/+$/` is quadratic on a long run of slashes. */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}
