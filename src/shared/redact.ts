import {
  canonical,
  type Decoding,
  DECODINGS,
  read,
  type Reading,
  worthReading,
} from './readings.ts';

// Shorter values, and the booleans, are everyday words: replacing them would garble ids, outputs (created=true)
// and messages while hiding nothing. The runner is still asked to mask every value.
const MIN_LENGTH = 4;
const COMMON = new Set(['true', 'false', 'null']);
/**
 * A part of a value this long is hidden like the whole (the contract's rule): 8 characters of it, and 8 of its hex
 * and base64 forms too (4 and 6 bytes of it), so that each reading is searched once, for windows of one length.
 */
const PART = 8;
/** A base64 core shorter than this (a short value's) would match ordinary text. */
const MIN_BASE64_CORE = 8;

/**
 * Replaces every registered secret in text, and any part of 8 characters or more of one, in each form it takes on
 * its way into text: in any letter case, after NFKC (full-width letters), inside a JSON string (escaped or fully
 * \u-escaped), Markdown-escaped, as HTML entities (named and numeric), percent-encoded (as encodeURIComponent, a
 * form, or every byte), in hex (either case) and in base64 and base64url (also inside a longer base64 text, at each
 * of the three byte alignments). Matching looks through what a reader cannot see (zero-width and control
 * characters, bidi controls, soft hyphens: a NUL or a U+200B inside a secret still matches) and takes any run of
 * white space for any other (a tab in a secret matches a space). Every sink calls it before it cuts.
 *
 * The text is read once per encoding with that encoding undone (shared/readings.ts), and each reading is searched
 * for every window of 8 characters of a value with a rolling hash: linear in the text, whatever it holds.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private tables?: Map<Decoding, Windows[]>;

  add(value: string | undefined): void {
    if (!value) return;
    // The runner masks line by line; so do we for multi-line values.
    const lines = value.split(/\r?\n/).filter((line) => line.trim().length > 2);
    for (const secret of [value, ...lines]) this.secrets.add(secret);
    this.tables = undefined;
  }

  /** The values to mask: each one given, and each line of a multi-line one. */
  values(): string[] {
    return [...this.secrets];
  }

  redact(text: string): string {
    this.tables ??= windowsOf(this.secrets);
    let cover: Int32Array | undefined;
    for (const [decoding, tables] of this.tables) {
      if (!worthReading(text, decoding)) continue;
      const reading = read(text, decoding);
      for (const table of tables)
        table.find(reading.text, (at) => {
          // +1 where a match starts in the text, -1 after it ends: a running sum over `cover` tells what is hidden.
          cover ??= new Int32Array(text.length + 1);
          const [start, end] = span(reading, at, table.length);
          cover[start] = cover[start]! + 1;
          cover[end] = cover[end]! - 1;
        });
    }
    return cover ? hide(text, cover) : text;
  }
}

/** Where the `length` characters of `reading` at `at` came from in the text: from the first's start to the last's end. */
function span(reading: Reading, at: number, length: number): [number, number] {
  const last = at + length - 1;
  return reading.from && reading.to ? [reading.from[at]!, reading.to[last]!] : [at, last + 1];
}

/** `text` with each run of covered characters as one `***`: overlapping and touching matches become one. */
function hide(text: string, cover: Int32Array): string {
  const parts: string[] = [];
  let depth = 0;
  let shown = 0;
  for (let i = 0; i <= text.length; i++) {
    const before = depth;
    depth += cover[i]!;
    if (before === 0 && depth > 0) parts.push(text.slice(shown, i), '***');
    else if (before > 0 && depth === 0) shown = i;
  }
  parts.push(text.slice(shown));
  return parts.join('');
}

/**
 * The windows to look for, by the reading they are looked for in: every window of PART characters of each value (or
 * the value whole, when shorter) in every reading; in the plain one also those of its hex and base64 forms.
 */
function windowsOf(secrets: Iterable<string>): Map<Decoding, Windows[]> {
  const tables = new Map<Decoding, Map<number, Windows>>();
  const add = (decodings: readonly Decoding[], form: string) => {
    if (form.length < MIN_LENGTH) return;
    const length = Math.min(PART, form.length);
    for (const decoding of decodings) {
      const byLength = tables.get(decoding) ?? new Map<number, Windows>();
      tables.set(decoding, byLength);
      const table = byLength.get(length) ?? new Windows(length);
      byLength.set(length, table);
      for (let i = 0; i + length <= form.length; i++) table.add(form.slice(i, i + length));
    }
  };
  for (const secret of secrets) {
    const value = canonical(secret);
    if (value.length < MIN_LENGTH || COMMON.has(value)) continue;
    add(DECODINGS, value);
    const bytes = Buffer.from(secret, 'utf8');
    add(['plain'], bytes.toString('hex'));
    for (const form of base64Forms(bytes)) add(['plain'], form.toLowerCase());
  }
  return new Map([...tables].map(([decoding, byLength]) => [decoding, [...byLength.values()]]));
}

/**
 * The base64 of the value alone, and the part of it that stays the same wherever the value sits in a longer base64
 * text: for each alignment, the characters made only of the value's own bytes. URL-safe forms too.
 */
function base64Forms(bytes: Buffer): string[] {
  const out = [bytes.toString('base64')];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Leading characters that mix in the bytes before the value, trailing ones that mix in the bytes after it.
    const core = encoded.slice(
      Math.ceil((8 * shift) / 6),
      Math.floor((8 * (shift + bytes.length)) / 6),
    );
    if (core.length >= MIN_BASE64_CORE) out.push(core);
  }
  return out.flatMap((form) => [form, form.replaceAll('+', '-').replaceAll('/', '_')]);
}

/** Odd, so multiplying by it loses nothing mod 2^32. */
const BASE = 0x01000193;
const FILTER_BITS = 16;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

/**
 * Windows of one length, found in a text by a rolling hash in one pass: a filter on the hash's low bits, then the
 * windows with that hash compared. Linear in the text: each position costs a hash step and, on a hit, a comparison
 * of `length` characters.
 */
class Windows {
  readonly length: number;
  private readonly byHash = new Map<number, string[]>();
  private readonly filter = new Uint8Array(1 << FILTER_BITS);
  /** BASE^(length - 1), mod 2^32: the weight of the character that leaves the window. */
  private readonly top: number;

  constructor(length: number) {
    this.length = length;
    let top = 1;
    for (let i = 1; i < length; i++) top = Math.imul(top, BASE);
    this.top = top;
  }

  add(window: string): void {
    const hash = hashOf(window, this.length);
    const same = this.byHash.get(hash);
    if (!same) this.byHash.set(hash, [window]);
    else if (!same.includes(window)) same.push(window);
    this.filter[hash & FILTER_MASK] = 1;
  }

  /** Calls `found` with each index of `text` where one of the windows starts. */
  find(text: string, found: (at: number) => void): void {
    const { length, filter, top } = this;
    const last = text.length - length;
    if (last < 0) return;
    let hash = hashOf(text, length);
    for (let at = 0; ; at++) {
      if (filter[hash & FILTER_MASK] === 1 && this.holds(hash, text, at)) found(at);
      if (at === last) return;
      const out = Math.imul(text.charCodeAt(at), top);
      hash = (Math.imul(hash - out, BASE) + text.charCodeAt(at + length)) | 0;
    }
  }

  /** Whether one of the windows with `hash` is at `at` in `text`. */
  private holds(hash: number, text: string, at: number): boolean {
    const same = this.byHash.get(hash);
    if (same) for (const window of same) if (text.startsWith(window, at)) return true;
    return false;
  }
}

/** The hash of the first `length` characters of `text`. */
function hashOf(text: string, length: number): number {
  let hash = 0;
  for (let i = 0; i < length; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * A copy of `value` with every string in it redacted, keys included: data is cleaned before a renderer escapes or
 * cuts it, since an escaped or cut secret would no longer match.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, redact)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key), redactDeep(item, redact)]),
    ) as T;
  return value;
}

/**
 * `value` as a view whose strings read redacted, each when it is read: what a renderer shows of a report is redacted
 * as redactDeep would, and what it never shows (every other field of every deployment of a list) is never copied.
 * Keys read as they are: no renderer shows one of the service's, and the sink redacts the whole text again.
 */
export function redactedView<T>(value: T, redact: (text: string) => string): T {
  const views = new WeakMap<object, object>();
  const view = (item: unknown): unknown => {
    if (typeof item === 'string') return redact(item);
    if (!item || typeof item !== 'object') return item;
    let seen = views.get(item);
    if (!seen) {
      seen = new Proxy(item, {
        get: (target, key, receiver) => view(Reflect.get(target, key, receiver)),
      });
      views.set(item, seen);
    }
    return seen;
  };
  return view(value) as T;
}
