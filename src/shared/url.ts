// URLs from the service or the inputs, checked before they become a link, an environment URL or a request.

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** http:// is allowed only towards the runner itself. */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
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

/** A URL as an error message may quote it: everything up to the last `@` (user:password@, however odd) hidden. */
export function withoutCredentials(text: string): string {
  return text.replace(/\/\/.*@/s, '//***@');
}
