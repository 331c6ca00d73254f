import { ResponseError } from './errors.ts';
import type { Page } from './schemas.ts';

const PAGE_LIMIT = 100;
const MAX_PAGES = 1000;
/**
 * The most a run takes from one listing, across its pages: per-answer caps bound one page, not what a caller keeps
 * (an exact-name search keeps every match). Far above any real listing, and below what a run keeps in all (16 MiB,
 * kept.ts), so that a listing too long says so itself.
 */
const MAX_LISTED = 10_000;
const MAX_LISTED_BYTES = 8 * 1024 * 1024;

/**
 * Every resource of a paged listing, page by page, each once. Ends at the first empty page: a shorter page than the
 * limit does not end it, as a server may cap its pages below the limit asked for. A listing that does not advance
 * (same offset back, or a page of ids already seen) is an error, not a loop; so is one with more than MAX_LISTED
 * resources or MAX_LISTED_BYTES of them (as JSON), or more than MAX_PAGES pages, where `narrow` says what to do.
 */
export async function* allPages<T extends { id: string }>(
  label: string,
  fetchPage: (offset: number, limit: number) => Promise<Page<T>>,
  narrow: string,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let bytes = 0;
  let offset = 0;
  for (let requests = 1; ; requests++) {
    const { resources, offset: next } = await fetchPage(offset, PAGE_LIMIT);
    if (resources.length === 0) return;
    if (resources.every((r) => seen.has(r.id))) {
      throw new ResponseError(
        `${label} returned the same page again at offset ${offset} after ${requests} requests: the listing does not advance. Stopped; nothing was written.`,
      );
    }
    for (const resource of resources) {
      // A resource created meanwhile shifts the listing: the last one of a page comes again on the next.
      if (seen.has(resource.id)) continue;
      seen.add(resource.id);
      bytes += JSON.stringify(resource).length;
      if (seen.size > MAX_LISTED || bytes > MAX_LISTED_BYTES) {
        throw new ResponseError(
          `${label} listed more than ${seen.size > MAX_LISTED ? `${MAX_LISTED} resources` : `${MAX_LISTED_BYTES / 1024 / 1024} MiB of resources`} in ${requests} pages, more than this action keeps from one listing: stopped; nothing was written. ${narrow}`,
        );
      }
      yield resource;
    }
    if (next <= offset) {
      throw new ResponseError(
        `${label} returned offset ${next} for the page after offset ${offset}: the listing does not advance. Stopped after ${requests} requests; nothing was written.`,
      );
    }
    if (requests >= MAX_PAGES) {
      throw new ResponseError(
        `${label} still had more pages after ${MAX_PAGES} requests (${seen.size} resources): stopped; nothing was written. ${narrow}`,
      );
    }
    offset = next;
  }
}
