import { esc } from './markdown.ts';
import { NOT_PLAIN, SKIPPED_RUN, WHITE } from './text.ts';

// Shorter values, and the booleans, are everyday words: replacing them would garble ids, outputs (created=true)
// and messages while hiding nothing. The runner is still asked to mask every value.
const MIN_LENGTH = 4;
const COMMON = new Set(['true', 'false', 'null']);
/** A base64 core shorter than this would match ordinary text. */
const MIN_BASE64_CORE = 8;

/**
 * Replaces every registered secret in text, in each form it takes on its way into text: as written, inside a JSON
 * string (escaped or fully \u-escaped), Markdown-escaped, URL-encoded, and base64 (also inside a longer base64
 * text, at each of the three byte alignments). Matching looks through what a reader cannot see (zero-width and
 * control characters, bidi controls, soft hyphens: a NUL or a U+200B inside a secret still matches) and takes any
 * run of white space for any other (a tab in a secret matches a space). Every sink calls it before it cuts.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  /** Every form of every secret as matched: hidden characters out, white space runs as one space, trimmed. */
  private readonly forms = new Set<string>();
  private sorted?: string[];

  add(value: string | undefined): void {
    if (!value) return;
    // The runner masks line by line; so do we for multi-line values.
    const lines = value.split(/\r?\n/).filter((line) => line.trim().length > 2);
    for (const secret of [value, ...lines]) {
      this.secrets.add(secret);
      if (secret.length < MIN_LENGTH || COMMON.has(secret.toLowerCase())) continue;
      for (const form of encodings(secret)) {
        const key = matchable(form).text.trim();
        if (key.length >= MIN_LENGTH) this.forms.add(key);
      }
    }
    this.sorted = undefined;
  }

  /** The values to mask: each one given, and each line of a multi-line one. */
  values(): string[] {
    return [...this.secrets];
  }

  redact(text: string): string {
    // Longest first: when one secret contains another, the longer match is found whole either way.
    this.sorted ??= [...this.forms].sort((a, b) => b.length - a.length);
    if (this.sorted.length === 0) return text;
    const key: Matchable = NOT_PLAIN.test(text) ? matchable(text) : { text };
    const spans: [number, number][] = [];
    for (const form of this.sorted)
      for (
        let at = key.text.indexOf(form);
        at !== -1;
        at = key.text.indexOf(form, at + form.length)
      )
        spans.push([at, at + form.length]);
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    // Overlapping matches become one `***`; each covers the original text from its first character to its last.
    let out = '';
    let done = 0;
    for (let i = 0; i < spans.length;) {
      const start = spans[i]![0];
      let end = spans[i]![1];
      for (i++; i < spans.length && spans[i]![0] <= end; i++) end = Math.max(end, spans[i]![1]);
      const from = key.from ? key.from[start]! : start;
      out += `${text.slice(done, from)}***`;
      done = key.to ? key.to[end - 1]! : end;
    }
    return out + text.slice(done);
  }
}

/**
 * Text as the redactor matches it: hidden characters dropped and each run of white space as one space, with where
 * each of its characters came from in the original (`from` and `to`, end exclusive).
 */
interface Matchable {
  text: string;
  /** Absent when the text is its own matchable form. */
  from?: Int32Array;
  to?: Int32Array;
}

function matchable(text: string): Required<Matchable> {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  const parts: string[] = [];
  let n = 0;
  let done = 0;
  const verbatim = (end: number) => {
    parts.push(text.slice(done, end));
    for (let i = done; i < end; i++, n++) {
      from[n] = i;
      to[n] = i + 1;
    }
  };
  for (const run of text.matchAll(SKIPPED_RUN)) {
    verbatim(run.index);
    done = run.index + run[0].length;
    if (!WHITE.test(run[0])) continue;
    parts.push(' ');
    from[n] = run.index;
    to[n++] = done;
  }
  verbatim(text.length);
  return { text: parts.join(''), from, to };
}

function encodings(value: string): string[] {
  const unicode = [...value]
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  const forms = [
    value,
    JSON.stringify(value).slice(1, -1),
    unicode,
    unicode.toUpperCase().replace(/\\U/g, '\\u'),
    esc(value),
    // CommonMark lets any ASCII punctuation be backslash-escaped: a Markdown writer may escape them all.
    value.replace(/[!-/:-@[-`{-~]/g, '\\$&'),
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    ...base64Forms(value),
  ];
  return forms.filter((f) => f.length >= MIN_LENGTH);
}

/**
 * The base64 of the value alone, and the part of it that stays the same wherever the value sits in a longer
 * base64 text: for each alignment, the characters made only of the value's own bytes. URL-safe forms too.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out = [bytes.toString('base64')];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Leading characters that mix in the bytes before the value, trailing ones that mix in the bytes after it.
    const start = shift === 0 ? 0 : 4;
    const whole = Math.floor((shift + bytes.length) / 3) * 4;
    const core = encoded.slice(start, whole);
    if (core.length >= MIN_BASE64_CORE) out.push(core);
  }
  return out.flatMap((form) => [form, form.replace(/\+/g, '-').replace(/\//g, '_')]);
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
