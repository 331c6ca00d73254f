import { withoutTrailingSlashes } from '../shared/url.ts';
import type { IncomingMessage } from 'node:http';
import type * as z from '../shared/zod.ts';
import type { Logger } from '../core/logger.ts';
import type { Excerpt } from '../core/sinks.ts';
import { redactDeep } from '../shared/redact.ts';
import { type Clock, timeLimit } from '../shared/clock.ts';
import { DeadlineError, HttpError, NetworkError, ResponseError } from './errors.ts';
import { CancelledError, seconds, UnsentError } from '../shared/time.ts';
import { parseJson } from './json.ts';
import { proxyFailure } from './proxy.ts';
import type { Call } from './calls.ts';
import { Pacer } from './pacer.ts';
import {
  askedToWait,
  backoffMs,
  comeBackLater,
  isRetryable,
  Outage,
  Pace,
  type RetryPolicy,
  waitPastDeadline,
} from './retry.ts';
import { ErrorBody } from './schemas.ts';
import type { Transport } from './transport.ts';
import {
  HUNG_UP,
  neverSent,
  UNREACHABLE_RETRY_MS,
  unreachableKind,
  UnreachableError,
} from './unreachable.ts';

export interface HttpSettings {
  baseUrl: string;
  apiKey: string;
  tenantId?: string;
  /** Time limit of one request, answer body included. */
  requestTimeoutMs: number;
  /**
   * Text from the service as a message may quote it, from the sink layer (the only one that cuts data): one line,
   * every secret hidden (a server may echo the request), at most `max` characters.
   */
  excerpt: Excerpt;
  /** How long reads keep retrying while nothing answers (default 5 min). */
  patienceMs?: number;
  /**
   * Calls go side by side (a list of deployments): a come-back-later told to one holds every call (the pacer's hold).
   * A run of one deployment sends one call at a time, and re-reads at once what a write refused so did.
   */
  sideBySide?: boolean;
}

/** When the run must be over, and the job's cancellation. */
export interface RunClock {
  /** The run's one clock: every deadline and elapsed time is read from it. */
  time: Clock;
  /** On `time`'s scale. */
  deadline: number;
  signal: AbortSignal;
  /** The input that set the deadline, for messages: "timeout 30s". */
  limit: string;
  /** Requests that go at once, past a hold and the pace: the read that tells what a write did (ServiceClient.urgent). */
  urgent?: boolean;
}

/** A connection refused or a name that does not resolve (or a certificate the client refused, below: neverSent): nothing went out. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const MESSAGE_LIMIT = 300;
/** Where an HTML page's title is looked for: a title further in is not worth reading the page for. */
const TITLE_SCAN = 16 * 1024;
/** A page of 100 deployments is a few hundred KiB; a body past this is not an answer of the interface. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A request may start until the deadline (a last status read falls on it) and is cut this long after it. */
const DEADLINE_SLACK_MS = 2000;
/** How long a write in flight may still take once the job is cancelled (the runner sends SIGTERM 7.5 s after SIGINT). */
const WRITE_GRACE_MS = 5000;
/** A 429 without Retry-After holds the other calls this long. */
const HOLD_MS = 1000;

export class ServiceHttp {
  private readonly transport: Transport;
  private readonly headers: Record<string, string>;
  private readonly settings: HttpSettings;
  private readonly log: Logger;
  private readonly outage: Outage;
  private readonly time: Clock;
  /** Stretches status polling while the service rate-limits. */
  readonly pace = new Pace();
  /**
   * Every request's turn: a slow start, then the rate the service allows, and a hold when it says to come back later.
   * A list of deployments sends its calls side by side through this one client, so one call told so holds them all,
   * instead of each finding out with a refusal of its own.
   */
  private readonly pacer: Pacer;
  /** Whether anything has answered in this run (any status): until then, "cannot reach" is base-url's fault. */
  private answered = false;
  /** The first "cannot reach" failure before any answer: when, and the attempts since. */
  private unreachable?: { since: number; attempts: number };

  constructor(settings: HttpSettings, log: Logger, time: Clock, transport: Transport) {
    this.settings = settings;
    this.log = log;
    this.time = time;
    this.transport = transport;
    this.pacer = new Pacer(time);
    this.outage = new Outage(log, time, settings.patienceMs);
    this.headers = {
      'x-api-key': settings.apiKey,
      accept: 'application/json',
      ...(settings.tenantId ? { 'x-tenant-id': settings.tenantId } : {}),
    };
  }

  /** The tenant every request names (X-Tenant-Id), for messages about what was not found there. */
  get tenantId(): string | undefined {
    return this.settings.tenantId;
  }

  /** The sinks' excerpt (HttpSettings.excerpt), for the layers above that quote the service's data. */
  get excerpt(): Excerpt {
    return this.settings.excerpt;
  }

  /**
   * One call, retried as its policy allows for as long as the deadline and the patience allow: not a fixed number
   * of attempts, so a busy or restarting service costs time, not a red build.
   */
  async send<T>(call: Call<T>, clock: RunClock): Promise<T> {
    const label = `${call.method} ${call.path}`;
    let limited = false;
    for (let attempt = 1; ; attempt++) {
      let failure: HttpError | NetworkError;
      const turn = await this.pacer.turn(clock).catch(unsent(label));
      try {
        const { status, headers, text, url } = await this.once(call, clock);
        turn.done({ status, headers });
        this.answered = true;
        const { excerpt } = this.settings;
        const page = htmlPage(headers, text, excerpt);
        if (status >= 200 && status < 300 && !page) {
          this.outage.answered();
          if (!limited) this.pace.answered();
          return parseBody(label, headers, text, excerpt, call.schema);
        }
        // An HTML page, or a 404 on a path without an id of the user's: the request did not reach the API.
        const elsewhere = page !== undefined || (status === 404 && !call.notFound);
        const request = elsewhere ? `${call.method} ${url}` : label;
        if (page && status < 300)
          throw new ResponseError(`${request} answered ${describePage(page)}${BASE_URL_HINT}`);
        failure = new HttpError(status, {
          request,
          server: page ? describePage(page) : serverMessage(text, excerpt),
          // A gateway's 5xx page is an outage on the way, not a wrong base-url: the status's own advice.
          hint:
            elsewhere && !(page && status >= 500)
              ? BASE_URL_HINT
              : status === 404
                ? `. ${call.notFound}`
                : undefined,
          retryAfterMs: retryAfterMs(headers, this.time),
          tenantId: this.settings.tenantId,
        });
      } catch (error) {
        turn.done(error instanceof NetworkError ? 'failed' : undefined);
        if (!(error instanceof NetworkError)) throw error;
        failure = error;
      }
      if ('status' in failure && failure.status === 429) {
        limited = true;
        this.pace.limited();
      }
      if (this.settings.sideBySide && 'status' in failure && comeBackLater(failure))
        this.pacer.hold({
          until: this.time.now() + (failure.retryAfterMs ?? HOLD_MS),
          asked:
            failure.retryAfterMs === undefined
              ? `${label} answered ${failure.status} without Retry-After: every request of the list holds ${seconds(HOLD_MS)}`
              : askedToWait(label, failure),
        });
      // A wait asked for past the deadline, before a retry, ends the run at once, never ignored. A deployment write
      // is re-read first (the command's resendDelay names the wait then).
      if ('status' in failure && !clock.signal.aborted && isRetryable(call.retry, failure)) {
        const tooLate = waitPastDeadline(label, failure, this.time.now(), clock);
        if (tooLate) throw tooLate;
      }
      const early = this.unreachableWindow(failure, call);
      const delay = this.retryDelay(call.retry, failure, attempt, clock, early);
      if (delay === undefined) {
        if (early && !clock.signal.aborted) throw this.unreachableError(failure as NetworkError);
        failure.message += this.outage.summary();
        throw failure;
      }
      this.outage.retrying(
        label,
        describe(failure),
        clock.deadline,
        clock.limit,
        early === undefined ? undefined : { until: early, bound: 'no answer yet in this run' },
      );
      this.log.debug(
        `${label}: ${describe(failure)}; attempt ${attempt + 1} in ${(delay / 1000).toFixed(1)} s`,
      );
      await this.time.sleep(delay, clock.signal).catch(unsent(label));
    }
  }

  /**
   * Milliseconds to wait before the next attempt, or undefined to give up. `until`: the end of the short window of
   * a service that has never answered, which then bounds the retries instead of the patience.
   */
  private retryDelay(
    policy: RetryPolicy,
    failure: HttpError | NetworkError,
    attempt: number,
    clock: RunClock,
    until?: number,
  ): number | undefined {
    if (clock.signal.aborted || !isRetryable(policy, failure)) return undefined;
    if (!this.outage.patient()) return undefined;
    const delay = backoffMs(attempt, 'status' in failure ? failure.retryAfterMs : undefined);
    // A retry that cannot finish before the deadline only delays the failure.
    return this.time.now() + delay < Math.min(clock.deadline, until ?? Infinity)
      ? delay
      : undefined;
  }

  /**
   * For a refused connection, a name that does not resolve, a refused certificate, a scheme the port does not speak
   * or a proxy that cannot reach the service, before anything has answered in this run: when its retries end
   * (UNREACHABLE_RETRY_MS after the first). Undefined for any other failure, and for a write whose connection was
   * closed without an answer or broke in TLS (it may have been applied: its outcome is the command's to find out).
   */
  private unreachableWindow(
    failure: HttpError | NetworkError,
    call: Call<unknown>,
  ): number | undefined {
    if (this.answered || !(failure instanceof NetworkError)) return undefined;
    const kind = unreachableKind(failure, new URL(this.settings.baseUrl).protocol);
    if (!kind || ((kind === 'not-http' || kind === 'not-tls') && call.method !== 'GET'))
      return undefined;
    this.unreachable ??= { since: this.time.now(), attempts: 0 };
    this.unreachable.attempts++;
    return this.unreachable.since + UNREACHABLE_RETRY_MS;
  }

  private unreachableError(failure: NetworkError): UnreachableError {
    const { since, attempts } = this.unreachable!;
    return new UnreachableError(failure, this.settings.baseUrl, {
      attempts,
      ms: this.time.now() - since,
    });
  }

  private async once(
    call: Call<unknown>,
    clock: RunClock,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; text: string; url: string }> {
    if (clock.signal.aborted) throw new UnsentError(`${call.method} ${call.path}`);
    const left = clock.deadline + DEADLINE_SLACK_MS - this.time.now();
    if (left <= DEADLINE_SLACK_MS / 2) throw new DeadlineError(call.method, call.path, clock.limit);
    const url = new URL(withoutTrailingSlashes(this.settings.baseUrl) + call.path);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const limitMs = Math.ceil(Math.min(this.settings.requestTimeoutMs, left));
    const limit = timeLimit(this.time, limitMs);
    // A cancelled job stops reads at once; a write in flight may finish, so the run knows what it did.
    const cancel =
      call.retry !== 'read' ? timeLimit(this.time, WRITE_GRACE_MS, clock.signal) : undefined;
    const signal = AbortSignal.any([cancel?.signal ?? clock.signal, limit.signal]);
    const data = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers =
      data === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    const started = this.time.now();
    try {
      const answer = await this.transport.send({
        method: call.method,
        url: url.toString(),
        headers,
        body: data,
        signal,
        maxBytes: MAX_BODY_BYTES,
      });
      if (answer.body === undefined)
        throw new ResponseError(
          `${call.method} ${call.path} answered with a body over ${MAX_BODY_BYTES / 1024 / 1024} MiB, the most this action reads: stopped reading. Check base-url: it must point at the service's API.`,
        );
      this.log.debug(
        `${call.method} ${url.pathname}${url.search} -> ${answer.status} in ${Math.round(this.time.now() - started)} ms`,
      );
      return {
        status: answer.status,
        headers: answer.headers,
        text: answer.body,
        url: `${url.origin}${url.pathname}`,
      };
    } catch (error) {
      if (clock.signal.aborted) throw new CancelledError();
      if (error instanceof ResponseError) throw error;
      if (limit.signal.aborted) {
        if (limitMs < this.settings.requestTimeoutMs)
          throw new DeadlineError(call.method, call.path, clock.limit, true);
        throw new NetworkError(
          call.method,
          call.path,
          `no answer within ${this.settings.requestTimeoutMs / 1000} s`,
          false,
        );
      }
      const viaProxy = proxyFailure(call.method, call.path, url, error);
      if (viaProxy) throw viaProxy;
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const message = (error as Error).message;
      // Node's word for a connection closed without a byte of answer, which a TLS port does to plain HTTP.
      const detail = code === 'ECONNRESET' && message === 'socket hang up' ? ` ${HUNG_UP}` : '';
      const reason = `network error ${code || message}${detail}`;
      const kind = unreachableKind({ code, reason }, url.protocol);
      throw new NetworkError(
        call.method,
        call.path,
        reason,
        NOT_SENT_CODES.has(code) || neverSent(kind),
        code,
      );
    } finally {
      limit.dispose();
      cancel?.dispose();
    }
  }
}

function parseBody<T>(
  label: string,
  headers: IncomingMessage['headers'],
  text: string,
  excerpt: Excerpt,
  schema: z.ZodMiniType<T>,
): T {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    // The parser's own message quotes the body: only the depth guard's is shown.
    const type = excerpt(headers['content-type'] ?? 'no content type', 100);
    const why = (error as Error).message.startsWith('nested')
      ? `, ${(error as Error).message}`
      : '';
    throw new ResponseError(
      `${label} answered with a body that is not JSON (${type}${why}): ${JSON.stringify(excerpt(text, 80))}. Check base-url: it must point at the service's API.`,
    );
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : '(body)';
  throw new ResponseError(
    `${label} answered with an unexpected body: field '${field}': ${issue?.message ?? 'invalid'}. The service does not match the interface this action speaks.`,
  );
}

const BASE_URL_HINT =
  ". Check base-url: it must be the service's API root, the part before /v2/… (e.g. https://api.example.com, without /api or /v2).";

/**
 * An HTML page (a proxy's or a web server's) instead of the API's JSON: its content type and title. The title is
 * looked for with indexOf in the first KiBs only (a pattern over the page was quadratic on `<title<title…`), and
 * quoted after its entities are decoded, so a secret spelled in entities is redacted too.
 */
function htmlPage(
  headers: IncomingMessage['headers'],
  text: string,
  excerpt: Excerpt,
): { type: string; title?: string } | undefined {
  const type = headers['content-type'] ?? '';
  const head = text.slice(0, TITLE_SCAN);
  if (!/text\/html/i.test(type) && !/^\s*<(!doctype html|html)[\s>]/i.test(head)) return undefined;
  const title = titleOf(head);
  return {
    type: type ? excerpt(type, 100) : 'no content type',
    title: title ? excerpt(decodeEntities(title), 80) || undefined : undefined,
  };
}

/** The text of the first `<title …>…</title>` in `head`, by indexOf: linear in the text, whatever it holds. */
function titleOf(head: string): string | undefined {
  for (let at = head.indexOf('<'); at !== -1; at = head.indexOf('<', at + 1)) {
    if (head.slice(at + 1, at + 6).toLowerCase() !== 'title') continue;
    if (!/[\s/>]/.test(head.charAt(at + 6))) continue;
    const open = head.indexOf('>', at + 6);
    const close = open === -1 ? -1 : head.indexOf('<', open + 1);
    if (close === -1 || head.slice(close, close + 7).toLowerCase() !== '</title') return undefined;
    return head.slice(open + 1, close);
  }
  return undefined;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Numeric and the common named HTML entities as the characters they stand for; others as written. */
function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,5});/gi, (all, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? all;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

function describePage(page: { type: string; title?: string }): string {
  return `an HTML page (${page.type}${page.title ? `, titled "${page.title}"` : ''}), not the service's JSON`;
}

/**
 * What the service said in an error body, quoted through `excerpt`. JSON is redacted again once decoded: a secret
 * partly \u-escaped on the wire, or split by an escaped control character, only shows as itself after parsing.
 */
function serverMessage(text: string, excerpt: Excerpt): string {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    return excerpt(text, MESSAGE_LIMIT);
  }
  const parsed = ErrorBody.safeParse(json);
  if (!parsed.success)
    return excerpt(JSON.stringify(redactDeep(json, (s) => excerpt(s, Infinity))), MESSAGE_LIMIT);
  const { detail } = parsed.data;
  if (typeof detail === 'string') return excerpt(detail, MESSAGE_LIMIT);
  // FastAPI validation items also carry the rejected `input`, which may hold secret values: only loc and msg are shown.
  return excerpt(
    detail.map((d) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; '),
    MESSAGE_LIMIT,
  );
}

/** A date is measured against the answer's own `Date`: the server's clock may be far from the runner's. */
function retryAfterMs(headers: IncomingMessage['headers'], time: Clock): number | undefined {
  const value = headers['retry-after'];
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const served = Date.parse(headers.date ?? '');
  // Without one, the runner's wall clock: a date can only be compared with another.
  return Math.max(0, at - (Number.isNaN(served) ? time.wall() : served));
}

function describe(failure: HttpError | NetworkError): string {
  return failure instanceof HttpError ? `HTTP ${failure.status}` : failure.reason;
}

/** A cancel before `label` went out, said so: see UnsentError. */
function unsent(label: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof CancelledError ? new UnsentError(label) : error;
  };
}
