// In-process HTTP simulator of the Deployment Management Service (all ten endpoints of
// service-interface.md). Used by the tests, `npm run demo` and CI. Node builtins only, and the action's clock.
//
// Time comes from one injected clock (`SimulatorOptions.clock`): every status change, window and wait below is
// read from it, so on a fake clock a 10-minute build or a 5-minute outage takes milliseconds. State is computed
// lazily: a revision's status is a function of when its timeline started, brought up to the clock's present (in
// time order, with the same callbacks) on each request and each read accessor, so timelines need no timers.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../src/shared/clock.ts';

export type RevisionStatus =
  | 'CREATING'
  | 'QUEUED'
  | 'AWAITING_BUILD'
  | 'BUILDING'
  | 'AWAITING_DEPLOY'
  | 'DEPLOYING'
  | 'CREATE_FAILED'
  | 'BUILD_FAILED'
  | 'DEPLOY_FAILED'
  | 'DEPLOYED'
  | 'SKIPPED'
  | 'INTERRUPTED'
  | 'UNKNOWN'
  | (string & {});

export type Source = 'codehost' | 'external_docker' | 'internal_docker' | 'internal_source';
export type DeploymentStatus =
  'AWAITING_DATABASE' | 'READY' | 'UNUSED' | 'AWAITING_DELETE' | 'UNKNOWN';

/** One step of a revision's life: hold `status` for `ms` ms of the clock (the last step is held forever; its ms is ignored). */
export interface TimelineStep {
  status: RevisionStatus;
  ms?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: unknown;
  /** When it arrived: the clock's wall time (ms since the epoch). */
  at: number;
  /** The status answered; unset while pending, or when the connection was reset or held. */
  status?: number;
}

/**
 * A scripted misbehaviour for the requests matching `method` and `path` (the first matching fault wins;
 * rate-limited requests never reach the faults). It ends after `times` answers, or when its time window
 * ends, whichever comes first:
 * - count only (default): `times` answers, 1 when unset;
 * - `forMs` (an outage): every match for `forMs` ms of the clock (not scaled by timeScale), counted from
 *   when the fault is added plus `fromMs`; `times` then caps it, unlimited when unset;
 * - `fromMs` alone: the fault waits that long before it applies (then `times`, default 1).
 * A fault that has not started yet lets requests through (to later faults or the service).
 *
 * What a matching request gets: `status`/`body`/`rawBody` (an answer of the fault's own), `reset`, `hang`
 * (held until the client gives up), `delayMs` first (ms of the clock; a held or delayed request counts in
 * `Simulator.parked`); `afterEffect` applies the request to the service before the fault answers (a write that took
 * effect and whose answer was lost or failed); `stale` applies it and answers with the deployment as it was before
 * (a lagging answer, with an older latest_revision_id); `concurrent` lands another job's write on the same
 * deployment just before this request or just after it (before its answer is built); `transform` edits the real
 * answer's body.
 */
export interface Fault {
  method?: string;
  path?: string | RegExp;
  /** Narrows the match further, e.g. on the query. */
  match?: (request: RecordedRequest) => boolean;
  times?: number;
  forMs?: number;
  fromMs?: number;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  rawBody?: string;
  contentType?: string;
  reset?: boolean;
  hang?: boolean;
  delayMs?: number;
  afterEffect?: boolean;
  stale?: boolean;
  concurrent?: ConcurrentWrite;
  /** A `Retry-After` HTTP date this long after the answer's own `Date` (see `dateSkewMs`). */
  retryAfterDateMs?: number;
  // `any` so callers can edit the body without casts.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  transform?: (body: any) => unknown;
}

/** Another job's PATCH of the deployment a request names, with these revision-level values. */
export interface ConcurrentWrite {
  when: 'before' | 'after';
  source_revision_config: Partial<SourceRevisionConfig>;
  /** The other revision's timeline (default: the default timeline). */
  timeline?: TimelineStep[];
}

export interface Secret {
  name: string;
  value: string;
}

export interface SecretReference {
  name: string;
  secret_name: string;
  secret_key: string;
}

export interface SourceConfig {
  integration_id: string | null;
  repo_url: string | null;
  deployment_type: 'dev_free' | 'dev' | 'prod' | null;
  build_on_push: boolean | null;
  custom_url: string | null;
  resource_spec: Record<string, unknown> | null;
  listener_id: string | null;
  listener_config: { k8s_namespace?: string | null } | null;
  install_command: string | null;
  build_command: string | null;
}

export interface SourceRevisionConfig {
  repo_ref: string | null;
  graph_config_path: string | null;
  image_uri: string | null;
  source_tarball_path: string | null;
  repo_commit_sha: string | null;
}

/** Stored deployment. Secret values are kept here but never sent on the wire (see `wireDeployment`). */
export interface Deployment {
  name: string;
  source: Source;
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: Secret[];
  id: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  secret_references: SecretReference[] | null;
  image_version: string | null;
}

export interface Revision {
  id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  source: string;
  source_revision_config: SourceRevisionConfig;
}

export interface Listener {
  id: string;
  compute_type: 'k8s';
  compute_id: string;
  compute_config: { k8s_namespaces: string[] | null };
  created_at: string;
  updated_at: string;
  version: string;
}

export interface Token {
  id: string;
  provider_id: string;
  provider_account_label: string | null;
  scopes: string[];
  expires_at: string | null;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

export interface Repository {
  host_integration_id: string;
  id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
}

/**
 * A request-rate limit over all requests (any method, path or key), applied before anything else: a
 * sliding one-second window (of the clock) holding at most `perSecond` answered-normally requests; a request beyond it
 * is answered 429 with `Retry-After` and is not processed. Refused requests do not count toward the
 * window, so a client hammering the service is not locked out for longer than the window.
 */
export interface RateLimit {
  perSecond: number;
  /** The `Retry-After` value in seconds; default 1. */
  retryAfterSeconds?: number;
  /**
   * Rate-limit headers on every answer: the IETF draft's (`RateLimit-Policy: "default";q=N;w=1` and
   * `RateLimit: "default";r=left;t=reset`) or `X-RateLimit-Limit/-Remaining/-Reset`; none when unset.
   */
  headers?: 'ietf' | 'x-ratelimit';
}

/**
 * When a revision that reached DEPLOYED becomes the deployment's `active_revision_id`: at once, `delayMs`
 * later (scaled by timeScale like the timelines), or never (the older one stays active; `activate()`
 * switches by hand). A delayed switch is dropped when `activate()` is called on the deployment meanwhile.
 */
export type ActiveSwitch = 'immediate' | { delayMs: number } | 'never';

export interface SimulatorOptions {
  port?: number;
  host?: string;
  apiKey?: string;
  tenantId?: string;
  /** Multiplies every timeline step and the active switch's delay (not faults' windows nor delayMs). */
  timeScale?: number;
  rateLimit?: RateLimit;
  /** Where time comes from (test/helpers/fake-clock.ts's FakeClock, with `parked` for its `busy`); default the system's. */
  clock?: Clock;
  /** Where ids and commit shas come from, as Math.random (a seeded one replays a run exactly); default crypto's. */
  random?: () => number;
}

type Loc = (string | number)[];
interface Issue {
  type: string;
  loc: Loc;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

interface Reply {
  status: number;
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A Retry-After date this long after the answer's Date. */
  retryAfterDateMs?: number;
}

interface RevState {
  rev: Revision;
  /** Reads of the revision answer 404 until then (revisionVisibleAfterMs; the monotonic clock, so a test may move Date.now). */
  visibleAt: number;
  /** The revision's next step, when its timeline has one. */
  nextStep?: Due;
  /** The pending delayed switch to active (activeSwitch `{ delayMs }`). */
  pendingSwitch?: Due;
}

/** A change that falls due at `at` on the clock's monotonic time; applied by `advance()`. */
interface Due {
  at: number;
  apply: () => void;
}

/** A fault as stored: its time window resolved to absolute times. */
interface ArmedFault extends Fault {
  times: number;
  startsAt: number;
  endsAt: number;
}

interface DepState {
  dep: Deployment;
  revs: Map<string, RevState>;
  /** Listings that would show it and do not yet (listingLag, set by a create). */
  unlisted?: number;
}

interface Ctx {
  rec: RecordedRequest;
  raw: string;
  jsonError: boolean;
}

const SOURCES = ['codehost', 'external_docker', 'internal_docker', 'internal_source'] as const;
const REVISION_SOURCES = ['codehost', 'internal_docker', 'internal_source'] as const;
const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;
const UUID_RE = /^(?:urn:uuid:)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const DEFAULT_TIMELINE: readonly TimelineStep[] = [
  { status: 'QUEUED', ms: 40 },
  { status: 'BUILDING', ms: 80 },
  { status: 'DEPLOYING', ms: 60 },
  { status: 'DEPLOYED' },
];

// The real service is FastAPI: timestamps carry microseconds and '+00:00', not JS's 'Z'.
function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000+00:00');
}

/** `n` random bytes from `random` (SimulatorOptions.random), else from crypto. */
function bytes(n: number, random?: () => number): Buffer {
  if (!random) return randomBytes(n);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
}

function sha(random?: () => number): string {
  return bytes(20, random).toString('hex');
}

/** A version 4 uuid of bytes(). */
function uuid(random?: () => number): string {
  if (!random) return randomUUID();
  const b = bytes(16, random);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A ref that names a commit by its full sha (SHA-1 or SHA-256). */
const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Canonical lower-case hyphenated form, or undefined when `s` is not a uuid. */
function normUuid(s: string): string | undefined {
  if (!UUID_RE.test(s)) return undefined;
  const h = s
    .replace(/^urn:uuid:/i, '')
    .replaceAll('-', '')
    .toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Thrown by handlers to answer with an error reply. */
class Reject extends Error {
  readonly reply: Reply;
  constructor(reply: Reply) {
    super(`HTTP ${reply.status}`);
    this.reply = reply;
  }
}

function json(status: number, body: unknown): Reply {
  return { status, body };
}

function detail(status: number, text: string): Reply {
  return { status, body: { detail: text } };
}

function invalid(issues: Issue[]): Reply {
  return { status: 422, body: { detail: issues } };
}

function quoteList(values: readonly string[]): string {
  const q = values.map((v) => `'${v}'`);
  return q.length < 2 ? q.join('') : `${q.slice(0, -1).join(', ')} or ${q.at(-1)}`;
}

// --- Minimal pydantic-like validation producing FastAPI's 422 items -------------------------

type Validator = (v: unknown, loc: Loc, out: Issue[]) => unknown;

const vStr: Validator = (v, loc, out) => {
  if (typeof v === 'string') return v;
  out.push({ type: 'string_type', loc, msg: 'Input should be a valid string', input: v });
};

const vBool: Validator = (v, loc, out) => {
  if (typeof v === 'boolean') return v;
  out.push({ type: 'bool_type', loc, msg: 'Input should be a valid boolean', input: v });
};

const vUuid: Validator = (v, loc, out) => {
  const n = typeof v === 'string' ? normUuid(v) : undefined;
  if (n) return n;
  out.push({ type: 'uuid_parsing', loc, msg: 'Input should be a valid UUID', input: v });
};

const vDict: Validator = (v, loc, out) => {
  if (isObj(v)) return v;
  out.push({ type: 'dict_type', loc, msg: 'Input should be a valid dictionary', input: v });
};

function vEnum(values: readonly string[]): Validator {
  return (v, loc, out) => {
    if (typeof v === 'string' && values.includes(v)) return v;
    const expected = quoteList(values);
    out.push({
      type: 'enum',
      loc,
      msg: `Input should be ${expected}`,
      input: v,
      ctx: { expected },
    });
  };
}

function vList(item: Validator): Validator {
  return (v, loc, out) => {
    if (!Array.isArray(v)) {
      out.push({ type: 'list_type', loc, msg: 'Input should be a valid list', input: v });
      return;
    }
    return v.map((x, i) => item(x, [...loc, i], out));
  };
}

/** Object with required fields and optional nullable ones; unknown keys are dropped like pydantic does. */
function vModel(required: Record<string, Validator>, optional: Record<string, Validator> = {}) {
  return (v: unknown, loc: Loc, out: Issue[]): unknown => {
    if (!isObj(v)) {
      out.push({
        type: 'model_attributes_type',
        loc,
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: v,
      });
      return;
    }
    const r: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(required)) {
      if (v[k] === undefined)
        out.push({ type: 'missing', loc: [...loc, k], msg: 'Field required', input: v });
      else r[k] = f(v[k], [...loc, k], out);
    }
    for (const [k, f] of Object.entries(optional)) {
      if (v[k] === undefined) continue;
      r[k] = v[k] === null ? null : f(v[k], [...loc, k], out);
    }
    return r;
  };
}

const vSecret = vModel({ name: vStr, value: vStr });
const vSecretRef = vModel({ name: vStr, secret_name: vStr, secret_key: vStr });
const vSourceConfig = vModel(
  {},
  {
    integration_id: vUuid,
    repo_url: vStr,
    deployment_type: vEnum(DEPLOYMENT_TYPES),
    build_on_push: vBool,
    custom_url: vStr,
    resource_spec: vDict,
    listener_id: vUuid,
    listener_config: vModel({}, { k8s_namespace: vStr }),
    install_command: vStr,
    build_command: vStr,
  },
);
const vRevConfig = vModel(
  {},
  { repo_ref: vStr, graph_config_path: vStr, image_uri: vStr, source_tarball_path: vStr },
);
const vCreate = vModel(
  {
    name: vStr,
    source: vEnum(SOURCES),
    source_config: vSourceConfig,
    source_revision_config: vRevConfig,
    secrets: vList(vSecret),
  },
  { secret_references: vList(vSecretRef) },
);
const vPatch = vModel(
  {},
  {
    revision_source: vEnum(REVISION_SOURCES),
    source_config: vSourceConfig,
    source_revision_config: vRevConfig,
    secrets: vList(vSecret),
    secret_references: vList(vSecretRef),
  },
);
const vTokenUpdate = vModel({}, { provider_account_label: vStr, is_default: vBool });

interface CreateBody {
  name: string;
  source: Source;
  source_config: Partial<SourceConfig>;
  source_revision_config: Partial<SourceRevisionConfig>;
  secrets: Secret[];
  secret_references?: SecretReference[] | null;
}

interface PatchBody {
  revision_source?: string | null;
  source_config?: Partial<SourceConfig> | null;
  source_revision_config?: Partial<SourceRevisionConfig> | null;
  secrets?: Secret[] | null;
  secret_references?: SecretReference[] | null;
}

function emptySourceConfig(): SourceConfig {
  return {
    integration_id: null,
    repo_url: null,
    deployment_type: null,
    build_on_push: null,
    custom_url: null,
    resource_spec: null,
    listener_id: null,
    listener_config: null,
    install_command: null,
    build_command: null,
  };
}

function emptyRevConfig(): SourceRevisionConfig {
  return {
    repo_ref: null,
    graph_config_path: null,
    image_uri: null,
    source_tarball_path: null,
    repo_commit_sha: null,
  };
}

/** `base` with the non-null fields of `patch` applied. */
function mergeNonNull<T extends object>(base: T, patch: object | null | undefined): T {
  const r = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch ?? {})) if (v !== null && v !== undefined) r[k] = v;
  return r as T;
}

// Like the real service, secret values are never echoed back: names only, value ''.
function wireDeployment(d: Deployment): unknown {
  return { ...d, secrets: d.secrets.map((s) => ({ name: s.name, value: '' })) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export class Simulator {
  readonly url: string;
  apiKey: string;
  tenantId?: string;
  readonly timeScale: number;
  readonly clock: Clock;
  readonly requests: RecordedRequest[] = [];
  timelines: TimelineStep[][] = [];
  /**
   * By deployment name: the timelines its next new revisions run, in order, before the `timelines` queue (which
   * deployment's write comes first is up to the client when it writes to several at once).
   */
  timelinesByName = new Map<string, TimelineStep[][]>();
  defaultTimeline: TimelineStep[] = [...DEFAULT_TIMELINE];
  patchCreatesRevision = true;
  /**
   * The commits the next new codehost revisions are built from, in order, whatever their ref says (a branch that
   * moved, a service that built another commit). When it is empty, a ref that is a full commit sha builds that
   * commit, and any other ref a new one. A redeploy's rebuild keeps its revision's commit and takes none.
   */
  builtCommits: string[] = [];
  redeployMode: 'same-revision' | 'new-revision' = 'same-revision';
  paging: 'normal' | 'stuck-offset' | 'repeat-page' = 'normal';
  /** The most resources a page holds whatever `limit` asks (a server that caps its pages). */
  pageCap?: number;
  /** A new revision answers 404 to reads for this long on the clock (an eventually consistent service). */
  revisionVisibleAfterMs = 0;
  /** How far the `Date` header of every answer is from the clock's wall time (a server with a skewed clock). */
  dateSkewMs = 0;
  /** Creates a second deployment of a name that exists instead of answering 409 (some services allow it). */
  duplicateNames = false;
  /** A deployment a create makes is missing from this many listings that would show it (a listing lagging behind). */
  listingLag = 0;
  activeSwitch: ActiveSwitch = 'immediate';
  rateLimit?: RateLimit;
  /** How many answers were sent per status code (faults and 429s included). */
  readonly answered = new Map<number, number>();
  /**
   * Called as a revision enters each status, `at` the wall time it fell due. Changes are applied lazily, so it runs
   * on the request or read accessor that first sees the change (before its answer), with the simulator's time set
   * to the change's own: what it does (addRevision, activate) happens at that moment, in order with later changes.
   */
  onRevisionStatus?: (deploymentId: string, revisionId: string, status: string, at: number) => void;
  /** Called as each answer is sent, e.g. to log it; `ms` since the request arrived, on the clock. */
  onAnswer?: (request: RecordedRequest, ms: number) => void;
  /**
   * Requests the simulator is holding on purpose right now (a `delayMs` not yet over, a `hang`), counted until they
   * are answered or their socket closes. On a FakeClock, `clock.busy = () => inFlight > sim.parked` (inFlight: the
   * requests a test or the client under test has on a socket) lets time move while only the simulator holds them.
   */
  parked = 0;

  /** Absent for a simulator without a socket (inMemory: requests come through respond()). */
  private readonly server?: Server;
  private readonly random?: () => number;
  private readonly ownTenantId: string;
  /** Tenants besides the key's own the key may name in X-Tenant-Id, each with deployments of its own (addTenant). */
  private readonly otherTenants = new Set<string>();
  /** While a request is handled: the tenant it named, whose deployments alone it sees; undefined: all of them. */
  private requestTenant?: string;
  private deps: DepState[] = [];
  private depById = new Map<string, DepState>();
  private listeners: Listener[] = [];
  private tokens = new Map<string, { token: Token; owned: boolean }>();
  private repos = new Map<string, Repository[]>();
  private faults: ArmedFault[] = [];
  /** Arrival times of the requests let through in the last second (rateLimit's window). */
  private admitted: number[] = [];
  private nextRepoId = 100_001;
  private readonly held = new Set<Socket>();
  /** Ends the waits of parked requests (on close()). */
  private readonly unpark = new Set<AbortController>();
  /** Changes not applied yet, earliest first (ties in the order they were made). */
  private due: Due[] = [];
  /** While `advance()` applies a change: the monotonic time it fell due, which is then the simulator's now. */
  private applyingAt?: number;

  private constructor(server: Server | undefined, url: string, opts: SimulatorOptions) {
    this.server = server;
    this.url = url;
    this.random = opts.random;
    this.ownTenantId = this.uuid();
    this.apiKey = opts.apiKey ?? 'test-api-key';
    this.tenantId = opts.tenantId;
    this.timeScale = opts.timeScale ?? 1;
    this.rateLimit = opts.rateLimit;
    this.clock = opts.clock ?? systemClock;
  }

  static async start(opts: SimulatorOptions = {}): Promise<Simulator> {
    const host = opts.host ?? '127.0.0.1';
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const sim = new Simulator(
      server,
      `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      opts,
    );
    server.on('request', (req, res) => void sim.onRequest(req, res));
    return sim;
  }

  /** A simulator without a socket: requests come through respond(), on the caller's side of the wire. */
  static inMemory(opts: SimulatorOptions = {}): Simulator {
    return new Simulator(undefined, 'http://127.0.0.1', opts);
  }

  async close(): Promise<void> {
    this.due = [];
    for (const stop of this.unpark) stop.abort();
    for (const s of this.held) s.destroy();
    this.held.clear();
    const { server } = this;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Clears resources, faults, recorded requests and answer counts and the scripting knobs (rateLimit included); keeps apiKey, tenantId and the callbacks. */
  reset(): void {
    this.due = [];
    this.deps = [];
    this.depById.clear();
    this.listeners = [];
    this.tokens.clear();
    this.repos.clear();
    this.faults = [];
    this.requests.length = 0;
    this.answered.clear();
    this.admitted = [];
    this.rateLimit = undefined;
    this.activeSwitch = 'immediate';
    this.timelines = [];
    this.timelinesByName.clear();
    this.defaultTimeline = [...DEFAULT_TIMELINE];
    this.patchCreatesRevision = true;
    this.builtCommits = [];
    this.redeployMode = 'same-revision';
    this.paging = 'normal';
    this.pageCap = undefined;
    this.revisionVisibleAfterMs = 0;
    this.dateSkewMs = 0;
    this.duplicateNames = false;
    this.listingLag = 0;
    this.otherTenants.clear();
  }

  requestsTo(method: string, pathPattern?: string | RegExp): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.method === method.toUpperCase() && matchPath(pathPattern, r.path),
    );
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  fault(f: Fault): void {
    const startsAt = this.clock.now() + (f.fromMs ?? 0);
    const endsAt = f.forMs === undefined ? Infinity : startsAt + f.forMs;
    const times = f.times ?? (f.forMs === undefined ? 1 : Infinity);
    this.faults.push({ ...f, times, startsAt, endsAt });
  }

  // --- seeding ---------------------------------------------------------------------------------

  /**
   * Lets the key name `tenantId` in X-Tenant-Id too (beside `tenantId`, or the key's own tenant): a second tenant,
   * whose deployments (addDeployment's `tenantId`) only requests naming it see. Any other tenant is refused (403).
   */
  addTenant(tenantId: string): void {
    this.otherTenants.add(tenantId);
  }

  addDeployment(d: {
    name: string;
    /** The tenant that owns it (addTenant); default `tenantId`, else the key's own. */
    tenantId?: string;
    source?: string;
    id?: string;
    source_config?: object;
    source_revision_config?: object;
    secrets?: Secret[];
    activeRevision?: boolean;
  }): Deployment {
    this.advance();
    const source = (d.source ?? 'codehost') as Source;
    const id = d.id ?? this.uuid();
    const past = isoTime(this.wall() - 3_600_000);
    const defaults: Partial<SourceConfig> =
      source === 'codehost'
        ? {
            integration_id: '11111111-1111-4111-8111-111111111111',
            repo_url: `https://codehost.example/acme/${d.name}`,
            deployment_type: 'dev',
            build_on_push: false,
            custom_url: `https://${d.name}-${id.slice(0, 8)}.sim.example`,
          }
        : {};
    const revDefaults: Partial<SourceRevisionConfig> =
      source === 'codehost'
        ? { repo_ref: 'main', graph_config_path: 'graph.json' }
        : { image_uri: `registry.example/${d.name}:v1` };
    const dep: Deployment = {
      name: d.name,
      source,
      source_config: { ...emptySourceConfig(), ...defaults, ...d.source_config },
      source_revision_config: {
        ...emptyRevConfig(),
        ...revDefaults,
        ...d.source_revision_config,
      },
      secrets: (d.secrets ?? []).map((s) => ({ ...s })),
      id,
      tenant_id: d.tenantId ?? this.tenantId ?? this.ownTenantId,
      created_at: past,
      updated_at: past,
      status: 'AWAITING_DATABASE',
      latest_revision_id: null,
      active_revision_id: null,
      secret_references: null,
      image_version: null,
    };
    const st = this.store(dep);
    if (d.activeRevision ?? true) {
      // A seeded deployment serves its revision whatever activeSwitch says.
      const rev = this.newRevision(st, dep.source, [{ status: 'DEPLOYED' }], {}, past);
      this.activate(dep.id, rev.id);
    }
    return dep;
  }

  addDeployments(n: number, nameFn: (i: number) => string): void {
    for (let i = 0; i < n; i++) this.addDeployment({ name: nameFn(i) });
  }

  /**
   * Adds a revision that becomes latest; without `timeline` it runs `defaultTimeline` (the `timelines`
   * queue is left for the service's own writes). On DEPLOYED it becomes active as `activeSwitch` says:
   * with `[{ status: 'DEPLOYED' }]` and 'immediate', it supersedes the revision a run is waiting for.
   */
  addRevision(deploymentId: string, timeline?: TimelineStep[], srcRevConfig?: object): Revision {
    this.advance();
    const st = this.state(deploymentId);
    if (!st) throw new Error(`addRevision: unknown deployment ${deploymentId}`);
    return this.newRevision(
      st,
      st.dep.source,
      timeline ?? this.defaultTimeline,
      srcRevConfig ?? {},
    );
  }

  /** Makes `revisionId` the deployment's active revision now, whatever its status; drops pending delayed switches. */
  activate(deploymentId: string, revisionId: string): void {
    this.advance();
    const st = this.state(deploymentId);
    const rs = st?.revs.get(revisionId.toLowerCase());
    if (!st || !rs) throw new Error(`activate: unknown revision ${revisionId} of ${deploymentId}`);
    for (const other of st.revs.values()) other.pendingSwitch = this.cancel(other.pendingSwitch);
    this.setActive(st, rs);
  }

  /**
   * Sets the deployment's own status now (AWAITING_DATABASE, UNUSED, …), as the service may during a run; a
   * revision of it going live sets READY again, as always.
   */
  setDeploymentStatus(deploymentId: string, status: DeploymentStatus): void {
    this.advance();
    const st = this.state(deploymentId);
    if (!st) throw new Error(`setDeploymentStatus: unknown deployment ${deploymentId}`);
    st.dep.status = status;
    st.dep.updated_at = isoTime(this.wall());
  }

  addRepository(
    integrationId: string,
    repo: { owner: string; name: string; url?: string; default_branch?: string; id?: number },
    kind: 'codehost' | 'forge' = 'codehost',
  ): void {
    const key = `${kind}:${integrationId.toLowerCase()}`;
    const list = this.repos.get(key) ?? [];
    list.push({
      host_integration_id: integrationId,
      id: repo.id ?? this.nextRepoId++,
      name: repo.name,
      owner: repo.owner,
      url: repo.url ?? `https://codehost.example/${repo.owner}/${repo.name}`,
      default_branch: repo.default_branch ?? 'main',
    });
    this.repos.set(key, list);
  }

  addListener(l: { compute_id: string; k8s_namespaces?: string[] | null; id?: string }): Listener {
    const now = isoTime(this.wall());
    const listener: Listener = {
      id: l.id ?? this.uuid(),
      compute_type: 'k8s',
      compute_id: l.compute_id,
      compute_config: { k8s_namespaces: l.k8s_namespaces ?? null },
      created_at: now,
      updated_at: now,
      version: '0.1.0',
    };
    this.listeners.push(listener);
    return listener;
  }

  addToken(t: {
    id?: string;
    ownedByCaller?: boolean;
    provider_account_label?: string;
    is_default?: boolean;
  }): Token {
    const wall = this.wall();
    const now = isoTime(wall);
    const token: Token = {
      id: t.id ?? this.uuid(),
      provider_id: 'codehost',
      provider_account_label: t.provider_account_label ?? 'sim-account',
      scopes: ['repo', 'read:org'],
      expires_at: isoTime(wall + 30 * 86_400_000),
      is_default: t.is_default ?? false,
      created_at: now,
      updated_at: now,
    };
    this.tokens.set(token.id, { token, owned: t.ownedByCaller ?? true });
    return token;
  }

  // The read accessors bring the state up to the clock's present first, as a request does.

  deployment(id: string): Deployment | undefined {
    this.advance();
    return this.state(id)?.dep;
  }

  deploymentsNamed(name: string): Deployment[] {
    this.advance();
    return this.deps.filter((s) => s.dep.name === name).map((s) => s.dep);
  }

  revision(deploymentId: string, revisionId: string): Revision | undefined {
    this.advance();
    return this.state(deploymentId)?.revs.get(revisionId.toLowerCase())?.rev;
  }

  /** Every revision of the deployment, oldest first. */
  revisions(deploymentId: string): Revision[] {
    this.advance();
    return [...(this.state(deploymentId)?.revs.values() ?? [])].map((rs) => rs.rev);
  }

  // --- time ------------------------------------------------------------------------------------

  /** The simulator's monotonic now: the clock's, or while a change is being applied, the time it fell due. */
  private now(): number {
    return this.applyingAt ?? this.clock.now();
  }

  /** The wall time of monotonic time `at` (default: now). */
  private wall(at = this.now()): number {
    return this.clock.wall() - (this.clock.now() - at);
  }

  /** Schedules `apply` `ms` from now (a change that falls due, not a timer: see `advance`). */
  private schedule(ms: number, apply: () => void): Due {
    const d: Due = { at: this.now() + ms, apply };
    let i = this.due.length;
    while (i > 0 && this.due[i - 1]!.at > d.at) i--;
    this.due.splice(i, 0, d);
    return d;
  }

  /** Drops a scheduled change; answers undefined, for the field that held it. */
  private cancel(d: Due | undefined): undefined {
    const i = d ? this.due.indexOf(d) : -1;
    if (i >= 0) this.due.splice(i, 1);
    return undefined;
  }

  /**
   * Applies every change due by the clock's present, in time order, each at its own time (so a change a callback
   * makes falls in order with the rest). Re-entered from a callback (addRevision, activate), it does nothing: the
   * outer loop goes on.
   */
  private advance(): void {
    if (this.applyingAt !== undefined) return;
    const now = this.clock.now();
    try {
      for (let d = this.due[0]; d && d.at <= now; d = this.due[0]) {
        this.due.shift();
        this.applyingAt = d.at;
        d.apply();
      }
    } finally {
      this.applyingAt = undefined;
    }
  }

  // --- state -----------------------------------------------------------------------------------

  private uuid(): string {
    return uuid(this.random);
  }

  private state(id: string): DepState | undefined {
    return this.depById.get(normUuid(id) ?? id.toLowerCase());
  }

  private store(dep: Deployment): DepState {
    const st: DepState = { dep, revs: new Map() };
    this.deps.push(st);
    this.depById.set(normUuid(dep.id) ?? dep.id.toLowerCase(), st);
    return st;
  }

  private takeTimeline(st: DepState): TimelineStep[] {
    return (
      this.timelinesByName.get(st.dep.name)?.shift() ??
      this.timelines.shift() ??
      this.defaultTimeline
    );
  }

  private newRevision(
    st: DepState,
    source: string,
    timeline: TimelineStep[],
    srcRevConfig: object,
    createdAt = isoTime(this.wall()),
    commit?: string | null,
  ): Revision {
    const base = st.revs.get(st.dep.latest_revision_id ?? '')?.rev.source_revision_config;
    const config: SourceRevisionConfig = mergeNonNull(
      base ?? st.dep.source_revision_config,
      srcRevConfig,
    );
    config.repo_commit_sha =
      st.dep.source !== 'codehost' ? null : commit === undefined ? this.commitOf(config) : commit;
    const rev: Revision = {
      id: this.uuid(),
      created_at: createdAt,
      updated_at: createdAt,
      status: 'CREATING',
      source,
      source_revision_config: config,
    };
    const rs: RevState = { rev, visibleAt: this.now() + this.revisionVisibleAfterMs };
    st.revs.set(rev.id, rs);
    this.makeLatest(st, rs);
    this.runTimeline(st, rs, timeline);
    return rev;
  }

  /** The commit a new codehost revision of `config` is built from (see builtCommits). */
  private commitOf(config: SourceRevisionConfig): string {
    const ref = config.repo_ref ?? '';
    return (
      this.builtCommits.shift() ?? (COMMIT_SHA.test(ref) ? ref.toLowerCase() : sha(this.random))
    );
  }

  private makeLatest(st: DepState, rs: RevState): void {
    st.dep.latest_revision_id = rs.rev.id;
    st.dep.source_revision_config = { ...rs.rev.source_revision_config };
    st.dep.updated_at = isoTime(this.wall());
  }

  /** Enters the first step now; each next one falls due when the one before has been held its ms. */
  private runTimeline(st: DepState, rs: RevState, timeline: TimelineStep[]): void {
    if (timeline.length === 0) throw new Error('a timeline needs at least one step');
    const steps = timeline.map((s) => ({ ...s }));
    rs.nextStep = this.cancel(rs.nextStep);
    const enter = (i: number, force: boolean) => {
      const step = steps[i]!;
      rs.nextStep = undefined;
      this.setStatus(st, rs, step.status, force);
      if (i < steps.length - 1)
        rs.nextStep = this.schedule((step.ms ?? 0) * this.timeScale, () => enter(i + 1, false));
    };
    enter(0, true);
  }

  private setStatus(st: DepState, rs: RevState, status: RevisionStatus, force: boolean): void {
    if (!force && rs.rev.status === status) return;
    const at = this.wall();
    rs.rev.status = status;
    rs.rev.updated_at = isoTime(at);
    if (status === 'DEPLOYED') {
      st.dep.status = 'READY';
      st.dep.updated_at = isoTime(at);
      this.switchActive(st, rs);
    }
    this.onRevisionStatus?.(st.dep.id, rs.rev.id, status, at);
  }

  private switchActive(st: DepState, rs: RevState): void {
    rs.pendingSwitch = this.cancel(rs.pendingSwitch);
    const mode = this.activeSwitch;
    if (mode === 'immediate') return this.setActive(st, rs);
    if (mode === 'never') return;
    rs.pendingSwitch = this.schedule(mode.delayMs * this.timeScale, () => {
      rs.pendingSwitch = undefined;
      this.setActive(st, rs);
    });
  }

  private setActive(st: DepState, rs: RevState): void {
    st.dep.active_revision_id = rs.rev.id;
    st.dep.status = 'READY';
    st.dep.updated_at = isoTime(this.wall());
  }

  // --- HTTP ------------------------------------------------------------------------------------

  /**
   * One request without a socket (test/sim's in-memory transport, which brings faults of its own): recorded,
   * rate-limited and answered as one through the server is, without the scripted faults.
   */
  respond(request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
  }): {
    status: number;
    headers: Record<string, string>;
    body: string;
  } {
    const arrived = this.clock.now();
    const ctx = this.received(
      request.method,
      request.url,
      request.headers,
      request.body ?? '',
      arrived,
    );
    const reply = this.rateLimited(arrived) ?? this.handle(ctx);
    const { status, headers, payload } = this.answer(ctx.rec, reply, arrived);
    return { status, headers, body: payload };
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = this.clock.now();
    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return;
    }
    const ctx = this.received(req.method ?? 'GET', req.url ?? '/', req.headers, raw, arrived);
    const { rec } = ctx;
    const send = (r: Reply) => this.send(res, rec, r, arrived);

    const limited = this.rateLimited(arrived);
    if (limited) return send(limited);
    const f = this.takeFault(rec, arrived);
    if (!f) return send(this.handle(ctx));
    try {
      this.advance(); // `stale` and `concurrent` below read and change the state before handle() does
    } catch (e) {
      return send(this.crash(e));
    }

    const target = this.writeTarget(rec);
    if (f.concurrent?.when === 'before' && target) this.concurrentWrite(target, f.concurrent);
    const before = f.stale && target ? wireDeployment(structuredClone(target.dep)) : undefined;
    let real =
      f.afterEffect || f.transform || f.stale || f.concurrent ? this.handle(ctx) : undefined;
    if (f.concurrent?.when === 'after' && target) {
      this.concurrentWrite(target, f.concurrent);
      if (real && real.status < 300) real = { ...real, body: wireDeployment(target.dep) };
    }
    if (before !== undefined && real && real.status < 300) real = { ...real, body: before };
    if (f.delayMs && !(await this.park(res, f.delayMs))) return;
    if (f.reset) {
      req.socket.destroy();
    } else if (f.hang) {
      this.held.add(req.socket);
      req.socket.once('close', () => this.held.delete(req.socket));
      await this.park(res);
    } else if (f.status !== undefined || f.body !== undefined || f.rawBody !== undefined) {
      const status = f.status ?? 200;
      const { headers, retryAfterDateMs } = f;
      send(
        f.rawBody !== undefined
          ? {
              status,
              raw: f.rawBody,
              contentType: f.contentType ?? 'text/html; charset=utf-8',
              headers,
              retryAfterDateMs,
            }
          : { status, body: f.body ?? { detail: STATUS_CODES[status] }, headers, retryAfterDateMs },
      );
    } else if (f.transform && real) {
      let out: Reply;
      try {
        out = { ...real, body: f.transform(structuredClone(real.body)) };
      } catch (e) {
        out = this.crash(e);
      }
      send(out);
    } else {
      send(real ?? this.handle(ctx));
    }
  }

  /** A request as it arrived (at `arrived`, on the clock), recorded. */
  private received(
    method: string,
    path: string,
    given: Record<string, string | string[] | undefined>,
    raw: string,
    arrived: number,
  ): Ctx {
    const url = new URL(path, 'http://sim');
    let body: unknown;
    let jsonError = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        jsonError = true;
      }
    }
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(given)) {
      headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    const rec: RecordedRequest = {
      method: method.toUpperCase(),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
      at: this.clock.wall() - (this.clock.now() - arrived),
    };
    this.requests.push(rec);
    return { rec, raw, jsonError };
  }

  /**
   * Holds a request for `ms` on the clock, or until its socket closes (no `ms`: a hang), counted in `parked`.
   * Answers whether the wait ran its course (false: the socket closed or the simulator did).
   */
  private async park(res: ServerResponse, ms?: number): Promise<boolean> {
    if (res.destroyed) return false; // its 'close' has been and gone
    const stop = new AbortController();
    const onClose = () => stop.abort();
    res.once('close', onClose);
    this.unpark.add(stop);
    this.parked += 1;
    try {
      if (ms === undefined)
        await new Promise((resolve) => stop.signal.addEventListener('abort', resolve));
      else await this.clock.sleep(ms, stop.signal);
      return !stop.signal.aborted;
    } catch {
      return false;
    } finally {
      this.parked -= 1;
      this.unpark.delete(stop);
      res.off('close', onClose);
    }
  }

  /** The 429 to answer when the request at `at` (monotonic) is beyond `rateLimit`; otherwise counts it in the window. */
  private rateLimited(at: number): Reply | undefined {
    const limit = this.rateLimit;
    if (!limit) return undefined;
    const inWindow = this.admitted.filter((t) => t > at - 1000);
    this.admitted = inWindow;
    if (inWindow.length >= limit.perSecond) {
      return {
        status: 429,
        body: { detail: 'Rate limit exceeded' },
        headers: { 'retry-after': String(limit.retryAfterSeconds ?? 1) },
      };
    }
    inWindow.push(at);
    return undefined;
  }

  /** rateLimit's headers for an answer to the request at `at`: its window as that request left it. */
  private limitHeaders(at: number): Record<string, string> {
    const limit = this.rateLimit;
    if (!limit?.headers) return {};
    const inWindow = this.admitted.filter((t) => t > at - 1000);
    const left = String(Math.max(0, limit.perSecond - inWindow.length));
    // Whole seconds until the oldest request of the window leaves it.
    const reset = String(inWindow.length ? Math.ceil((inWindow[0]! + 1000 - at) / 1000) : 0);
    return limit.headers === 'ietf'
      ? {
          'ratelimit-policy': `"default";q=${limit.perSecond};w=1`,
          ratelimit: `"default";r=${left};t=${reset}`,
        }
      : {
          'x-ratelimit-limit': String(limit.perSecond),
          'x-ratelimit-remaining': left,
          'x-ratelimit-reset': reset,
        };
  }

  /** The deployment a write's path names (PATCH, redeploy), for `stale` and `concurrent`. */
  private writeTarget(rec: RecordedRequest): DepState | undefined {
    const id = /^\/v2\/deployments\/([^/]+)/.exec(rec.path)?.[1];
    return id === undefined ? undefined : this.state(decodeURIComponent(id));
  }

  private concurrentWrite(st: DepState, write: ConcurrentWrite): void {
    st.dep.updated_at = isoTime(this.wall());
    this.newRevision(
      st,
      st.dep.source,
      write.timeline ?? this.defaultTimeline,
      write.source_revision_config,
    );
  }

  private takeFault(rec: RecordedRequest, now: number): Fault | undefined {
    this.faults = this.faults.filter((f) => f.endsAt > now);
    const i = this.faults.findIndex(
      (f) =>
        f.startsAt <= now &&
        (f.method === undefined || f.method.toUpperCase() === rec.method) &&
        matchPath(f.path, rec.path) &&
        (f.match === undefined || f.match(rec)),
    );
    const f = this.faults[i];
    if (!f) return undefined;
    f.times -= 1;
    if (f.times <= 0) this.faults.splice(i, 1);
    return f;
  }

  private send(res: ServerResponse, rec: RecordedRequest, r: Reply, arrived: number): void {
    if (res.destroyed || res.headersSent) return;
    const { status, headers, payload } = this.answer(rec, r, arrived);
    res.writeHead(status, headers);
    res.end(payload);
  }

  /** The reply as sent, counted and told to onAnswer. */
  private answer(
    rec: RecordedRequest,
    r: Reply,
    arrived: number,
  ): { status: number; headers: Record<string, string>; payload: string } {
    rec.status = r.status;
    this.answered.set(r.status, (this.answered.get(r.status) ?? 0) + 1);
    this.onAnswer?.(rec, this.clock.now() - arrived);
    const payload = r.raw ?? (r.body === undefined ? '' : JSON.stringify(r.body));
    // The Date on this simulator's (skewed) clock, whole seconds as HTTP dates are, and Retry-After against it.
    const date = Math.floor((this.clock.wall() + this.dateSkewMs) / 1000) * 1000;
    const headers = {
      'content-type': r.contentType ?? 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
      date: new Date(date).toUTCString(),
      ...(r.retryAfterDateMs === undefined
        ? {}
        : { 'retry-after': new Date(date + r.retryAfterDateMs).toUTCString() }),
      ...this.limitHeaders(arrived),
      ...r.headers,
    };
    return { status: r.status, headers, payload };
  }

  private crash(e: unknown): Reply {
    console.error('simulator: handler error', e);
    return detail(500, 'Internal Server Error');
  }

  private handle(ctx: Ctx): Reply {
    try {
      this.advance();
      return this.route(ctx);
    } catch (e) {
      return e instanceof Reject ? e.reply : this.crash(e);
    } finally {
      this.requestTenant = undefined;
    }
  }

  /**
   * The tenant a request sees: undefined (every deployment) while no tenant is set; false when it may not (a tenant
   * the key has no access to, or none while `tenantId` is set).
   */
  private tenantOf(named: string | undefined): string | undefined | false {
    if (this.tenantId === undefined && this.otherTenants.size === 0) return undefined;
    const own = this.tenantId ?? this.ownTenantId;
    if (named === undefined) return this.tenantId === undefined ? own : false;
    return named === own || this.otherTenants.has(named) ? named : false;
  }

  /** A deployment by id, as the request being handled sees it: another tenant's is not there. */
  private visible(id: string): DepState | undefined {
    const st = this.state(id);
    return st && this.sees(st) ? st : undefined;
  }

  private sees(st: DepState): boolean {
    return this.requestTenant === undefined || st.dep.tenant_id === this.requestTenant;
  }

  private route(ctx: Ctx): Reply {
    const { method, headers } = ctx.rec;
    if (headers['x-api-key'] !== this.apiKey) return detail(401, 'Invalid API key');
    const tenant = this.tenantOf(headers['x-tenant-id']);
    if (tenant === false) {
      return detail(403, 'X-Tenant-Id does not match a tenant this API key may access.');
    }
    this.requestTenant = tenant;
    const segs = ctx.rec.path.split('/').slice(1);
    let p: string[];
    try {
      p = segs.map((s) => decodeURIComponent(s));
    } catch {
      return detail(404, 'Not Found');
    }
    const m = (allowed: string, fn: () => Reply): Reply =>
      method === allowed
        ? fn()
        : { status: 405, body: { detail: 'Method Not Allowed' }, headers: { allow: allowed } };
    const n = p.length;
    const [a, b, c, d, e, f] = p;

    if (n === 5 && a === 'v2' && b === 'auth' && c === 'tokens' && e === 'metadata') {
      return m('PATCH', () => this.patchToken(d!, ctx));
    }
    if (n === 5 && a === 'v1' && b === 'integrations' && c === 'codehost' && e === 'repos') {
      return m('GET', () => this.listRepos('codehost', d!));
    }
    if (n === 6 && a === 'v1' && b === 'integrations' && c === 'forge' && d === 'codehost') {
      if (f === 'repos') return m('GET', () => this.listRepos('forge', e!));
    }
    if (a === 'v2' && b === 'deployments') {
      if (n === 2) {
        if (method === 'GET') return this.listDeployments(ctx.rec.query);
        if (method === 'POST') return this.createDeployment(ctx);
        return {
          status: 405,
          body: { detail: 'Method Not Allowed' },
          headers: { allow: 'GET, POST' },
        };
      }
      if (n === 3) return m('PATCH', () => this.patchDeployment(c!, ctx));
      if (n === 5 && d === 'revisions') return m('GET', () => this.getRevision(c!, e!));
      if (n === 6 && d === 'revisions' && f === 'redeploy') {
        return m('POST', () => this.redeploy(c!, e!));
      }
    }
    if (a === 'v2' && b === 'listeners') {
      if (n === 2) return m('GET', () => this.listListeners(ctx.rec.query));
      if (n === 3) return m('GET', () => this.getListener(c!));
    }
    return detail(404, 'Not Found');
  }

  /** Canonical forms of uuid path ids; 422 when one is not a uuid. */
  private pathIds(ids: Record<string, string>): string[] {
    const out: string[] = [];
    const issues: Issue[] = [];
    for (const [name, v] of Object.entries(ids))
      out.push(vUuid(v, ['path', name], issues) as string);
    if (issues.length) throw new Reject(invalid(issues));
    return out;
  }

  private parseBody<T>(ctx: Ctx, v: Validator): T {
    if (ctx.jsonError) {
      throw new Reject(
        invalid([
          {
            type: 'json_invalid',
            loc: ['body', 0],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: 'Expecting value' },
          },
        ]),
      );
    }
    if (ctx.raw.length === 0) {
      throw new Reject(
        invalid([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]),
      );
    }
    const issues: Issue[] = [];
    const r = v(ctx.rec.body, ['body'], issues);
    if (issues.length) throw new Reject(invalid(issues));
    return r as T;
  }

  private pageParams(query: Record<string, string>): { limit: number; offset: number } {
    const issues: Issue[] = [];
    const int = (name: string, def: number, min: number, max?: number): number => {
      const s = query[name];
      if (s === undefined) return def;
      const loc = ['query', name];
      if (!/^\s*[+-]?\d+\s*$/.test(s)) {
        issues.push({
          type: 'int_parsing',
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: s,
        });
        return def;
      }
      const v = Number.parseInt(s, 10);
      if (v < min) {
        issues.push({
          type: 'greater_than_equal',
          loc,
          msg: `Input should be greater than or equal to ${min}`,
          input: s,
          ctx: { ge: min },
        });
      } else if (max !== undefined && v > max) {
        issues.push({
          type: 'less_than_equal',
          loc,
          msg: `Input should be less than or equal to ${max}`,
          input: s,
          ctx: { le: max },
        });
      }
      return v;
    };
    const limit = int('limit', 20, 1, 100);
    const offset = int('offset', 0, 0);
    const type = query.deployment_type;
    if (type !== undefined) vEnum(DEPLOYMENT_TYPES)(type, ['query', 'deployment_type'], issues);
    if (issues.length) throw new Reject(invalid(issues));
    return { limit, offset };
  }

  private page<T>(all: T[], limit: number, offset: number, wire: (x: T) => unknown): Reply {
    const start = this.paging === 'repeat-page' ? 0 : offset;
    const items = all.slice(start, start + Math.min(limit, this.pageCap ?? limit));
    const next = this.paging === 'stuck-offset' ? offset : offset + items.length;
    return json(200, { resources: items.map(wire), offset: next });
  }

  private listDeployments(q: Record<string, string>): Reply {
    const pg = this.pageParams(q);
    const needle = q.name_contains?.toLowerCase();
    const ids = q.deployment_ids
      ?.split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    const idSet = ids && new Set(ids.map((s) => normUuid(s) ?? s));
    const matches: Deployment[] = [];
    for (const st of this.deps) {
      const { dep } = st;
      if (!this.sees(st)) continue;
      if (needle && !dep.name.toLowerCase().includes(needle)) continue;
      if (idSet && !idSet.has(dep.id.toLowerCase())) continue;
      if (q.deployment_type && dep.source_config.deployment_type !== q.deployment_type) continue;
      if (q.status && dep.status !== q.status) continue;
      if (q.image_version && dep.image_version !== q.image_version) continue;
      if (st.unlisted) {
        st.unlisted--;
        continue;
      }
      matches.push(dep);
    }
    return this.page(matches, pg.limit, pg.offset, wireDeployment);
  }

  private createDeployment(ctx: Ctx): Reply {
    const body = this.parseBody<CreateBody>(ctx, vCreate);
    const sc = body.source_config;
    const rc = body.source_revision_config;
    const issues: Issue[] = [];
    const need = (loc: Loc, ok: unknown, what: string) => {
      if (ok === undefined || ok === null || ok === '') {
        issues.push({ type: 'value_error', loc, msg: `Value error, ${what}` });
      }
    };
    if (body.name.trim() === '') {
      issues.push({
        type: 'string_too_short',
        loc: ['body', 'name'],
        msg: 'String should have at least 1 character',
        input: body.name,
        ctx: { min_length: 1 },
      });
    }
    const src = body.source;
    if (src === 'codehost') {
      need(
        ['body', 'source_config', 'integration_id'],
        sc.integration_id,
        'integration_id is required for source codehost',
      );
      need(
        ['body', 'source_config', 'repo_url'],
        sc.repo_url,
        'repo_url is required for source codehost',
      );
      need(
        ['body', 'source_revision_config', 'repo_ref'],
        rc.repo_ref,
        'repo_ref is required for source codehost',
      );
    }
    if (src === 'codehost' || src === 'internal_source') {
      need(
        ['body', 'source_revision_config', 'graph_config_path'],
        rc.graph_config_path,
        `graph_config_path is required for source ${src}`,
      );
    } else if (rc.graph_config_path != null) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'source_revision_config', 'graph_config_path'],
        msg: `Value error, graph_config_path must be null for source ${src}`,
      });
    }
    if (src === 'external_docker') {
      need(
        ['body', 'source_revision_config', 'image_uri'],
        rc.image_uri,
        'image_uri is required for source external_docker',
      );
    }
    if (body.secret_references != null && src !== 'external_docker') {
      issues.push({
        type: 'value_error',
        loc: ['body', 'secret_references'],
        msg: 'Value error, secret_references is only applicable for source external_docker',
      });
    }
    if (sc.build_on_push && rc.repo_ref?.startsWith('refs/tags/')) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'source_config', 'build_on_push'],
        msg: 'Value error, build_on_push cannot be enabled when repo_ref is a tag',
      });
    }
    if (issues.length) return invalid(issues);

    if (sc.listener_id) {
      const l = this.findListener(sc.listener_id);
      if (!l) return detail(404, `Listener ID ${sc.listener_id} not found.`);
      const ns = sc.listener_config?.k8s_namespace;
      const allowed = l.compute_config.k8s_namespaces;
      if (ns != null && allowed !== null && !allowed.includes(ns)) {
        return invalid([
          {
            type: 'value_error',
            loc: ['body', 'source_config', 'listener_config', 'k8s_namespace'],
            msg: `Value error, namespace '${ns}' is not one of the listener's k8s_namespaces (${allowed.join(', ')})`,
          },
        ]);
      }
    }
    if (!this.duplicateNames && this.deps.some((s) => this.sees(s) && s.dep.name === body.name)) {
      return detail(409, `Deployment with name '${body.name}' already exists.`);
    }

    const id = this.uuid();
    const now = isoTime(this.wall());
    const dep: Deployment = {
      name: body.name,
      source: src,
      source_config: mergeNonNull(emptySourceConfig(), sc),
      source_revision_config: mergeNonNull(emptyRevConfig(), rc),
      secrets: body.secrets,
      id,
      tenant_id: this.requestTenant ?? this.tenantId ?? this.ownTenantId,
      created_at: now,
      updated_at: now,
      status: 'AWAITING_DATABASE',
      latest_revision_id: null,
      active_revision_id: null,
      secret_references: body.secret_references ?? null,
      image_version: null,
    };
    if (src === 'codehost' && !dep.source_config.custom_url) {
      dep.source_config.custom_url = `https://${body.name}-${id.slice(0, 8)}.sim.example`;
    }
    const st = this.store(dep);
    st.unlisted = this.listingLag;
    this.newRevision(st, src, this.takeTimeline(st), {});
    return json(201, wireDeployment(dep));
  }

  private patchDeployment(rawId: string, ctx: Ctx): Reply {
    const [id] = this.pathIds({ deployment_id: rawId }) as [string];
    const body = this.parseBody<PatchBody>(ctx, vPatch);
    const st = this.visible(id);
    if (!st) return detail(404, `Deployment ID ${id} not found.`);
    const dep = st.dep;
    if (body.secret_references != null && dep.source !== 'external_docker') {
      return invalid([
        {
          type: 'value_error',
          loc: ['body', 'secret_references'],
          msg: 'Value error, secret_references is only applicable for source external_docker',
        },
      ]);
    }
    dep.source_config = mergeNonNull(dep.source_config, body.source_config);
    if (body.secrets != null) dep.secrets = body.secrets;
    if (body.secret_references != null) dep.secret_references = body.secret_references;
    dep.updated_at = isoTime(this.wall());
    const revFields = Object.values(body.source_revision_config ?? {}).some((v) => v != null);
    const wantsRevision = revFields || body.secrets != null || body.secret_references != null;
    if (this.patchCreatesRevision && wantsRevision) {
      this.newRevision(
        st,
        body.revision_source ?? dep.source,
        this.takeTimeline(st),
        body.source_revision_config ?? {},
      );
    }
    return json(200, wireDeployment(dep));
  }

  /** The deployment and revision a revision path names, or the 404 to answer. */
  private revisionAt(rawDep: string, rawRev: string): [DepState, RevState] | Reply {
    const [depId, revId] = this.pathIds({ deployment_id: rawDep, revision_id: rawRev }) as [
      string,
      string,
    ];
    const st = this.visible(depId);
    if (!st) return detail(404, `Deployment ID ${depId} not found.`);
    const rs = st.revs.get(revId);
    if (!rs) return detail(404, `Revision ID ${revId} not found.`);
    return [st, rs];
  }

  private redeploy(rawDep: string, rawRev: string): Reply {
    const found = this.revisionAt(rawDep, rawRev);
    if (!Array.isArray(found)) return found;
    const [st, rs] = found;
    if (this.redeployMode === 'new-revision') {
      // A rebuild of the same config keeps the commit it was built from.
      this.newRevision(
        st,
        rs.rev.source,
        this.takeTimeline(st),
        rs.rev.source_revision_config,
        undefined,
        rs.rev.source_revision_config.repo_commit_sha,
      );
    } else {
      this.makeLatest(st, rs);
      this.runTimeline(st, rs, this.takeTimeline(st));
    }
    return json(200, wireDeployment(st.dep));
  }

  private getRevision(rawDep: string, rawRev: string): Reply {
    const found = this.revisionAt(rawDep, rawRev);
    if (!Array.isArray(found)) return found;
    const [, rs] = found;
    // Not visible yet to reads: the same answer as for a revision that does not exist.
    if (this.now() < rs.visibleAt) return detail(404, `Revision ID ${rs.rev.id} not found.`);
    return json(200, rs.rev);
  }

  private listRepos(kind: 'codehost' | 'forge', rawId: string): Reply {
    const [id] = this.pathIds({ integration_id: rawId }) as [string];
    const list = this.repos.get(`${kind}:${id}`);
    if (!list) return detail(404, `Integration ID ${id} not found.`);
    return json(200, list);
  }

  private findListener(id: string): Listener | undefined {
    const n = normUuid(id) ?? id;
    return this.listeners.find((l) => l.id.toLowerCase() === n);
  }

  private listListeners(q: Record<string, string>): Reply {
    const pg = this.pageParams(q);
    return this.page(this.listeners, pg.limit, pg.offset, (l) => l);
  }

  private getListener(rawId: string): Reply {
    const [id] = this.pathIds({ listener_id: rawId }) as [string];
    const l = this.findListener(id);
    return l ? json(200, l) : detail(404, `Listener ID ${id} not found.`);
  }

  private patchToken(tokenId: string, ctx: Ctx): Reply {
    const body = this.parseBody<{
      provider_account_label?: string | null;
      is_default?: boolean | null;
    }>(ctx, vTokenUpdate);
    const entry = this.tokens.get(tokenId);
    if (!entry) return detail(404, `Token ID ${tokenId} not found.`);
    if (!entry.owned) return detail(403, 'Only the token owner may update this token.');
    const t = entry.token;
    if (body.provider_account_label != null) t.provider_account_label = body.provider_account_label;
    if (body.is_default != null) {
      // One default per provider: making this one default clears the others.
      if (body.is_default) {
        for (const o of this.tokens.values()) {
          if (o.token.provider_id === t.provider_id) o.token.is_default = false;
        }
      }
      t.is_default = body.is_default;
    }
    t.updated_at = isoTime(this.wall());
    return json(200, t);
  }
}

function matchPath(pattern: string | RegExp | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return pattern === path;
  pattern.lastIndex = 0;
  return pattern.test(path);
}
