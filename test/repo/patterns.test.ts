// No regular expression in src/ may backtrack super-linearly: a service, a proxy or an author of a pull request
// controls most of the text the action matches, and one quadratic pattern kept the action busy 26 s on a 700 KiB
// page (issue 17). Every pattern is found with TypeScript's parser, so a new one anywhere is checked without being
// listed, and judged by recheck's automaton checker: a static analysis, the same answer on any machine. Its
// verdicts are kept in linear-patterns.json: a pattern proven linear by this recheck is not analysed again, and a
// new or changed one is. What the patterns and text functions cost on 1 MB of their worst case is measured by
// `npm run bench -- patterns`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Diagnostics } from 'recheck';
import { describe, expect, it } from 'vitest';
import {
  ANALYSER,
  analyse,
  patternsIn,
  patternsUnder,
  verdict,
  type SourcePattern,
} from '../helpers/source-patterns.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORD = 'linear-patterns.json';

/**
 * The only patterns allowed to be super-linear: each is applied to a workflow input alone, which the workflow's
 * author controls, never to data. Keyed by file and pattern; a pattern used on data too does not belong here.
 */
const TRUSTED_ONLY: { file: string; pattern: string; reason: string }[] = [
  {
    file: 'src/inputs/values.ts',
    pattern: String.raw`/(\d+(\.\d+)?)(ms|s|m|h)/g`,
    reason:
      'a duration input (timeout, poll-interval, verify-timeout), after the anchored pattern before it accepted it',
  },
];

const FIX =
  'Rewrite it so that no two parts can match the same text in more than one way (or use indexOf and a loop); ' +
  'if only workflow inputs ever reach it, list it in TRUSTED_ONLY with the reason.';

const written = (p: { source: string; flags: string }) => `/${p.source}/${p.flags}`;
const excepted = (p: SourcePattern) =>
  TRUSTED_ONLY.some((e) => e.file === p.file && e.pattern === written(p));

/** The patterns this very analyser (recheck's version and checker) proved linear before, as written. */
const record = JSON.parse(readFileSync(new URL(RECORD, import.meta.url), 'utf8')) as {
  analyser: typeof ANALYSER;
  linear: string[];
};
const proven = new Set(
  JSON.stringify(record.analyser) === JSON.stringify(ANALYSER) ? record.linear : [],
);

/** 'recorded' for a pattern proven linear before; otherwise recheck's verdict, analysed once per run. */
const verdicts = new Map<string, Promise<Diagnostics>>();
function judge(pattern: { source: string; flags: string }): Promise<Diagnostics> | 'recorded' {
  const key = written(pattern);
  if (proven.has(key)) return 'recorded';
  if (!verdicts.has(key)) verdicts.set(key, analyse(pattern));
  return verdicts.get(key)!;
}

const { patterns, unknown } = patternsUnder(`${ROOT}src`, ROOT);
const judged = patterns.filter((p) => !excepted(p));

describe('every regular expression in src/', () => {
  it('is known before the run: a RegExp is built only from literals and constants of its file', () => {
    expect(unknown, 'build it from literals and top-level consts, or give it as a literal').toEqual(
      [],
    );
  });

  it.each(judged.map((p) => [`${p.file}:${p.line} ${written(p)}`, p]))(
    '%s is linear',
    async (_, pattern) => {
      const answer = judge(pattern);
      if (answer === 'recorded') return;
      const diagnostics = await answer;
      expect(diagnostics.status, `${verdict(diagnostics)}. ${FIX}`).toBe('safe');
    },
  );

  it(`is in ${RECORD} once proven linear, and nothing else is`, async () => {
    const linear: string[] = [];
    for (const pattern of judged) {
      const answer = judge(pattern);
      if (answer === 'recorded' || (await answer).status === 'safe') linear.push(written(pattern));
    }
    const current = { analyser: ANALYSER, linear: [...new Set(linear)].sort() };

    await expect(`${JSON.stringify(current, null, 2)}\n`).toMatchFileSnapshot(
      RECORD,
      `the patterns proven linear changed: \`npx vitest run ${fileURLToPath(import.meta.url).slice(ROOT.length)} -u\` records them`,
    );
  });

  it.each(TRUSTED_ONLY.map((e) => [`${e.file} ${e.pattern}`, e]))(
    'the exception %s is still there and still needed',
    async (_, exception) => {
      const uses = patterns.filter(
        (p) => p.file === exception.file && written(p) === exception.pattern,
      );
      expect(uses.length, 'not in that file any more: drop the exception').toBeGreaterThan(0);
      for (const use of uses)
        expect((await analyse(use)).status, 'safe now: drop the exception').not.toBe('safe');
    },
  );
});

describe('the guard', () => {
  // Both were in the action once: the `<title` pattern kept it busy 26 s, the other is the classic quadratic trim.
  const planted = patternsIn(
    'src/planted.ts',
    [
      "const ATTRS = '[^>]*';",
      'const OPEN = `<title${ATTRS}>`;',
      "export const title = (html: string) => new RegExp(OPEN + '([^<]*)<\\\\/title>', 'i').exec(html);",
      "export const bare = (url: string) => url.replace(/(\\.git)?\\/*$/, '');",
      'export const fromData = (text: string) => new RegExp(text);',
    ].join('\n'),
  );

  it('finds literals and RegExps built from constants anywhere in a file, and what it cannot know', () => {
    expect(planted.patterns.map((p) => [p.line, written(p)])).toEqual([
      [3, String.raw`/<title[^>]*>([^<]*)<\/title>/i`],
      [4, String.raw`/(\.git)?\/*$/`],
    ]);
    expect(planted.unknown).toEqual([
      { file: 'src/planted.ts', line: 5, code: 'new RegExp(text)' },
    ]);
  });

  it.each(planted.patterns.map((p) => [written(p), p]))(
    'analyses %s, in no record, and reports it super-linear',
    async (_, pattern) => {
      const answer = judge(pattern);
      if (answer === 'recorded') throw new Error('a planted pattern is in the record');
      const diagnostics = await answer;
      expect(diagnostics.status).toBe('vulnerable');
      expect(verdict(diagnostics)).toMatch(/^vulnerable \(2nd degree polynomial\)/);
    },
  );

  it('takes a pattern for proven only as written, with its flags, and only from this analyser', () => {
    const [key] = [...proven];
    expect(key, `${RECORD} holds no pattern this recheck proved`).toBeDefined();
    const end = key!.lastIndexOf('/');
    const [source, flags] = [key!.slice(1, end), key!.slice(end + 1)];
    expect(judge({ source, flags })).toBe('recorded');
    expect(judge({ source: `${source}x`, flags })).not.toBe('recorded');
    expect(judge({ source, flags: `${flags}y` })).not.toBe('recorded');
    expect(proven.size).toBe(record.linear.length);
  });
});
