import type { Logger } from '../core/logger.ts';
import { type Call, listDeployments } from './calls.ts';
import type { Excerpt } from '../core/sinks.ts';
import { type HttpSettings, type RunClock, ServiceHttp } from './http.ts';
import { PossiblyAppliedError } from '../core/errors.ts';
import { type DeadlineError, HttpError, type NetworkError, ResponseError } from './errors.ts';
import { checkIdentity } from './identity.ts';
import { Kept } from './kept.ts';
import { backoffMs, mayResend, type Pace, waitPastDeadline } from './retry.ts';
import type { Deployment } from './schemas.ts';
import type { Transport } from './transport.ts';

export type { HttpSettings, RunClock } from './http.ts';

/** Told of every deployment an answer shows (a list's included), as parsed. */
export type DeploymentObserver = (deployment: Deployment) => void;

/**
 * Sends the calls of calls.ts within one time window; `within` gives another window over the same connection. Every
 * answer is checked to be about what was asked (identity.ts) and kept within the run's bounds (kept.ts).
 */
export class ServiceClient {
  readonly clock: RunClock;
  private readonly http: ServiceHttp;
  private readonly observe: DeploymentObserver;
  /** What the run keeps of the answers, shared by every window. */
  private readonly kept: Kept;
  private readonly window: number;

  private constructor(
    http: ServiceHttp,
    clock: RunClock,
    observe: DeploymentObserver,
    kept: Kept,
    window = kept.window(),
  ) {
    this.http = http;
    this.clock = clock;
    this.observe = observe;
    this.kept = kept;
    this.window = window;
  }

  static open(
    settings: HttpSettings,
    clock: RunClock,
    log: Logger,
    transport: Transport,
    observe: DeploymentObserver = () => undefined,
  ): ServiceClient {
    const http = new ServiceHttp(settings, log, clock.time, transport);
    return new ServiceClient(http, clock, observe, new Kept());
  }

  /**
   * The same client with a deadline of its own (a rollback's window, the short re-read after DEPLOYED, one
   * deployment of a list), and `observe` told of the deployments its answers show instead, when given.
   */
  within(deadline: number, limit: string, observe = this.observe): ServiceClient {
    return new ServiceClient(this.http, { ...this.clock, deadline, limit }, observe, this.kept);
  }

  /**
   * The same client, its requests going at once, past a hold and the pace: for the read that tells what a write did,
   * which a come-back-later answered to that write must not keep back (a run of one deployment holds nothing).
   */
  urgent(): ServiceClient {
    // Its answers are this window's: a run that is full still re-reads what its write did.
    return new ServiceClient(
      this.http,
      { ...this.clock, urgent: true },
      this.observe,
      this.kept,
      this.window,
    );
  }

  /** The tenant the requests name (tenant-id), if any. */
  get tenantId(): string | undefined {
    return this.http.tenantId;
  }

  /** The service's text as a message may quote it: one line, redacted, and only then cut to `max`. */
  get excerpt(): Excerpt {
    return this.http.excerpt;
  }

  /** How much status polling should stretch its gaps while the service rate-limits. */
  get pace(): Pace {
    return this.http.pace;
  }

  async send<T>(call: Call<T>): Promise<T> {
    const label = `${call.method} ${call.path}`;
    this.kept.admit(this.window, label);
    let answer: T;
    try {
      const answered = await this.http.send(call, this.clock);
      checkIdentity(call, answered, this.excerpt);
      answer = this.kept.keep(answered, this.window, withQuery(label, call.query), label);
    } catch (error) {
      throw call.retry === 'read' ? error : answeredWrite(call, error);
    }
    for (const deployment of call.deployments?.(answer) ?? []) this.observe(deployment);
    return answer;
  }

  /**
   * How long to wait before a deployment write (`label`) that failed so, and was re-read as not applied, goes again
   * (its Retry-After, else the backoff of `sends`), or undefined when it may not: see mayResend, the deadline, a
   * cancel. A Retry-After that ends past the deadline throws the RetryAfterError that names it.
   */
  resendDelay(
    label: string,
    failure: HttpError | NetworkError | DeadlineError,
    sends: number,
  ): number | undefined {
    if (!mayResend(failure, sends) || this.clock.signal.aborted) return undefined;
    if (failure instanceof HttpError) {
      const tooLate = waitPastDeadline(label, failure, this.clock.time.now(), this.clock);
      if (tooLate) throw tooLate;
    }
    const delay = backoffMs(sends, 'status' in failure ? failure.retryAfterMs : undefined);
    return this.clock.time.now() + delay < this.clock.deadline ? delay : undefined;
  }

  /** The interface has no get-one-deployment endpoint: the list filtered by id stands in. */
  async getDeployment(id: string): Promise<Deployment | undefined> {
    const { resources } = await this.send(listDeployments({ deployment_ids: id, limit: 1 }));
    return resources.find((d) => d.id === id);
  }
}

/**
 * A write answered with what the run cannot take (a body that is not the resource, an HTML page, another resource,
 * more than the run keeps): it took effect, or may have, so the error says so and is a PossiblyAppliedError, which
 * leaves created and revision-created not known. Any other error is the write's own.
 */
function answeredWrite(call: Call<unknown>, error: unknown): unknown {
  if (!(error instanceof ResponseError)) return error;
  const what = call.asked
    ? `${call.resource} ${call.asked.join(', ')}`
    : `the ${call.resource} it made`;
  return new PossiblyAppliedError(
    `${error.message} The ${call.method} was answered, so it may have taken effect: check ${what} on the service before running the job again.`,
  );
}

/** "GET /v2/deployments?name_contains=a": a call as its answers replace each other in what the run keeps. */
function withQuery(label: string, query: Call<unknown>['query']): string {
  const pairs = Object.entries(query ?? {}).flatMap(([key, value]): [string, string][] =>
    value === undefined ? [] : [[key, String(value)]],
  );
  return pairs.length ? `${label}?${new URLSearchParams(pairs).toString()}` : label;
}
