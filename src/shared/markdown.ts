// Markdown for the job summary, the pull request comment and the merge request note. Data goes through these
// functions only, so it can never become HTML, a table cell boundary, a code span it closes, a line break, an
// @mention, a link, or a GitLab reference (`!12`, `#12`, `&5`, `%"v1"`, `$123`, `~label`: GitLab links none that a
// backslash escapes; `@user` is broken like a GitHub mention).
import { normalise, oneLine } from './text.ts';
import { httpUrl } from './url.ts';

/**
 * A zero-width space keeps GitHub from linking: after `@` no mention (nor an e-mail autolink), after `:` no
 * `https://` autolink, after `www` no `www.` one. Data never becomes a link the action did not mean to write.
 */
const ZWSP = '&#8203;';

/**
 * Text for a paragraph or a table cell: HTML and Markdown syntax escaped, on one line, nothing that autolinks. `&` is
 * backslash-escaped (a literal `&` in CommonMark, so never an entity), not `&amp;`: GitLab reads `&amp;5` as `&5`.
 */
export function esc(text: string): string {
  return oneLine(text)
    .replace(/([\\`*_[\]{}()#+!|~&$%^])/g, '\\$1')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, `@${ZWSP}`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/(www)\./gi, `$1${ZWSP}.`);
}

/**
 * Inline code that data cannot close: the fence is longer than any run of backticks inside, and padded when the
 * text starts or ends with one. `|` is escaped for tables (GFM unescapes it inside the cell's code span).
 */
export function code(text: string): string {
  const clean = oneLine(text).replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(clean) + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') || clean.trim() === '' ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** A fenced block for text of several lines, with a fence no line inside can close. */
export function codeBlock(text: string, language = ''): string[] {
  const clean = normalise(text);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(clean) + 1));
  return [`${fence}${language}`, clean, fence];
}

/** An http(s) URL as a link; anything else (javascript:, spaces, a bare host) as inline code. */
export function link(url: string): string {
  const href = httpUrl(url);
  return href ? `<${href.replace(/\|/g, '%7C')}>` : code(url);
}

/** The longest run of backticks, counted in a loop: a spread of one argument per run overflows on data. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 0x60 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
