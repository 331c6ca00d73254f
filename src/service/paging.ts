import { ResponseError } from './errors.ts';
import type { Page } from './schemas.ts';

const PAGE_LIMIT = 100;
const MAX_PAGES = 1000;
/**
 * The most a run takes from one listing, across its pages: per-answer caps bound one page, not what a caller keeps
 * (an exact-name search keeps every match). Far above any real listing, far below what exhausts the heap.
 */
const MAX_LISTED = 10_000;
const MAX_LISTED_BYTES = 32 * 1024 * 1024;

/** Answers in a row that bring nothing new, after which a listing is taken for a loop. */
const SAME_IN_A_ROW = 3;

/**
 * Every resource of a paged listing, page by page, each once. Ends at the first empty page: a shorter page than the
 * limit does not end it, as a server may cap its pages below the limit asked for. A page that repeats resources
 * already seen is not an error (one created meanwhile in front of them moves them on to the next page); only
 * SAME_IN_A_ROW pages in a row that bring nothing new (the same offset answered the same way, or a server that
 * ignores the offset) are a loop, and an error; so is an offset that goes back, a listing with more than MAX_LISTED
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
  let nothingNew = 0;
  for (let requests = 1; ; requests++) {
    const { resources, offset: next } = await fetchPage(offset, PAGE_LIMIT);
    if (resources.length === 0) return;
    nothingNew = resources.every((r) => seen.has(r.id)) ? nothingNew + 1 : 0;
    if (nothingNew >= SAME_IN_A_ROW) {
      throw new ResponseError(
        `${label} answered ${SAME_IN_A_ROW} pages in a row with nothing new, the last at offset ${offset}: the listing does not advance. Stopped after ${requests} requests; nothing was written.`,
      );
    }
    for (const resource of resources) {
      // A resource created meanwhile shifts the listing: the last ones of a page come again on the next.
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
    if (next < offset) {
      throw new ResponseError(
        `${label} returned offset ${next} for the page after offset ${offset}: the listing goes back. Stopped after ${requests} requests; nothing was written.`,
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
