// What every hostile run must pass, through dist/ (test/hosts/github/hostile.e2e.test.ts) or in-process
// (test/core/hostile.test.ts): no workflow command, HTML, live @mention, link or invisible character from data in any
// sink, and no piece of a secret in any form, GitHub API bodies included. Also the attacker's setup both share: the
// secrets, and a pull request whose author chose a hostile branch name. Each check returns what it found wrong, so a
// failure lists every problem at once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marked } from 'marked';
import { expect } from 'vitest';
import type { FakeGitHub, FakeUser } from './github.ts';
import {
  base64,
  fullWidth,
  type HostileService,
  htmlEntities,
  markdownEscape,
  percentEveryByte,
  unicodeEscape,
} from './hostile.ts';
import { INTEGRATION } from './setup.ts';

// Secrets with runs of 8+ plain characters between the characters each encoding changes, so a partly escaped
// copy still shows a plain piece.
export const API_KEY = 'dk_Live7Qx9Zr2Lm4+Hv8Ws3Pn/Jt6Bc1Fy=Kg5Rb';
export const SECRET = 'Sv4Tq8Wm2Xr6Lp"9Zk3Hn7Jd1Bf<5Gc0Ye2Ua8Mi>4Qw7Er1Ty|3Op9As5Df`2Gh6Jk0Lz&Nx';
export const TOKEN = 'ghs_Fake0GitHub1Token2For3Hostile4Tests5x';
export const PASSWORD = 'hunter2-Xq9Lm4Pz';
// A secret with a tab: a careless sink turns white space runs into one space before redacting, and misses it.
export const TAB_SECRET = 'Tb7Yq2Wx9Lk4\tMn8Rz3Vc6Pd1Hs';

// A branch name is the pull request author's choice; git allows all of this in one.
const BRANCH = "feature/<img/src=x/onerror=alert(1)>`|@acme/admins'$(id)\u202egnp.exe";
export const PR = 7;
export const AUTHOR: FakeUser = { login: 'pr-author', id: 5550001, type: 'User' };
export const prEvent = {
  number: PR,
  pull_request: {
    number: PR,
    head: { sha: 'b'.repeat(40), ref: BRANCH },
    user: { login: AUTHOR.login, id: AUTHOR.id },
  },
};
export const prEnv = {
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_HEAD_REF: BRANCH,
  GITHUB_REF: `refs/pull/${PR}/merge`,
  GITHUB_REF_NAME: `${PR}/merge`,
};

/** A deploy of the hostile service's deployment with a secret and the GitHub features on (environment, pr-comment). */
export function hostileInputs(
  service: HostileService,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
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
    ...extra,
  };
}

/**
 * A workspace for `resource-spec: @path`: `spec.yaml` (cpu: 1), the control, and what must be refused: symlinks to
 * a file and a folder outside it, a symlink to /dev/zero, a FIFO, and a valid YAML file of 20 MiB.
 */
export function hostileWorkspace(): { workspace: string; dispose: () => void } {
  const workspace = mkdtempSync(join(tmpdir(), 'hostile-ws-'));
  const outside = mkdtempSync(join(tmpdir(), 'hostile-outside-'));
  writeFileSync(join(outside, 'spec.yaml'), 'cpu: 2\n');
  writeFileSync(join(workspace, 'spec.yaml'), 'cpu: 1\n');
  symlinkSync(join(outside, 'spec.yaml'), join(workspace, 'outside.yaml'));
  symlinkSync(outside, join(workspace, 'linked'));
  symlinkSync('/dev/zero', join(workspace, 'zero.yaml'));
  execFileSync('mkfifo', [join(workspace, 'fifo.yaml')]);
  mkdirSync(join(workspace, 'big'));
  // Valid YAML (a comment, then one field) far over any sane cap for a ResourceSpec.
  writeFileSync(join(workspace, 'big', 'spec.yaml'), `# ${'x'.repeat(20 * 1024 * 1024)}\ncpu: 1\n`);
  return {
    workspace,
    dispose: () => {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    },
  };
}

/** What a run left, through dist/ (helpers/action.ts) or in-process (helpers/run.ts, which has no stderr). */
interface SinkRun {
  code: number | null;
  stdout: string;
  stderr?: string;
  outputs: Record<string, string>;
  summary: string;
  errors: string[];
  ms: number;
  /** Peak resident memory of a child process (VmHWM), MB. */
  peakMb?: number;
}

/** A child past this much resident memory is killed, so a test that finds no bound does not take the machine's. */
export const KILL_ABOVE_KB = 1024 * 1024;

/** Every check on a run and what `gh` received; the failure shows each check's first problems, all checks at once. */
export function expectSafe(run: SinkRun, gh: FakeGitHub): void {
  const checks: Record<string, string[]> = {
    'the run ends cleanly': endedCleanly(run),
    'workflow commands from data': commandLines(run),
    'control characters in the log': controlCharacters(run),
    'outputs of more than one line': multiLineOutputs(run),
    'control and invisible characters in the sinks': invisibleCharacters(sinks(run, gh)),
    'HTML in the summary': htmlFromData(run.summary),
    '@mentions in the summary': liveMentions(run.summary),
    'links from data in the summary': linksFromData(run.summary),
    'the pull request comment': commentBodies(gh).flatMap(commentProblems),
    'GitHub Deployment environment URLs': environmentUrls(gh),
    'pieces of a secret': secretPieces(sinks(run, gh)),
  };
  const found = Object.entries(checks)
    .filter(([, problems]) => problems.length > 0)
    .map(([check, problems]) => [check, problems.slice(0, 6)]);
  expect(Object.fromEntries(found)).toEqual({});
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
export function commandProblems(stream: string, where: string, maskBlock: boolean): string[] {
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

function commandLines(run: SinkRun): string[] {
  return [
    ...commandProblems(run.stdout, 'stdout', true),
    ...commandProblems(run.stderr ?? '', 'stderr', false),
  ];
}

/** C0 controls but LF and TAB (so CR and ESC), DEL and C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function controlCharacters(run: SinkRun): string[] {
  return Object.entries({ stdout: run.stdout, stderr: run.stderr ?? '' }).flatMap(([where, text]) =>
    [...text.matchAll(CONTROL)]
      .slice(0, 5)
      .map(
        (m) =>
          `${where}: U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${show(text.slice(m.index - 20, m.index + 20))}`,
      ),
  );
}

function multiLineOutputs(run: SinkRun): string[] {
  return Object.entries(run.outputs)
    .filter(([, value]) => /[\r\n\u2028\u2029\u0085]/.test(value))
    .map(([name, value]) => `${name}: ${show(value)}`);
}

const SUMMARY_LIMIT = 1024 * 1024;
const COMMENT_LIMIT = 65536;

/**
 * Not killed, not crashed: an exit code, `result`, a summary the runner keeps, an error line when failing; no
 * exception that only the edge caught (a bug) and no render that fell back to the short summary.
 */
function endedCleanly(run: SinkRun): string[] {
  const problems: string[] = [];
  if (run.code !== 0 && run.code !== 1) problems.push(`exit code ${run.code} after ${run.ms} ms`);
  if (!run.outputs.result) problems.push('no result output');
  if (!run.summary.trim()) problems.push('no summary');
  const size = Buffer.byteLength(run.summary);
  if (size > SUMMARY_LIMIT) problems.push(`a summary of ${size} bytes (the runner drops it)`);
  if (run.code === 1 && run.errors.length === 0) problems.push('failed without an ::error:: line');
  const stderr = run.stderr ?? '';
  if (/^\s+at .+:\d+:\d+\)?$/m.test(stderr) || /RangeError|FATAL ERROR/.test(stderr))
    problems.push(`a crash: ${show(stderr)}`);
  const bug = run.errors.find((e) => e.includes('This is a bug in the action'));
  if (bug) problems.push(`an unexpected error: ${show(bug)}`);
  const fallback = /Could not render the [^\n]*/.exec(run.stdout);
  if (fallback) problems.push(`a render failed: ${show(fallback[0])}`);
  if ((run.peakMb ?? 0) * 1024 > KILL_ABOVE_KB) problems.push(`killed at ${run.peakMb} MB`);
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
export function render(markdown: string): string {
  const cells = markdown.replace(/(?<!\\)((?:\\\\)+)\|/g, '$1\\|');
  return marked.parse(cells, { gfm: true, async: false });
}

/** Elements and comments in the GFM rendering that the action does not write itself; `marker` may open it. */
export function htmlFromData(markdown: string, marker?: string): string[] {
  let text = markdown;
  if (marker && text.startsWith(`${marker}\n`)) text = text.slice(marker.length + 1);
  const html = render(text);
  const problems: string[] = [];
  for (const m of html.matchAll(/</g)) {
    // To the tag's end, however long (a link to a URL of 64 KiB), else what follows.
    const end = html.indexOf('>', m.index);
    const rest = html.slice(m.index, end === -1 ? m.index + 200 : end + 1);
    const tag = /^<\/?([a-zA-Z][\w-]*)([^<>]*)>/.exec(rest);
    if (!tag) problems.push(`not a tag: ${show(rest.slice(0, 60))}`);
    else if (!OWN_TAGS.has(tag[1]!.toLowerCase())) problems.push(`<${tag[1]}>: ${show(tag[0])}`);
    else if (!rest.startsWith('</') && !OWN_ATTRIBUTES.test(tag[2]!))
      problems.push(`attributes: ${show(tag[0])}`);
  }
  return problems;
}

/** `@name` and `@org/team` that GitHub would link: in text, not in code, pre or a link, entities decoded. */
export function liveMentions(markdown: string): string[] {
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

export function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] !== '#') return named[e.toLowerCase()] ?? all;
    return String.fromCodePoint(
      e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : +e.slice(1),
    );
  });
}

/** What GitHub received as comment bodies, oldest first. */
export function commentBodies(gh: FakeGitHub): string[] {
  return gh.requests
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
export function linksFromData(markdown: string): string[] {
  return [...render(markdown).matchAll(/<a\s[^>]*href="([^"]*)"/g)]
    .filter((m) => /evil\.example/i.test(m[1]!))
    .map((m) => `a link to ${show(m[1]!)}`);
}

/** C0 and C1 controls but LF and TAB, bidi controls, zero-width characters, soft hyphens, BOMs. */
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** Raw control or invisible characters anywhere the action writes: they hide or turn text around for a reader. */
export function invisibleCharacters(where: Record<string, string>): string[] {
  return Object.entries(where).flatMap(([sink, text]) => {
    const m = INVISIBLE.exec(text);
    if (!m) return [];
    const code = m[0].charCodeAt(0).toString(16).padStart(4, '0');
    return [`${sink}: U+${code} in ${show(text.slice(Math.max(0, m.index - 20), m.index + 20))}`];
  });
}

/** A GitHub Deployment's environment URL is a link GitHub shows: none, or http(s) without spaces or brackets. */
function environmentUrls(gh: FakeGitHub): string[] {
  return gh.deployments
    .flatMap((d) => d.statuses.map((s) => s.environment_url))
    .filter((url) => url != null && url !== '' && !/^https?:\/\/[^\s<>"'`]+$/.test(String(url)))
    .map((url) => show(String(url)));
}

/** Everything the action wrote: the log (less the masking lines it opens with), summary, outputs, GitHub bodies. */
export function sinks(run: SinkRun, gh: FakeGitHub): Record<string, string> {
  const lines = run.stdout.split('\n');
  const out: Record<string, string> = {
    stdout: lines.slice(maskLines(lines)).join('\n'),
    stderr: run.stderr ?? '',
    summary: run.summary,
    outputs: `${JSON.stringify(run.outputs)}\n${Object.values(run.outputs).join('\n')}`,
  };
  gh.requests.forEach((r, i) => {
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
    'upper case': secret.toUpperCase(),
    'lower case': secret.toLowerCase(),
    hex: Buffer.from(secret).toString('hex'),
    'upper-case hex': Buffer.from(secret).toString('hex').toUpperCase(),
    'every byte percent-encoded': percentEveryByte(secret),
    'every byte percent-encoded, lower case': percentEveryByte(secret).toLowerCase(),
    'full-width': fullWidth(secret),
    'HTML entities': htmlEntities(secret),
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
export function secretPieces(
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

/** Failed, `result=failed`, and the error lines say each of `parts`. */
export function expectFailure(run: SinkRun, ...parts: (string | RegExp)[]): void {
  expect(run.code).toBe(1);
  expect(run.outputs.result).toBe('failed');
  const errors = run.errors.join('\n');
  for (const part of parts) expect(errors).toMatch(part);
}

/** The comments on the pull request that carry a marker (the action's, or forged). */
export const ourComments = (gh: FakeGitHub) =>
  gh.commentsOn(PR).filter((c) => c.body.startsWith('<!-- agent-deploy-action:'));

/** The comment edits GitHub received. */
export const commentEdits = (gh: FakeGitHub) => gh.writes().filter((r) => r.method === 'PATCH');
