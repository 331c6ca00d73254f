// GitLab's REST API (v4) at CI_API_V4_URL, through the run's transport, for the merge request note. Best effort like
// the GitHub features: each call is made once, bounded in time and size, its answer checked with zod; a failure is
// a warning naming what the token needs, and the answer is undefined.
import { withoutTrailingSlashes } from '../../shared/url.ts';
import type * as z from '../../shared/zod.ts';
import type { IntegrationRun } from '../../core/host.ts';
import { parseJson } from '../../service/json.ts';
import type { Transport } from '../../service/transport.ts';
import { timeLimit } from '../../shared/clock.ts';
import type { CallLimits } from '../best-effort.ts';

/** A page of 100 notes, each up to GitLab's own limit: far above what a merge request shows, far below memory. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

interface GitLabCall<T> {
  /** For the warning: "Reading the notes of merge request !12". */
  what: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Under CI_API_V4_URL, query included. */
  path: string;
  body?: unknown;
  answer: z.ZodMiniType<T>;
}

export class GitLabApi {
  private readonly transport: Transport;
  private readonly apiUrl: string;
  private readonly token: string;
  private readonly log: IntegrationRun['log'];

  constructor(options: {
    transport: Transport;
    apiUrl: string;
    token: string;
    log: IntegrationRun['log'];
  }) {
    this.transport = options.transport;
    this.apiUrl = withoutTrailingSlashes(options.apiUrl);
    this.token = options.token;
    this.log = options.log;
  }

  async call<T>(call: GitLabCall<T>, limits: CallLimits): Promise<T | undefined> {
    const { log } = this;
    const timer = timeLimit(limits.time, limits.timeoutMs);
    const signal = limits.signal ? AbortSignal.any([timer.signal, limits.signal]) : timer.signal;
    try {
      const answer = await this.transport.send({
        method: call.method,
        url: `${this.apiUrl}${call.path}`,
        headers: {
          'PRIVATE-TOKEN': this.token,
          Accept: 'application/json',
          ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
        maxBytes: MAX_ANSWER_BYTES,
      });
      if (answer.status < 200 || answer.status > 299) {
        // GitLab's messages often start with the status already ("403 Forbidden").
        const message = messageOf(answer.body, log);
        const status = String(answer.status);
        const detail = message.startsWith(status) ? message : `${status} ${message}`.trim();
        log.warning(
          `${call.what} failed (${detail}); ${hint(answer.status)}. ${limits.unaffected}`,
        );
        return undefined;
      }
      const parsed = call.answer.safeParse(
        answer.body === undefined ? undefined : parseJson(answer.body),
      );
      if (parsed.success) return parsed.data;
      log.warning(
        `${call.what}: GitLab answered ${answer.status} with a body this action cannot read (${parsed.error.issues[0]?.path.join('.') || 'the body'}); skipped. ${limits.unaffected}`,
      );
      return undefined;
    } catch (error) {
      if (limits.signal?.aborted) {
        log.info(`${call.what}: stopped, the job was cancelled.`);
        return undefined;
      }
      const detail = timer.signal.aborted
        ? `no answer within ${Math.round(limits.timeoutMs / 100) / 10} s`
        : error instanceof SyntaxError
          ? 'an answer that is not JSON'
          : String((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      log.warning(`${call.what} failed (${detail}). ${limits.unaffected}`);
      return undefined;
    } finally {
      timer.dispose();
    }
  }
}

/** GitLab's `message` (or OAuth's `error_description`), as one redacted field: its words are data. */
function messageOf(body: string | undefined, log: IntegrationRun['log']): string {
  let message: unknown;
  try {
    const data = body === undefined ? undefined : (parseJson(body) as Record<string, unknown>);
    message = data?.message ?? data?.error_description ?? data?.error;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  if (message === undefined) return '';
  return log.field(typeof message === 'string' ? message : JSON.stringify(message), 200);
}

function hint(status: number): string {
  return status === 401 || status === 403 || status === 404
    ? 'GITLAB_TOKEN needs the api scope and access to the project (at least the Reporter role)'
    : 'GitLab did not take it';
}
