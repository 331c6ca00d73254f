import type { Logger } from '../../core/logger.ts';
import { timeLimit } from '../../shared/clock.ts';
import type { CallLimits } from '../best-effort.ts';

/** The part of Octokit used here (`octokit.request`), so tests can pass any object that has it. */
export interface GitHubApi {
  request(
    route: string,
    params?: Record<string, unknown>,
  ): Promise<{ status: number; data: unknown }>;
}

/** One request that must not fail the deploy; `what` and `permission` go into the warning. */
interface BestEffortCall {
  what: string;
  permission: string;
  route: string;
  params: Record<string, unknown>;
}

/**
 * Best effort: the request is made once (never retried), aborted past its time limit or on cancel. A failure is a
 * warning saying what failed (the network, the token's permission, GitHub's rate limit, GitHub itself) and what to
 * do, and the answer is undefined.
 */
export async function bestEffort(
  api: GitHubApi,
  log: Logger,
  call: BestEffortCall,
  limits: CallLimits,
): Promise<{ status: number; data: unknown } | undefined> {
  const timer = timeLimit(limits.time, limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([timer.signal, limits.signal]) : timer.signal;
  try {
    return await api.request(call.route, { ...call.params, request: { signal } });
  } catch (error) {
    if (limits.signal?.aborted) {
      log.info(`${call.what}: stopped, the job was cancelled.`);
      return undefined;
    }
    const failure = timer.signal.aborted
      ? `no answer within ${Math.round(limits.timeoutMs / 100) / 10} s); GitHub's API did not answer in time: check the runner's network and GITHUB_API_URL`
      : explain(error, call.permission);
    log.warning(`${call.what} failed (${failure}. ${limits.unaffected}`);
    return undefined;
  } finally {
    timer.dispose();
  }
}

/** The answer of a failed call, as Octokit's RequestError holds it. */
interface Answer {
  status: number;
  headers?: Record<string, string | number | undefined>;
}

/**
 * What failed, closing the parenthesis the warning opened, then what to do: the network (no answer: Octokit gives
 * those status 500 too), the rate limit (403 or 429 with no requests left, or asked to retry later), the token
 * (401), its permission (403, 404: GitHub hides what a token may not see), or GitHub itself.
 */
function explain(error: unknown, permission: string): string {
  const answer = (error as { response?: Answer }).response;
  if (answer === undefined) {
    const code = networkCode(error);
    return `network error${code ? ` ${code}` : ''}: ${messageOf(error)}); GitHub's API could not be reached from the runner: check its network, its proxy and GITHUB_API_URL`;
  }
  const { status, headers = {} } = answer;
  const said = `${status} ${messageOf(error)})`;
  const retryAfter = headers['retry-after'];
  if (
    (status === 403 || status === 429) &&
    (String(headers['x-ratelimit-remaining']) === '0' || retryAfter !== undefined)
  ) {
    // Seconds since the epoch, as GitHub sends it; a value no date has (data, not believed) says nothing.
    const reset = new Date(Number(headers['x-ratelimit-reset']) * 1000);
    const until =
      retryAfter !== undefined
        ? `; GitHub asks to wait ${String(retryAfter)} s`
        : reset.getTime() > 0
          ? `; it resets at ${reset.toISOString()}`
          : '';
    return `${said}; GitHub's API rate limit for this token is spent${until}, and a best-effort call is not retried: fewer jobs calling GitHub at once, or a token with its own limit`;
  }
  if (status === 401)
    return `${said}; github-token was refused: it is expired, revoked or not a token`;
  if (status === 403 || status === 404)
    return `${said}; give the job \`permissions: ${permission}\` (or a github-token that has it)`;
  return `${said}; GitHub failed or refused the call, and a best-effort call is not retried`;
}

/** The system's code of a network failure (ENOTFOUND, ECONNREFUSED, ECONNRESET), through fetch's causes. */
function networkCode(error: unknown): string | undefined {
  for (
    let at = error, depth = 0;
    at && depth < 4;
    at = (at as { cause?: unknown }).cause, depth++
  ) {
    const { code } = at as { code?: unknown };
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/** GitHub's message as it gave it: the log sink redacts it, then cuts it (cut first, a secret's prefix would stay). */
function messageOf(error: unknown): string {
  const data = (error as { response?: { data?: { message?: unknown } } }).response?.data;
  return typeof data?.message === 'string'
    ? data.message
    : String((error as Error).message ?? error);
}
