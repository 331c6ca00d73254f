// What must hold after every schedule, whatever the faults and races: checked against the service's final state,
// the wire's log (what each request did on the service, and what its sender got back) and each run's outputs and
// summary. Each rule comes from the action contract (action-contract.md: "Retries and time limits", Outputs, deploy's
// steps); INVARIANTS says each in words, as `npm run simulate` prints them.
import { type FinalRevision, imageOf, type Outcome, type RunOutcome } from './execute.ts';
import { HELPER, type RunPlan, TARGET } from './schedule.ts';
import type { Entry } from './transport.ts';

export const INVARIANTS = {
  'one-deployment': 'at most one deployment of each name, and no run creates two',
  'no-blind-resend':
    'no write sent twice where the contract forbids it: a create after any answer but a 429 or a refused connection; a PATCH or redeploy after a lost or ambiguous answer without a re-read showing it did not take effect; a token update after any answer but a 429 or a refused connection',
  'reread-first':
    'a create, PATCH or redeploy whose outcome is unknown (a reset, no answer, a 5xx, a 408 or 429) is followed by a read of its deployment (its name, for a create) before anything else is sent about it, unless the job was cancelled',
  'cancel-report':
    'a run cancelled while a write of its is unanswered says that write may have been applied',
  'own-revision':
    "deployed names a revision the run's own write made (or redeployed), with the values it sent, that was active, or superseded by a newer one (created_at), while the run went on; updated only when the token update was applied",
  'no-claim':
    "no write command's revision-id names another run's revision, another change's, or one that was there before",
  'created-flags':
    'created and revision-created are true only when that happened and false only when it surely did not; empty only when a create, PATCH or redeploy of the run may have made one (a token update never does)',
  ends: 'every run ends, with a result and a summary, and not with "a bug in the action"',
  deadline:
    "no run ends later than its timeout (twice that with rollback-on-failure, whose rollback has a window of its own) plus 46 s (the 2 s cut of a read in flight at the deadline, the switch check's window of up to 30 s, one 10 s read after it, each cut 2 s after its window); nor later than 7.5 s after its cancel (the runner sends SIGTERM then)",
  'read-only': 'status and a dry run send no write',
  paging:
    'a listing is called stuck only when the same offset was answered the same way three times in a row',
} as const;

export type Invariant = keyof typeof INVARIANTS;

export interface Violation {
  invariant: Invariant;
  run?: number;
  /** What happened, with ids and times. */
  message: string;
  /** What kind of violation, without ids: the allow-list (known.ts) matches on it. */
  signature: string;
}

/**
 * How long a run may go on past its deadline: the 2 s after it at which a read in flight is cut (the wait's last
 * status read falls on it), then the short windows the steps after the wait have of their own, each read cut 2 s
 * after its window: the switch check (up to 30 s: the contract's "re-read briefly before deciding") and one 10 s
 * read (the final re-read for the outputs, or a diagnostics read). docs/reliability.md "Time limits",
 * docs/decisions.md "One deadline", "Deployed means serving" and "Bounds"; the other paths after the wait are
 * shorter (a timed-out wait: the 10 s final re-read and two 10 s diagnostics reads).
 */
const PAST_DEADLINE_MS = 2_000 + (30_000 + 2_000) + (10_000 + 2_000);
/** The runner sends SIGTERM 7.5 s after SIGINT: whatever a cancelled run does after that is lost. */
const AFTER_CANCEL_MS = 7_500;
const RESULTS = new Set([
  'deployed',
  'failed',
  'timed-out',
  'skipped',
  'no-change',
  'submitted',
  'rolled-back',
  'updated',
  'planned',
  'unhealthy',
  'closed',
  'not-started',
]);
/** Results whose revision-id is not a revision the run wrote. */
const NOT_WRITTEN = new Set(['no-change', 'planned']);
const WRITE_COMMANDS = new Set(['deploy', 'promote', 'redeploy', 'list']);

export function check(outcome: Outcome): Violation[] {
  const out: Violation[] = [];
  if (outcome.stalled)
    out.push({
      invariant: 'ends',
      message: `The runs did not all end: ${outcome.stalled === 'hung' ? 'nothing was left to happen (no timer on the clock)' : 'the clock ran past 3 hours'}.`,
      signature: `runs ${outcome.stalled}`,
    });
  oneDeployment(outcome, out);
  for (const run of outcome.runs) {
    const ctx = new RunFacts(outcome, run);
    ends(ctx, out);
    deadline(ctx, out);
    readOnly(ctx, out);
    noBlindResend(ctx, out);
    rereadFirst(ctx, out);
    cancelReport(ctx, out);
    paging(ctx, out);
    claims(ctx, out);
    createdFlags(ctx, out);
  }
  return out;
}

/** One run's requests and what they made, from the wire's log. */
class RunFacts {
  readonly outcome: Outcome;
  readonly run: RunOutcome;
  readonly plan: RunPlan;
  readonly entries: Entry[];
  /** Revision id → the entry of this run that made it (or redeployed it), first one. */
  readonly wrote = new Map<string, Entry>();
  /** The revisions its rollback made or redeployed: not what revision-created is about. */
  readonly rolledBack = new Set<string>();

  constructor(outcome: Outcome, run: RunOutcome) {
    this.outcome = outcome;
    this.run = run;
    this.plan = run.plan;
    this.entries = outcome.log.filter((e) => e.run === run.plan.id);
    const rollbacks = this.rollbackWrites();
    for (const e of this.entries) {
      for (const id of [...(e.made ?? []), ...(e.redeployed ? [e.redeployed] : [])]) {
        if (!this.wrote.has(id)) this.wrote.set(id, e);
        if (rollbacks.has(e)) this.rolledBack.add(id);
      }
    }
  }

  /**
   * The redeploys a rollback sent: to the revision rolled back to, once the run had read its own revision (the
   * wait), for each report (a list's items each have one) that rolled back, or was cut while it did.
   */
  rollbackWrites(): Set<Entry> {
    const found = new Set<Entry>();
    const report = this.run.report;
    for (const r of report?.items?.map((item) => item.report) ?? (report ? [report] : [])) {
      const back = r.previousRevisionId;
      if ((!r.rollback && r.phase !== 'rollback') || !r.revisionId || !back) continue;
      const waited = this.entries.find(
        (e) => e.method === 'GET' && e.path.endsWith(`/revisions/${r.revisionId}`),
      );
      for (const e of this.entries)
        if (waited && e.seq > waited.seq && e.path.endsWith(`/revisions/${back}/redeploy`))
          found.add(e);
    }
    return found;
  }

  get id(): number {
    return this.plan.id;
  }

  /** Who wrote `revisionId`, in words. */
  whose(revisionId: string): string {
    if (this.outcome.seeded.has(revisionId)) return 'a revision that was there before the runs';
    const maker = this.outcome.log.find(
      (e) => e.made?.includes(revisionId) || e.redeployed === revisionId,
    );
    if (!maker) return 'a revision nobody wrote';
    return maker.run === 0 ? "another change's revision" : `run ${maker.run}'s revision`;
  }

  /** The items whose outcome the run states: its own target, or each of a list's. */
  targets(): {
    name: string;
    value: string;
    result?: string;
    revisionId?: string;
    deploymentId?: string;
  }[] {
    const { outputs } = this.run;
    if (this.plan.command !== 'list')
      return [
        {
          name: TARGET,
          value: this.plan.value,
          result: outputs.result,
          revisionId: outputs['revision-id'],
          deploymentId: outputs['deployment-id'],
        },
      ];
    const results = outputs.results
      ? (JSON.parse(outputs.results) as Record<string, Record<string, string | null>>)
      : {};
    return [
      [TARGET, this.plan.value],
      [HELPER, this.plan.helperValue!],
    ].map(([name, value]) => ({
      name: name!,
      value: value!,
      result: results[name!]?.result ?? undefined,
      revisionId: results[name!]?.['revision-id'] ?? undefined,
      deploymentId: results[name!]?.['deployment-id'] ?? undefined,
    }));
  }
}

function oneDeployment(outcome: Outcome, out: Violation[]): void {
  for (const name of [TARGET, HELPER]) {
    const ids = outcome.deployments.filter((d) => d.name === name).map((d) => d.id);
    if (ids.length > 1)
      out.push({
        invariant: 'one-deployment',
        message: `${ids.length} deployments are named '${name}': ${ids.join(', ')}; made by ${ids.map((id) => whoCreated(outcome, id)).join(', ')}.`,
        signature: 'two deployments of one name',
      });
  }
  for (const run of outcome.runs) {
    const created = outcome.log.filter((e) => e.run === run.plan.id && e.created);
    const names = created.map((e) => (JSON.parse(e.body!) as { name: string }).name);
    if (new Set(names).size < names.length)
      out.push({
        invariant: 'one-deployment',
        run: run.plan.id,
        message: `Run ${run.plan.id} created ${names.length} deployments (${names.join(', ')}).`,
        signature: 'a run created two deployments of one name',
      });
  }
}

function whoCreated(outcome: Outcome, id: string): string {
  const e = outcome.log.find((x) => x.created === id);
  return e ? `run ${e.run} at ${seconds(e.appliedAt!)}` : 'the seeding';
}

function ends({ run, id }: RunFacts, out: Violation[]): void {
  if (run.endedAt === undefined) {
    out.push({
      invariant: 'ends',
      run: id,
      message: `Run ${id} never ended.`,
      signature: 'never ended',
    });
    return;
  }
  const result = run.outputs.result;
  if (!result || !RESULTS.has(result))
    out.push({
      invariant: 'ends',
      run: id,
      message: `Run ${id} ended without a result output (result: ${JSON.stringify(result)}).`,
      signature: 'no result',
    });
  if (!run.summary.trim())
    out.push({
      invariant: 'ends',
      run: id,
      message: `Run ${id} wrote no summary.`,
      signature: 'no summary',
    });
  if (run.failure?.includes('This is a bug in the action'))
    out.push({
      invariant: 'ends',
      run: id,
      message: `Run ${id} ended on an unexpected error: ${run.failure}`,
      signature: 'an unexpected error',
    });
}

function deadline({ run, plan, id }: RunFacts, out: Violation[]): void {
  if (run.endedAt === undefined) return;
  if (run.cancelledAt !== undefined) {
    const after = run.endedAt - run.cancelledAt;
    if (after > AFTER_CANCEL_MS)
      out.push({
        invariant: 'deadline',
        run: id,
        message: `Run ${id} ended ${seconds(after)} after its cancel (at ${seconds(run.cancelledAt)}), past the runner's SIGTERM at 7.5 s.`,
        signature: 'ended long after a cancel',
      });
    return;
  }
  const took = run.endedAt - run.startedAt;
  const bound = plan.timeoutMs * (plan.rollback ? 2 : 1) + PAST_DEADLINE_MS;
  if (took > bound)
    out.push({
      invariant: 'deadline',
      run: id,
      message: `Run ${id} took ${seconds(took)}, past its bound of ${seconds(bound)} (timeout ${seconds(plan.timeoutMs)}${plan.rollback ? ', twice for the rollback' : ''}, plus 46 s).`,
      signature: 'ended past its deadline',
    });
}

function readOnly({ plan, entries, id }: RunFacts, out: Violation[]): void {
  if (plan.command !== 'status' && plan.command !== 'dry-run') return;
  const writes = entries.filter((e) => e.method !== 'GET');
  if (writes.length)
    out.push({
      invariant: 'read-only',
      run: id,
      message: `Run ${id} (${plan.command}) sent ${writes.map((e) => `${e.method} ${e.path}`).join(', ')}.`,
      signature: `${plan.command} wrote`,
    });
}

/** A write's key: what "the same write sent again" means. */
function writeKey(e: Entry, rollbacks: Set<Entry>): string | undefined {
  if (e.method === 'GET' || e.run === 0) return undefined;
  // A rollback's redeploy is a write of its own, even of the revision the run redeployed.
  if (rollbacks.has(e)) return `rollback ${e.path}`;
  if (e.method === 'POST' && e.path === '/v2/deployments')
    return `create ${(JSON.parse(e.body!) as { name: string }).name}`;
  if (e.path.startsWith('/v2/auth/tokens/')) return `token ${e.path}`;
  return `${e.path.endsWith('/redeploy') ? 'redeploy' : 'PATCH'} ${e.path}`;
}

/** What the sender got back, in words. */
function answerOf(e: Entry): string {
  if (e.status === undefined) return e.error ?? 'no answer';
  return `${e.status}${e.retryAfter === undefined ? '' : ' with Retry-After'}`;
}

/** An answer after which the contract allows a write to go again without looking: nothing was taken. */
function surelyNotTaken(e: Entry): boolean {
  return e.status === 429 || e.error === 'ECONNREFUSED';
}

function noBlindResend(facts: RunFacts, out: Violation[]): void {
  const { entries, id } = facts;
  const rollbacks = facts.rollbackWrites();
  const last = new Map<string, Entry>();
  for (const e of entries) {
    const key = writeKey(e, rollbacks);
    if (!key) continue;
    const previous = last.get(key);
    last.set(key, e);
    if (!previous || surelyNotTaken(previous)) continue;
    const kind = key.split(' ')[0]!;
    const what = `${kind === 'create' ? 'a create' : kind === 'token' ? 'a token update' : `a ${kind}`}`;
    const rechecked = kind === 'PATCH' || kind === 'redeploy' || kind === 'rollback';
    const answered = previous.status !== undefined && previous.status < 300;
    if (rechecked && !answered && rereadShowsNotTaken(facts, previous, e, rollbacks)) continue;
    out.push({
      invariant: 'no-blind-resend',
      run: id,
      message: `Run ${id} sent ${what} again (${e.method} ${e.path} at ${seconds(e.at)}) after the one at ${seconds(previous.at)} got ${answerOf(previous)}${previous.applied ? ` (the service had applied it: ${previous.served})` : ' (it had not reached the service)'}${rechecked ? ', with no re-read between them showing it did not take effect' : ''}.`,
      signature: `${kind} re-sent after ${answerOf(previous)}`,
    });
  }
}

function cancelReport({ run, entries, id }: RunFacts, out: Violation[]): void {
  const at = run.cancelledAt;
  if (at === undefined || run.endedAt === undefined) return;
  const unanswered = entries.find(
    (e) =>
      e.method !== 'GET' &&
      e.at <= at &&
      (e.answered ?? Infinity) >= at &&
      e.status === undefined &&
      e.error === 'no answer',
  );
  if (!unanswered || run.failure?.includes('may have been applied')) return;
  out.push({
    invariant: 'cancel-report',
    run: id,
    message: `Run ${id} was cancelled at ${seconds(at)} while its ${unanswered.method} ${unanswered.path} (sent at ${seconds(unanswered.at)}) had no answer${unanswered.applied ? ' (the service had applied it)' : ''}, and its failure line does not say it may have been applied: ${run.failure ?? '(none)'}`,
    signature: 'a cancel with a write unanswered, not said',
  });
}

/** A deployment write's answer after which what it did is unknown (contract: "Retries and time limits"). */
function unknownOutcome(e: Entry): boolean {
  if (e.status === undefined) return e.error !== 'ECONNREFUSED';
  return e.status >= 500 || e.status === 408 || e.status === 429;
}

function rereadFirst(facts: RunFacts, out: Violation[]): void {
  const { entries, id, run } = facts;
  const none = new Set<Entry>();
  for (const e of entries) {
    const key = writeKey(e, none);
    if (!key || key.startsWith('token') || !unknownOutcome(e)) continue;
    const create = key.startsWith('create');
    const name = create ? (JSON.parse(e.body!) as { name: string }).name : undefined;
    const depId = create ? undefined : /^\/v2\/deployments\/([^/?]+)/.exec(e.path)?.[1];
    const about = (x: Entry) =>
      create
        ? (x.method === 'GET' &&
            new URL(x.path, 'http://sim').searchParams.get('name_contains') === name) ||
          writeKey(x, none) === key
        : x.path.includes(depId!);
    const next = entries.find((x) => x.seq > e.seq && about(x));
    // A cancel stops the reads at once (a hold a 429 set included): nothing more is no violation then.
    if (next?.method === 'GET' || (!next && run.cancelledAt !== undefined)) continue;
    out.push({
      invariant: 'reread-first',
      run: id,
      message: `Run ${id}'s ${e.method} ${e.path} at ${seconds(e.at)} got ${answerOf(e)}${e.applied ? ` (the service had applied it: ${e.served})` : ''}, and ${next ? `the next request about it was ${next.method} ${next.path} at ${seconds(next.at)}` : 'the run sent nothing more about it'}, not a read.`,
      signature: `${create ? 'create' : 'write'} after ${answerOf(e)} not followed by a read`,
    });
  }
}

/**
 * Whether, between a write's answer and its next send, the run got a read of the deployment whose latest revision
 * is the one it saw before its first send of that write: a re-read showing the write did not take effect.
 */
function rereadShowsNotTaken(
  facts: RunFacts,
  previous: Entry,
  next: Entry,
  rollbacks: Set<Entry>,
): boolean {
  const depId = /^\/v2\/deployments\/([^/?]+)/.exec(previous.path)?.[1];
  if (!depId) return false;
  const key = writeKey(previous, rollbacks);
  const first = facts.entries.find((e) => writeKey(e, rollbacks) === key)!;
  let before: string | null | undefined;
  for (const e of facts.entries) {
    if (e.seq >= first.seq) break;
    const seen = latestIn(e, depId);
    if (seen !== undefined) before = seen;
  }
  if (before === undefined) return false;
  return facts.entries.some(
    (e) =>
      e.method === 'GET' &&
      e.at >= (previous.answered ?? previous.at) &&
      (e.answered ?? Infinity) <= next.at &&
      latestIn(e, depId) === before,
  );
}

/** The latest_revision_id of deployment `depId` in a read's 2xx answer, if it shows that deployment. */
function latestIn(e: Entry, depId: string): string | null | undefined {
  if (e.answer === undefined || !e.path.startsWith('/v2/deployments')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(e.answer);
  } catch {
    return undefined;
  }
  const shown = (body as { resources?: unknown[] }).resources ?? [body];
  const dep = shown.find((d) => (d as { id?: string }).id === depId) as
    { latest_revision_id: string | null } | undefined;
  return dep?.latest_revision_id;
}

function paging({ run, entries, id }: RunFacts, out: Violation[]): void {
  const failure = run.failure ?? '';
  if (!/does not advance|the same page again/.test(failure)) return;
  const reads = entries.filter((e) => e.method === 'GET' && e.answer !== undefined);
  const looped = reads.some(
    (e, i) =>
      i >= 2 &&
      [reads[i - 1]!, reads[i - 2]!].every((p) => p.path === e.path && p.answer === e.answer),
  );
  if (!looped)
    out.push({
      invariant: 'paging',
      run: id,
      message: `Run ${id} failed as a listing that does not advance, though no offset was answered the same way three times in a row: ${failure}`,
      signature: 'a shifted page called stuck',
    });
}

/** deployed, updated and every write command's revision-id. */
function claims(facts: RunFacts, out: Violation[]): void {
  const { run, plan, id, outcome } = facts;
  if (plan.command === 'token-metadata') {
    if (run.outputs.result !== 'updated') return;
    const applied = facts.entries.some(
      (e) => e.method === 'PATCH' && e.served !== undefined && e.served < 300,
    );
    if (!applied)
      out.push({
        invariant: 'own-revision',
        run: id,
        message: `Run ${id} reports updated, but no token update of its reached the service and was applied.`,
        signature: 'updated without an applied update',
      });
    return;
  }
  if (!WRITE_COMMANDS.has(plan.command)) return;
  for (const target of facts.targets()) {
    const { result, revisionId } = target;
    if (!revisionId || !result || NOT_WRITTEN.has(result)) continue;
    const where = plan.command === 'list' ? ` (item '${target.name}')` : '';
    const own = facts.wrote.get(revisionId);
    const revision = outcome.revisions.get(revisionId);
    if (!own && lookAlike(facts, target, revisionId)) continue;
    if (!own) {
      out.push({
        invariant: 'no-claim',
        run: id,
        message: `Run ${id}${where} ends ${result} with revision-id ${revisionId}, ${facts.whose(revisionId)}: none of its writes made it.`,
        signature: `${result} with ${facts.whose(revisionId).replace(/run \d+'s/, "another run's")}`,
      });
      continue;
    }
    if (result !== 'deployed' || !revision) continue;
    const wrong = wrongValues(facts, target, revision);
    if (wrong)
      out.push({
        invariant: 'own-revision',
        run: id,
        message: `Run ${id}${where} reports deployed with revision ${revisionId}, which ${wrong}.`,
        signature: 'deployed with other values',
      });
    if (!liveWhileRunning(facts, revision, own.appliedAt!))
      out.push({
        invariant: 'own-revision',
        run: id,
        message: `Run ${id}${where} reports deployed with revision ${revisionId} (created ${revision.created_at}), but from its write at ${seconds(own.appliedAt!)} to its end at ${seconds(run.endedAt!)} the deployment served ${servedBetween(facts, revision, own.appliedAt!)}: neither it nor a newer one.`,
        signature: 'deployed while an older revision was live',
      });
  }
}

/**
 * Whether another write with the very values this run sent made `revisionId`: it looks like the run's own, and the
 * contract takes it for the run's (docs/reliability.md, "What it cannot tell apart").
 */
function lookAlike(facts: RunFacts, target: { value: string }, revisionId: string): boolean {
  const revision = facts.outcome.revisions.get(revisionId);
  return (
    revision !== undefined &&
    !facts.outcome.seeded.has(revisionId) &&
    wrongValues(facts, target, revision) === undefined
  );
}

/** How `revision` differs from what the run sent, or undefined when it carries it. */
function wrongValues(
  facts: RunFacts,
  target: { value: string },
  revision: FinalRevision,
): string | undefined {
  const { plan, outcome } = facts;
  const config = revision.source_revision_config;
  const codehost = outcome.schedule.service.source === 'codehost';
  const has = (want: string) =>
    codehost ? config.repo_ref === want : config.image_uri === imageOf(want);
  switch (plan.command) {
    case 'deploy':
    case 'list':
      return has(target.value)
        ? undefined
        : `carries ${JSON.stringify(config)}, not ${target.value}`;
    case 'promote': {
      const want = outcome.promoted.get(plan.id);
      const got = codehost ? config.repo_commit_sha : config.image_uri;
      return got === want ? undefined : `is built from ${got}, not the promoted ${want}`;
    }
    case 'redeploy': {
      const chosen = outcome.revisions.get(outcome.targetRevisions[plan.revision!]!);
      if (!chosen || chosen.id === revision.id) return undefined;
      const a = chosen.source_revision_config;
      return a.repo_ref === config.repo_ref && a.image_uri === config.image_uri
        ? undefined
        : `is not revision ${chosen.id} nor a copy of it`;
    }
    default:
      return undefined;
  }
}

/** The revisions the deployment served from `from` to the run's end, the one it served at `from` first. */
function served(facts: RunFacts, revision: FinalRevision, from: number): (string | null)[] {
  const samples = facts.outcome.samples.filter(
    (s) => s.deploymentId === revision.deploymentId && s.at <= facts.run.endedAt!,
  );
  let start = 0;
  samples.forEach((s, i) => {
    if (s.at <= from) start = i;
  });
  return samples.slice(start).map((s) => s.active);
}

function liveWhileRunning(facts: RunFacts, revision: FinalRevision, from: number): boolean {
  const created = Date.parse(revision.created_at);
  return served(facts, revision, from).some((active) => {
    if (active === revision.id) return true;
    const other = active ? facts.outcome.revisions.get(active) : undefined;
    return other !== undefined && Date.parse(other.created_at) > created;
  });
}

function servedBetween(facts: RunFacts, revision: FinalRevision, from: number): string {
  return [...new Set(served(facts, revision, from))]
    .map((active) => (active ? `${active} (${facts.whose(active)})` : 'none'))
    .join(', then ');
}

function createdFlags(facts: RunFacts, out: Violation[]): void {
  const { run, plan, id, entries } = facts;
  const { outputs } = run;
  // A token's update makes no revision, applied or not.
  if (plan.command === 'token-metadata' && outputs['revision-created'] !== 'false')
    out.push({
      invariant: 'created-flags',
      run: id,
      message: `Run ${id}: revision-created is ${outputs['revision-created'] ?? 'empty'}, but a token update makes no revision.`,
      signature: 'revision-created of a token update',
    });
  if (!WRITE_COMMANDS.has(plan.command) || plan.command === 'list') return;
  const creates = entries.filter((e) => e.created);
  const made = [...facts.wrote.entries()].filter(
    ([rev, e]) => !facts.rolledBack.has(rev) && e.made?.includes(rev),
  );
  const flag = (name: string, message: string, signature: string) =>
    out.push({
      invariant: 'created-flags',
      run: id,
      message: `Run ${id}: ${name} ${message}`,
      signature: `${name} ${signature}`,
    });
  if (outputs.created === 'true' && !creates.some((e) => e.created === outputs['deployment-id']))
    flag(
      'created',
      `is true, but no create of its made deployment ${outputs['deployment-id']}.`,
      'true without a create',
    );
  if (outputs.created === 'false' && creates.length)
    flag(
      'created',
      `is false, but its create at ${seconds(creates[0]!.at)} (answered: ${answerOf(creates[0]!)}) made deployment ${creates[0]!.created}.`,
      `false after a create ${creates[0]!.status !== undefined && creates[0]!.status < 300 ? 'answered' : 'whose answer was lost'}${run.cancelledAt === undefined ? '' : ' (cancelled)'}`,
    );
  const revisionCreated = outputs['revision-created'];
  const revisionId = outputs['revision-id'];
  const followed = (rev: string) =>
    rev === revisionId || lookAlike(facts, { value: plan.value }, revisionId ?? '');
  if (revisionCreated === 'true' && !made.some(([rev]) => followed(rev)))
    flag(
      'revision-created',
      `is true, but revision-id ${outputs['revision-id'] ?? '(none)'} is ${outputs['revision-id'] ? facts.whose(outputs['revision-id']) : 'empty'}.`,
      'true without its revision',
    );
  // Empty means a write of the run may have made one: without a create, PATCH or redeploy sent, none did.
  const wroteDeployment = entries.some(
    (e) => e.method !== 'GET' && !e.path.startsWith('/v2/auth/'),
  );
  if (revisionCreated === undefined && !wroteDeployment)
    flag(
      'revision-created',
      'is empty, but the run sent no create, PATCH or redeploy.',
      'empty without a write',
    );
  if (revisionCreated === 'false' && made.length) {
    const [rev, e] = made[0]!;
    flag(
      'revision-created',
      `is false, but its ${e.method} at ${seconds(e.at)} (answered: ${answerOf(e)}) made revision ${rev}; result ${outputs.result}.`,
      `false after a write ${e.status !== undefined && e.status < 300 ? 'answered' : 'whose answer was lost'}${run.cancelledAt === undefined ? '' : ' (cancelled)'}`,
    );
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
