// A proxy between the runner and the service (HTTPS_PROXY or HTTP_PROXY; NO_PROXY exempts hosts). When it refuses
// the connection itself, the error names the proxy: the service never saw the request, and is not to blame.
import { getProxyUrl } from '@actions/http-client';
import { NetworkError, ProxyError } from './errors.ts';

/** How the tunnel @actions/http-client uses reports a CONNECT that failed: the proxy's status, or why it failed. */
const TUNNEL_FAILED =
  /^tunneling socket could not be established, (?:statusCode=(\d+)|cause=(.*))$/s;
/** A proxy answering these to CONNECT could not reach the service: an outage on the way, retried like one. */
const UPSTREAM_DOWN = new Set([502, 503, 504]);

/** The error for `error` when it is the proxy's refusal of a request to `url`, else undefined. */
export function proxyFailure(
  method: string,
  path: string,
  url: URL,
  error: unknown,
): ProxyError | NetworkError | undefined {
  const failed = TUNNEL_FAILED.exec((error as Error | undefined)?.message ?? '');
  const proxyUrl = failed && getProxyUrl(url.toString());
  if (!failed || !proxyUrl) return undefined;
  // Host and port only: the proxy URL may carry a user and password.
  const proxy = `the proxy ${new URL(proxyUrl).host} (${proxyVariable(url)})`;
  const status = failed[1] === undefined ? undefined : Number(failed[1]);
  if (status !== undefined && UPSTREAM_DOWN.has(status))
    return new NetworkError(
      method,
      path,
      `${proxy} could not reach the service (CONNECT answered ${status})`,
      true,
      'EPROXY',
    );
  if (status === 407)
    return new ProxyError(
      `${method} ${path} failed: ${proxy} answered 407 Proxy Authentication Required; the request never reached the service. Give the proxy's user and password in ${proxyVariable(url)} (http://user:password@host:port), or list the service's host in NO_PROXY if it needs no proxy.`,
    );
  if (status !== undefined)
    return new ProxyError(
      `${method} ${path} failed: ${proxy} refused to connect to ${url.host} (CONNECT answered ${status}); the request never reached the service. Allow the host on the proxy, or list it in NO_PROXY.`,
    );
  return new ProxyError(
    `${method} ${path} failed: ${proxy} could not be reached (${failed[2]}); the request never reached the service. Check ${proxyVariable(url)} on the runner and that the proxy runs, or list the service's host in NO_PROXY.`,
  );
}

/** The variable the proxy came from, as @actions/http-client reads them (lower case first). */
function proxyVariable(url: URL): string {
  const name = url.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  return process.env[name] ? name : name.toUpperCase();
}
