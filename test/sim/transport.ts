// The in-memory wire of a schedule: each run's requests go straight to the simulator's respond(), no socket, and
// on the way the wire injects what a network and an eventually consistent service do (FaultPlan): a request that
// never arrives or is refused, one that is applied and whose answer is lost, a late answer that others overtake, a
// read answered from an earlier state. It logs every exchange with what the service made of it (the revisions a
// write made, the deployment a create made), and samples which revision each deployment serves after each one:
// the invariants are checked against that log, not against what the runs say.
import type { Answer, Exchange, Transport } from '../../src/service/transport.ts';
import type { Clock } from '../../src/shared/clock.ts';
import type { Simulator } from '../simulator/server.ts';
import type { Rng } from './random.ts';
import { type FaultKind, type FaultPlan, HELPER, TARGET } from './schedule.ts';

/** One exchange as the wire saw it. */
export interface Entry {
  seq: number;
  /** The run that sent it; 0 for another change that landed on the service (FaultPlan.foreign). */
  run: number;
  /** When it was sent (ms on the schedule's clock). */
  at: number;
  method: string;
  /** Path and query, as sent. */
  path: string;
  body?: string;
  /** What the wire did to it, in words; absent when nothing. */
  fault?: string;
  /** Whether it reached the service, and the status the service answered. */
  applied: boolean;
  served?: number;
  /** What reached the client: a status, or an error ('ECONNRESET', 'ECONNREFUSED', 'no answer'). */
  status?: number;
  error?: string;
  /** When that reached the client. */
  answered?: number;
  /** The body the client got with a 2xx status; the Retry-After it got, if any. */
  answer?: string;
  retryAfter?: string;
  /** When it reached the service. */
  appliedAt?: number;
  /** A write the service applied: the revisions it made, the deployment it created, the revision it redeployed. */
  made?: string[];
  created?: string;
  redeployed?: string;
}

/** Which revision a deployment served from `at` on (recorded when it changed). */
export interface Sample {
  at: number;
  deploymentId: string;
  active: string | null;
}

interface Fault {
  kind: FaultKind;
  words: string;
  /** Before the request reaches the service, and before its answer reaches the client (ms). */
  inMs: number;
  outMs: number;
  /** What the client gets instead of the answer: a status, a network error, or nothing until its limit. */
  status?: number;
  retryAfter?: { seconds: number } | { dateMs: number };
  html?: boolean;
  error?: 'ECONNRESET' | 'ECONNREFUSED' | typeof TLS_FAILURE;
  hang?: boolean;
  /** Whether the request reaches the service. */
  applies: boolean;
}

const DEPLOYMENT_PATH = /^\/v2\/deployments\/([^/?]+)/;
const PROXY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
/** What OpenSSL says when a record of the answer is corrupted on the way: the request went out before it. */
const TLS_FAILURE = 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC';
/** A write's 2xx answer that is no resource of the interface (a service or a proxy that says only "accepted"). */
const GARBLED = JSON.stringify({ detail: 'accepted' });

export class Wire {
  readonly log: Entry[] = [];
  readonly samples: Sample[] = [];
  /** An error of the wire's own (a bug of the simulation, not a fault): the schedule cannot be trusted. */
  broken?: Error;
  private readonly sim: Simulator;
  private readonly clock: Clock;
  private readonly plan: FaultPlan;
  private readonly rng: Rng;
  /** Every 200 answer to a GET, by path and query: what a lagging read answers from. */
  private readonly earlier = new Map<string, string[]>();
  private readonly serving = new Map<string, string | null>();
  /** Changes of others landed so far (their values: hotfix-1, hotfix-2, …). */
  private changes = 0;

  constructor(sim: Simulator, clock: Clock, plan: FaultPlan, rng: Rng) {
    this.sim = sim;
    this.clock = clock;
    this.plan = plan;
    this.rng = rng;
    this.sample();
  }

  /** Run `run`'s transport. */
  transport(run: number): Transport {
    return { send: (exchange) => this.send(run, exchange), dispose: () => undefined };
  }

  /**
   * Another change (a person, a job outside the schedule) lands a revision now on TARGET, or on the deployment
   * `depId`, with values no run sends; logged as run 0's.
   */
  foreignWrite(timeline?: Parameters<Simulator['addRevision']>[1], depId?: string): void {
    const dep = depId ? this.sim.deployment(depId) : this.sim.deploymentsNamed(TARGET)[0];
    if (!dep) return;
    const value = `hotfix-${++this.changes}`;
    const config =
      dep.source === 'codehost'
        ? { repo_ref: value }
        : { image_uri: `registry.example/${dep.name}:${value}` };
    const revision = this.sim.addRevision(dep.id, timeline, config);
    this.log.push({
      seq: this.log.length,
      run: 0,
      at: this.clock.now(),
      method: 'CHANGE',
      path: `/v2/deployments/${dep.id}`,
      body: JSON.stringify(config),
      applied: true,
      appliedAt: this.clock.now(),
      made: [revision.id],
    });
    this.sample();
  }

  private async send(run: number, exchange: Exchange): Promise<Answer> {
    const url = new URL(exchange.url);
    const entry: Entry = {
      seq: this.log.length,
      run,
      at: this.clock.now(),
      method: exchange.method,
      path: url.pathname + url.search,
      body: exchange.body,
      applied: false,
    };
    this.log.push(entry);
    try {
      const answer = await this.deliver(entry, exchange);
      entry.status = answer.status;
      if (ok(answer)) entry.answer = answer.body;
      const retryAfter = answer.headers['retry-after'];
      if (typeof retryAfter === 'string') entry.retryAfter = retryAfter;
      return answer;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code && !exchange.signal.aborted) this.broken ??= error as Error;
      entry.error = code ?? 'no answer';
      throw error;
    } finally {
      entry.answered = this.clock.now();
    }
  }

  private async deliver(entry: Entry, exchange: Exchange): Promise<Answer> {
    const { signal } = exchange;
    if (signal.aborted) throw signal.reason;
    const outage = this.plan.outages.find(
      (o) => entry.at >= o.fromMs && entry.at < o.fromMs + o.forMs,
    );
    const fault = outage ? outageFault(outage.kind) : this.draw(entry);
    entry.fault = fault?.words;
    if (fault?.error === 'ECONNREFUSED') throw networkError('ECONNREFUSED');
    if (fault?.inMs) await this.clock.sleep(fault.inMs, signal);
    if (fault && !fault.applies) return this.instead(fault, signal);
    const before = fault?.kind === 'stale' ? this.deploymentNow(entry.path) : undefined;
    const real = this.apply(
      entry,
      exchange,
      fault?.kind === 'shift' ? shifted(entry.path) : entry.path,
    );
    if (fault?.outMs) await this.clock.sleep(fault.outMs, signal);
    if (!fault) return real;
    switch (fault.kind) {
      case 'lost':
        return this.instead(fault, signal);
      case 'lag': {
        const earlier = this.earlierAnswer(entry.path);
        if (earlier !== undefined) return { ...real, body: earlier };
        entry.fault = 'no earlier answer to lag behind: answered as is';
        return real;
      }
      case 'stale':
        return ok(real) && before !== undefined ? { ...real, body: before } : real;
      case 'raced': {
        if (ok(real)) this.foreignWrite(undefined, DEPLOYMENT_PATH.exec(entry.path)?.[1]);
        const now = this.deploymentNow(entry.path);
        return ok(real) && now !== undefined ? { ...real, body: now } : real;
      }
      case 'late': {
        const now = this.deploymentNow(entry.path);
        return ok(real) && now !== undefined ? { ...real, body: now } : real;
      }
      case 'garbled':
        return ok(real) ? { ...real, body: GARBLED } : real;
      default:
        return real;
    }
  }

  /** The request reaches the service (as `path`): its answer, with what it made recorded. */
  private apply(entry: Entry, exchange: Exchange, path: string): Answer {
    const { method } = exchange;
    const depId = DEPLOYMENT_PATH.exec(entry.path)?.[1];
    const write = method !== 'GET';
    const before = write && depId ? this.revisionIds(depId) : undefined;
    const answer = this.sim.respond({
      method,
      url: path,
      headers: exchange.headers,
      body: exchange.body,
    });
    entry.applied = true;
    entry.appliedAt = this.clock.now();
    entry.served = answer.status;
    if (write && answer.status >= 200 && answer.status < 300) {
      if (depId && before) {
        entry.made = [...this.revisionIds(depId)].filter((id) => !before.has(id));
        const redeployed = /\/revisions\/([^/]+)\/redeploy$/.exec(entry.path)?.[1];
        if (redeployed) entry.redeployed = redeployed;
      } else if (entry.path === '/v2/deployments') {
        const id = (JSON.parse(answer.body) as { id: string }).id;
        entry.created = id;
        entry.made = [...this.revisionIds(id)];
      }
    }
    if (method === 'GET' && answer.status === 200) {
      const seen = this.earlier.get(entry.path) ?? [];
      seen.push(answer.body);
      this.earlier.set(entry.path, seen);
    }
    this.sample();
    return { status: answer.status, headers: answer.headers, body: answer.body };
  }

  /** What the client gets instead of the service's answer. */
  private async instead(fault: Fault, signal: AbortSignal): Promise<Answer> {
    if (fault.error) throw networkError(fault.error);
    if (fault.hang)
      return new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const status = fault.status ?? 503;
    // The Date as the service's (skewed) clock says, whole seconds, and a Retry-After date against it.
    const date = Math.floor((this.clock.wall() + this.sim.dateSkewMs) / 1000) * 1000;
    const headers: Record<string, string> = {
      'content-type': fault.html ? 'text/html' : 'application/json',
      date: new Date(date).toUTCString(),
    };
    const after = fault.retryAfter;
    if (after)
      headers['retry-after'] =
        'seconds' in after ? String(after.seconds) : new Date(date + after.dateMs).toUTCString();
    return {
      status,
      headers,
      body: fault.html ? PROXY_PAGE : JSON.stringify({ detail: `HTTP ${status} (simulated)` }),
    };
  }

  /** The fault a request meets, if any: `rate` of the reads, `writeRate` of the writes, of a kind that applies. */
  private draw(entry: Entry): Fault | undefined {
    const { rng, plan } = this;
    const write = entry.method !== 'GET';
    const rate = write ? plan.writeRate : plan.rate;
    if (!rate || !rng.chance(rate)) return undefined;
    const deploymentWrite = write && DEPLOYMENT_PATH.test(entry.path);
    const kinds = plan.kinds.filter(
      (k) =>
        (k !== 'lag' || !write) &&
        ((k !== 'stale' && k !== 'late' && k !== 'raced') || deploymentWrite) &&
        (k !== 'garbled' || write) &&
        (k !== 'shift' || shifted(entry.path) !== entry.path),
    );
    if (!kinds.length) return undefined;
    const kind = rng.pick(kinds);
    const fault: Fault = { kind, words: '', inMs: 0, outMs: 0, applies: true };
    const retryAfter = () =>
      rng.chance(0.3)
        ? { dateMs: rng.int(0, 20) * 1000 }
        : { seconds: rng.pick([0, 1, 1, 2, 5, 10, 30]) };
    const say = (ra: Fault['retryAfter']) =>
      ra
        ? ` with Retry-After ${'seconds' in ra ? `${ra.seconds} s` : `a date ${ra.dateMs / 1000} s on`}`
        : '';
    switch (kind) {
      case 'delay':
        fault.inMs = rng.chance(0.5) ? rng.int(0, 20_000) : 0;
        fault.outMs = rng.int(0, 20_000);
        fault.words = `delayed ${fault.inMs} ms on the way and its answer ${fault.outMs} ms`;
        break;
      case 'refused':
        Object.assign(fault, { error: 'ECONNREFUSED', applies: false });
        fault.words = 'connection refused (not sent)';
        break;
      case '429':
        Object.assign(fault, { status: 429, applies: false });
        fault.retryAfter = rng.chance(0.8) ? retryAfter() : undefined;
        fault.words = `not applied, 429${say(fault.retryAfter)}`;
        break;
      case '503':
        Object.assign(fault, { status: 503, applies: false });
        fault.retryAfter = rng.chance(0.6) ? retryAfter() : undefined;
        fault.words = `not applied, 503${say(fault.retryAfter)}`;
        break;
      case '5xx':
        Object.assign(fault, { status: rng.pick([500, 502, 504]), applies: false });
        fault.html = fault.status === 502 && rng.chance(0.5);
        fault.words = `not applied, ${fault.status}${fault.html ? " (a proxy's page)" : ''}`;
        break;
      case 'reset':
        Object.assign(fault, { error: 'ECONNRESET', applies: false });
        fault.words = 'reset before it reached the service';
        break;
      case 'hang':
        Object.assign(fault, { hang: true, applies: false });
        fault.words = 'never reached the service, no answer';
        break;
      case 'lost': {
        const how = rng.pick(['reset', '5xx', '503', 'hang', 'tls'] as const);
        if (how === 'reset') fault.error = 'ECONNRESET';
        if (how === 'tls') fault.error = TLS_FAILURE;
        if (how === '5xx') fault.status = rng.pick([500, 502, 504]);
        if (how === '503') {
          fault.status = 503;
          fault.retryAfter = retryAfter();
        }
        if (how === 'hang') fault.hang = true;
        fault.outMs = rng.chance(0.3) ? rng.int(0, 10_000) : 0;
        fault.words = `applied, then ${how === 'hang' ? 'no answer' : how === 'reset' ? 'reset' : how === 'tls' ? `a TLS error (${TLS_FAILURE})` : `${fault.status}${say(fault.retryAfter)}`}`;
        break;
      }
      case 'lag':
        fault.words = 'answered from an earlier state (a lagging read)';
        break;
      case 'shift':
        fault.words =
          'a listing shifted by one (an item inserted before this page): its first item is the last one of the page before';
        break;
      case 'stale':
        fault.words = 'applied, answered with the deployment as it was before';
        break;
      case 'raced':
        fault.words =
          "applied, then another change's revision landed before its answer, which shows it";
        break;
      case 'late':
        fault.outMs = rng.int(0, 20_000);
        fault.words = `applied, answered ${fault.outMs} ms later with the deployment as it is then`;
        break;
      case 'garbled':
        fault.words = 'applied, answered 2xx with a body that is not what was asked for';
        break;
    }
    return fault;
  }

  private earlierAnswer(path: string): string | undefined {
    const seen = this.earlier.get(path);
    // The newest is this request's own answer.
    if (!seen || seen.length < 2) return undefined;
    const back = this.rng.int(2, Math.min(6, seen.length));
    return seen[seen.length - back];
  }

  /** The deployment a write's path names, as the service answers it now (secret values blanked as on the wire). */
  private deploymentNow(path: string): string | undefined {
    const id = DEPLOYMENT_PATH.exec(path)?.[1];
    const dep = id === undefined ? undefined : this.sim.deployment(id);
    if (!dep) return undefined;
    return JSON.stringify({
      ...dep,
      secrets: dep.secrets.map((s) => ({ name: s.name, value: '' })),
    });
  }

  private revisionIds(deploymentId: string): Set<string> {
    return new Set(this.sim.revisions(deploymentId).map((r) => r.id));
  }

  /** Records which revision TARGET and HELPER serve, when it changed since the last sample. */
  sample(): void {
    for (const name of [TARGET, HELPER])
      for (const dep of this.sim.deploymentsNamed(name)) {
        const active = dep.active_revision_id;
        if (this.serving.has(dep.id) && this.serving.get(dep.id) === active) continue;
        this.serving.set(dep.id, active);
        this.samples.push({ at: this.clock.now(), deploymentId: dep.id, active });
      }
  }
}

/** A listing's path with its offset one back (an item inserted before the page moves it on); unchanged otherwise. */
function shifted(path: string): string {
  const url = new URL(path, 'http://sim');
  const offset = Number(url.searchParams.get('offset') ?? 0);
  if (url.pathname !== '/v2/deployments' || !(offset > 0)) return path;
  url.searchParams.set('offset', String(offset - 1));
  return url.pathname + url.search;
}

function outageFault(kind: 'refused' | '503' | 'reset'): Fault {
  const base = { kind: '503' as const, inMs: 0, outMs: 0, applies: false };
  if (kind === 'refused')
    return { ...base, error: 'ECONNREFUSED', words: 'outage: connection refused' };
  if (kind === 'reset') return { ...base, error: 'ECONNRESET', words: 'outage: reset' };
  return { ...base, status: 503, words: 'outage: 503' };
}

function ok(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

function networkError(code: string): Error {
  return Object.assign(new Error(`simulated network error ${code}`), { code });
}
