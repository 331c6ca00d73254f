// verify-url: after DEPLOYED, does the agent answer? GET until a 2xx, with growing gaps, within verify-timeout.
import { InputError } from '../core/errors.ts';
import type { Deployment } from '../service/schemas.ts';
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
 * when given, else the deployment's custom_url as last read (before the write; for a deployment this run creates,
 * the create's answer). A bare host is taken as https://. Throws an Error whose message, after "verify-url", says what
 * is missing or not allowed; it never quotes a query (it may carry a token and reach a PR comment).
 */
function resolveVerifyUrl(given: string, base: string | null | undefined, whose: string): string {
  let url: string;
  const path = withoutQuery(given);
  if (given.startsWith('/')) {
    if (!base)
      throw new Error(
        `${path} is a path, but ${whose} has no custom_url to resolve it against; set custom-url (the agent's address), or give verify-url as an absolute https:// URL.`,
      );
    const root = absoluteHttpUrl(base);
    if (!root)
      throw new Error(
        `${path} is a path, but the custom_url of ${whose}, ${withoutQuery(base)}, is not an http(s) URL to resolve it against; set custom-url, or give verify-url as an absolute https:// URL.`,
      );
    url = new URL(given, root).toString();
  } else url = given;
  const parsed = new URL(url);
  if (!isSecureOrLoopback(parsed))
    throw new Error(
      `resolves to ${parsed.protocol}//${parsed.host}: only https:// is checked (http:// only for loopback hosts); give an https:// URL.`,
    );
  return url;
}

/** verify-url as resolved against `base`, or why it cannot be. */
function resolved(
  given: string,
  base: string | null | undefined,
  whose: string,
): NonNullable<Plan['verify']> {
  try {
    return { url: resolveVerifyUrl(given, base, whose) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/**
 * Before any write to `deployment` (an existing one, as read): verify-url must resolve against the custom-url input,
 * else its custom_url, or the run stops here with an input error; the URL found is the one checked after DEPLOYED.
 * A dry run shows the URL, or why it cannot be resolved, instead of stopping.
 */
export function checkVerifiable(
  settings: FollowSettings & { dryRun: boolean; customUrl?: string },
  deployment: Deployment,
): Plan['verify'] {
  if (!settings.verify) return undefined;
  const found = resolved(
    settings.verify.url,
    settings.customUrl ?? deployment.source_config.custom_url,
    `deployment '${deployment.name}'`,
  );
  if (found.problem && !settings.dryRun) throw new InputError('verify-url', found.problem);
  return found;
}

/**
 * For a deployment this run creates: verify-url resolved against the custom-url input when given, checked before the
 * create like an existing deployment's; else against the create's answer (`created`), and a problem then is the
 * check's result (unhealthy), not a reason to stop before a write already made. Without `created` (before the
 * create, or in a dry run), a path waits for it.
 */
export function checkVerifiableCreated(
  settings: FollowSettings & { dryRun: boolean; customUrl?: string },
  name: string,
  created?: Deployment,
): Plan['verify'] {
  if (!settings.verify) return undefined;
  const { url } = settings.verify;
  const whose = `deployment '${name}', created by this run,`;
  if (settings.customUrl || !url.startsWith('/')) {
    const found = resolved(url, settings.customUrl, whose);
    if (found.problem && !settings.dryRun) throw new InputError('verify-url', found.problem);
    return found;
  }
  if (created) return resolved(url, created.source_config.custom_url, whose);
  return {
    problem: `${withoutQuery(url)} is a path, resolved against the custom_url the service gives the new deployment '${name}', when it gives one; set custom-url to choose it.`,
  };
}

/** What follow() checks after DEPLOYED: verify-url as resolved (or why it could not be), within verify-timeout. */
export type VerifyCheck = NonNullable<Plan['verify']> & { timeoutMs: number };

/** The check to make after the write, from checkVerifiable's answer. */
export function verifyCheck(
  settings: FollowSettings,
  planned: Plan['verify'],
): VerifyCheck | undefined {
  return settings.verify && planned
    ? { ...planned, timeoutMs: settings.verify.timeoutMs }
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
