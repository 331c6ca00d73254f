// A service that never answered: a refused connection, a host name that does not resolve, a certificate the runner
// does not accept, a scheme that does not match the port (TLS to plain HTTP, or the reverse), a proxy that cannot
// reach the service. Before the first answer of a run these are mistakes in base-url or the runner's network far more
// often than an outage, so they are retried briefly and then named with what to check.
import { seconds } from '../shared/time.ts';
import { type NetworkError } from './errors.ts';
import { DeployError } from '../core/errors.ts';

/** How long such failures are retried before the service has answered once in the run. */
export const UNREACHABLE_RETRY_MS = 15_000;

type Kind = 'refused' | 'dns' | 'route' | 'tls' | 'not-tls' | 'not-http' | 'proxy';

const KINDS: Record<string, Kind> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'route',
  ENETUNREACH: 'route',
  // https:// to a port that speaks plain HTTP: OpenSSL finds no TLS record ("wrong version number").
  EPROTO: 'not-tls',
  // A proxy answering 502, 503 or 504 to CONNECT (proxy.ts).
  EPROXY: 'proxy',
};

/** Node's and OpenSSL's codes for a certificate or handshake the client refused. */
const TLS_CODE = /^(CERT_|UNABLE_TO_|ERR_TLS_)|SELF_SIGNED/;
/** OpenSSL's codes for a handshake that found no TLS where it should ("ERR_SSL_WRONG_VERSION_NUMBER"). */
const SSL_CODE = /^ERR_SSL_/;
/** Node's HTTP parser's codes for an answer that is not HTTP (a TLS record read as HTTP). */
const PARSER_CODE = /^HPE_/;
/** How a NetworkError's reason ends when the server closed the connection without a byte of answer. */
export const HUNG_UP = '(socket hang up)';

/**
 * What kind of "cannot reach" a network error is, or undefined for another failure (a reset, a time-out): from its
 * code, and for a server that closed without answering or answered what is not HTTP, the scheme it was asked with
 * (http:// to a TLS port; the same over https:// is another failure).
 */
export function unreachableKind(
  failure: { code: string; reason: string },
  scheme: string,
): Kind | undefined {
  const { code } = failure;
  const kind =
    KINDS[code] ?? (TLS_CODE.test(code) ? 'tls' : SSL_CODE.test(code) ? 'not-tls' : undefined);
  if (kind) return kind;
  const closed =
    (code === 'ECONNRESET' && failure.reason.endsWith(HUNG_UP)) || PARSER_CODE.test(code);
  return closed && scheme === 'http:' ? 'not-http' : undefined;
}

/**
 * Whether nothing reached the service: a certificate refused ends the handshake, before any request. A TLS protocol
 * error does not tell: the one of a scheme the port does not speak comes at the handshake, but the same codes come
 * when a record of the answer is broken on its way, after the request went out.
 */
export function neverSent(kind: Kind | undefined): boolean {
  return kind === 'tls';
}

const WHAT: Record<Exclude<Kind, 'proxy'>, string> = {
  refused: 'the connection was refused: nothing listens there',
  dns: 'the host name does not resolve',
  route: 'the runner has no route to that host',
  tls: 'its TLS certificate was not accepted',
  'not-tls':
    'the TLS handshake failed: base-url starts with https://, but the server at that port does not speak TLS (a plain-HTTP port?)',
  'not-http':
    'the server closed the connection without an answer in HTTP: base-url starts with http://, and a port that serves HTTPS does that to plain HTTP',
};

const CHECK: Record<Kind, string> = {
  refused:
    "Check base-url's port and host, that the service runs, and that the runner's network reaches it (a firewall, a self-hosted runner's network, the proxy: HTTPS_PROXY, NO_PROXY).",
  dns: "Check base-url's host name, the runner's DNS, and the proxy (HTTPS_PROXY, NO_PROXY).",
  route:
    "Check base-url's host and the runner's network (a firewall, a self-hosted runner's network, the proxy: HTTPS_PROXY, NO_PROXY).",
  tls: "Check that base-url names the host the certificate is for; for a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file in the step's env; a proxy that inspects TLS (HTTPS_PROXY) needs its authority there too.",
  'not-tls':
    "Check base-url's scheme and port: https:// needs the port that serves TLS; if the service serves plain HTTP there, write http://.",
  'not-http':
    "Check base-url's scheme and port: if that port serves HTTPS, write https://; otherwise check that the service runs there and the runner's network (a firewall, the proxy: HTTP_PROXY, NO_PROXY).",
  proxy:
    "Check base-url's host and port, that the service runs, and that the proxy may reach it; if the service needs no proxy, list its host in NO_PROXY.",
};

/** The service never answered in this run: base-url or the runner's network, named with what to check. */
export class UnreachableError extends DeployError {
  override name = 'UnreachableError';

  /** `tried`: the attempts made and the time from the first to the last. */
  constructor(failure: NetworkError, baseUrl: string, tried: { attempts: number; ms: number }) {
    const url = new URL(baseUrl);
    const kind = unreachableKind(failure, url.protocol) ?? 'refused';
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const retried =
      tried.attempts > 1 ? `${tried.attempts} attempts over ${seconds(tried.ms)}, ` : '';
    // The proxy's failure names the proxy and its answer; the others are the code and what it means.
    const cause =
      kind === 'proxy' ? failure.reason : `network error ${failure.code}, ${WHAT[kind]}`;
    super(
      `Cannot reach the service at ${url.hostname} port ${port} (base-url ${baseUrl}): ${cause} (${retried}no answer yet in this run). ${CHECK[kind]}`,
    );
  }
}
