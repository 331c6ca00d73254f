import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/service/json.ts';
import { code, esc, link } from '../../src/shared/markdown.ts';
import { formsKept } from '../../src/shared/readings.ts';
import { Redactor } from '../../src/shared/redact.ts';
import { cut, lines } from '../../src/shared/text.ts';
import { withoutCredentials } from '../../src/shared/url.ts';
import { Sinks } from '../../src/core/sinks.ts';
import { gitLabReferences } from '../helpers/gitlab.ts';
import { liveMentions, render } from '../helpers/hostile-checks.ts';

const KEY = 'ak_live_7Qx9*Zr2=Lm4';

function sinks(...secrets: string[]): Sinks {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return new Sinks(redactor);
}

describe('a log line', () => {
  const log = sinks();

  it('cannot start a workflow command, however the data is shaped', () => {
    for (const data of ['\n::error::pwned', '\r::add-mask::x', '::warning::x', '  ::error::x']) {
      const line = log.logLine(`Revision status: ${data}`);
      for (const part of lines(line)) expect(part.trimStart().startsWith('::')).toBe(false);
      expect(lines(log.logLine(data))).toHaveLength(1);
      expect(log.logLine(data).trimStart().startsWith('::')).toBe(false);
    }
  });

  it('breaks the legacy ##[command] form anywhere in the line', () => {
    expect(log.logLine('status ##[error]legacy')).not.toContain('##[');
  });

  it('shows control characters instead of sending them to the terminal', () => {
    const line = log.logLine('a\u001b[31mred\u0007\u2028b\u0085c');
    expect(line).toBe('a\\x1b[31mred\\x07\\u2028b\\x85c');
  });
});

describe('outputs and GitHub fields', () => {
  it('lose hidden characters before redaction, so a NUL-split secret is not joined after it', () => {
    const s = sinks(KEY);
    const split = `${KEY.slice(0, 6)}\u0000${KEY.slice(6)}`;
    expect(s.output(`a ${split} \u202eb\u200bc`)).toBe('a *** bc');
    expect(s.field(split, 140)).toBe('***');
  });

  it('are one line, cut after the secret is gone', () => {
    const s = sinks(KEY);
    expect(s.output('a\r\nb\nc\u2028d')).toBe('a b c d');
    const field = s.field(`${'x'.repeat(130)}${KEY}`, 140);
    expect(field).toBe(`${'x'.repeat(130)}***`);
    expect(field).not.toContain(KEY.slice(0, 8));
  });
});

describe('Markdown', () => {
  it('escapes HTML, table pipes, backticks, line breaks and mentions in text', () => {
    const text = esc('<img src=x onerror=alert(1)> | `x` @team\nnext');
    expect(text).not.toMatch(/[<>\n]/);
    expect(text).toContain('\\|');
    expect(text).toContain('\\`x\\`');
    expect(text).toContain('@&#8203;team');
  });

  it('breaks bare URLs and www. so that GitHub links nothing from data', () => {
    expect(esc('see https://evil.example and WWW.evil.example')).toBe(
      'see https:&#8203;//evil.example and WWW&#8203;.evil.example',
    );
  });

  it('escapes every GitLab reference, and shows each character as it was', () => {
    const text = 'see !12 #12 &5 %"v1" %3 $123 ~label ~"a b" @user ^1 g/p!7 \\!8 &amp;9 &#64;x';
    // The control: GitLab would link each of them unescaped.
    expect(gitLabReferences(text).length).toBeGreaterThanOrEqual(12);

    const escaped = esc(text);

    expect(gitLabReferences(escaped)).toEqual([]);
    expect(liveMentions(escaped)).toEqual([]);
    // What a reader sees: the text itself, with a zero-width space after the @.
    const shown = render(escaped)
      .replace(/<\/?p>\n?/g, '')
      .replace(/\u200b/g, '')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    expect(shown).toBe(text);
  });

  it('makes code spans that data cannot close, however many runs of backticks it holds', () => {
    expect(code('`x'.repeat(200_000))).toMatch(/^`` `x/);
    expect(code('a``b')).toBe('```a``b```');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(code('a|b')).toBe('`a\\|b`');
  });

  it('links only plain http(s) URLs', () => {
    expect(link('https://agent.example/health')).toBe('<https://agent.example/health>');
    expect(link('javascript:alert(1)')).toBe('`javascript:alert(1)`');
    expect(link('https://a.example/<x>')).toBe('`https://a.example/<x>`');
  });

  it('is cut whole lines at a time from the end when over the size, saying how many were left out', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `| row ${i} |`).join('\n');
    const out = sinks().markdown(text, 1024);
    expect(out.length).toBeLessThanOrEqual(1024);
    const kept = lines(out).filter((line) => line.startsWith('| row'));
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `| row ${i} |`));
    expect(out).toContain(`_(${1000 - kept.length} more lines left out: over 1 KiB)_`);
  });

  it('closes a code block it cuts, so that the note is not code', () => {
    const text = [
      '# plan',
      '````json',
      ...Array.from({ length: 500 }, () => '"x": 1,'),
      '````',
      'end',
    ].join('\n');
    const out = lines(sinks().markdown(text, 1024));
    expect(out.slice(-4)).toEqual([
      '````',
      '',
      expect.stringMatching(/^_\(\d+ more lines left out/),
      '',
    ]);
  });

  it('redacts what it keeps, however long what it leaves out', () => {
    const out = sinks(KEY).markdown(`${KEY}\n${'x\n'.repeat(2000)}`, 1024);
    expect(out.startsWith('***\n')).toBe(true);
  });
});

describe('the redactor', () => {
  const r = new Redactor();
  r.add(KEY);

  it.each([
    ['plain', KEY],
    ['JSON-escaped', JSON.stringify(KEY).slice(1, -1)],
    [
      '\\u-escaped',
      [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['Markdown-escaped', esc(KEY)],
    ['base64', Buffer.from(KEY).toString('base64')],
  ])('hides the %s form', (_, form) => {
    expect(r.redact(`before ${form} after`)).toBe('before *** after');
  });

  it.each([
    ['NUL', '\u0000'],
    ['zero-width space', '\u200b'],
    ['soft hyphen', '\u00ad'],
    ['right-to-left override', '\u202e'],
  ])('looks through a %s inside the value', (_, c) => {
    const split = `${KEY.slice(0, 5)}${c}${KEY.slice(5, 9)}${c}${c}${KEY.slice(9)}`;
    expect(r.redact(`before ${split} after`)).toBe('before *** after');
  });

  it('takes any run of white space in the text for any in the value', () => {
    const tab = new Redactor();
    tab.add('Tb7Yq2Wx9Lk4\tMn8Rz3Vc6Pd1');
    expect(tab.redact('a Tb7Yq2Wx9Lk4 Mn8Rz3Vc6Pd1 b')).toBe('a *** b');
    expect(tab.redact('a Tb7Yq2Wx9Lk4\n \u200b Mn8Rz3Vc6Pd1 b')).toBe('a *** b');
    // Without the space the two halves are still parts of 8 characters or more.
    expect(tab.redact('a Tb7Yq2Wx9Lk4Mn8Rz3Vc6Pd1 b')).toBe('a *** b');
  });

  const bytes = [...Buffer.from(KEY)];
  const every = (f: (c: string) => string) => [...KEY].map(f).join('');
  it.each([
    ['upper case', KEY.toUpperCase()],
    ['lower case', KEY.toLowerCase()],
    ['full-width (NFKC)', every((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
    ['hex', Buffer.from(KEY).toString('hex')],
    ['upper-case hex', Buffer.from(KEY).toString('hex').toUpperCase()],
    [
      'every byte percent-encoded',
      bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    ],
    [
      'every byte percent-encoded, upper case',
      bytes.map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
    ],
    ['form-encoded', new URLSearchParams({ v: KEY }).toString().slice(2)],
    ['base64url', Buffer.from(KEY).toString('base64url')],
    ['decimal HTML entities', every((c) => `&#${c.charCodeAt(0)};`)],
    ['hex HTML entities without their ;', every((c) => `&#X${c.charCodeAt(0).toString(16)}`)],
    [
      'named HTML entities',
      KEY.replace('*', '&ast;').replace('=', '&equals;').replace('_', '&lowbar;'),
    ],
    [
      '\\u-escaped in upper case',
      every((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`),
    ],
  ])('hides the %s form', (_, form) => {
    expect(r.redact(`before ${form} after`)).toBe('before *** after');
  });

  it('hides a part of 8 characters, in any form, and leaves one of 7', () => {
    const part = KEY.slice(5, 13);
    for (const form of [
      part,
      part.toUpperCase(),
      encodeURIComponent(part),
      Buffer.from(part).toString('hex'),
    ])
      expect(r.redact(`a ${form} b`), form).toBe('a *** b');
    expect(r.redact(`a ${KEY.slice(5, 12)} b`)).toBe(`a ${KEY.slice(5, 12)} b`);
  });

  it('hides only the secret: text around it, and a text without it, as they were', () => {
    const text =
      'Deployment my-agent (1b4e28ba-2fa1-41d2-883f-0016d3cca427): DEPLOYED at 12:00 %20 &amp; \\n';
    expect(r.redact(text)).toBe(text);
    expect(r.redact(`${text}${KEY}${text}`)).toBe(`${text}***${text}`);
  });

  it('hides the value inside a longer base64 text at every alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const encoded = Buffer.from(`${prefix}${KEY}and more`).toString('base64');
      const out = r.redact(encoded);
      const bare = Buffer.from(KEY).toString('base64').replace(/=+$/, '');
      for (let i = 0; i + 8 <= bare.length; i++) expect(out).not.toContain(bare.slice(i, i + 8));
    }
  });
});

describe('a quote of data', () => {
  it('is redacted before it is cut, so no prefix of a secret survives the cut', () => {
    const quote = sinks(KEY).excerpt(`${'x'.repeat(70)} ${KEY} tail`, 80);
    expect(quote).toBe(`${'x'.repeat(70)} *** tail`);
    expect(sinks(KEY).excerpt(`${'x'.repeat(75)} ${KEY}`, 80)).toBe(`${'x'.repeat(75)} ***`);
  });
});

describe('bounds', () => {
  it('refuses JSON nested deeper than 64 levels before parsing it', () => {
    expect(() => parseJson('['.repeat(100_000))).toThrow('nested deeper than 64 levels');
    expect(parseJson('{"a":"[[[[[[","b":[1]}')).toEqual({ a: '[[[[[[', b: [1] });
  });

  it('cuts without splitting a surrogate pair', () => {
    expect(cut('ab😀cd', 4)).toBe('ab…');
  });

  it('quotes 2 MiB of `&` that never end an entity in one pass (CPU time: a search to the end for each was 12 s)', () => {
    const s = sinks(KEY);
    const body = '&a'.repeat(1024 * 1024);
    // What the thread spent, not the time that passed: a bound load cannot reach, a quadratic search far past it.
    const before = process.threadCpuUsage();

    expect(s.excerpt(body, 300)).toBe(`${body.slice(0, 299)}…`);
    const { user, system } = process.threadCpuUsage(before);
    expect((user + system) / 1000).toBeLessThan(3000);
  });

  it('keeps at most 64K forms of characters read, whatever the text: 100K distinct astral ones, then a secret', () => {
    const s = sinks(KEY);
    let text = '';
    for (let cp = 0x20000; cp < 0x20000 + 100_000; cp++) text += String.fromCodePoint(cp);
    // Full width: the form of each letter is read again after the forms were let go.
    const wide = [...KEY].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('');

    expect(s.redact(`${text} ${wide}`)).toBe(`${text} ***`);
    expect(formsKept()).toBeGreaterThan(0);
    expect(formsKept()).toBeLessThanOrEqual(64 * 1024);
  });

  it('quotes a URL without its credentials', () => {
    expect(withoutCredentials('https://user:hunter2@ho st/')).toBe('https://***@ho st/');
    expect(withoutCredentials('https://u:p/w@x@host')).toBe('https://***@host');
  });
});
