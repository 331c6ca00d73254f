// Issue 9, through the bundled action: a hostile service, a pull request's author and broken inputs cannot make the
// action write a workflow command, HTML, a live @mention or any piece of a secret into any sink, cannot make it read
// outside the workspace, and cannot outgrow its bounds. Every run goes through the same checks (expectSafe).
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marked } from 'marked';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ActionRun, runAction } from './helpers/action.ts';
import { FakeAgent } from './helpers/agent.ts';
import { type FakeUser, useGitHub } from './helpers/github.ts';
import {
  base64,
  deepError,
  type Endpoint,
  endlessBody,
  exactNamesForever,
  type EchoForm,
  type Handler,
  hugePage,
  markdownEscape,
  pagesForever,
  PAYLOADS,
  type Reply,
  SHORT_PAYLOAD,
  splitEvery,
  titleBomb,
  unicodeEscape,
  useHostileService,
} from './helpers/hostile.ts';
import { INTEGRATION } from './helpers/setup.ts';
import type { RecordedRequest } from './simulator/server.ts';

const ctx = useHostileService();
const github = useGitHub();

// Secrets with runs of 8+ plain characters between the characters each encoding changes, so a partly escaped
// copy still shows a plain piece.
const API_KEY = 'dk_Live7Qx9Zr2Lm4+Hv8Ws3Pn/Jt6Bc1Fy=Kg5Rb';
const SECRET = 'Sv4Tq8Wm2Xr6Lp"9Zk3Hn7Jd1Bf<5Gc0Ye2Ua8Mi>4Qw7Er1Ty|3Op9As5Df`2Gh6Jk0Lz&Nx';
const TOKEN = 'ghs_Fake0GitHub1Token2For3Hostile4Tests5x';
const PASSWORD = 'hunter2-Xq9Lm4Pz';
// A secret with a tab: a careless sink turns white space runs into one space before redacting, and misses it.
const TAB_SECRET = 'Tb7Yq2Wx9Lk4\tMn8Rz3Vc6Pd1Hs';

// A branch name is the pull request author's choice; git allows all of this in one.
const BRANCH = "feature/<img/src=x/onerror=alert(1)>`|@acme/admins'$(id)\u202egnp.exe";
const PR = 7;
const AUTHOR: FakeUser = { login: 'pr-author', id: 5550001, type: 'User' };
const prEvent = {
  number: PR,
  pull_request: {
    number: PR,
    head: { sha: 'b'.repeat(40), ref: BRANCH },
    user: { login: AUTHOR.login, id: AUTHOR.id },
  },
};
const prEnv = {
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_HEAD_REF: BRANCH,
  GITHUB_REF: `refs/pull/${PR}/merge`,
  GITHUB_REF_NAME: `${PR}/merge`,
};

// The child is killed past this, so a test that finds no bound does not take the machine's memory with it.
const KILL_ABOVE_KB = 1024 * 1024;
const PEAK_LIMIT_MB = 300;

interface HostileRun extends ActionRun {
  /** Peak resident memory of the child (VmHWM), MB. */
  peakMb: number;
}

/**
 * A deploy (or another command) on a pull_request event with a hostile head branch, a secret, the GitHub features
 * on (environment and pr-comment), against the hostile service; then the checks every hostile run must pass.
 */
async function deployHostile(
  inputs: Record<string, string> = {},
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HostileRun> {
  const { service } = ctx;
  const peak = { kb: 0 };
  const run = await runAction({
    inputs: {
      'base-url': service.url,
      'api-key': API_KEY,
      'github-token': TOKEN,
      name: service.name,
      secrets: `AGENT_SECRET=${SECRET}\nTAB_SECRET=${TAB_SECRET}`,
      'integration-id': INTEGRATION,
      'graph-config-path': 'graph.json',
      environment: 'preview',
      'pr-comment': 'true',
      'poll-interval': '1s',
      timeout: '10s',
      ...inputs,
    },
    env: { ...prEnv, GITHUB_API_URL: github.gh.url, ...options.env },
    event: prEvent,
    onSpawn: (child) => watchMemory(child, peak),
    timeoutMs: options.timeoutMs ?? 12_000,
  });
  const hostileRun = { ...run, peakMb: Math.round(peak.kb / 1024) };
  expectSafe(hostileRun);
  return hostileRun;
}

/** Polls the child's VmHWM (the kernel's peak RSS) until it exits; kills it past KILL_ABOVE_KB. */
function watchMemory(child: ChildProcess, peak: { kb: number }): void {
  const timer = setInterval(() => {
    let status: string;
    try {
      status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    } catch {
      return;
    }
    peak.kb = Math.max(peak.kb, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    if (peak.kb > KILL_ABOVE_KB) child.kill('SIGKILL');
  }, 20);
  child.on('exit', () => clearInterval(timer));
}

// The checks. Each returns what it found wrong, so a failure lists every problem at once.

/** Soft: a run shows all of its problems, not the first; the message names the first few. */
function expectSafe(run: HostileRun): void {
  const checks: Record<string, string[]> = {
    'the run ends cleanly': endedCleanly(run),
    'workflow commands from data': commandLines(run),
    'control characters in the log': controlCharacters(run),
    'outputs of more than one line': multiLineOutputs(run),
    'control and invisible characters in the sinks': invisibleCharacters(run),
    'HTML in the summary': htmlFromData(run.summary),
    '@mentions in the summary': liveMentions(run.summary),
    'links from data in the summary': linksFromData(run.summary),
    'the pull request comment': commentBodies().flatMap(commentProblems),
    'GitHub Deployment environment URLs': environmentUrls(),
    'pieces of a secret': secretPieces(sinks(run)),
  };
  for (const [check, problems] of Object.entries(checks))
    expect.soft(problems, `${check}:\n${problems.slice(0, 6).join('\n')}\n`).toEqual([]);
}

const LINE_BREAKS = /[\r\u2028\u2029\u0085]/;
const OWN_VERBS = new Set(['error', 'warning', 'notice', 'debug', 'group', 'endgroup']);
// Every command payload's message starts with one of these.
const PAYLOAD_MESSAGE = /^(pwned|legacy|x$)/;

/**
 * Lines the runner would take as commands that the action did not write itself. Lines are cut at LF (where the
 * action's own commands start) and again at CR, U+2028/2029 and U+0085: a command after one of those, or after
 * indentation, is data's. So is `##[` anywhere, a verb the action never uses, an `::add-mask::` after the first
 * lines, and a command whose message is one of the payloads.
 */
function commandProblems(stream: string, where: string, maskBlock: boolean): string[] {
  const problems: string[] = [];
  const lines = stream.split('\n');
  for (let i = maskBlock ? maskLines(lines) : 0; i < lines.length; i++) {
    lines[i]!.split(LINE_BREAKS).forEach((piece, j) => {
      const at = `${where} line ${i + 1}${j ? ` after a ${JSON.stringify(lines[i]!.match(LINE_BREAKS)?.[0])}` : ''}`;
      if (piece.includes('##[')) problems.push(`${at}: ##[ in ${show(piece)}`);
      const trimmed = piece.trimStart();
      if (!trimmed.startsWith('::')) return;
      const [, verb = '', message = ''] = /^::([^\s:]*)[^:]*::(.*)$/s.exec(trimmed) ?? [];
      if (j > 0 || trimmed !== piece) problems.push(`${at}: a command from data: ${show(piece)}`);
      else if (!OWN_VERBS.has(verb)) problems.push(`${at}: verb '${verb}': ${show(piece)}`);
      else if (PAYLOAD_MESSAGE.test(message)) problems.push(`${at}: ${show(piece)}`);
    });
  }
  return problems;
}

/** How many lines the log opens with that are `::add-mask::` commands: the one place a secret may stand. */
function maskLines(lines: string[]): number {
  let n = 0;
  while (lines[n]?.startsWith('::add-mask::')) n++;
  return n;
}

function commandLines(run: ActionRun): string[] {
  return [
    ...commandProblems(run.stdout, 'stdout', true),
    ...commandProblems(run.stderr, 'stderr', false),
  ];
}

/** C0 controls but LF and TAB (so CR and ESC), DEL and C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function controlCharacters(run: ActionRun): string[] {
  return Object.entries({ stdout: run.stdout, stderr: run.stderr }).flatMap(([where, text]) =>
    [...text.matchAll(CONTROL)]
      .slice(0, 5)
      .map(
        (m) =>
          `${where}: U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${show(text.slice(m.index - 20, m.index + 20))}`,
      ),
  );
}

function multiLineOutputs(run: ActionRun): string[] {
  return Object.entries(run.outputs)
    .filter(([, value]) => /[\r\n\u2028\u2029\u0085]/.test(value))
    .map(([name, value]) => `${name}: ${show(value)}`);
}

const SUMMARY_LIMIT = 1024 * 1024;
const COMMENT_LIMIT = 65536;

/** Not killed, not crashed: an exit code, `result`, a summary the runner keeps, an error line when failing. */
function endedCleanly(run: HostileRun): string[] {
  const problems: string[] = [];
  if (run.code !== 0 && run.code !== 1) problems.push(`exit code ${run.code} after ${run.ms} ms`);
  if (!run.outputs.result) problems.push('no result output');
  if (!run.summary.trim()) problems.push('no summary');
  const size = Buffer.byteLength(run.summary);
  if (size > SUMMARY_LIMIT) problems.push(`a summary of ${size} bytes (the runner drops it)`);
  if (run.code === 1 && run.errors.length === 0) problems.push('failed without an ::error:: line');
  if (/^\s+at .+:\d+:\d+\)?$/m.test(run.stderr) || /RangeError|FATAL ERROR/.test(run.stderr))
    problems.push(`a crash: ${show(run.stderr)}`);
  if (run.peakMb * 1024 > KILL_ABOVE_KB) problems.push(`killed at ${run.peakMb} MB`);
  return problems;
}

// What the action writes itself into Markdown: these elements, links to http(s) only, the comment's marker.
const OWN_TAGS = new Set([
  'h3',
  'h4',
  'p',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'code',
  'strong',
  'em',
  'a',
  'blockquote',
  'pre',
  'br',
]);
const OWN_ATTRIBUTES =
  /^(\s+(align="(left|right|center)"|class="language-[\w-]+"|href="https?:\/\/[^"\s]*"))*\s*\/?$/;

/**
 * The HTML GitHub would make of the Markdown. marked ends a table cell at a pipe after an even run of backslashes
 * (`\\|`); cmark-gfm does not (its `table_cell` scan takes any backslash-pipe as an escaped pipe), so one more
 * backslash makes marked split cells where GitHub does.
 */
function render(markdown: string): string {
  const cells = markdown.replace(/(?<!\\)((?:\\\\)+)\|/g, '$1\\|');
  return marked.parse(cells, { gfm: true, async: false });
}

/** Elements and comments in the GFM rendering that the action does not write itself; `marker` may open it. */
function htmlFromData(markdown: string, marker?: string): string[] {
  let text = markdown;
  if (marker && text.startsWith(`${marker}\n`)) text = text.slice(marker.length + 1);
  const html = render(text);
  const problems: string[] = [];
  for (const m of html.matchAll(/</g)) {
    const rest = html.slice(m.index, m.index + 200);
    const tag = /^<\/?([a-zA-Z][\w-]*)([^<>]*)>/.exec(rest);
    if (!tag) problems.push(`not a tag: ${show(rest.slice(0, 60))}`);
    else if (!OWN_TAGS.has(tag[1]!.toLowerCase())) problems.push(`<${tag[1]}>: ${show(tag[0])}`);
    else if (!rest.startsWith('</') && !OWN_ATTRIBUTES.test(tag[2]!))
      problems.push(`attributes: ${show(tag[0])}`);
  }
  return problems;
}

/** `@name` and `@org/team` that GitHub would link: in text, not in code, pre or a link, entities decoded. */
function liveMentions(markdown: string): string[] {
  const html = render(markdown);
  const text = decodeEntities(
    html
      .replace(/<(code|pre|a)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
  return [...text.matchAll(/(?:^|[^\w`])(@[a-z0-9][a-z0-9-]*(?:\/[a-z0-9][\w-]*)?)/gi)].map(
    (m) => `${m[1]} in ${show(text.slice(Math.max(0, m.index - 30), m.index + 40))}`,
  );
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] !== '#') return named[e.toLowerCase()] ?? all;
    return String.fromCodePoint(
      e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : +e.slice(1),
    );
  });
}

/** What GitHub received as comment bodies, oldest first. */
function commentBodies(): string[] {
  return github.gh.requests
    .filter((r) => /\/issues\/(\d+\/comments|comments\/\d+)$/.test(r.path) && r.method !== 'GET')
    .map((r) => String((r.body as { body?: unknown }).body));
}

/** The first line hides the deployment's name (as the inputs give it, or redacted when the service's) in a comment. */
const MARKER = /^<!-- agent-deploy-action:(?:(?!-->)[^\n])* -->$/;

function commentProblems(body: string): string[] {
  const marker = body.slice(0, body.indexOf('\n'));
  return [
    ...(MARKER.test(marker) ? [] : [`does not start with a marker line: ${show(marker)}`]),
    ...(body.length > COMMENT_LIMIT ? [`${body.length} characters (GitHub's limit: 65536)`] : []),
    ...htmlFromData(body, marker),
    ...liveMentions(body),
    ...linksFromData(body),
  ];
}

/** Links GitHub would make to the hostile service's hosts: autolinked bare URLs (`https://…`, `www.…`) from data. */
function linksFromData(markdown: string): string[] {
  return [...render(markdown).matchAll(/<a\s[^>]*href="([^"]*)"/g)]
    .filter((m) => /evil\.example/i.test(m[1]!))
    .map((m) => `a link to ${show(m[1]!)}`);
}

/** C0 and C1 controls but LF and TAB, bidi controls, zero-width characters, soft hyphens, BOMs. */
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** Raw control or invisible characters anywhere the action writes: they hide or turn text around for a reader. */
function invisibleCharacters(run: HostileRun): string[] {
  return Object.entries(sinks(run)).flatMap(([sink, text]) => {
    const m = INVISIBLE.exec(text);
    if (!m) return [];
    const code = m[0].charCodeAt(0).toString(16).padStart(4, '0');
    return [`${sink}: U+${code} in ${show(text.slice(Math.max(0, m.index - 20), m.index + 20))}`];
  });
}

/** A GitHub Deployment's environment URL is a link GitHub shows: none, or http(s) without spaces or brackets. */
function environmentUrls(): string[] {
  return github.gh.deployments
    .flatMap((d) => d.statuses.map((s) => s.environment_url))
    .filter((url) => url != null && url !== '' && !/^https?:\/\/[^\s<>"'`]+$/.test(String(url)))
    .map((url) => show(String(url)));
}

/** Everything the action wrote: the log (less the masking lines it opens with), summary, outputs, GitHub bodies. */
function sinks(run: ActionRun): Record<string, string> {
  const lines = run.stdout.split('\n');
  const out: Record<string, string> = {
    stdout: lines.slice(maskLines(lines)).join('\n'),
    stderr: run.stderr,
    summary: run.summary,
    outputs: `${JSON.stringify(run.outputs)}\n${Object.values(run.outputs).join('\n')}`,
  };
  github.gh.requests.forEach((r, i) => {
    if (r.body !== undefined)
      out[`GitHub request ${i + 1} (${r.method} ${r.path})`] =
        `${JSON.stringify(r.body)}\n${strings(r.body).join('\n')}`;
  });
  return out;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

const PIECE = 8;

/** The forms a secret takes in text, by name; base64 as the characters made of its own bytes, at each alignment. */
function secretForms(secret: string): Record<string, string> {
  const unicode = unicodeEscape(secret);
  const forms: Record<string, string> = {
    plain: secret,
    'JSON-escaped': JSON.stringify(secret).slice(1, -1),
    '\\u-escaped': unicode,
    '\\U-escaped': unicode.toUpperCase().replace(/\\U/g, '\\u'),
    'URL-encoded': encodeURIComponent(secret),
    'form-encoded': new URLSearchParams({ s: secret }).toString().slice(2),
    'Markdown-escaped': markdownEscape(secret),
    'HTML-escaped': secret
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;'),
    'command-escaped': secret.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'),
  };
  const bytes = Buffer.byteLength(secret);
  for (const offset of [0, 1, 2]) {
    const b64 = base64(`${'\u0000'.repeat(offset)}${secret}`);
    const core = b64.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes)) / 6));
    forms[`base64 at ${offset}`] = core;
    forms[`base64url at ${offset}`] = core.replace(/\+/g, '-').replace(/\//g, '_');
  }
  return forms;
}

const SECRETS = {
  'api-key': API_KEY,
  'secrets value': SECRET,
  'secrets value with a tab': TAB_SECRET,
  'github-token': TOKEN,
};

/**
 * Where PIECE characters of a form of a secret show: per sink and secret, up to three places, and which forms of it
 * the sink holds whole.
 */
function secretPieces(
  where: Record<string, string>,
  secrets: Record<string, string> = SECRETS,
): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    const forms = secretForms(secret);
    const pieces = new Set<string>();
    for (const text of Object.values(forms))
      for (let i = 0; i + PIECE <= text.length; i++) pieces.add(text.slice(i, i + PIECE));
    for (const [sink, raw] of Object.entries(where)) {
      // Also as a reader takes it in: a secret split by hidden characters, or by the log's escapes of them.
      for (const [text, how] of [
        [raw, ''],
        [unhidden(raw), ', hidden characters taken out'],
      ] as const) {
        const places: string[] = [];
        for (let i = 0; i + PIECE <= text.length && places.length < 3; i++) {
          if (!pieces.has(text.slice(i, i + PIECE))) continue;
          places.push(show(text.slice(Math.max(0, i - 30), i + 50)));
          i += 80;
        }
        if (!places.length) continue;
        const whole = Object.entries(forms).filter(([, form]) => text.includes(form));
        const what = whole.length ? `whole ${whole.map(([form]) => form).join(', ')}` : 'pieces';
        found.push(`${sink}: ${name} (${what}${how}) at ${places.join(' and ')}`);
        break;
      }
    }
  }
  return found;
}

/** Text without hidden characters, raw or as the log shows them (`\x00`, `\u200b`, `\u{e0041}`). */
function unhidden(text: string): string {
  return text
    .replace(/\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\u\{[0-9a-f]+\}/gi, '')
    .replace(new RegExp(INVISIBLE.source, 'g'), '');
}

/** A short, visible rendering of text in a failure message. */
function show(text: string): string {
  const s = JSON.stringify(text);
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
}

// Helpers that keep the tests short.

function expectFailure(run: HostileRun, ...parts: (string | RegExp)[]): void {
  expect(run.code).toBe(1);
  expect(run.outputs.result).toBe('failed');
  const errors = run.errors.join('\n');
  for (const part of parts) expect(errors).toMatch(part);
}

const ourComments = () =>
  github.gh.commentsOn(PR).filter((c) => c.body.startsWith('<!-- agent-deploy-action:'));

const commentEdits = () => github.gh.writes().filter((r) => r.method === 'PATCH');

describe('the checks catch what they look for', () => {
  it('a data-made command, ##[, an indented or CR-led command; not the action’s own lines', () => {
    const own = '::add-mask::abc\n::error::GET failed%0A::error::pwned\nplain line\n';
    expect(commandProblems(own, 'x', true)).toEqual([]);
    for (const bad of [
      'info: x\n::error::pwned\n',
      'a\r::add-mask::x\n',
      'a\n  ::warning::pwned\n',
      'a\u2028::notice::pwned\n',
      'a\n::set-env name=A::b\n',
      'a ##[error]legacy\n',
      'a\n::add-mask::late\n',
    ])
      expect(commandProblems(bad, 'x', true), bad).not.toEqual([]);
  });

  it('HTML elements and unsafe links from Markdown, live mentions, and none in the action’s own forms', () => {
    const own =
      '### ✅ Deployed: a\n\n| Result | `deployed` |\n|---|---|\n| URL | <https://x.example> |\n\n> note\n\n```json\n{}\n```\n';
    expect(htmlFromData(own)).toEqual([]);
    expect(liveMentions(own)).toEqual([]);
    for (const bad of [
      '<img src=x>',
      '<details open>',
      '[a](javascript:alert(1))',
      '![p](http://e/p.png)',
    ])
      expect(htmlFromData(`| a | ${bad} |`), bad).not.toEqual([]);
    // A cell whose code span holds `\\|`: GitHub keeps it one cell (the pipe is escaped), so no element.
    expect(htmlFromData('| a | `x\\\\|<img src=x>` |\n|---|---|\n')).toEqual([]);
    expect(liveMentions('hi @acme/admins and `@code`')).toEqual([
      expect.stringContaining('@acme/admins'),
    ]);
    expect(liveMentions('hi &#64;team')).not.toEqual([]);
    expect(liveMentions('hi @&#8203;team and mail@example.com')).toEqual([]);
  });

  it('raw control and invisible characters in any sink', () => {
    const run = { stdout: 'a\u202eb', stderr: '', summary: 'x\u200by', outputs: { r: 'a\u0000b' } };
    expect(invisibleCharacters(run as unknown as HostileRun)).toHaveLength(3);
    expect(
      invisibleCharacters({
        ...run,
        stdout: 'ab',
        summary: 'xy',
        outputs: {},
      } as unknown as HostileRun),
    ).toEqual([]);
  });

  it('a secret split by hidden characters, raw or shown as the log’s escapes', () => {
    const leak = (text: string) => secretPieces({ sink: text }, { secret: SECRET });
    expect(leak(splitEvery(SECRET, '\u0000'))).not.toEqual([]);
    expect(leak(splitEvery(SECRET, '\\u200b'))).not.toEqual([]);
    expect(leak(splitEvery(SECRET, '\\x00'))).not.toEqual([]);
  });

  it('bare URLs that GitHub would link', () => {
    expect(linksFromData('see https://evil.example/login')).not.toEqual([]);
    expect(linksFromData('see www.evil.example')).not.toEqual([]);
    expect(linksFromData('see https:&#8203;//evil.example and www&#8203;.evil.example')).toEqual(
      [],
    );
    expect(linksFromData('| URL | <https://agent.example> |')).toEqual([]);
  });

  it('eight characters of a secret in any form, base64 at any alignment included', () => {
    const leak = (text: string) => secretPieces({ sink: text }, { secret: SECRET });
    expect(leak('nothing here')).toEqual([]);
    expect(leak(`…${SECRET.slice(20, 28)}…`)).not.toEqual([]);
    expect(leak(unicodeEscape(SECRET).slice(40, 48))).not.toEqual([]);
    expect(leak(encodeURIComponent(SECRET).slice(10, 30))).not.toEqual([]);
    for (const prefix of ['', 'a', 'ab', 'abc'])
      expect(leak(base64(`${prefix}${SECRET}tail`)), prefix).not.toEqual([]);
  });
});

describe('a hostile service: every field it answers is data', () => {
  it.each([
    ['an http custom_url with <> and a newline', {}],
    ['a javascript: custom_url', { customUrl: 'javascript:alert(document.cookie)//' }],
    ['every string \\u-escaped on the wire', { wireEscape: true }],
    ['values of 400,000 characters', { padding: 'p'.repeat(400_000) }],
    // One argument per run of backticks was a RangeError: no summary, and the GitHub Deployment left in_progress.
    ['values with 150,000 runs of backticks', { padding: '`x'.repeat(150_000) }],
  ])(
    'a deploy through it (%s) is deployed, and nothing in it is injected, rendered or leaked',
    async (_, setup) => {
      Object.assign(ctx.service, setup);

      const run = await deployHostile();

      expect(run.code).toBe(0);
      expect(run.outputs.result).toBe('deployed');
      expect(ourComments()).toHaveLength(1);
      expect(github.gh.deployments[0]?.statuses.map((s) => s.state)).toEqual([
        'in_progress',
        'success',
      ]);
    },
  );

  it('a create resolves a hostile repository listing and waits through a hostile answer', async () => {
    const { service } = ctx;
    service.exists = false;
    service.repositories = [{ owner: 'acme', name: 'agent' }];

    const run = await deployHostile();

    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(service.requestsTo('create')).toHaveLength(1);
  });

  it('a repository listing without this repository is named safely in the error', async () => {
    ctx.service.exists = false;

    const run = await deployHostile();

    expectFailure(run, /acme\/agent/);
  });

  it('listeners with hostile compute_ids are listed safely when none matches', async () => {
    const run = await deployHostile({ listener: 'missing-cluster' });

    expectFailure(run, /missing-cluster/);
  });

  it('a listener’s hostile namespaces are listed safely when k8s-namespace is not one of them', async () => {
    const run = await deployHostile({ listener: randomUUID(), 'k8s-namespace': 'prod' });

    expectFailure(run, /k8s-namespace/);
  });

  it('status reads a hostile latest revision: still in progress, shown safely', async () => {
    const run = await deployHostile({ command: 'status' });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('submitted');
  });

  it('a redeploy waits through a hostile status to DEPLOYED', async () => {
    const run = await deployHostile({ command: 'redeploy', 'revision-id': randomUUID() });

    expect(run.outputs.result).toBe('deployed');
  });

  it('a token update answered with hostile fields is reported safely', async () => {
    const run = await deployHostile({
      command: 'token-metadata',
      name: '',
      'token-id': 'tok_1',
      'provider-account-label': 'ci',
    });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('updated');
  });

  it.each([
    ['as text', ['plain', 'json-escaped', 'url-encoded', 'markdown-escaped']],
    ['in base64', ['base64', 'base64 at 1', 'base64 at 2']],
    [
      'split by NULs, zero-width spaces and soft hyphens',
      ['NUL-split', 'zero-width-split', 'soft-hyphen-split'],
    ],
  ] satisfies [string, EchoForm[]][])(
    'statuses echo the key and the secret %s, each form that fits in one: none shows',
    async (_, forms) => {
      const { service } = ctx;
      service.echo = forms;
      const echo = (i: number) => () => service.shortEchoes()[i] ?? 'DEPLOYED';
      service.statuses = [
        SHORT_PAYLOAD,
        ...Array.from({ length: 8 }, (_, i) => echo(i)),
        'DEPLOYED',
      ];

      const run = await deployHostile({ timeout: '14s' }, { timeoutMs: 14_000 });

      expect(run.outputs.result).toBe('deployed');
      expect(service.requestsTo('revision').length).toBeGreaterThan(forms.length);
    },
  );

  it('an id that is not a uuid is refused before it becomes part of a path', async () => {
    const { service } = ctx;
    const bad = `../../auth/tokens/x/metadata\n::error::pwned<img src=x>`;
    service.on('patch', () => ({
      body: { ...service.targetDeployment(), latest_revision_id: bad },
    }));

    const run = await deployHostile();

    expectFailure(run, /latest_revision_id/);
    expect(service.requestsTo('revision')).toEqual([]);
    expect(service.requestsTo('token-metadata')).toEqual([]);
  });
});

describe('hostile error bodies: the failure is reported, safely', () => {
  const text = (label: string) => ctx.service.text(label);
  it.each([
    [
      'a 403 detail that echoes the key',
      'list',
      () => ({ status: 403, body: { detail: text('forbidden') } }),
      'GET /v2/deployments',
    ],
    [
      'a 400 detail string',
      'patch',
      () => ({ status: 400, body: { detail: text('detail') } }),
      'PATCH /v2/deployments/',
    ],
    [
      'a FastAPI 422 list that echoes the body',
      'patch',
      (req: RecordedRequest) => ({
        status: 422,
        body: {
          detail: [
            { type: 'value_error', loc: ['body', text('loc')], msg: text('msg'), input: req.body },
          ],
        },
      }),
      'PATCH /v2/deployments/',
    ],
    [
      'JSON of another shape that echoes the request headers',
      'patch',
      (req: RecordedRequest) => ({
        status: 409,
        body: { error: text('error'), request: { headers: req.headers, body: req.body } },
      }),
      'PATCH /v2/deployments/',
    ],
    [
      'an HTML error page',
      'patch',
      () => ({
        status: 502,
        contentType: 'text/html',
        raw: `<html><body><h1>${text('h1')}</h1></body></html>`,
      }),
      // An HTML page points at base-url: the full URL is named.
      /PATCH http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\//,
    ],
    [
      'a 200 that is not JSON',
      'patch',
      () => ({ contentType: 'text/plain', raw: text('plain') }),
      'PATCH /v2/deployments/',
    ],
  ] satisfies [string, Endpoint, Handler, string | RegExp][])(
    '%s (%s)',
    async (_, endpoint, reply, named) => {
      ctx.service.on(endpoint, reply);

      const run = await deployHostile();

      expectFailure(run, named);
    },
  );
});

describe('bounds', () => {
  it('a body that never ends is cut at the cap: a clear failure, under 300 MB', async () => {
    ctx.service.on('list', endlessBody());

    const run = await deployHostile();

    console.info(`endless body: peak RSS ${run.peakMb} MB, ${run.ms} ms`);
    expectFailure(run, 'GET /v2/deployments', /\d+(\.\d+)? ?(KiB|MiB|GiB|KB|MB|bytes)\b/);
    expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
  });

  it('a valid page of 12 MiB is over the cap: a clear failure', async () => {
    const { service } = ctx;
    service.on('list', hugePage(service, 100, 126 * 1024));

    const run = await deployHostile();

    console.info(`12 MiB page: peak RSS ${run.peakMb} MB`);
    expectFailure(run, 'GET /v2/deployments', /\d+(\.\d+)? ?(KiB|MiB|GiB|KB|MB|bytes)\b/);
    expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
  });

  it('an error body nested 200,000 deep fails cleanly, no stack overflow', async () => {
    ctx.service.on('list', deepError(200_000));

    const run = await deployHostile();

    expectFailure(run, 'GET /v2/deployments', /400/);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/call stack|RangeError/i);
  });

  it.each([
    ['700 KiB', 700 * 1024],
    ['4 MiB', 4 * 1024 * 1024],
  ])(
    'an HTML page of %s that opens <title over and over fails at once, a clear failure',
    async (size, bytes) => {
      ctx.service.on('list', titleBomb(bytes));

      const run = await deployHostile();

      console.info(`<title bomb of ${size}: ${run.ms} ms`);
      expectFailure(run, 'GET', /an HTML page \(text\/html\), not the service's JSON/);
    },
  );

  it('a listing of endless 3.75 MiB pages of exact matches stops at the cap: a clear failure, under 300 MB', async () => {
    const { service } = ctx;
    service.on('list', exactNamesForever(service, 37 * 1024));

    const run = await deployHostile();

    console.info(`endless listing of exact matches: peak RSS ${run.peakMb} MB, ${run.ms} ms`);
    expectFailure(run, 'GET /v2/deployments', /more than this action keeps from one listing/);
    expect(run.errors[0]).toContain('Narrow the name, or set deployment-id.');
    expect(run.peakMb).toBeLessThan(PEAK_LIMIT_MB);
    expect(service.requestsTo('list').length).toBeLessThanOrEqual(10);
  });

  it('timeout bounds the lookup: a listing that pages forever, slowly, ends with the timeout', async () => {
    const { service } = ctx;
    service.on('list', pagesForever(service, 200));

    const run = await deployHostile({ timeout: '3s' });

    expect(run.code).toBe(1);
    expect(['failed', 'timed-out']).toContain(run.outputs.result);
    // 3 s of 200 ms pages is 15; a few more for the margin, far fewer than the 1,000-page guard.
    expect(service.requestsTo('list').length).toBeLessThanOrEqual(25);
  });
});

describe('normalise, redact, escape, then cut: a secret survives no transformation', () => {
  const page = (title: string) => ({
    status: 502,
    contentType: 'text/html',
    raw: `<html><head><title>${title}</title></head><body>bad gateway</body></html>`,
  });
  const entities = (s: string) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join('');
  // The first character \u-escaped, the rest as JSON writes it: redacting the raw text cannot find it.
  const partlyEscaped = (s: string) =>
    `\\u${s.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(s.slice(1)).slice(1, -1)}`;

  it.each([
    [
      'a secret partly \\u-escaped on the wire, across the cut of a server message',
      { status: 400, raw: `{"detail":"${'x'.repeat(285)} ${partlyEscaped(SECRET)}"}` },
    ],
    [
      'the key split by NULs, in the message and the GitHub Deployment status',
      { status: 400, body: { detail: splitEvery(API_KEY, '\u0000') } },
    ],
    [
      'the key split by zero-width spaces and soft hyphens',
      { status: 400, body: { detail: splitEvery(splitEvery(API_KEY, '\u200b'), '\u00ad') } },
    ],
    [
      'JSON of another shape with a secret split by soft hyphens',
      { status: 409, body: { error: splitEvery(SECRET, '\u00ad') } },
    ],
    ['a page title with the key across its cut', page(`${'x'.repeat(70)} ${API_KEY}`)],
    ['a page title that spells the key in HTML entities', page(`Error ${entities(API_KEY)}`)],
    ['a page title with a secret whose tab became a space', page(`Error ${TAB_SECRET}`)],
  ] satisfies [string, Reply][])('%s', async (_, reply) => {
    ctx.service.on('patch', reply);

    const run = await deployHostile();

    expectFailure(run, 'PATCH');
    const states = github.gh.deployments[0]?.statuses.map((st) => st.state);
    expect(states).toEqual(['in_progress', 'failure']);
  });

  it('a name the service gives, with the key split by NULs: marker, outputs and statuses', async () => {
    const { service } = ctx;
    service.name = `agent-${splitEvery(API_KEY, '\u0000')}`;
    const id = String(service.targetDeployment().id);

    const run = await deployHostile({ name: '', 'deployment-id': id });

    expect(run.outputs.result).toBe('deployed');
    expect(run.outputs['deployment-name']).toBe('agent-***');
    expect(ourComments()).toHaveLength(1);
    expect(ourComments()[0]!.body).toMatch(/^<!-- agent-deploy-action:agent-\*\*\* -->\n/);
  });
});

describe('verify-url: where the check goes is never the service’s choice, and the agent’s words are not shown', () => {
  let near: FakeAgent;
  let far: FakeAgent;
  beforeAll(async () => {
    [near, far] = await Promise.all([FakeAgent.start(), FakeAgent.start()]);
  });
  beforeEach(() => {
    near.reset();
    far.reset();
  });
  afterAll(() => Promise.all([near.close(), far.close()]));

  it('a path resolves against custom_url as read before the write, not as answered after it', async () => {
    const { service } = ctx;
    service.customUrl = near.url;
    service.on('patch', () => {
      service.customUrl = far.url;
      return undefined;
    });

    const run = await deployHostile({ 'verify-url': '/health' });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(near.requests.map((r) => r.path)).toContain('/health');
    expect(far.requests).toEqual([]);
  });

  it('a path resolves against the custom-url input when it is given', async () => {
    ctx.service.customUrl = far.url;

    const run = await deployHostile({ 'custom-url': near.url, 'verify-url': '/health' });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(near.requests.map((r) => r.path)).toContain('/health');
    expect(far.requests).toEqual([]);
  });

  it('an answer is shown as its status and length only; a query only as ?…', async () => {
    const said = `agent-said-this ${'x'.repeat(100)} ${SECRET} ${API_KEY} ${PAYLOADS.join(' ')}`;
    near.script = [
      { status: 503, body: said },
      { status: 302, headers: { location: 'https://evil.example/phish' } },
    ];

    const run = await deployHostile({
      'verify-url': `${near.url}/health?token=verify-query-value`,
      'verify-timeout': '2s',
    });

    expect(run.outputs).toMatchObject({ result: 'unhealthy', verified: 'false' });
    expect(run.errors[0]).toContain(`${near.url}/health?… did not answer 2xx`);
    expect(run.errors[0]).toContain('last: HTTP 302, a redirect, not followed (body: 0 bytes)');
    expect(run.stdout).toContain(`HTTP 503 (body: ${Buffer.byteLength(said)} bytes)`);
    const published = [run.summary, ...commentBodies(), JSON.stringify(github.gh.deployments)];
    for (const text of [...published, run.stdout, run.stderr]) {
      expect(text).not.toContain('agent-said-this');
      expect(text).not.toContain('evil.example/phish');
    }
    for (const text of published) expect(text).not.toContain('verify-query-value');
  });
});

describe('pull_request_target and token-id: inputs that rewrite what is deployed or where', () => {
  const target = { GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_REF: 'refs/heads/main' };

  it('pull_request_target gives no default repo-ref: an explicit one is required, before any request', async () => {
    const run = await deployHostile({}, { env: target });

    expectFailure(run, /Input 'repo-ref' is required on pull_request_target/, /head branch/);
    expect(run.errors).toHaveLength(1);
    expect(ctx.service.requests).toEqual([]);
  });

  it('pull_request_target with repo-ref deploys that ref, never the head branch', async () => {
    const run = await deployHostile({ 'repo-ref': 'main' }, { env: target });

    expect(run.outputs.result).toBe('deployed');
    const patch = ctx.service.requestsTo('patch')[0]?.body;
    expect(patch).toMatchObject({ source_revision_config: { repo_ref: 'main' } });
  });

  it.each(['../../deployments/x', 'tok/1', 'tok 1', '..', '.'])(
    'token-id %j is refused, naming the accepted form, before any request',
    async (tokenId) => {
      const run = await deployHostile({
        command: 'token-metadata',
        name: '',
        'token-id': tokenId,
        'provider-account-label': 'ci',
      });

      expectFailure(run, /Input 'token-id': .* is not a token id; use .*letters, digits/);
      expect(ctx.service.requests).toEqual([]);
    },
  );
});

describe('a dry run publishes input values only for revision-level fields', () => {
  it('the summary and the PR comment show ref and paths, and every other field as "set"; the log keeps all', async () => {
    const run = await deployHostile({
      'dry-run': 'true',
      'repo-ref': 'release-7',
      'build-command': 'make BUILD_TOKEN=build-value-123',
      'install-command': 'pip install --index-url https://u:install-value-456@pypi.example',
      'resource-spec': '{"labels": {"team": "spec-value-789"}}',
      'custom-url': 'https://agent.example',
      'verify-url': '/health?token=verify-query-value',
    });

    expect(run.outputs.result).toBe('planned');
    const values = ['build-value-123', 'install-value-456', 'spec-value-789', 'verify-query-value'];
    for (const text of [run.summary, ...commentBodies()]) {
      expect(text).toContain('release-7');
      expect(text).toContain('graph.json');
      expect(text).toContain('"build_command": "set"');
      for (const value of values) expect(text).not.toContain(value);
    }
    expect(commentBodies()).toHaveLength(1);
    for (const value of values) expect(run.stdout).toContain(value);
  });
});

describe('pull request comment: only the token’s own is ever edited', () => {
  const marker = '<!-- agent-deploy-action:my-agent -->';
  const forged = `${marker}\nforged: this comment is someone else’s`;

  it.each([
    ['the pull request’s author', AUTHOR],
    [
      'a bot with the same login but another id',
      { login: 'github-actions[bot]', id: 1, type: 'Bot' },
    ],
    ['a deleted account (user: null)', null],
  ] as const)(
    'a marker comment by %s is left alone; the action writes its own',
    async (_, user) => {
      const { gh } = github;
      const theirs = gh.addComment(PR, forged, user as FakeUser | null);

      const run = await deployHostile();

      expect(run.code).toBe(0);
      expect(theirs.body).toBe(forged);
      expect(commentEdits()).toEqual([]);
      const own = ourComments().filter((c) => c.id !== theirs.id);
      expect(own).toHaveLength(1);
      expect(own[0]!.user).toEqual(gh.viewerUser());
    },
  );

  it('with a forged comment before its own, the action updates its own', async () => {
    const { gh } = github;
    const theirs = gh.addComment(PR, forged, AUTHOR);
    const own = gh.addComment(PR, `${marker}\nan earlier run`);

    await deployHostile();

    expect(theirs.body).toBe(forged);
    expect(commentEdits().map((r) => r.path)).toEqual([
      `/repos/acme/agent/issues/comments/${own.id}`,
    ]);
    expect(own.body).toContain('Deployed');
  });

  it('the identity is the token’s, whatever it is: a personal token’s user, not github-actions[bot]', async () => {
    const { gh } = github;
    gh.viewer = { login: 'deploy-bot', id: 31337 };
    const actions = gh.addComment(PR, forged, {
      login: 'github-actions[bot]',
      id: 41898282,
      type: 'Bot',
    });
    const own = gh.addComment(PR, `${marker}\nan earlier run`);

    await deployHostile();

    expect(actions.body).toBe(forged);
    expect(commentEdits().map((r) => r.path)).toEqual([
      `/repos/acme/agent/issues/comments/${own.id}`,
    ]);
  });

  it('when GitHub will not say who the token is, no comment is edited', async () => {
    const { gh } = github;
    const own = gh.addComment(PR, `${marker}\nan earlier run`);
    gh.forbidden = /^POST \/graphql$/;

    const run = await deployHostile();

    expect(run.code).toBe(0);
    expect(commentEdits()).toEqual([]);
    expect(own.body).toBe(`${marker}\nan earlier run`);
  });
});

describe('resource-spec @file: only a regular file inside the workspace, refused before any request', () => {
  let workspace: string;
  let outside: string;
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), 'hostile-ws-'));
    outside = mkdtempSync(join(tmpdir(), 'hostile-outside-'));
    writeFileSync(join(outside, 'spec.yaml'), 'cpu: 2\n');
    writeFileSync(join(workspace, 'spec.yaml'), 'cpu: 1\n');
    symlinkSync(join(outside, 'spec.yaml'), join(workspace, 'outside.yaml'));
    symlinkSync(outside, join(workspace, 'linked'));
    symlinkSync('/dev/zero', join(workspace, 'zero.yaml'));
    execFileSync('mkfifo', [join(workspace, 'fifo.yaml')]);
    mkdirSync(join(workspace, 'big'));
    // Valid YAML (a comment, then one field) far over any sane cap for a ResourceSpec.
    writeFileSync(
      join(workspace, 'big', 'spec.yaml'),
      `# ${'x'.repeat(20 * 1024 * 1024)}\ncpu: 1\n`,
    );
  });
  afterAll(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const withSpec = (path: string) =>
    deployHostile(
      { 'resource-spec': `@${path}` },
      { env: { GITHUB_WORKSPACE: workspace }, timeoutMs: 8000 },
    );

  it('a regular file in the workspace is read and sent (the control)', async () => {
    const run = await withSpec('spec.yaml');

    expect(run.outputs.result).toBe('deployed');
    expect(ctx.service.requestsTo('patch')[0]?.body).toMatchObject({
      source_config: { resource_spec: { cpu: 1 } },
    });
  });

  it.each([
    ['a symlink to a file outside the workspace', 'outside.yaml'],
    ['a path through a symlinked folder outside the workspace', 'linked/spec.yaml'],
    ['a symlink to /dev/zero', 'zero.yaml'],
    ['a FIFO', 'fifo.yaml'],
    ['a file of 20 MiB', 'big/spec.yaml'],
  ])('%s is refused', async (_, path) => {
    const run = await withSpec(path);

    expect(run.code, 'ended by itself').not.toBeNull();
    expectFailure(run, /resource-spec/);
    expect(ctx.service.requests).toEqual([]);
  });
});

describe('base-url with user:password@', () => {
  it.each([
    `https://user:${PASSWORD}@ho st/`,
    `https://user:${PASSWORD}@api.example.com/`,
    `http://user:${PASSWORD}@127.0.0.1:9/`,
  ])('%s is refused without quoting the password', async (url) => {
    const run = await deployHostile({ 'base-url': url });

    expectFailure(run, /base-url/);
    expect(secretPieces(sinks(run), { password: PASSWORD })).toEqual([]);
    expect(ctx.service.requests).toEqual([]);
  });
});
