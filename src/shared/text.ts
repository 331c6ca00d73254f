// Text helpers below every other module: normalising data, cutting it, and making it safe for one-line sinks.
// Every pattern here is a single character class (or CRLF, or a '-' at either end): linear in the text, whatever the
// text.

const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/g;

/**
 * Characters a reader does not see, or that steer the terminal or the direction of the text: C0 controls but TAB,
 * LF and CR; DEL; C1 controls but NEL; and Unicode's default-ignorable code points (zero-width characters, the
 * soft hyphen, bidi controls such as U+202E, variation selectors, the BOM, tags).
 */
const HIDDEN_CLASS =
  '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u0084\\u0086-\\u009f\\p{Default_Ignorable_Code_Point}';
/** White space other than the plain space. */
const WHITE_CLASS =
  '\\t\\n\\r\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`, 'gu');
const ANY_HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`, 'u');
/** One hidden character, which the redactor looks through. */
export const HIDDEN_CHAR = new RegExp(`^[${HIDDEN_CLASS}]$`, 'u');
/** One white space character, which the redactor takes for any other, a run of them for one. */
export const WHITE_CHAR = new RegExp(`^[${WHITE_CLASS} ]$`, 'u');
/** Every control character (line breaks included) and every default-ignorable one, for the log. */
const SHOWN_AS_ESCAPE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\p{Default_Ignorable_Code_Point}]/gu;

/** The first step of every sink but the log (which shows them as escapes): hidden characters out; line breaks stay. */
export function normalise(text: string): string {
  // A text without any is itself, not a copy: every string of a report near its 16 MiB goes through here.
  return ANY_HIDDEN.test(text) ? text.replace(HIDDEN, '') : text;
}

/** Normalised, on one line: line breaks become spaces (outputs, GitHub fields, Markdown text and table cells). */
export function oneLine(text: string): string {
  return normalise(text).replace(LINE_BREAK, ' ');
}

/** Runs of white space as one space, trimmed: data quoted inside a sentence. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters, with an ellipsis when cut; never half of a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Every control and invisible character, line breaks included, shown as an escape (`\n`, `\x1b`, `\u202e`)
 * instead of acting: the log's way to keep them out while still showing they were there.
 */
export function visible(text: string): string {
  return text.replace(SHOWN_AS_ESCAPE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    const code = c.codePointAt(0)!;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code < 0x10000
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\u{${code.toString(16)}}`;
  });
}

/** Lines as a reader sees them: split on every line break the runner or a terminal honours. */
export function lines(text: string): string[] {
  return text.split(LINE_BREAK);
}

/**
 * Text as part of a name (a branch in a preview's, a deployment's in a gantt section): ASCII letters lower-cased,
 * each run of other characters (a non-ASCII letter included) one '-', trimmed. The runs are replaced first:
 * lower-casing first would turn some non-ASCII letters into ASCII ones (U+212A KELVIN SIGN into k).
 */
export function slug(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}
