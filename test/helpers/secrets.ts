// Secret values a careless log, summary or error message would show ('=' inside, Markdown and JSON specials, a
// multi-line one), the `secrets` input forms that carry them, and the checks that none shows and each was masked.
// For in-process runs (test/core/leak.test.ts) and dist/ (test/hosts/github/masks.e2e.test.ts) alike.
import { expect } from 'vitest';

export const KEY = 'ak_live_7Qx9*Zr2=Lm4';
export const EQUALS = 'postgres://app:pa=ss@db.internal/app?sslmode=require';
export const SPECIALS = 'p@ss_w*rd"with\\quote[1]';
export const PEM_LINES = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEF',
  '-----END PRIVATE KEY-----',
];
export const MULTILINE = PEM_LINES.join('\n');
const SECRETS = [KEY, EQUALS, SPECIALS, MULTILINE];

/** `secrets` as NAME=value lines, with a comment and a blank line. */
export const lineForm = `DATABASE_URL=${EQUALS}\n# a comment\n\nPASSWORD=${SPECIALS}`;
/** `secrets` as a multi-line JSON object, TLS_KEY multi-line itself. */
export const jsonForm = JSON.stringify(
  { DATABASE_URL: EQUALS, PASSWORD: SPECIALS, TLS_KEY: MULTILINE },
  null,
  2,
);

/** The forms a value takes on its way into text: as is, inside JSON, Markdown-escaped, URL-encoded. */
function forms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    secret.replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1'),
    encodeURIComponent(secret),
  ];
}

// A piece this long of a value is a leak too: a message cut at its length limit must not keep half a secret.
const PIECE = 12;

/** No piece of any secret, in any of its forms, in what a run shows (`visibleText` of helpers/run.ts or action.ts). */
export function expectNoLeak(shown: Record<string, string>): void {
  const pieces = new Set<string>();
  for (const secret of SECRETS)
    for (const form of forms(secret))
      for (let i = 0; i + PIECE <= form.length; i++) pieces.add(form.slice(i, i + PIECE));
  for (const [where, text] of Object.entries(shown))
    for (const piece of pieces) expect(text, `${where} shows ${piece}`).not.toContain(piece);
}

/** Every one of `secrets` was masked for the runner (`::add-mask::`) before anything else was printed. */
export function expectMasked(stdout: string, secrets: string[]): void {
  const lines = stdout.split('\n');
  const firstOther = lines.findIndex((l) => !l.startsWith('::add-mask::'));
  const masks = lines.slice(0, firstOther).map((l) => l.slice('::add-mask::'.length));
  const unescape = (m: string) =>
    m.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
  for (const secret of secrets) expect(masks.map(unescape)).toContain(secret);
}
