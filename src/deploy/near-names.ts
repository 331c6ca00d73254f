// Names one typo away from an existing deployment's. A misspelt `name` with create: true would make a second
// deployment beside the real one (a second server, billed, and the real agent never updated), so a name that is not
// found is compared with the names that exist before anything is created. Only the not-found path pays for it, and
// it is bounded: at most six name_contains searches (two parts, each as typed and with its separators all `-` and all
// `_`; four unless a part mixes them) of PAGES_PER_TERM pages each.
import { listDeployments } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { allPages } from '../service/paging.ts';
import type { Deployment } from '../service/schemas.ts';
import type { Words } from '../core/words.ts';

/** Pages of 100 read per search term (at most six terms): a few hundred KiB each. */
export const PAGES_PER_TERM = 5;
/** Near names a message names. */
const SHOWN = 3;

type Typo =
  'another case' | '_ for -' | 'a dropped letter' | 'a doubled letter' | 'two letters swapped';

interface NearName {
  deployment: Deployment;
  typo: Typo;
}

interface NearNames {
  near: NearName[];
  /** The search terms (none for a name too short to search), the requests they cost, and those cut at the bound. */
  terms: string[];
  requests: number;
  cut: string[];
}

/** Case folded and `_` read as `-`: the two differences that are never meant. */
const fold = (name: string) => name.toLowerCase().replace(/_/g, '-');

/**
 * How `name` is one typo away from `existing`: another case, `_` for `-`, or (on top of those) one letter dropped,
 * doubled, or two neighbours swapped. Undefined when it is not, and for siblings: names that differ only in digits
 * (`agent-v3`, `pr-8`, `v11`) or in a part of one or two letters (`agent-c` beside `agent-a`), and names that
 * differ by more (`support-agent-staging`).
 */
export function typoOf(name: string, existing: string): Typo | undefined {
  if (name === existing) return undefined;
  const a = fold(name);
  const b = fold(existing);
  if (a === b) return name.toLowerCase() === existing.toLowerCase() ? 'another case' : '_ for -';
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length - 1 && a.slice(i) === b.slice(i + 1))
    return sibling(b, [i]) ? undefined : 'a dropped letter';
  if (a.length === b.length + 1 && i > 0 && a[i] === a[i - 1] && a.slice(i + 1) === b.slice(i))
    return sibling(a, [i]) ? undefined : 'a doubled letter';
  if (
    a.length === b.length &&
    a[i] === b[i + 1] &&
    a[i + 1] === b[i] &&
    a.slice(i + 2) === b.slice(i + 2)
  )
    return sibling(a, [i, i + 1]) ? undefined : 'two letters swapped';
  return undefined;
}

const DIGIT = /\d/;
const LETTER = /\p{L}/u;

/** Whether the edit at `at` in `text` (folded) makes a sibling: only digits, or only letters of a short part. */
function sibling(text: string, at: number[]): boolean {
  const chars = at.map((i) => text.charAt(i));
  if (chars.every((c) => DIGIT.test(c))) return true;
  return at.every((i) => LETTER.test(text.charAt(i)) && letterRun(text, i) <= 2);
}

/** The length of the run of letters around `i`. */
function letterRun(text: string, i: number): number {
  let start = i;
  let end = i + 1;
  while (start > 0 && LETTER.test(text.charAt(start - 1))) start--;
  while (end < text.length && LETTER.test(text.charAt(end))) end++;
  return end - start;
}

/**
 * The name_contains terms that find every name one typo away from `name`. A typo changes one place, so for any
 * split point `m` either the name's first part `n[0, m)` or its rest `n[m+1, …)` is whole in the name meant (case
 * and separators aside): both are searched, at the `m` that makes the shorter of the two longest (then the one with
 * fewer separators), without separators at their ends, in lower case (a service may match case-sensitively; names
 * are mostly lower case). A part with `-` or `_` is searched with each spelled `-`, and `_`, too: the existing name
 * may spell them the other way. None for a name of two characters or fewer.
 */
export function searchTerms(name: string): string[] {
  const n = name.toLowerCase();
  let best: { parts: [string, string]; score: number } | undefined;
  for (let m = 1; m < n.length - 1; m++) {
    const parts: [string, string] = [trimSeparators(n.slice(0, m)), trimSeparators(n.slice(m + 1))];
    if (!parts[0] || !parts[1]) continue;
    const score =
      Math.min(parts[0].length, parts[1].length) * 10_000 -
      parts.filter((p) => SEPARATOR.test(p)).length * 1000 +
      parts[0].length +
      parts[1].length;
    if (!best || score > best.score) best = { parts, score };
  }
  if (!best) return [];
  const [first, rest] = [...best.parts].sort((x, y) => y.length - x.length);
  return [...new Set([...spellings(first!), ...spellings(rest!)])];
}

const SEPARATOR = /[-_]/;

function trimSeparators(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && SEPARATOR.test(text.charAt(start))) start++;
  while (end > start && SEPARATOR.test(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

/** `part` as given, and with its separators all `-` and all `_`. */
function spellings(part: string): string[] {
  return [...new Set([part, part.replace(/_/g, '-'), part.replace(/-/g, '_')])];
}

/**
 * The deployments whose names are one typo away from `name` (which no deployment has), searched by searchTerms.
 * Stops at the first term that finds one: one is enough to refuse a create.
 */
export async function findNearNames(client: ServiceClient, name: string): Promise<NearNames> {
  const terms = searchTerms(name);
  const found = new Map<string, NearName>();
  const cut: string[] = [];
  let requests = 0;
  for (const term of terms) {
    let sent = 0;
    const listing = allPages(
      'GET /v2/deployments',
      (offset, limit) => {
        // Past the bound the listing ends here, and the check is partial.
        if (sent === PAGES_PER_TERM) {
          cut.push(term);
          return Promise.resolve({ resources: [], offset });
        }
        sent++;
        return client.send(listDeployments({ name_contains: term, limit, offset }));
      },
      'Narrow the name.',
    );
    for await (const deployment of listing) {
      const typo = typoOf(name, deployment.name);
      if (typo) found.set(deployment.id, { deployment, typo });
    }
    requests += sent;
    if (found.size > 0) break;
  }
  return { near: [...found.values()], terms, requests, cut };
}

/** When the search found none but could not look everywhere: a sentence saying so, for the log and the summary. */
export function partialCheck(name: string, { near, terms, cut }: NearNames): string | undefined {
  if (near.length > 0) return undefined;
  if (terms.length === 0)
    return `'${name}' is too short to be compared with the names that exist: a deployment one typo away from it would go unnoticed.`;
  if (cut.length === 0) return undefined;
  const limit = PAGES_PER_TERM * 100;
  return `The check for a deployment named one typo away from '${name}' was partial: more than ${limit} names contain ${cut.map((t) => `'${t}'`).join(' or ')}, and only the first ${limit} were compared.`;
}

/**
 * Why `name` cannot be used, when no deployment has it and it must exist (`then` says for what): led by the names
 * one typo away when there are any, else saying where it looked.
 */
export async function notFound(
  client: ServiceClient,
  name: string,
  then: string,
  words: Words,
): Promise<string> {
  const found = await findNearNames(client, name);
  const { tenantId } = client;
  if (found.near.length > 0)
    return nearNameMessage(name, found.near, { tenantId, why: then, words });
  const partial = partialCheck(name, found);
  return `No deployment is named '${name}'${tenantId ? ` in tenant ${tenantId}` : ''}: ${then}.${partial ? ` ${partial}` : ''}`;
}

/**
 * The message for `name`, which no deployment has, when names one typo away exist: they lead ("did you mean"),
 * then what was not found and where (`why`: what that means for the run), then the ways on: the near name, and
 * `otherwise` the way to the name as given.
 */
export function nearNameMessage(
  name: string,
  near: NearName[],
  options: { tenantId?: string; why?: string; otherwise?: string; words: Words },
): string {
  const shown = near.slice(0, SHOWN);
  const names = shown.map(({ deployment }) => `'${deployment.name}'`);
  const which = shown
    .map(({ deployment, typo }) => `'${deployment.name}' (${deployment.id}, ${typo})`)
    .join(' and ');
  const where = options.tenantId ? ` in tenant ${options.tenantId}` : '';
  const use =
    shown.length === 1
      ? `For '${shown[0]!.deployment.name}', ${options.words.set('name', shown[0]!.deployment.name)}`
      : `For one of them, ${options.words.set('name', '<its name>')}`;
  return `Did you mean ${names.join(' or ')}? No deployment is named '${name}'${where}, and ${which} ${shown.length === 1 ? 'is' : 'are'} one typo away${options.why ? `: ${options.why}` : ''}. ${use}${options.otherwise ? `; ${options.otherwise}` : ''}.`;
}
