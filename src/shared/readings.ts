// How the redactor reads a text: as it stands, and once per encoding a secret may be written in inside it (backslash
// escapes as JSON writes them, HTML entities and Markdown escapes, percent-encoding), each undone; and every
// character in one form: NFKC (a full-width letter as its ASCII one), lower case, hidden characters dropped, each run
// of white space as one space. Each character of a reading knows the part of the text it came from, so what the
// redactor finds in a reading it hides in the text. One pass by index per reading, no pattern: linear in the text.
import { HIDDEN_CHAR, WHITE_CHAR } from './text.ts';

export const DECODINGS = ['plain', 'backslash', 'markup', 'percent'] as const;
export type Decoding = (typeof DECODINGS)[number];

export interface Reading {
  text: string;
  /**
   * Where each character of `text` came from: the index of its first character in the original and the index after
   * its last. Absent when each character of `text` is the one at its own index. Valid until the next `read`: they
   * are views of buffers each reading reuses, so that every string of a report near 16 MiB, read four ways, does not
   * allocate ten bytes a character each time.
   */
  from?: Int32Array;
  to?: Int32Array;
}

/** Whether `text` holds anything `decoding` would undo; the plain reading always applies. */
export function worthReading(text: string, decoding: Decoding): boolean {
  switch (decoding) {
    case 'plain':
      return true;
    case 'backslash':
      return text.includes('\\');
    case 'markup':
      return text.includes('&') || text.includes('\\');
    case 'percent':
      return text.includes('%') || text.includes('+');
  }
}

/** `text` read with `decoding` undone, each character in the one form. */
export function read(text: string, decoding: Decoding): Reading {
  if (decoding === 'plain') {
    const simple = simplicity(text);
    if (simple !== NOT_SIMPLE) return { text: simple === LOWER ? text : text.toLowerCase() };
  }
  const out = new Writer(text.length);
  const n = text.length;
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    const end =
      decoding === 'backslash' && c === 0x5c
        ? backslash(text, i, out)
        : decoding === 'markup' && (c === 0x26 || c === 0x5c)
          ? markup(text, i, out)
          : decoding === 'percent' && (c === 0x25 || c === 0x2b)
            ? percent(text, i, out)
            : 0;
    if (end > i) {
      i = end;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    out.char(cp, i, i + size);
    i += size;
  }
  return out.done();
}

/** A secret as the readings show it: read plainly, without white space at its ends. */
export function canonical(value: string): string {
  return read(value, 'plain').text.trim();
}

const NOT_SIMPLE = 0;
const LOWER = 1;
const MIXED = 2;

/**
 * Printable ASCII without two spaces in a row reads as its lower case, character for character (MIXED), or as
 * itself when it has no capital (LOWER): no copy of a long text of the service's for nothing.
 */
function simplicity(text: string): number {
  let last = 0;
  let capitals = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || (c === 0x20 && last === 0x20)) return NOT_SIMPLE;
    if (c >= 0x41 && c <= 0x5a) capitals = true;
    last = c;
  }
  return capitals ? MIXED : LOWER;
}

// Escapes: each returns the index after what it read and wrote, or `at` (nothing undone: the character as written).

/** `\uXXXX` (a surrogate pair as two), `\n` and the other escapes of JSON, and a backslash before anything else. */
function backslash(text: string, at: number, out: Writer): number {
  if (at + 1 >= text.length) return at;
  const next = text.charCodeAt(at + 1);
  if (next === 0x75) {
    const unit = hex(text, at + 2, 4);
    if (unit >= 0) {
      const low = text.startsWith('\\u', at + 6) ? hex(text, at + 8, 4) : -1;
      if (unit >= 0xd800 && unit < 0xdc00 && low >= 0xdc00 && low < 0xe000) {
        out.char(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), at, at + 12);
        return at + 12;
      }
      out.char(unit, at, at + 6);
      return at + 6;
    }
  }
  const cp = JSON_ESCAPES[String.fromCharCode(next)] ?? text.codePointAt(at + 1)!;
  const end = at + 1 + (cp > 0xffff ? 2 : 1);
  out.char(cp, at, end);
  return end;
}

const JSON_ESCAPES: Record<string, number> = { b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };

/** An HTML entity (`&#64;`, `&#x40;`, `&commat;`), or a Markdown escape (a backslash before ASCII punctuation). */
function markup(text: string, at: number, out: Writer): number {
  if (text.charCodeAt(at) === 0x5c) {
    const next = text.charCodeAt(at + 1);
    if (!isPunctuation(next)) return at;
    out.char(next, at, at + 2);
    return at + 2;
  }
  const entity = entityAt(text, at);
  if (!entity) return at;
  out.char(entity.cp, at, entity.end);
  return entity.end;
}

/** ASCII punctuation: what CommonMark lets a backslash escape. */
function isPunctuation(c: number): boolean {
  return (
    (c >= 0x21 && c <= 0x2f) ||
    (c >= 0x3a && c <= 0x40) ||
    (c >= 0x5b && c <= 0x60) ||
    (c >= 0x7b && c <= 0x7e)
  );
}

/** A numeric entity (its `;` optional, as browsers read it) or a named one of NAMED (with its `;`). */
function entityAt(text: string, at: number): { cp: number; end: number } | undefined {
  if (text.charCodeAt(at + 1) === 0x23) {
    const isHex = (text.charCodeAt(at + 2) | 0x20) === 0x78;
    const start = at + (isHex ? 3 : 2);
    let end = start;
    let cp = 0;
    for (; end < text.length && end - start < (isHex ? 6 : 7); end++) {
      const digit = isHex ? hex(text, end, 1) : text.charCodeAt(end) - 0x30;
      if (digit < 0 || digit > (isHex ? 15 : 9)) break;
      cp = cp * (isHex ? 16 : 10) + digit;
    }
    if (end === start) return undefined;
    if (text.charCodeAt(end) === 0x3b) end++;
    return { cp: cp > 0 && cp <= 0x10ffff ? cp : 0xfffd, end };
  }
  // The `;` looked for only as far as the longest name: a search to the end of the text for each `&` was quadratic.
  const semicolon = text.slice(at + 2, at + LONGEST_NAME + 2).indexOf(';');
  if (semicolon === -1) return undefined;
  const cp = NAMED.get(text.slice(at + 1, at + 2 + semicolon));
  return cp === undefined ? undefined : { cp, end: at + 3 + semicolon };
}

/**
 * HTML's named character references of the ASCII characters, of white space and of the invisible characters: what a
 * secret (an API key, a token, a password) can be spelled in. A letter or a digit has none.
 */
const NAMED = new Map<string, number>(
  Object.entries({
    Tab: 0x09,
    NewLine: 0x0a,
    excl: 0x21,
    quot: 0x22,
    QUOT: 0x22,
    num: 0x23,
    dollar: 0x24,
    percnt: 0x25,
    amp: 0x26,
    AMP: 0x26,
    apos: 0x27,
    lpar: 0x28,
    rpar: 0x29,
    ast: 0x2a,
    midast: 0x2a,
    plus: 0x2b,
    comma: 0x2c,
    period: 0x2e,
    sol: 0x2f,
    colon: 0x3a,
    semi: 0x3b,
    lt: 0x3c,
    LT: 0x3c,
    equals: 0x3d,
    gt: 0x3e,
    GT: 0x3e,
    quest: 0x3f,
    commat: 0x40,
    lsqb: 0x5b,
    lbrack: 0x5b,
    bsol: 0x5c,
    rsqb: 0x5d,
    rbrack: 0x5d,
    Hat: 0x5e,
    lowbar: 0x5f,
    UnderBar: 0x5f,
    grave: 0x60,
    DiacriticalGrave: 0x60,
    lcub: 0x7b,
    lbrace: 0x7b,
    verbar: 0x7c,
    vert: 0x7c,
    VerticalLine: 0x7c,
    rcub: 0x7d,
    rbrace: 0x7d,
    nbsp: 0xa0,
    NonBreakingSpace: 0xa0,
    shy: 0xad,
    ensp: 0x2002,
    emsp: 0x2003,
    thinsp: 0x2009,
    ZeroWidthSpace: 0x200b,
    NegativeVeryThinSpace: 0x200b,
    NegativeThinSpace: 0x200b,
    NegativeMediumSpace: 0x200b,
    NegativeThickSpace: 0x200b,
    zwnj: 0x200c,
    zwj: 0x200d,
    lrm: 0x200e,
    rlm: 0x200f,
    NoBreak: 0x2060,
  }),
);
const LONGEST_NAME = Math.max(...[...NAMED.keys()].map((name) => name.length));

/** A run of `%XX` as the UTF-8 it encodes (a byte that is not UTF-8 as written); `+` as a space, as forms write it. */
function percent(text: string, at: number, out: Writer): number {
  if (text.charCodeAt(at) === 0x2b) {
    out.char(0x20, at, at + 1);
    return at + 1;
  }
  const lead = byteAt(text, at);
  if (lead < 0) return at;
  if (lead < 0x80) {
    out.char(lead, at, at + 3);
    return at + 3;
  }
  const more =
    lead >= 0xf0 && lead < 0xf5
      ? 3
      : lead >= 0xe0 && lead < 0xf0
        ? 2
        : lead >= 0xc2 && lead < 0xe0
          ? 1
          : 0;
  if (more === 0) return at;
  let cp = lead & (0x3f >> more);
  let end = at + 3;
  for (let k = 0; k < more; k++, end += 3) {
    const next = byteAt(text, end);
    if (next < 0x80 || next > 0xbf) return at;
    cp = (cp << 6) | (next & 0x3f);
  }
  if (cp > 0x10ffff) return at;
  out.char(cp, at, end);
  return end;
}

/** The byte `%XX` at `at` spells, or -1. */
function byteAt(text: string, at: number): number {
  return text.charCodeAt(at) === 0x25 ? hex(text, at + 1, 2) : -1;
}

/** The number `digits` hex digits (either case) at `at` spell, or -1. */
function hex(text: string, at: number, digits: number): number {
  if (at + digits > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + digits; i++) {
    const c = text.charCodeAt(i);
    const digit =
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66
          ? (c | 0x20) - 0x57
          : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// The one form of each character.

const UNKNOWN = 0;
const AS_IS = 1;
const UPPER = 2;
const HIDDEN = 3;
const WHITE = 4;
/** Not ASCII: NFKC and lower case may make it another (or several). */
const OTHER = 5;

/** The kind of each UTF-16 unit, found on first sight: a table of the whole range would cost the start of every run. */
const kinds = new Uint8Array(0x10000);
/**
 * The form of each character of kind OTHER met lately: up to FORMS_KEPT, then it starts again, as a text of distinct
 * characters (the astral planes hold a million) would otherwise keep some 50 MB of them for the life of the process.
 */
const forms = new Map<number, string>();
const FORMS_KEPT = 64 * 1024;

/** How many forms are kept now: what `read` holds on to between texts, at most FORMS_KEPT. */
export function formsKept(): number {
  return forms.size;
}

function kindOf(cp: number): number {
  const known = cp < 0x10000 ? kinds[cp]! : UNKNOWN;
  if (known !== UNKNOWN) return known;
  const c = String.fromCodePoint(cp);
  const kind = HIDDEN_CHAR.test(c)
    ? HIDDEN
    : WHITE_CHAR.test(c)
      ? WHITE
      : cp >= 0x41 && cp <= 0x5a
        ? UPPER
        : cp < 0x80
          ? AS_IS
          : OTHER;
  if (cp < 0x10000) kinds[cp] = kind;
  return kind;
}

function formOf(cp: number): string {
  let form = forms.get(cp);
  if (form === undefined) {
    form = String.fromCodePoint(cp).normalize('NFKC').toLowerCase();
    if (forms.size >= FORMS_KEPT) forms.clear();
    forms.set(cp, form);
  }
  return form;
}

/** Buffers up to this many characters are kept for the next reading; a longer text's go with it. */
const KEPT_CAPACITY = 256 * 1024;
let spare: { codes: Uint16Array; from: Int32Array; to: Int32Array } | undefined;

/** A reading as it is written: its characters, and where each came from. */
class Writer {
  private codes: Uint16Array;
  private from: Int32Array;
  private to: Int32Array;
  private n = 0;

  constructor(size: number) {
    const capacity = size + 16;
    if (spare && spare.codes.length >= capacity)
      ({ codes: this.codes, from: this.from, to: this.to } = spare);
    else {
      this.codes = new Uint16Array(capacity);
      this.from = new Int32Array(capacity);
      this.to = new Int32Array(capacity);
    }
  }

  /** The character `cp`, read from `start` to `end` of the original, in its one form. */
  char(cp: number, start: number, end: number): void {
    const kind = kindOf(cp);
    if (kind !== OTHER) return this.unit(kind, cp, start, end);
    const form = formOf(cp);
    for (let i = 0; i < form.length; i++) {
      const c = form.charCodeAt(i);
      this.unit(kindOf(c), c, start, end);
    }
  }

  done(): Reading {
    const { n, codes, from, to } = this;
    if (codes.length <= KEPT_CAPACITY && (!spare || codes.length >= spare.codes.length))
      spare = { codes, from, to };
    return {
      text: Buffer.from(this.codes.buffer, 0, n * 2).toString('utf16le'),
      from: this.from.subarray(0, n),
      to: this.to.subarray(0, n),
    };
  }

  private unit(kind: number, c: number, start: number, end: number): void {
    if (kind === HIDDEN) return;
    if (kind === WHITE) {
      // A run of white space (and whatever hidden characters are in it) is one space.
      if (this.n > 0 && this.codes[this.n - 1] === 0x20) {
        this.to[this.n - 1] = end;
        return;
      }
      c = 0x20;
    } else if (kind === UPPER) c += 0x20;
    if (this.n === this.codes.length) this.grow();
    this.codes[this.n] = c;
    this.from[this.n] = start;
    this.to[this.n] = end;
    this.n++;
  }

  private grow(): void {
    const size = this.codes.length * 2;
    const codes = new Uint16Array(size);
    const from = new Int32Array(size);
    const to = new Int32Array(size);
    codes.set(this.codes);
    from.set(this.from);
    to.set(this.to);
    this.codes = codes;
    this.from = from;
    this.to = to;
  }
}
