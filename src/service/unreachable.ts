// A service that never answered: a refused connection, a host name that does not resolve, a certificate the runner
// does not accept. Before the first answer of a run these are mistakes in base-url or the runner's network far more
// often than an outage, so they are retried briefly and then named with what to check.
import { seconds } from '../shared/time.ts';
import { type NetworkError } from './errors.ts';
import { DeployError } from '../core/errors.ts';

/** How long such failures are retried before the service has answered once in the run. */
export const UNREACHABLE_RETRY_MS = 15_000;

type Kind = 'refused' | 'dns' | 'route' | 'tls';

const KINDS: Record<string, Kind> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'route',
  ENETUNREACH: 'route',
};

/** Node's and OpenSSL's codes for a certificate or handshake the client refused. */
const TLS_CODE = /^(CERT_|UNABLE_TO_|ERR_TLS_|ERR_SSL_)|SELF_SIGNED/;

/** What kind of "cannot reach" a network error's code is, or undefined for another failure (a reset, a time-out). */
export function unreachableKind(code: string): Kind | undefined {
  return KINDS[code] ?? (TLS_CODE.test(code) ? 'tls' : undefined);
}

const WHAT: Record<Kind, string> = {
  refused: 'the connection was refused: nothing listens there',
  dns: 'the host name does not resolve',
  route: 'the runner has no route to that host',
  tls: 'its TLS certificate was not accepted',
};

const CHECK: Record<Kind, string> = {
  refused:
    "Check base-url's port and host, that the service runs, and that the runner's network reaches it (a firewall, a self-hosted runner's network, the proxy: HTTPS_PROXY, NO_PROXY).",
  dns: "Check base-url's host name, the runner's DNS, and the proxy (HTTPS_PROXY, NO_PROXY).",
  route:
    "Check base-url's host and the runner's network (a firewall, a self-hosted runner's network, the proxy: HTTPS_PROXY, NO_PROXY).",
  tls: "Check that base-url names the host the certificate is for; for a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file in the step's env; a proxy that inspects TLS (HTTPS_PROXY) needs its authority there too.",
};

/** The service never answered in this run: base-url or the runner's network, named with what to check. */
export class UnreachableError extends DeployError {
  override name = 'UnreachableError';

  /** `tried`: the attempts made and the time from the first to the last. */
  constructor(failure: NetworkError, baseUrl: string, tried: { attempts: number; ms: number }) {
    const kind = unreachableKind(failure.code) ?? 'refused';
    const url = new URL(baseUrl);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const retried =
      tried.attempts > 1 ? `${tried.attempts} attempts over ${seconds(tried.ms)}, ` : '';
    super(
      `Cannot reach the service at ${url.hostname} port ${port} (base-url ${baseUrl}): network error ${failure.code}, ${WHAT[kind]} (${retried}no answer yet in this run). ${CHECK[kind]}`,
    );
  }
}
