// A Deployment Management Service that answers like an attacker would: every body is valid against the interface's
// field types (uuids where it says uuid, required fields present), but every free-text field the action may print
// carries payloads aimed at the job log, Markdown and mentions, and echoes the API key and secret values the
// service received, in the encodings a careless redaction misses. Also the bounds: endless, huge and deep bodies,
// and a listing that pages forever. In-process on 127.0.0.1, recording every request; what it holds, it holds on
// the clock it is given (a world's FakeClock, counted in `parked`), so in-process runs keep their exact time.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type Clock, systemClock } from '../../src/shared/clock.ts';
import type { RecordedRequest } from '../simulator/server.ts';
import { Loopback, LoopbackFake, useFake } from './loopback.ts';
import type { World } from './run.ts';

/** Text aimed at the runner's log, at Markdown and HTML, at @mentions and at GitLab's references. */
export const PAYLOADS: readonly string[] = [
  '\n::error::pwned',
  '\r::add-mask::x',
  '\n  ::warning::pwned',
  '\n::set-env name=NODE_OPTIONS::--require=/tmp/pwned.js',
  '\n::add-path::/tmp/pwned',
  '\n::stop-commands::pwned',
  '\u2028::notice::pwned',
  '\u2029::error::pwned',
  '\u0085::error::pwned',
  '##[error]legacy',
  '\n##[group]legacy',
  '\u001b[31mred\u001b[0m',
  '\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007',
  '\u009b31m\u0000\u0007\u0008\u000b\u000c\u007f',
  'lone\rcarriage',
  '<img src=x onerror=alert(1)>',
  '<details open><summary>open me</summary>',
  '<a href="javascript:alert(1)">link</a>',
  '<script>alert(1)</script>',
  '<!-- agent-deploy-action:my-agent -->',
  '[click](javascript:alert(1)) ![pixel](http://evil.example/p.png)',
  '`code` `` two ``',
  '\n```\n<img src=x onerror=alert(2)>\n```\n',
  '| a | b |\n|---|---|\n| c | d |',
  'back\\| slash before a pipe \\\\| two',
  '\n# heading\n- item\n> quote',
  '@acme/admins @octocat cc:@team',
  '!12 #12 &5 %"v1" %3 $123 ~label ~"a b" ^1 group/project!34',
  '&lt;b&gt;entity&#64;mention',
  'log in at https://evil.example/login or www.evil.example/reset',
  '\u202egnp.exe \u2066isolate\u2069 zero\u200bwidth soft\u00adhyphen \ufeffbom',
];

/** The payloads that fit where the action allows at most 100 characters (statuses). */
export const SHORT_PAYLOAD =
  '\n::error::pwned\r::add-mask::x##[error]legacy\u001b[31m<img src=x onerror=alert(1)>`|@acme/admins\u2028';
const STATUS_MAX = 100;

/** The forms in which the fake echoes a secret it received, as text inside a string field. */
const ECHO_FORMS = {
  plain: (s: string) => s,
  'json-escaped': (s: string) => JSON.stringify(s).slice(1, -1),
  'unicode-escaped': (s: string) => unicodeEscape(s),
  'url-encoded': (s: string) => encodeURIComponent(s),
  // Base64 of the secret alone, and inside a longer value that starts 1 and 2 bytes earlier (other alignments).
  base64: (s: string) => base64(`${s}!`),
  'base64 at 1': (s: string) => base64(`{${s}}`),
  'base64 at 2': (s: string) => base64(`{"${s}"}`),
  'markdown-escaped': (s: string) => markdownEscape(s),
  'upper case': (s: string) => s.toUpperCase(),
  hex: (s: string) => Buffer.from(s).toString('hex'),
  'upper-case hex': (s: string) => Buffer.from(s).toString('hex').toUpperCase(),
  'every byte percent-encoded': (s: string) => percentEveryByte(s),
  base64url: (s: string) => Buffer.from(s).toString('base64url'),
  'full-width': (s: string) => fullWidth(s),
  'HTML entities': (s: string) => htmlEntities(s),
  // Any 8 characters of a secret are a leak: 10 from its middle.
  'a part': (s: string) => s.slice(3, 13),
  // Split by what a reader does not see: a sink that drops it only after redacting shows the secret whole.
  'NUL-split': (s: string) => splitEvery(s, '\u0000'),
  'zero-width-split': (s: string) => splitEvery(s, '\u200b'),
  'soft-hyphen-split': (s: string) => splitEvery(s, '\u00ad'),
} satisfies Record<string, (s: string) => string>;
export type EchoForm = keyof typeof ECHO_FORMS;

/** Every UTF-16 unit as `\uXXXX`. */
export function unicodeEscape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** `separator` after every 5 characters: no 8-character piece of the secret is left whole. */
export function splitEvery(s: string, separator: string): string {
  return (s.match(/[^]{1,5}/g) ?? []).join(separator);
}

/** `%XX` (upper-case hex) for every UTF-8 byte, letters and digits included. */
export function percentEveryByte(s: string): string {
  return [...Buffer.from(s)]
    .map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`)
    .join('');
}

/** Printable ASCII as its full-width form (U+FF01…), which NFKC turns back. */
export function fullWidth(s: string): string {
  return s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
}

/** Every character as an HTML entity: named where HTML has a name, else decimal and hex in turn. */
export function htmlEntities(s: string): string {
  const named: Record<string, string> = {
    '&': '&amp;',
    '<': '&lt;',
    '"': '&quot;',
    '=': '&equals;',
  };
  return [...s]
    .map(
      (c, i) =>
        named[c] ?? (i % 2 ? `&#${c.codePointAt(0)};` : `&#x${c.codePointAt(0)!.toString(16)};`),
    )
    .join('');
}

export function base64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

/** CommonMark's backslash escape of every ASCII punctuation character. */
export function markdownEscape(s: string): string {
  return s.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** What a reply may be: JSON, raw text, a stream the test controls, after a delay (on the service's clock). */
export interface Reply {
  status?: number;
  body?: unknown;
  raw?: string;
  contentType?: string;
  delayMs?: number;
  /** Writes the body itself (and ends it, or not). */
  stream?: (res: ServerResponse) => void;
}

/** The service's endpoints, named as in the tests. */
export type Endpoint =
  | 'token-metadata'
  | 'repos'
  | 'forge-repos'
  | 'create'
  | 'list'
  | 'patch'
  | 'redeploy'
  | 'revision'
  | 'listeners'
  | 'listener';

const ROUTES: [Endpoint, string, RegExp][] = [
  ['token-metadata', 'PATCH', /^\/v2\/auth\/tokens\/[^/]+\/metadata$/],
  ['repos', 'GET', /^\/v1\/integrations\/codehost\/[^/]+\/repos$/],
  ['forge-repos', 'GET', /^\/v1\/integrations\/forge\/codehost\/[^/]+\/repos$/],
  ['create', 'POST', /^\/v2\/deployments$/],
  ['list', 'GET', /^\/v2\/deployments$/],
  ['patch', 'PATCH', /^\/v2\/deployments\/[^/]+$/],
  ['redeploy', 'POST', /^\/v2\/deployments\/[^/]+\/revisions\/[^/]+\/redeploy$/],
  ['revision', 'GET', /^\/v2\/deployments\/[^/]+\/revisions\/[^/]+$/],
  ['listeners', 'GET', /^\/v2\/listeners$/],
  ['listener', 'GET', /^\/v2\/listeners\/[^/]+$/],
];

export type Handler = (req: RecordedRequest) => Reply | undefined;

interface Target {
  id: string;
  name: string;
  latest: string | null;
  active: string | null;
  /** The revision-level values the last write sent: the deployment shows them back, as a service does. */
  sent?: Record<string, unknown>;
  /** Reads of its revisions so far: the index into `statuses` of the next one. */
  reads: number;
}

const TENANT = '22222222-2222-4222-8222-222222222222';
const INTEGRATION = '11111111-1111-4111-8111-111111111111';
const AT = '2025-01-02T03:04:05Z';
const COMMIT = 'c0ffee5a1'.padEnd(40, '7');
const PAGE_LIMIT = 100;

export class HostileService extends LoopbackFake {
  /** The deployment's name: the action looks it up by its input `name`, so it must be exactly that to be found. */
  name = 'my-agent';
  /** Whether the deployment exists before the run (else the action creates it). */
  exists = true;
  /** Revision statuses, one per read; the last one repeats. A function is called at read time (echoes grow). */
  statuses: (string | (() => string))[] = [];
  /** The deployment's custom_url, as every answer carries it. */
  customUrl = '';
  /** How many other deployments (hostile names) the name listing shows besides the target. */
  others = 3;
  /** Listed repositories (owner/name) that a create can resolve; the rest are hostile. */
  repositories: { owner: string; name: string }[] = [];
  /** The encodings the secrets learned from requests are echoed in, in every free-text field. */
  echo: EchoForm[] = [];
  /** Every string of every JSON body written as `\uXXXX` escapes: the raw text never shows a secret as is. */
  wireEscape = false;
  /** Appended to every free-text field of the source revision config and to custom_url (e.g. a very long text). */
  padding = '';
  /** More labels in every deployment's resource_spec: with many of 64 KiB, answers near every limit. */
  labels: Record<string, string> = {};
  /** The revisions' repo_commit_sha: a valid one by default (any other is a schema error, tested on its own). */
  commit: string | null = COMMIT;
  /** The API key and secret values the requests carried, in the order first seen. */
  readonly learned: string[] = [];
  /** Requests held right now for a reply's `delayMs`: a FakeClock's `busy` lets time move while only these wait. */
  parked = 0;

  private readonly handlers = new Map<Endpoint, Handler>();
  private readonly clock: Clock;
  /** The deployment named `name`, once it exists. */
  private target: Target | undefined;
  /** Every deployment that exists, by id: the target and those `add` made. */
  private readonly targets = new Map<string, Target>();
  private shown = 0;

  private constructor(http: Loopback, clock: Clock) {
    super(http);
    this.clock = clock;
    this.reset();
  }

  /** On `clock` (delays), by default the system's. */
  static async start(clock: Clock = systemClock): Promise<HostileService> {
    return new HostileService(await Loopback.start(), clock);
  }

  /** Back to the defaults: a hostile deployment that exists, unknown hostile statuses, then DEPLOYED. */
  reset(): void {
    this.requests.length = 0;
    this.learned.length = 0;
    this.handlers.clear();
    this.name = 'my-agent';
    this.exists = true;
    // Then the last secret received (a secrets value, once the PATCH carried it) as is.
    const secret = () => this.learned.at(-1) ?? '';
    this.statuses = [
      SHORT_PAYLOAD,
      () => (secret().length <= STATUS_MAX ? secret() : SHORT_PAYLOAD),
      'DEPLOYED',
    ];
    this.customUrl = `http://evil.example/<img src=x onerror=alert(1)>\n::error::pwned`;
    this.others = 3;
    this.repositories = [];
    this.echo = Object.keys(ECHO_FORMS) as EchoForm[];
    this.wireEscape = false;
    this.padding = '';
    this.commit = COMMIT;
    this.labels = {};
    this.target = undefined;
    this.targets.clear();
    this.shown = 0;
  }

  /** Answer `endpoint` with `handler`'s reply instead of the default one (when it returns one). */
  on(endpoint: Endpoint, handler: Handler | Reply): void {
    this.handlers.set(endpoint, typeof handler === 'function' ? handler : () => handler);
  }

  requestsTo(endpoint: Endpoint): RecordedRequest[] {
    return this.requests.filter((r) => routeOf(r.method, r.path) === endpoint);
  }

  /**
   * A free-text field's value: its label (to tell where it showed up), every payload, and every secret this
   * service has received so far in every echo form.
   */
  text(label: string): string {
    const echoes = this.learned.flatMap((secret) =>
      this.echo.map((form) => `${form}: ${ECHO_FORMS[form](secret)}`),
    );
    return [`[${label}]`, ...PAYLOADS, ...echoes].join(' ');
  }

  /**
   * Status-sized values (at most 100 characters, the action's limit for a status): every echo form of every secret
   * learned so far that fits whole, packed a few to a value. A secret cut short is not echoed: no reader could
   * know it for one.
   */
  shortEchoes(): string[] {
    const packed: string[] = [];
    for (const secret of this.learned)
      for (const form of this.echo) {
        const echo = ECHO_FORMS[form](secret);
        if (echo.length > STATUS_MAX) continue;
        const last = packed.length - 1;
        if (last >= 0 && packed[last]!.length + 1 + echo.length <= STATUS_MAX)
          packed[last] += ` ${echo}`;
        else packed.push(echo);
      }
    return packed;
  }

  /** The deployment as the service shows it; the target's name and ids stay valid so the action can use it. */
  deployment(t: Target): Record<string, unknown> {
    const x = (label: string) => this.text(label);
    return {
      id: t.id,
      name: t.name,
      source: 'codehost',
      source_config: {
        integration_id: INTEGRATION,
        repo_url: x('repo_url'),
        deployment_type: 'dev',
        build_on_push: false,
        custom_url: this.customUrl + this.padding,
        resource_spec: { labels: { [x('label key')]: x('label value'), ...this.labels } },
        listener_id: null,
        listener_config: { k8s_namespace: x('k8s_namespace') },
        install_command: x('install_command'),
        build_command: x('build_command'),
      },
      // Hostile in every field but the values the last write sent (the action checks its revision by them).
      source_revision_config: { ...this.revisionConfig(), ...t.sent },
      secrets: [{ name: x('secret name'), value: x('secret value') }],
      secret_references: [
        { name: x('ref name'), secret_name: x('ref secret_name'), secret_key: x('ref secret_key') },
      ],
      tenant_id: TENANT,
      created_at: AT,
      updated_at: AT,
      // A different one each time: the payloads, then each short echo in turn.
      status: [SHORT_PAYLOAD, ...this.shortEchoes()][
        this.shown++ % (this.shortEchoes().length + 1)
      ],
      latest_revision_id: t.latest,
      active_revision_id: t.active,
      image_version: x('image_version'),
    };
  }

  private revisionConfig(): Record<string, unknown> {
    const x = (label: string) => this.text(label) + this.padding;
    return {
      repo_ref: x('repo_ref'),
      graph_config_path: x('graph_config_path'),
      // An image with white space or a control character is a schema error: the payloads within what is allowed.
      image_uri: `[image_uri]${PAYLOADS.join('')}${this.padding}`.replace(/[\s\p{Cc}\p{Cf}]/gu, ''),
      source_tarball_path: x('source_tarball_path'),
      repo_commit_sha: this.commit,
    };
  }

  /** Another deployment the name listing shows: its name contains the looked-up one, then payloads. */
  other(
    i: number,
    name = `${this.name}${i} ${this.text(`other name ${i}`)}`,
  ): Record<string, unknown> {
    const revision = randomUUID();
    return {
      id: randomUUID(),
      name,
      source: 'codehost',
      source_config: { integration_id: INTEGRATION },
      source_revision_config: { repo_ref: 'main' },
      secrets: [],
      tenant_id: TENANT,
      created_at: AT,
      updated_at: AT,
      status: 'READY',
      latest_revision_id: revision,
      active_revision_id: revision,
    };
  }

  /** The deployment the action looks for, as this service shows it now. */
  targetDeployment(): Record<string, unknown> {
    return this.deployment(this.ensureTarget());
  }

  private ensureTarget(): Target {
    this.target ??= this.register(this.name);
    return this.target;
  }

  /**
   * Another deployment that exists besides the target, as hostile as it (a list of deployments acts on several):
   * the name listing shows it when its name contains the one looked up. Its id.
   */
  add(name: string): string {
    return this.register(name).id;
  }

  private register(name: string, latest: string | null = randomUUID()): Target {
    const t: Target = { id: randomUUID(), name, latest, active: latest, reads: 0 };
    this.targets.set(t.id, t);
    return t;
  }

  /** The deployment a path names (its id at `parts[3]`), else the target. */
  private targetOf(parts: string[]): Target {
    return this.targets.get(parts[3] ?? '') ?? this.ensureTarget();
  }

  private revision(t: Target, id: string): Record<string, unknown> {
    const next = this.statuses[Math.min(t.reads++, this.statuses.length - 1)] ?? 'DEPLOYED';
    const status = typeof next === 'function' ? next() : next;
    if (status === 'DEPLOYED' && t.latest === id) t.active = id;
    return {
      id,
      created_at: AT,
      updated_at: AT,
      status,
      source: 'codehost',
      source_revision_config: this.revisionConfig(),
    };
  }

  private listener(id: string): Record<string, unknown> {
    return {
      id,
      compute_type: this.text('compute_type'),
      compute_id: this.text('compute_id'),
      compute_config: { k8s_namespaces: [this.text('k8s namespace')] },
      created_at: AT,
      updated_at: AT,
      version: this.text('listener version'),
    };
  }

  private repository(owner: string, name: string): Record<string, unknown> {
    return {
      host_integration_id: INTEGRATION,
      id: 7,
      name,
      owner,
      url: `https://codehost.example/${owner}/${name}`,
      default_branch: this.text('default_branch'),
    };
  }

  /** The answer the interface gives, with hostile text in it. */
  private defaultReply(endpoint: Endpoint, req: RecordedRequest): Reply {
    const parts = req.path.split('/');
    switch (endpoint) {
      case 'token-metadata':
        return {
          body: {
            // The token asked about: an answer about another is refused (tested on its own).
            id: decodeURIComponent(parts[4]!),
            provider_id: this.text('provider_id'),
            created_at: AT,
            updated_at: AT,
            provider_account_label: this.text('provider_account_label'),
            scopes: [this.text('scope')],
            expires_at: AT,
            is_default: true,
          },
        };
      case 'repos':
      case 'forge-repos':
        return {
          body: [
            this.repository(this.text('repo owner'), this.text('repo name')),
            ...this.repositories.map((r) => this.repository(r.owner, r.name)),
          ],
        };
      case 'create': {
        const name = (req.body as { name?: string } | undefined)?.name ?? this.name;
        this.exists = true;
        const created = this.register(name);
        created.active = null;
        created.sent = sent(req);
        if (name === this.name) this.target = created;
        return { status: 201, body: this.deployment(created) };
      }
      case 'list':
        return { body: this.listing(req.query) };
      case 'patch':
      case 'redeploy': {
        const t = this.targetOf(parts);
        t.latest = randomUUID();
        t.sent = sent(req);
        return { body: this.deployment(t) };
      }
      case 'revision':
        return { body: this.revision(this.targetOf(parts), parts[5]!) };
      case 'listeners': {
        // One page of three, then the empty page that ends the listing.
        const offset = Number(req.query.offset ?? 0);
        const count = offset === 0 ? 3 : 0;
        const listeners = Array.from({ length: count }, () => this.listener(randomUUID()));
        return { body: { resources: listeners, offset: offset + count } };
      }
      case 'listener':
        return { body: this.listener(parts[3]!) };
    }
  }

  private listing(query: Record<string, string>): { resources: unknown[]; offset: number } {
    const offset = Number(query.offset ?? 0);
    const limit = Number(query.limit ?? 20);
    let all: unknown[];
    if (this.exists) this.ensureTarget();
    const existing = [...this.targets.values()].filter((t) => t !== this.target || this.exists);
    if (query.deployment_ids !== undefined) {
      const ids = query.deployment_ids.split(',');
      all = existing.filter((t) => ids.includes(t.id)).map((t) => this.deployment(t));
    } else {
      const others = Array.from({ length: this.others }, (_, i) => this.other(i));
      const named = existing.filter(
        (t) => t === this.target || t.name.includes(query.name_contains ?? ''),
      );
      all = [...others, ...named.map((t) => this.deployment(t))];
    }
    const resources = all.slice(offset, offset + Math.min(limit, PAGE_LIMIT));
    return { resources, offset: offset + resources.length };
  }

  protected async answer(rec: RecordedRequest, res: ServerResponse): Promise<void> {
    this.learn(rec);
    const endpoint = routeOf(rec.method, rec.path);
    if (!endpoint) return this.write(res, { status: 404, body: { detail: this.text('no route') } });
    const reply = this.handlers.get(endpoint)?.(rec) ?? this.defaultReply(endpoint, rec);
    if (reply.delayMs) await this.hold(res, reply.delayMs);
    this.write(res, reply);
  }

  /** Holds a reply `ms` on the clock, counted in `parked`, or until the client goes away. */
  private async hold(res: ServerResponse, ms: number): Promise<void> {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once('close', onClose);
    this.parked++;
    try {
      await this.clock.sleep(ms, gone.signal);
    } catch {
      // The client went away: write() sees the socket destroyed.
    } finally {
      this.parked--;
      res.off('close', onClose);
    }
  }

  /** What a service can echo: the key it was sent and the secret values of the bodies. */
  private learn(rec: RecordedRequest): void {
    const secrets = (rec.body as { secrets?: { value?: unknown }[] } | undefined)?.secrets;
    const values = [
      rec.headers['x-api-key'],
      ...(Array.isArray(secrets) ? secrets.map((s) => s.value) : []),
    ];
    for (const v of values)
      if (typeof v === 'string' && v && !this.learned.includes(v)) this.learned.push(v);
  }

  private write(res: ServerResponse, reply: Reply): void {
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    if (reply.stream) {
      res.writeHead(status, { 'content-type': reply.contentType ?? 'application/json' });
      return reply.stream(res);
    }
    const text = reply.raw ?? toJson(reply.body ?? null, this.wireEscape);
    res.writeHead(status, {
      'content-type': reply.contentType ?? 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }
}

function routeOf(method: string, path: string): Endpoint | undefined {
  return ROUTES.find(([, m, re]) => m === method && re.test(path))?.[0];
}

/** JSON text; with `escapeAll`, every string and key as `\uXXXX` escapes (the same value once parsed). */
function toJson(value: unknown, escapeAll: boolean): string {
  if (!escapeAll) return JSON.stringify(value);
  const str = (s: string) => `"${unicodeEscape(s)}"`;
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    if (v && typeof v === 'object')
      return `{${Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => `${str(k)}:${walk(x)}`)
        .join(',')}}`;
    return JSON.stringify(v);
  };
  return walk(value);
}

// The bounds: bodies a careless reader buffers, parses or walks without limit.

const STREAM_LIMIT_BYTES = 4 * 1024 ** 3;

/**
 * A JSON page that never ends: `{"resources":[` and then `"x",` forever, as fast as the reader takes it. It
 * stops by itself when the reader goes away or after 4 GiB; a reader that stops reading costs it nothing (it
 * waits for the drain), so no time limit, which load could reach first.
 */
export function endlessBody(): Reply {
  return {
    stream: (res) => {
      const unit = Buffer.from('"x",'.repeat(16 * 1024));
      let sent = 0;
      const pump = () => {
        while (!res.destroyed) {
          if (sent > STREAM_LIMIT_BYTES) return res.destroy();
          sent += unit.length;
          if (!res.write(unit)) return res.once('drain', pump);
        }
      };
      res.write('{"resources":[');
      pump();
    },
  };
}

/**
 * A valid page of the name listing: the deployment looked for and `count - 1` others, each other with one field of
 * `bytesEach` characters. Re-reads by id get the usual answer.
 */
export function hugePage(service: HostileService, count: number, bytesEach: number): Handler {
  const filler = 'x'.repeat(bytesEach);
  return (req) => {
    if (req.query.deployment_ids !== undefined) return undefined;
    const others = Array.from({ length: count - 1 }, (_, i) => ({
      ...service.other(i, `${service.name}-${i}`),
      image_version: filler,
    }));
    return {
      raw: JSON.stringify({ resources: [...others, service.targetDeployment()], offset: count }),
    };
  };
}

/**
 * A listing that never ends, every deployment on it named exactly as looked up, with `bytesEach` characters of
 * filler: a search that keeps every exact match keeps all of it.
 */
export function exactNamesForever(service: HostileService, bytesEach: number): Handler {
  const filler = 'x'.repeat(bytesEach);
  return (req) => {
    if (req.query.deployment_ids !== undefined) return undefined;
    const offset = Number(req.query.offset ?? 0);
    const resources = Array.from({ length: PAGE_LIMIT }, () => ({
      ...service.other(0, service.name),
      image_version: filler,
    }));
    return { raw: JSON.stringify({ resources, offset: offset + PAGE_LIMIT }) };
  };
}

/**
 * An HTML page of `bytes` that opens `<title` over and over and never closes one: a pattern that looks for the end
 * of a title from each opening is quadratic on it.
 */
export function titleBomb(bytes: number): Reply {
  const head = '<!doctype html><html><head>';
  return { contentType: 'text/html', raw: head + '<title'.repeat((bytes - head.length) / 6) };
}

/** A FastAPI-looking error whose detail is `depth` nested arrays. */
export function deepError(depth: number, status = 400): Reply {
  return { status, raw: `{"detail":${'['.repeat(depth)}${']'.repeat(depth)}}` };
}

/**
 * A deployment listing that always has another full page, each after `delayMs`: every page 100 new deployments
 * whose names contain the looked-up one, none equal to it, the offset advancing.
 */
export function pagesForever(service: HostileService, delayMs: number): Handler {
  return (req) => {
    if (req.query.deployment_ids !== undefined) return undefined;
    const offset = Number(req.query.offset ?? 0);
    const resources = Array.from({ length: PAGE_LIMIT }, (_, i) =>
      service.other(0, `${service.name}-${offset + i}`),
    );
    return { delayMs, body: { resources, offset: offset + PAGE_LIMIT } };
  };
}

/** A revision `id`, DEPLOYED, with a valid commit: what a read answers when it answers about another revision. */
export function revisionAnswer(id: string): Reply {
  return {
    body: {
      id,
      created_at: AT,
      updated_at: AT,
      status: 'DEPLOYED',
      source: 'codehost',
      source_revision_config: { repo_ref: 'main', repo_commit_sha: 'b'.repeat(40) },
    },
  };
}

/**
 * One hostile service per test file, back to its defaults before each test, on the world's clock (call it after
 * useWorld): time moves while only it or the simulator holds a request.
 */
export function useHostileService(world: World): { service: HostileService } {
  return useFake('service', async () => {
    const service = await HostileService.start(world.clock);
    world.holders.push(service);
    return service;
  });
}

/** The revision-level values a write's body sent (none for a redeploy). */
function sent(req: RecordedRequest): Record<string, unknown> | undefined {
  return (req.body as { source_revision_config?: Record<string, unknown> } | undefined)
    ?.source_revision_config;
}
