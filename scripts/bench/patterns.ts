// Every pattern and text function the action applies to data, fed 1 MB of its worst case, and the answers of the
// HTTP layer on such bodies. A super-linear one takes minutes on this input (the old `<title` pattern: 42 s on
// 700 KiB), a linear one milliseconds. The test that keeps patterns linear is static (test/repo/patterns.test.ts);
// this measures what they cost. A new function over data gets a case here, with the input that is worst for it.
import type { Logger } from '../../src/core/logger.ts';
import { Sinks } from '../../src/core/sinks.ts';
import { listDeployments } from '../../src/service/calls.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { slug } from '../../src/shared/text.ts';
import { HttpError } from '../../src/service/errors.ts';
import { UUID } from '../../src/service/schemas.ts';
import { httpTransport } from '../../src/service/transport.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { code, codeBlock, esc, link } from '../../src/shared/markdown.ts';
import { Redactor } from '../../src/shared/redact.ts';
import { collapse, cut, lines, normalise, oneLine, visible } from '../../src/shared/text.ts';
import {
  absoluteHttpUrl,
  sameRepoUrl,
  withoutCredentials,
  withoutQuery,
} from '../../src/shared/url.ts';
import { Loopback } from '../../test/helpers/loopback.ts';

/** Each case's budget: generous for a linear pass over 1 MB, minutes short of a quadratic one. */
export const PATTERN_LIMIT_MS = 2000;
/** Runs per case; the slowest is the figure. */
const RUNS = 3;
const MB = 1024 * 1024;
const KEY = 'dk_Live7Qx9Zr2Lm4+Hv8Ws3Pn/Jt6Bc1Fy=Kg5Rb';

export interface PatternTiming {
  name: string;
  ms: number;
}

/** `unit` repeated to 1 MB (and `tail` after it: what makes a backtracking pattern fail late). */
function mb(unit: string, tail = ''): string {
  return unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB - tail.length) + tail;
}

function sinks(): Sinks {
  const redactor = new Redactor();
  redactor.add(KEY);
  redactor.add('Tb7Yq2Wx9Lk4\tMn8Rz3Vc6Pd1Hs');
  return new Sinks(redactor);
}

const hidden = mb('a\u0000\u200b\u00ad\u202e \t\n\u2028');
const almostKey = mb(`${KEY.slice(0, -1)}\u200b`);
const almostHex = mb(`${Buffer.from(KEY.slice(0, 7)).toString('hex')} `);
const errorOf = (server: string) => ({ request: 'GET /x', server });

function textCases(): [string, () => unknown][] {
  const s = sinks();
  return [
    ['normalise: hidden characters', () => normalise(hidden)],
    ['oneLine: line breaks among hidden characters', () => oneLine(hidden)],
    ['visible: every control shown', () => visible(hidden)],
    ['collapse: white space runs', () => collapse(mb(' \t', 'x'))],
    ['cut and lines', () => lines(cut(mb('\r\n\u2028'), MB - 1))],
    ['esc: every escape and link breaker', () => esc(mb('<>&@://www.`*_|\\'))],
    ['code: runs of backticks', () => code(mb('`x'))],
    ['codeBlock: runs of backticks', () => codeBlock(mb('``\n'))],
    ['link and httpUrl: not a URL', () => link(mb('https://a.example/', ' '))],
    ['absoluteHttpUrl: a scheme that never ends', () => absoluteHttpUrl(mb('a'))],
    ['withoutCredentials: // without @', () => withoutCredentials(mb('//'))],
    ['withoutQuery', () => withoutQuery(mb('/'))],
    ['sameRepoUrl: slashes before the end', () => sameRepoUrl(mb('/', 'x'), 'x')],
    ['the UUID pattern', () => UUID.test(mb('a'))],
    ['slug: a head branch of runs to collapse and ends to trim', () => slug(mb('-_/é', '-'))],
    ['HttpError: dots and spaces before the end', () => new HttpError(500, errorOf(mb('. ', 'x')))],
    ['HttpError: only dots', () => new HttpError(500, errorOf(mb('.')))],
    ['redact: near-misses of a secret, split by hidden characters', () => s.redact(almostKey)],
    ['redact: white space runs and hidden characters', () => s.redact(hidden)],
    ['redact: the key over and over (a match at every position)', () => s.redact(mb(KEY))],
    [
      'redact: every encoding to undo (percent, entities, escapes, full width)',
      () => s.redact(mb('%4B%c3%a9&#107;&#x4B&lowbar;\\u004b\\_+ｋ㎏')),
    ],
    ['redact: escapes that never finish', () => s.redact(mb('%&#\\u&x;%e2%82'))],
    ['redact: named entities with no `;` anywhere after them', () => s.redact(mb('&a'))],
    ['redact: near-misses of the key in hex', () => s.redact(almostHex)],
    ['excerpt', () => s.excerpt(hidden, 300)],
    ['logLine: white space, then no command', () => s.logLine(mb(' ', 'x'))],
    ['logLine: ##[ everywhere', () => s.logLine(mb('##['))],
    ['output and field', () => s.field(s.output(hidden), 140)],
    ['markdown: 1 MB of lines', () => s.markdown(mb('\n'), 256 * 1024)],
  ];
}

/** Bodies the HTTP layer reads, each answered to a listing request: [case, status, content type, body]. */
const ANSWERS: [string, number, string, string][] = [
  ['an HTML page that opens <title over and over', 200, 'text/html', mb('<title')],
  ['an HTML title of entities', 200, 'text/html', `<title>${mb('&#1234567;&')}`],
  ['a page that is HTML only by its start', 404, 'text/plain', ` ${mb(' ', '<html>')}`],
  [
    'an error detail of hidden characters',
    400,
    'application/json',
    JSON.stringify({ detail: hidden }),
  ],
  ['an error body that is not JSON', 400, 'text/plain', almostKey],
  [
    'JSON of another shape',
    409,
    'application/json',
    JSON.stringify({ error: [almostKey, hidden] }),
  ],
  ['a 200 that is not JSON', 200, 'text/plain', hidden],
];

const quiet: Logger = { debug() {}, info() {}, notice() {}, warning() {} };

async function slowest(f: () => unknown): Promise<number> {
  let worst = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await f();
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

/** The slowest of RUNS runs of each case, text functions first, then the HTTP layer's answers. */
export async function patternTimings(): Promise<PatternTiming[]> {
  const timings: PatternTiming[] = [];
  for (const [name, f] of textCases()) timings.push({ name, ms: await slowest(f) });

  const http = await Loopback.start();
  const transport = httpTransport('agent-deploy-action/bench');
  try {
    for (const [name, status, type, body] of ANSWERS) {
      http.answer = (_, res) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      };
      const send = async () => {
        const s = sinks();
        const client = ServiceClient.open(
          {
            baseUrl: http.url,
            apiKey: KEY,
            requestTimeoutMs: 10_000,
            excerpt: (text, max) => s.excerpt(text, max),
          },
          {
            deadline: systemClock.now() + 10_000,
            signal: new AbortController().signal,
            limit: 'timeout',
            time: systemClock,
          },
          quiet,
          transport,
        );
        const answer = await client.send(listDeployments({ limit: 1 })).then(
          () => undefined,
          (e: unknown) => e,
        );
        // Each body is one the client must refuse: a success would mean the case measured another path.
        if (!(answer instanceof Error)) throw new Error(`bench: ${name}: the client accepted it`);
      };
      timings.push({ name: `HTTP answer: ${name}`, ms: await slowest(send) });
    }
  } finally {
    transport.dispose();
    await http.close();
  }
  return timings;
}
