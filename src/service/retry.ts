// When a failed request is tried again, how long to wait first, and when to stop.
import type { Logger } from '../core/logger.ts';
import { type Clock, wallTimeOf } from '../shared/clock.ts';
import { compact, seconds } from '../shared/time.ts';
import { DeadlineError, HttpError, NetworkError, RetryAfterError } from './errors.ts';

/**
 * read: idempotent, retried on network errors and 408/429/5xx.
 * write: retried only where it surely did not take effect (not sent, or a 429); the token metadata update, which
 *   has no re-read to tell whether a 503 with Retry-After applied it, so it is not sent again after one.
 * recheck: a write of a deployment (create, PATCH, redeploy), retried here only when nothing was sent. After any
 *   other failure the command re-reads the deployment to learn what the write did before it sends it again.
 */
export type RetryPolicy = 'read' | 'write' | 'recheck';

const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
/** The most jitter added on top of a Retry-After. */
const RETRY_AFTER_JITTER_MS = 10_000;
/** Reads give up when the service has not answered one request successfully for this long (or at the deadline). */
const PATIENCE_MS = 5 * 60_000;
/** Sends of one deployment write that failed ambiguously (5xx, reset, no answer), each re-read as not applied. */
const AMBIGUOUS_SENDS = 3;

/** A host name that does not resolve is a typo in base-url, not an outage (EAI_AGAIN is the passing kind). */
const PERMANENT_NETWORK = new Set(['ENOTFOUND']);

export function isTransient(failure: HttpError | NetworkError): boolean {
  if ('status' in failure) return TRANSIENT.has(failure.status);
  return !PERMANENT_NETWORK.has(failure.code);
}

export function isRetryable(policy: RetryPolicy, failure: HttpError | NetworkError): boolean {
  if (policy === 'read') return isTransient(failure);
  if (!('status' in failure)) return failure.notSent && isTransient(failure);
  return policy === 'write' && failure.status === 429;
}

/** A 429 was not processed; a 503 with Retry-After is the service saying so too (though a proxy may say it late). */
export function comeBackLater(failure: HttpError): boolean {
  return failure.status === 429 || (failure.status === 503 && failure.retryAfterMs !== undefined);
}

/** How an answer asked to come back later, for the error when that is past the deadline. */
export function askedToWait(label: string, failure: HttpError): string {
  return `${label} answered ${failure.status} with Retry-After: the service asks to wait ${seconds(failure.retryAfterMs ?? 0)}`;
}

/**
 * The error that ends the run at once when `failure`'s Retry-After would end past the deadline (a retry after it
 * could not even start); undefined when it has none or it ends in time.
 */
export function waitPastDeadline(
  label: string,
  failure: HttpError,
  now: number,
  clock: { deadline: number; limit: string },
): RetryAfterError | undefined {
  if (failure.retryAfterMs === undefined || now + failure.retryAfterMs <= clock.deadline)
    return undefined;
  return new RetryAfterError(askedToWait(label, failure), clock.limit, clock.deadline - now);
}

/**
 * A write's failure after which it may have taken effect: no answer or a reset, a 5xx, a 408 or 429 (what the
 * service did is its word only), or the deadline cutting it in flight. Anything else surely did not apply it.
 */
export function outcomeUnknown(error: unknown): error is HttpError | NetworkError | DeadlineError {
  if (error instanceof NetworkError) return !error.notSent;
  if (error instanceof HttpError)
    return error.status >= 500 || error.status === 408 || error.status === 429;
  return error instanceof DeadlineError && error.inFlight;
}

/**
 * Whether a deployment write that failed so, and then re-read as not applied, may be sent again: after a
 * come-back-later for as long as the deadline allows, after an ambiguous failure up to three sends in all (a service
 * failing one request each time is not hammered with it), never once the deadline cut it.
 */
export function mayResend(
  failure: HttpError | NetworkError | DeadlineError,
  sends: number,
): boolean {
  if (failure instanceof DeadlineError) return false;
  return (failure instanceof HttpError && comeBackLater(failure)) || sends < AMBIGUOUS_SENDS;
}

/**
 * Full-jitter exponential backoff capped at 30 s; after a Retry-After, that wait plus a jitter that grows with the
 * attempts (up to 10 s), so jobs told the same time spread out more each time they are refused again.
 */
export function backoffMs(attempt: number, retryAfterMs: number | undefined): number {
  const spread = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  if (retryAfterMs !== undefined)
    return retryAfterMs + Math.random() * Math.min(Math.max(spread, 1000), RETRY_AFTER_JITTER_MS);
  return Math.random() * spread;
}

/**
 * How hard the service is pushing back: each 429 doubles the factor by which status polling stretches its gaps
 * (up to 8), each clean answer halves it again, so a matrix of jobs backs off together and recovers gradually.
 */
export class Pace {
  private factor = 1;

  limited(): void {
    this.factor = Math.min(this.factor * 2, 8);
  }

  answered(): void {
    this.factor = Math.max(1, this.factor / 2);
  }

  stretch(ms: number): number {
    return ms * this.factor;
  }
}

/** One log line when the service starts failing and one when it answers again; the attempts between go to debug. */
export class Outage {
  /** When the last request answered 2xx (on `time`): reads stop retrying `patienceMs` after it. */
  private lastSuccess: number;
  private since?: number;
  private retries = 0;
  private readonly log: Logger;
  private readonly time: Clock;
  private readonly patienceMs: number;

  constructor(log: Logger, time: Clock, patienceMs = PATIENCE_MS) {
    this.log = log;
    this.time = time;
    this.patienceMs = patienceMs;
    this.lastSuccess = time.now();
  }

  /** Whether a retry may still start: the service answered something within the patience. */
  patient(): boolean {
    return this.time.now() - this.lastSuccess < this.patienceMs;
  }

  /** `window`: a shorter bound than the patience (a service that has never answered), and its reason. */
  retrying(
    label: string,
    what: string,
    deadline: number,
    limit: string,
    window?: { until: number; bound: string },
  ): void {
    this.retries++;
    if (this.since !== undefined) return;
    this.since = this.time.now();
    const patience = window?.until ?? this.lastSuccess + this.patienceMs;
    const giveUp = Math.min(deadline, patience);
    const waiting = window
      ? `${compact(window.until - this.since)}: ${window.bound}`
      : `${compact(this.patienceMs)} without an answer`;
    const bound = giveUp === deadline ? limit : waiting;
    this.log.info(
      `The service answers ${what} to ${label}; retrying until ${utc(wallTimeOf(this.time, giveUp))} (${bound}).`,
    );
  }

  answered(): void {
    this.lastSuccess = this.time.now();
    if (this.since === undefined) return;
    this.log.info(
      `The service answers again, after ${seconds(this.lastSuccess - this.since)} and ${this.retries} ${this.retries === 1 ? 'retry' : 'retries'}.`,
    );
    this.since = undefined;
    this.retries = 0;
  }

  /** For the error when retries end: how long they went on. */
  summary(): string {
    if (this.since === undefined) return '';
    return ` Retried ${this.retries} ${this.retries === 1 ? 'time' : 'times'} over ${seconds(this.time.now() - this.since)}.`;
  }
}

function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}
