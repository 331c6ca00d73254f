import { DeployError } from '../core/errors.ts';
import { seconds } from '../shared/time.ts';

/** The service answered with a non-success status. */
export class HttpError extends DeployError {
  override name = 'HttpError';
  readonly status: number;
  readonly retryAfterMs?: number;
  /**
   * `request` is how the request is named ("GET /v2/deployments"); `hint` replaces the status's own advice;
   * `tenantId` is the tenant the request named, which a 403 is about.
   */
  constructor(
    status: number,
    parts: {
      request: string;
      server: string;
      hint?: string;
      retryAfterMs?: number;
      tenantId?: string;
    },
  ) {
    const server = withoutTrailingDots(parts.server);
    super(
      `${parts.request} failed: HTTP ${status}${server ? ` ${server}` : ''}${parts.hint ?? hintFor(status, parts.tenantId)}`,
    );
    this.status = status;
    this.retryAfterMs = parts.retryAfterMs;
  }
}

/** The request did not get an answer: connection refused or reset, time limit, DNS. */
export class NetworkError extends DeployError {
  override name = 'NetworkError';
  readonly reason: string;
  /** True when the request surely never reached the service (nothing was sent). */
  readonly notSent: boolean;
  /** The system error code (ECONNRESET, ENOTFOUND…), empty for a time limit. */
  readonly code: string;
  constructor(method: string, path: string, reason: string, notSent: boolean, code = '') {
    super(
      `${method} ${path} failed: ${reason}${notSent ? '. Check base-url and that the service is reachable from the runner.' : ''}`,
    );
    this.reason = reason;
    this.notSent = notSent;
    this.code = code;
  }
}

/** A proxy on the way refused the request itself (407, or it could not be reached): never retried. */
export class ProxyError extends DeployError {
  override name = 'ProxyError';
}

/** A response that is not what the interface says. */
export class ResponseError extends DeployError {
  override name = 'ResponseError';
}

/** The run's deadline passed before (or while) a request could be made. */
export class DeadlineError extends DeployError {
  override name = 'DeadlineError';
  /** True when the request was sent and then cut: a write may have taken effect. */
  readonly inFlight: boolean;
  constructor(method: string, path: string, limit: string, inFlight = false) {
    super(
      `The ${limit} ran out before ${method} ${path} could answer. Raise timeout if the service is this slow, or check it.`,
    );
    this.inFlight = inFlight;
  }
}

/**
 * The service asked to wait (a Retry-After, or rate-limit headers that leave no request) until past the deadline:
 * the run ends at once instead of waiting through it or ignoring it. `asked`: the request and the wait, a sentence.
 */
export class RetryAfterError extends DeployError {
  override name = 'RetryAfterError';
  constructor(asked: string, limit: string, leftMs: number) {
    super(
      `${asked}, past the end of the ${limit} (${seconds(leftMs)} left): not waited for. Run the job again later, or raise timeout.`,
    );
  }
}

/** The text without its closing dots and spaces: a loop, where `/[.\s]+$/` is quadratic on a long run of them. */
function withoutTrailingDots(text: string): string {
  let end = text.length;
  while (end > 0 && /[.\s]/.test(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

function hintFor(status: number, tenantId: string | undefined): string {
  switch (status) {
    case 400:
      return '. The service rejected the request: check the inputs it names.';
    case 401:
      return '. Check that api-key is valid and, with several tenants, that tenant-id names the tenant that owns the resource.';
    case 403:
      // A wrong tenant and a missing one are told apart: the fix differs.
      return tenantId
        ? `. The key has no access to tenant ${tenantId} (tenant-id), or not to this resource there: check tenant-id, or use an api-key of that tenant.`
        : '. The key was refused, and no tenant-id was sent: if the key has access to several tenants, set tenant-id to the uuid of the tenant that owns the deployments; otherwise check api-key.';
    case 409:
      return '. The service reports a conflicting change: re-run the job; for a name that is taken, pick another name or set deployment-id.';
    case 422:
      return '. The service rejected the request body: fix the inputs named above.';
    case 429:
      return '. Rate limited, and retrying did not get through in time: run fewer jobs at once (max-parallel) or raise timeout.';
    default:
      return status >= 500 ? '. The service failed: retry the job later.' : '';
  }
}
