// Zod schemas for single input values. Each failure is one line naming the problem and the accepted form.
import * as z from '../shared/zod.ts';
import type { Words } from '../core/words.ts';
import { IMAGE_URI, UUID } from '../service/schemas.ts';
import { isSecureOrLoopback, withoutCredentials, withoutTrailingSlashes } from '../shared/url.ts';

/** A text input read by `read`, which answers its value or, through `refuse`, why the text is not one. */
const text = <T>(read: (v: string, ctx: z.core.ParsePayload) => T) =>
  z.pipe(z.string(), z.transform(read));

/** Fails the input with `message`, one line in our words. */
function refuse(ctx: z.core.ParsePayload, input: string, message: string): never {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER;
}

/** A required input, and how to give it in the host's words. */
export const required = (name: string, words: Words) =>
  z.string({ message: `is required; ${words.give(name)}.` });

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => `${shown(issue.input)} is not one of ${values.join(', ')}; use one of them.`,
  });

export const uuid = z.string().check(
  z.regex(UUID, {
    error: (issue) =>
      `${shown(issue.input)} is not a uuid; use the form 123e4567-e89b-42d3-a456-426614174000.`,
  }),
);

export const bool = text((v, ctx) => {
  const lower = v.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return refuse(ctx, v, `${shown(v)} is not a boolean; use true or false.`);
});

/** create: true, false (any case, as booleans are), or always: create even beside a name one typo away. */
export const createMode = text((v, ctx): boolean | 'always' => {
  const lower = v.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (lower === 'always') return 'always';
  return refuse(
    ctx,
    v,
    `${shown(v)} is not true, always or false; use true (create a name that is not one typo away from a deployment's), always or false.`,
  );
});

/** A whole number from `min` to `max` (max-parallel). */
export const between = (min: number, max: number) =>
  text((v, ctx) => {
    const n = /^\d{1,6}$/.test(v) ? Number(v) : NaN;
    if (n >= min && n <= max) return n;
    return refuse(
      ctx,
      v,
      `${shown(v)} is not a whole number from ${min} to ${max}; use one, e.g. ${min + Math.floor((max - min) / 4)}.`,
    );
  });

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000 };
const DURATION_FORM = 'use seconds (900) or a duration such as 90s, 15m, 1h or 1h30m';
/**
 * A duration input: whole seconds or amounts with units, at least one second. Shorter is never meant: no wait, poll
 * or check of this action is that short, and `10ms` is almost always a typo of `10m`, which the message says.
 */
export const duration = text((v, ctx) => {
  let ms = 0;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(v)) {
    for (const [, amount, , unit] of v.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g))
      ms += Number(amount) * UNIT_MS[unit!]!;
  } else {
    return refuse(ctx, v, `${shown(v)} is not a duration; ${DURATION_FORM}.`);
  }
  if (ms < 1000) {
    return refuse(ctx, v, underOneSecond(v));
  }
  return Math.round(ms);
});

/** Why a duration under a second is refused, with what it most likely meant (`10ms` → `10m`). */
function underOneSecond(v: string): string {
  const amount = /^(\d+(\.\d+)?)ms$/.exec(v)?.[1];
  const meant = amount ? ` (milliseconds): did you mean ${amount}m (minutes) or ${amount}s?` : '.';
  return `${shown(v)} is under one second${meant} Every duration is at least 1s; ${DURATION_FORM}.`;
}

export const serviceUrl = text((v, ctx) => {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return refuse(
      ctx,
      v,
      `${shown(withoutCredentials(v))} is not a URL; use the service's base URL, e.g. https://api.example.com.`,
    );
  }
  if (!isSecureOrLoopback(url)) {
    return refuse(
      ctx,
      v,
      `must use https:// (http:// is allowed only for loopback hosts such as 127.0.0.1); got ${url.protocol}//${url.host}.`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    return refuse(
      ctx,
      v,
      'must be a plain base URL without credentials, query or fragment, e.g. https://api.example.com.',
    );
  }
  return withoutTrailingSlashes(url.toString());
});

export const repoUrl = z.url({
  message: 'not a URL; give the repository URL as the integration lists it (https://…).',
});

/** verify-url: an absolute https URL (http only towards loopback), or a path resolved later against custom_url. */
export const verifyUrl = text((v, ctx) => {
  if (v.startsWith('/') && !v.startsWith('//')) return v;
  let url: URL | undefined;
  try {
    url = new URL(v);
  } catch {
    url = undefined;
  }
  if (url && isSecureOrLoopback(url) && !url.username && !url.password) return v;
  return refuse(
    ctx,
    v,
    `${shown(withoutCredentials(v))} is neither an https:// URL (http:// only for loopback hosts) nor a path starting with /; use e.g. https://agent.example.com/ok or /ok (resolved against custom-url).`,
  );
});

/** image-uri: one image reference, which goes into the request as it is (a second line would go with it). */
export const imageUri = z.string().check(
  z.regex(IMAGE_URI, {
    error: (issue) =>
      `${shown(issue.input)} is not one image reference: it holds white space, a line break or a control character; give the image alone, e.g. registry.example.com/team/agent@sha256:<digest>.`,
  }),
);

/** token-id goes into the request's path: an id, never a path of its own (`/`, `.` or `..` would rewrite it). */
export const tokenId = z.string().check(
  z.refine((v: string) => /^[A-Za-z0-9_.~-]{1,200}$/.test(v) && !/^\.+$|\.\./.test(v), {
    error: (issue) =>
      `${shown(issue.input)} is not a token id; use the id the service gave the token: letters, digits, '-', '_', '.' and '~', without '/', '..' or white space (e.g. tok_123).`,
  }),
);

/**
 * A value as an error message may quote it: whole (up to `max` characters, on one line), or not at all. A cut one
 * would get past masking, which matches whole values only (a secret pasted into the wrong input must not leak its
 * first characters).
 */
export function shown(value: unknown, max = 40): string {
  const v = String(value);
  return v.length <= max && !/[\r\n]/.test(v)
    ? JSON.stringify(v)
    : `the value (${v.length} characters)`;
}
