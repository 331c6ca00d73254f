// What a run keeps of the service's answers, bounded however many deployments it acts on: each string (and key) cut
// to 64 KiB, as a copy (a cut that shared the answer's text would keep all of it), and the service's data held in
// all to 16 MiB. The latest answer of a call about a resource replaces the one before it in the count (a status read
// polled a thousand times counts once), within each window of the client (ServiceClient.within: each deployment of a
// list has its own); two calls that show the same resource (its lookup, then its update) each count theirs, as the
// run may hold both, and so do two deployments that answer with the same id. Past the budget the call fails,
// and the run is full: a window that holds nothing yet (a deployment of a list that has not started) sends nothing
// more, so the deployments after it fail at once instead of each reading answers it could not keep.
import { ResponseError } from './errors.ts';
import { idOf, resourcesOf } from './identity.ts';

/** Bytes of UTF-8: what the service sent. */
export const STRING_MAX_BYTES = 64 * 1024;
export const RUN_MAX_BYTES = 16 * 1024 * 1024;
const CUT_MARK = '…';
/** A string this long or shorter cannot be over STRING_MAX_BYTES: UTF-8 takes at most 3 bytes per UTF-16 unit. */
const SURELY_SHORT = Math.floor(STRING_MAX_BYTES / 3);

/** The run's count of what it keeps, shared by every window of its service client. */
export class Kept {
  private readonly held = new Map<string, number>();
  /** The windows that hold something. */
  private readonly holding = new Set<number>();
  private total = 0;
  private windows = 0;
  /** Set once an answer was refused: the run then holds at least RUN_MAX_BYTES less one answer's 4 MiB. */
  private full = false;

  /** A new window's number: its calls' answers replace their own count, never another window's. */
  window(): number {
    return ++this.windows;
  }

  /** Throws, before `request` is sent, when the run is full and `window` holds nothing yet. */
  admit(window: number, request: string): void {
    if (this.full && !this.holding.has(window))
      throw new ResponseError(
        `${request} was not sent: this run already holds ${mib(this.total)} of the service's answers, and one more was refused, past the ${LIMIT}; nothing more is read for what holds nothing yet (a deployment of the list that has not begun). ${ADVICE}`,
      );
  }

  /**
   * `answer` to `call` (the request with its query), its strings cut, counted as what the window holds of each
   * resource it shows; throws a ResponseError naming `request` when the run would then hold more than RUN_MAX_BYTES
   * (for a write, ServiceClient.send says it may have taken effect).
   */
  keep<T>(answer: T, window: number, call: string, request: string): T {
    const cut = bounded(answer);
    const updates = new Map<string, number>();
    const resources = resourcesOf(cut.value);
    for (const resource of resources) {
      const key = `${window} ${call} ${idOf(resource) ?? ''}`;
      const size = resources.length === 1 ? cut.bytes : bytesOf(resource);
      updates.set(key, (updates.get(key) ?? 0) + size);
    }
    let total = this.total;
    for (const [key, size] of updates) total += size - (this.held.get(key) ?? 0);
    if (total > RUN_MAX_BYTES) {
      this.full = true;
      throw new ResponseError(
        `${request} answered with ${mib(cut.bytes)} of data, and this run would then hold ${mib(total)} of the service's answers, more than the ${LIMIT}: stopped here. ${ADVICE}`,
      );
    }
    for (const [key, size] of updates) this.held.set(key, size);
    if (updates.size > 0) this.holding.add(window);
    this.total = total;
    return cut.value;
  }
}

/** `value` as a copy with every string and key cut to STRING_MAX_BYTES, and the bytes of its strings and keys. */
export function bounded<T>(value: T): { value: T; bytes: number } {
  let bytes = 0;
  const text = (s: string) => {
    const kept = s.length <= SURELY_SHORT ? s : cutString(s);
    bytes += Buffer.byteLength(kept);
    return kept;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([key, item]) => [text(key), walk(item)]));
    return v;
  };
  return { value: walk(value) as T, bytes };
}

/** The bytes of the strings and keys of `value`, as bounded counts them (of a value it already cut: no copy). */
function bytesOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + bytesOf(item), 0);
  if (value && typeof value === 'object')
    return Object.entries(value).reduce(
      (n, [key, item]) => n + Buffer.byteLength(key) + bytesOf(item),
      0,
    );
  return 0;
}

/** At most STRING_MAX_BYTES of UTF-8, ending with … when cut, never in a character; a new string either way. */
export function cutString(s: string): string {
  if (Buffer.byteLength(s) <= STRING_MAX_BYTES) return s;
  const bytes = Buffer.from(s.slice(0, STRING_MAX_BYTES), 'utf8');
  let end = STRING_MAX_BYTES - Buffer.byteLength(CUT_MARK);
  // Back to the start of a character: a continuation byte is 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + CUT_MARK;
}

const LIMIT = `${mib(RUN_MAX_BYTES)} one run keeps however many deployments it acts on`;
const ADVICE =
  "The service sends far more than a deployment's fields: check base-url, or split the deployments over several steps.";

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
