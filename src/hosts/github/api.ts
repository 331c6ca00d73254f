import type { Logger } from '../../core/logger.ts';
import { type Clock, timeLimit } from '../../shared/clock.ts';

/** The part of Octokit used here (`octokit.request`), so tests can pass any object that has it. */
export interface GitHubApi {
  request(
    route: string,
    params?: Record<string, unknown>,
  ): Promise<{ status: number; data: unknown }>;
}

/** How long one call may take on the run's clock, and the job's cancellation (absent after a cancel). */
export interface CallLimits {
  time: Clock;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One request that must not fail the deploy; `what` and `permission` go into the warning. */
interface BestEffortCall {
  what: string;
  permission: string;
  route: string;
  params: Record<string, unknown>;
}

/**
 * Best effort: the request is made once (never retried), aborted past its time limit or on cancel. A failure
 * is a warning naming the permission the job needs, and the answer is undefined.
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
    // Octokit gives network errors status 500 too; only an answer has a response.
    const answered = (error as { response?: unknown }).response !== undefined;
    const status = answered ? (error as { status?: unknown }).status : undefined;
    const detail = timer.signal.aborted
      ? `no answer within ${Math.round(limits.timeoutMs / 100) / 10} s`
      : `${answered ? `${String(status)} ` : ''}${messageOf(error)}`;
    const hint =
      status === 401 || status === 403 || status === 404
        ? `give the job \`permissions: ${call.permission}\` (or a github-token that has it)`
        : `it needs \`permissions: ${call.permission}\``;
    log.warning(`${call.what} failed (${detail}); ${hint}. The deploy is not affected.`);
    return undefined;
  } finally {
    timer.dispose();
  }
}

/** GitHub's message as it gave it: the log sink redacts it, then cuts it (cut first, a secret's prefix would stay). */
function messageOf(error: unknown): string {
  const data = (error as { response?: { data?: { message?: unknown } } }).response?.data;
  return typeof data?.message === 'string'
    ? data.message
    : String((error as Error).message ?? error);
}
