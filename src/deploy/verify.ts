// verify-url: after DEPLOYED, does the agent answer? GET until a 2xx, with growing gaps, within verify-timeout.
import { DeployError } from '../core/errors.ts';
import type { Transport } from '../service/transport.ts';
import { absoluteHttpUrl, isSecureOrLoopback, withoutQuery } from '../shared/url.ts';
import { type Clock, timeLimit } from '../shared/clock.ts';
import { CancelledError, compact, DoublingGap } from '../shared/time.ts';
import type { Logger } from '../core/logger.ts';
import type { FollowSettings } from '../inputs/index.ts';
import type { Plan, Verification } from '../core/report.ts';

const ATTEMPT_LIMIT_MS = 10_000;
const FIRST_GAP_MS = 1000;
const GAP_CAP_MS = 10_000;
/** A body is measured up to this, never shown: the agent's words are its own (and may echo what it was given). */
const BODY_CAP_BYTES = 4096;

/**
 * The URL to check: verify-url itself when absolute, else the path resolved against `base`: the custom-url input
 * when given, else the deployment's custom_url as read before any write, never what the service answers after it
 * (the service would choose where the check goes). A bare host is taken as https://. Throws DeployError naming what
 * is missing or not allowed; a message never quotes a query (it may carry a token and reach a PR comment).
 */
function resolveVerifyUrl(given: string, base: string | null | undefined): string {
  let url: string;
  const path = withoutQuery(given);
  if (given.startsWith('/')) {
    if (!base)
      throw new DeployError(
        `verify-url ${path} is a path, but the deployment has no custom_url to resolve it against: set custom-url, or give verify-url as an absolute https:// URL.`,
      );
    const root = absoluteHttpUrl(base);
    if (!root)
      throw new DeployError(
        `verify-url ${path} is a path, but custom_url ${withoutQuery(base)} is not an http(s) URL to resolve it against: set custom-url, or give verify-url as an absolute https:// URL.`,
      );
    url = new URL(given, root).toString();
  } else url = given;
  const parsed = new URL(url);
  if (!isSecureOrLoopback(parsed))
    throw new DeployError(
      `verify-url resolves to ${parsed.protocol}//${parsed.host}: only https:// is checked (http:// only for loopback hosts); give an https:// URL.`,
    );
  return url;
}

/**
 * Before any write: verify-url must resolve against `base` (see resolveVerifyUrl), or the run stops here; the URL
 * found is the one checked after DEPLOYED. A dry run shows the URL, or why it cannot be resolved, instead of
 * stopping.
 */
export function checkVerifiable(
  settings: FollowSettings & { dryRun: boolean },
  base: string | null | undefined,
): Plan['verify'] {
  if (!settings.verify) return undefined;
  try {
    return { url: resolveVerifyUrl(settings.verify.url, base) };
  } catch (error) {
    if (!settings.dryRun) throw error;
    return { problem: (error as Error).message };
  }
}

/** What follow() checks after DEPLOYED: the URL as resolved before the write, within verify-timeout. */
export interface VerifyCheck {
  url: string;
  timeoutMs: number;
}

/** The check to make after the write, from checkVerifiable's answer (which has a URL whenever a write follows). */
export function verifyCheck(
  settings: FollowSettings,
  planned: Plan['verify'],
): VerifyCheck | undefined {
  return settings.verify && planned?.url
    ? { url: planned.url, timeoutMs: settings.verify.timeoutMs }
    : undefined;
}

/**
 * GETs `url` until a 2xx answer or `timeoutMs`. No credentials go there (none of the service's headers), redirects
 * are not followed, each attempt has its own time limit, and bodies are read only up to a few KiB. An answer is
 * shown as its status code and body length only. Answers what it saw; a cancel is thrown on.
 */
export async function verify(
  url: string,
  timeoutMs: number,
  context: { transport: Transport; signal: AbortSignal; time: Clock; log: Logger },
): Promise<Verification> {
  const { transport, signal, time, log } = context;
  const started = time.now();
  const deadline = started + timeoutMs;
  const seen: Verification = { url, ok: false, attempts: 0 };
  const gap = new DoublingGap(FIRST_GAP_MS, GAP_CAP_MS);
  log.info(`Checking that the agent answers ${url} (verify-timeout ${compact(timeoutMs)}).`);
  for (;;) {
    seen.attempts++;
    const answer = await probe(
      transport,
      time,
      url,
      Math.min(ATTEMPT_LIMIT_MS, Math.max(1000, deadline - time.now())),
      signal,
    );
    if (answer.ok) {
      seen.ok = true;
      seen.okAfterMs = time.now() - started;
      log.info(
        `${url} answered ${answer.text} after ${seen.attempts} ${seen.attempts === 1 ? 'attempt' : 'attempts'}.`,
      );
      return seen;
    }
    if (seen.lastAnswer !== answer.text)
      log.info(`${url}: ${answer.text}; trying again until verify-timeout.`);
    seen.lastAnswer = answer.text;
    if (time.now() + gap.ms > deadline) return seen;
    await time.sleep(gap.ms, signal);
    gap.grow();
  }
}

async function probe(
  transport: Transport,
  time: Clock,
  url: string,
  limitMs: number,
  cancel: AbortSignal,
): Promise<{ ok: boolean; text: string }> {
  if (cancel.aborted) throw new CancelledError();
  const limit = timeLimit(time, limitMs);
  try {
    const { status, body } = await transport.send({
      method: 'GET',
      url,
      headers: {},
      signal: AbortSignal.any([cancel, limit.signal]),
      maxBytes: BODY_CAP_BYTES,
    });
    if (status >= 200 && status < 300) return { ok: true, text: `HTTP ${status}` };
    const size =
      body === undefined ? `over ${BODY_CAP_BYTES / 1024} KiB` : `${Buffer.byteLength(body)} bytes`;
    const redirect = status >= 300 && status < 400 ? ', a redirect, not followed' : '';
    return { ok: false, text: `HTTP ${status}${redirect} (body: ${size})` };
  } catch (error) {
    if (cancel.aborted) throw new CancelledError();
    if (limit.signal.aborted)
      return { ok: false, text: `no answer within ${Math.round(limitMs / 1000)} s` };
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, text: `network error ${code ?? (error as Error).message}` };
  } finally {
    limit.dispose();
  }
}
