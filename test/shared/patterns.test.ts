// Every pattern the action applies to data, fed 1 MB of its worst case. A benchmark-style guard, and the one place a
// test looks at the clock: a super-linear pattern takes minutes on such input (the old `<title` pattern: 42 s on
// 700 KiB), a linear one milliseconds, so a budget of seconds tells them apart on any machine without flaking.
// A new pattern over data belongs here, with the input that is worst for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.ts';
import { listDeployments } from '../../src/service/calls.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { HttpError } from '../../src/service/errors.ts';
import { slug } from '../../src/inputs/preview.ts';
import { UUID } from '../../src/service/schemas.ts';
import { code, codeBlock, esc, link } from '../../src/shared/markdown.ts';
import { Redactor } from '../../src/shared/redact.ts';
import { collapse, cut, lines, normalise, oneLine, visible } from '../../src/shared/text.ts';
import {
  absoluteHttpUrl,
  sameRepoUrl,
  withoutCredentials,
  withoutQuery,
} from '../../src/shared/url.ts';
import { Sinks } from '../../src/core/sinks.ts';
import { memoryLog, TEST_TRANSPORT } from '../helpers/core.ts';
import { Loopback } from '../helpers/loopback.ts';

const MB = 1024 * 1024;
const BUDGET_MS = 2000;
const KEY = 'dk_Live7Qx9Zr2Lm4+Hv8Ws3Pn/Jt6Bc1Fy=Kg5Rb';

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

/** Runs `f` and answers how long it took, in ms. */
async function timed(f: () => unknown): Promise<number> {
  const started = performance.now();
  await f();
  return performance.now() - started;
}

const hidden = mb('a\u0000\u200b\u00ad\u202e \t\n\u2028');
const almostKey = mb(`${KEY.slice(0, -1)}\u200b`);

describe('each pattern over data, on 1 MB of its worst case, within a generous budget', () => {
  const s = sinks();
  it.each([
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
    ['excerpt', () => s.excerpt(hidden, 300)],
    ['logLine: white space, then no command', () => s.logLine(mb(' ', 'x'))],
    ['logLine: ##[ everywhere', () => s.logLine(mb('##['))],
    ['output and field', () => s.field(s.output(hidden), 140)],
    ['markdown: 1 MB of lines', () => s.markdown(mb('\n'), 256 * 1024)],
  ])('%s', async (_, f) => {
    expect(await timed(f)).toBeLessThan(BUDGET_MS);
  });
});

function errorOf(server: string) {
  return { request: 'GET /x', server };
}

describe('the answers the HTTP layer reads, on 1 MB of their worst case, within a generous budget', () => {
  let http: Loopback;
  let reply: { status: number; type: string; body: string };
  beforeAll(async () => {
    http = await Loopback.start();
    http.answer = (_, res) => {
      res.writeHead(reply.status, { 'content-type': reply.type });
      res.end(reply.body);
    };
  });
  afterAll(() => http.close());

  it.each([
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
  ])('%s', async (_, status, type, body) => {
    reply = { status, type, body };
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
      memoryLog(),
      TEST_TRANSPORT,
    );
    let error: unknown;
    const ms = await timed(() =>
      client.send(listDeployments({ limit: 1 })).catch((e: unknown) => (error = e)),
    );
    expect(error).toBeInstanceOf(Error);
    expect(ms).toBeLessThan(BUDGET_MS);
  });
});
