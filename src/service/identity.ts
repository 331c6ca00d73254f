// An answer is about what the request named: a read, a write or a redeploy of a deployment, a revision, a listener
// or a token answers with that id, and a listing by deployment_ids shows those and no other. An answer about another
// (a revision read that answers another revision) is an error naming the endpoint, never taken for the one asked.
import type { Excerpt } from '../core/sinks.ts';
import type { Call } from './calls.ts';
import { ResponseError } from './errors.ts';

/** The resources an answer shows: a page's, a list's items, or the answer itself. */
export function resourcesOf(answer: unknown): unknown[] {
  if (Array.isArray(answer)) return answer;
  const page = answer as { resources?: unknown } | null;
  if (page && typeof page === 'object' && Array.isArray(page.resources)) return page.resources;
  return [answer];
}

/** The id of a resource an answer shows, as text, or undefined. */
export function idOf(resource: unknown): string | undefined {
  const id = (resource as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Throws when `answer` shows a resource other than the ones `call` asked about (ids compared in any letter case: a
 * uuid typed in capitals is the same id). The other id is data, quoted through `excerpt`.
 */
export function checkIdentity<T>(call: Call<T>, answer: T, excerpt: Excerpt): void {
  if (!call.asked) return;
  const asked = new Set(call.asked.map((id) => id.toLowerCase()));
  for (const resource of resourcesOf(answer)) {
    const id = idOf(resource);
    if (id !== undefined && asked.has(id.toLowerCase())) continue;
    const endpoint = `${call.method} ${call.path}${call.query?.deployment_ids ? ` (deployment_ids=${call.asked.join(',')})` : ''}`;
    const other = id === undefined ? 'no id' : `${call.resource} ${excerpt(id, 80)}`;
    // A write's error goes on to say it may have taken effect (ServiceClient.send).
    throw new ResponseError(
      `${endpoint} answered about ${other}, not the ${call.resource} ${call.asked.join(', ')} it asked for: the answer is not taken for it. The service does not match the interface this action speaks.`,
    );
  }
}
