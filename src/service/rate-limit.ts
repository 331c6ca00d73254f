// What a service says of its rate limit in an answer's headers, read as data (bounded, and ignored when malformed):
// the IETF draft's RateLimit-Policy and RateLimit, in the structured form of its later versions
// (`"default";q=100;w=60`, `"default";r=50;t=30`) and the key=value form of its earlier ones (`100;w=60`,
// `limit=100, remaining=50, reset=30`), and the RateLimit-Remaining/-Reset and X-RateLimit-Remaining/-Reset pairs
// many services send.
import type { IncomingHttpHeaders } from 'node:http';

export interface RateLimitInfo {
  /** The most requests the service allows per window: the pace it allows over time. */
  policy?: { quota: number; windowMs: number };
  /** The requests left until `resetMs` from the answer (both or neither). */
  remaining?: number;
  resetMs?: number;
}

/** Beyond these a value is not believed: no limit is that generous, no window that long. */
const MAX_COUNT = 1_000_000;
const MAX_SECONDS = 86_400;
/** A reset above this is a time (seconds since the epoch, as some services send), not seconds from now. */
const EPOCH_AFTER = 1_000_000_000;

/** `wall`: the runner's wall time, for a reset given as a time when the answer has no `Date`. */
export function rateLimitOf(headers: IncomingHttpHeaders, wall: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const policy = policyOf(text(headers['ratelimit-policy']));
  if (policy) info.policy = policy;
  const left =
    leftOf(text(headers.ratelimit)) ??
    pairOf(headers['ratelimit-remaining'], headers['ratelimit-reset']) ??
    pairOf(headers['x-ratelimit-remaining'], headers['x-ratelimit-reset']);
  if (left) {
    const served = Date.parse(text(headers.date) ?? '');
    const at = Number.isNaN(served) ? wall : served;
    const resetMs = left.reset > EPOCH_AFTER ? left.reset * 1000 - at : left.reset * 1000;
    if (left.remaining <= MAX_COUNT && resetMs >= 0 && resetMs <= MAX_SECONDS * 1000) {
      info.remaining = left.remaining;
      info.resetMs = resetMs;
    }
  }
  return info;
}

/** The strictest policy of a RateLimit-Policy list: the fewest requests per second. */
function policyOf(value: string | undefined): RateLimitInfo['policy'] {
  let strictest: RateLimitInfo['policy'];
  for (const item of items(value)) {
    const quota = count(item.params.get('q') ?? (item.head.startsWith('"') ? '' : item.head));
    const window = count(item.params.get('w') ?? '');
    if (!quota || quota > MAX_COUNT || !window || window > MAX_SECONDS) continue;
    if (!strictest || quota / window < strictest.quota / (strictest.windowMs / 1000))
      strictest = { quota, windowMs: window * 1000 };
  }
  return strictest;
}

/** RateLimit: the policy with the fewest requests left, in either form of the draft. */
function leftOf(value: string | undefined): { remaining: number; reset: number } | undefined {
  const found = items(value);
  // The earlier form is one dictionary over the list: limit=100, remaining=50, reset=30.
  const dictionary = new Map(found.map((item) => keyValue(item.head)));
  const flat = pair(dictionary.get('remaining'), dictionary.get('reset'));
  if (flat) return flat;
  let fewest: { remaining: number; reset: number } | undefined;
  for (const item of found) {
    const left = pair(item.params.get('r'), item.params.get('t'));
    if (left && (!fewest || left.remaining < fewest.remaining)) fewest = left;
  }
  return fewest;
}

function pairOf(
  remaining: string | string[] | undefined,
  reset: string | string[] | undefined,
): { remaining: number; reset: number } | undefined {
  return pair(text(remaining), text(reset));
}

function pair(
  remaining: string | undefined,
  reset: string | undefined,
): { remaining: number; reset: number } | undefined {
  const left = count(remaining ?? '');
  const at = count(reset ?? '');
  return left === undefined || at === undefined ? undefined : { remaining: left, reset: at };
}

/** The members of a list header: each its first part and its `;key=value` parameters. */
function items(value: string | undefined): { head: string; params: Map<string, string> }[] {
  if (!value) return [];
  return value.split(',').map((item) => {
    const [head = '', ...rest] = item.split(';').map((part) => part.trim());
    return { head, params: new Map(rest.map(keyValue)) };
  });
}

function keyValue(part: string): [string, string] {
  const at = part.indexOf('=');
  return at === -1
    ? [part.toLowerCase(), '']
    : [part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim()];
}

/** A whole number of at most ten digits (a time in seconds since the epoch has ten), or undefined. */
function count(value: string): number | undefined {
  return /^\d{1,10}$/.test(value) ? Number(value) : undefined;
}

/** A header's one value: a repeated header (an array) is not one this action reads. */
function text(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
