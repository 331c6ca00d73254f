// The words a run ends with where the run or a step several commands share ends it (the wait, the rollback, a list):
// each result's message and what to look at next. A command's own words are in its file.
import type {
  Comparison,
  ItemReport,
  PendingWrite,
  RevisionValues,
  Rollback,
  RunReport,
  Verdict,
} from './report.ts';
import {
  DEPLOYED,
  FAILED,
  NOT_STARTED,
  ROLLED_BACK,
  type ResultKind,
  SKIPPED,
  SKIPPED_REFUSED,
  TIMED_OUT,
} from './result.ts';
import type { WaitOutcome } from '../deploy/wait.ts';
import type { Excerpt } from './sinks.ts';

export function success(kind: ResultKind): Verdict {
  return { result: kind.name, ok: true, rank: kind.rank };
}

/** The verdict for a revision that was waited on to its end (cancellation is the edge's business). */
export function settle(
  outcome: Exclude<WaitOutcome, 'cancelled'>,
  revisionId: string,
  status: string,
  options: { allowSkipped: boolean; limit: string; setup: Setup; cutShort?: string },
): Verdict {
  switch (outcome) {
    case 'deployed':
      return success(DEPLOYED);
    case 'skipped':
      if (options.allowSkipped) return success(SKIPPED);
      return failed(
        SKIPPED_REFUSED,
        `Revision ${revisionId} was SKIPPED by the service; set allow-skipped: true if that is fine.`,
        { phase: 'wait' },
      );
    case 'failed':
      return failed(
        FAILED,
        `Revision ${revisionId} ended ${status}.`,
        diagnose(status, options.setup),
      );
    case 'timed-out':
      return failed(
        TIMED_OUT,
        options.cutShort
          ? `The wait for revision ${revisionId}${status === 'unknown' ? '' : ` (still ${status})`} stopped: ${options.cutShort}`
          : `Revision ${revisionId} was still ${status} when ${options.limit} ran out.`,
        { phase: 'wait', next: stillGoing(status, options.setup) },
      );
  }
}

/** What a cancel leaves behind when a write had not answered: it may have been applied all the same. */
function unansweredWrite({ request, check }: PendingWrite): string {
  return `${request} had no answer when the job was cancelled: it may have been applied. Check ${check} on the service before running the job again.`;
}

/**
 * What a cancelled job leaves on the service, in a sentence for the failure line, the summary and the GitHub
 * Deployment alike: a write that may have been applied, or a revision that keeps going; undefined when neither.
 */
export function afterCancel({
  pendingWrite,
  revisionId,
}: Pick<RunReport, 'pendingWrite' | 'revisionId'>): string | undefined {
  if (pendingWrite) return unansweredWrite(pendingWrite);
  if (revisionId)
    return `Revision ${revisionId} keeps going on the service: check it there, or run this action with command: status.`;
  return undefined;
}

/** The note when a timed-out revision is not rolled back. */
export function noRollbackAfterTimeout(revisionId: string, previous: string | undefined): string {
  return `No rollback: revision ${revisionId} timed out, not failed, and may still go live on the service; a rollback now would race it.${previous ? ` To go back, run command: redeploy with revision-id: ${previous}.` : ''}`;
}

export const NOTHING_TO_ROLL_BACK =
  'No rollback: no other revision was active before this run, so there is nothing to go back to.';

/**
 * Why a revision that is DEPLOYED and serving is still not what the run asked for: a clause that follows "Revision
 * <id>", where it broke, and what to look at next.
 */
export interface Mismatch {
  why: string;
  where: { phase: string; next: string };
}

/** The verdict after a rollback: always a failed step, `rolled-back` when the old revision is live again. */
export function afterRollback(
  broken: { revisionId: string; status: string; why: string; where?: Mismatch['where'] },
  previous: string,
  rollback: Rollback & { problem?: string; timedOut: boolean },
  limit: string,
  setup: Setup,
): Verdict {
  const target =
    rollback.revisionId === previous
      ? `revision ${previous}`
      : `revision ${previous} (redeployed as ${rollback.revisionId})`;
  const rollbackEnd = rollback.problem
    ? `failed: ${rollback.problem}`
    : rollback.timedOut
      ? `was still ${rollback.status ?? 'unknown'} when ${limit} ran out`
      : `ended ${rollback.status ?? 'unknown'}`;
  const { phase, next } = broken.where ?? diagnose(broken.status, setup);
  return rollback.ok
    ? failed(
        ROLLED_BACK,
        `Revision ${broken.revisionId} ${broken.why}; rolled back to ${target}, which is DEPLOYED again.`,
        {
          phase,
          next,
        },
      )
    : failed(
        FAILED,
        `Revision ${broken.revisionId} ${broken.why}, and the rollback to ${target} ${rollbackEnd}.`,
        {
          phase,
          next: `${next} The rollback did not finish: check which revision is live in the service.`,
        },
      );
}

/**
 * What the advice for a failure names: the deployment and its revision as last read, and what the wait saw
 * (deploy/diagnose.ts gathers it). Values from the service are data: each as a message quotes it (an excerpt,
 * redacted before it was cut), and escaped by each sink.
 */
export interface Setup {
  source?: string;
  ref?: string;
  commit?: string;
  image?: string;
  graphConfigPath?: string;
  /** Whether the deployment has its own install and build commands (their values may be private: never shown). */
  installCommand: boolean;
  buildCommand: boolean;
  resourceSpec: boolean;
  /** How many secrets and secret references the deployment holds (names and values are not shown). */
  secrets: number;
  secretReferences: number;
  listenerId?: string;
  namespace?: string;
  /** The revision this one sat behind in a queue. */
  queuedBehind?: string;
  /** The deployment's own statuses other than READY seen during the run. */
  deploymentStatuses: string[];
}

const quoted = (value: string) => `'${value}'`;

/** Where a failed revision broke, and what to look at next, written for its status and its deployment. */
export function diagnose(status: string, setup: Setup): { phase: string; next: string } {
  const also = deploymentNotes(setup);
  switch (status) {
    case 'BUILD_FAILED':
      return { phase: 'build', next: `${buildAdvice(setup)}${also}` };
    case 'DEPLOY_FAILED':
      return {
        phase: 'deploy',
        next: `The build passed but the revision did not start: read the revision's deploy log in the service. ${startAdvice(setup)}${also}`,
      };
    case 'CREATE_FAILED':
      return {
        phase: 'revision set-up',
        next: `The service could not set the revision up: ${sourceAccess(setup)}, and the source configuration.${also}`,
      };
    case 'INTERRUPTED':
      return {
        phase: 'deploy (interrupted)',
        next: `The revision was interrupted, often by a newer revision of the same deployment (another job, or build-on-push): check which revision is the latest in the service, and re-run the job if this one should be live.${also}`,
      };
    case 'DEPLOYED':
      return {
        phase: 'verify',
        next: `The revision is live but the agent did not answer verify-url: read the agent's logs; check its start-up, the secrets it needs (${secretCount(setup)}) and the health path (it must answer 2xx without credentials or a redirect).${also}`,
      };
    default:
      return { phase: 'wait', next: `Check the revision in the service.${also}` };
  }
}

/** What to look at when a revision was still in `status` at the deadline: it keeps going on the service. */
function stillGoing(status: string, setup: Setup): string {
  const lead = 'The revision keeps going on the service.';
  const also = deploymentNotes(setup);
  if (status === 'QUEUED' || status.startsWith('AWAITING_'))
    return setup.queuedBehind
      ? `${lead} It sat in ${status} behind revision ${setup.queuedBehind} and starts when that one ends: let the deploys of one deployment run one at a time (a workflow concurrency group), or raise timeout.${also}`
      : `${lead} It never left ${status}: check the service for a stuck queue, or raise timeout if queues are this long.${also}`;
  switch (status) {
    case 'CREATING':
      return `${lead} It was still being set up: ${sourceAccess(setup)}.${also}`;
    case 'BUILDING':
      return `${lead} The build was still running: raise timeout if builds take this long, or read the build log for a step that hangs (a download, a prompt for input).${also}`;
    case 'DEPLOYING':
      return `${lead} The deploy did not settle: read the deploy log. ${startAdvice(setup)}${also}`;
    default:
      return `${lead} Check it there, and raise timeout if it needs longer.${also}`;
  }
}

function buildAdvice(setup: Setup): string {
  if (setup.image && !setup.graphConfigPath)
    return `Read the revision's build log in the service; check that image ${quoted(setup.image)} (image-uri) exists and that the service may pull it (registry credentials, image_pull_secrets in resource-spec).`;
  const commands = `install-command: ${setup.installCommand ? 'set on the deployment' : "not set, the service's default"}; build-command: ${setup.buildCommand ? 'set on the deployment' : "not set, the service's default"}`;
  const path = setup.graphConfigPath
    ? `the graph config file ${quoted(setup.graphConfigPath)} (graph-config-path)`
    : 'the graph config file (graph-config-path)';
  return `Read the revision's build log in the service. Check the install and build commands (${commands}), ${path}${at(setup)}, and the dependency files it relies on (requirements.txt, pyproject.toml, package.json and their lock files).`;
}

/** What stops a built revision from starting: resources, secrets, the image, and a self-hosted listener. */
function startAdvice(setup: Setup): string {
  const resources = setup.resourceSpec
    ? 'resource-spec (set on the deployment: enough memory and CPU for start-up?)'
    : "resource-spec (not set: the service's defaults; the agent may need more memory or CPU)";
  const image = setup.image ? `, that image ${quoted(setup.image)} starts` : '';
  const selfHosted =
    setup.listenerId || setup.source === 'external_docker'
      ? ` Self-hosted: check ${setup.listenerId ? `listener ${setup.listenerId}` : 'the listener'}${setup.namespace ? ` and namespace ${quoted(setup.namespace)}` : ''} (room on the cluster, quotas, image pull secrets${setup.secretReferences ? ', the secrets the secret references name' : ''}).`
      : '';
  return `Check ${resources}, the secrets the agent needs (${secretCount(setup)})${image} and the app's start-up.${selfHosted}`;
}

function secretCount(setup: Setup): string {
  const refs = setup.secretReferences
    ? ` and ${setup.secretReferences} secret reference${setup.secretReferences === 1 ? '' : 's'}`
    : '';
  return `${setup.secrets} set on the deployment${refs}`;
}

function sourceAccess(setup: Setup): string {
  if (setup.image && !setup.ref)
    return `check that image ${quoted(setup.image)} exists and that the service may pull it`;
  return `check the integration's access to the repository (integration-id), that ${setup.ref ? `ref ${quoted(setup.ref)}` : 'the ref'} exists`;
}

/** " at ref 'x' (commit abc…)", when the revision says. */
function at(setup: Setup): string {
  if (!setup.ref) return '';
  return ` at ref ${quoted(setup.ref)}${setup.commit ? ` (commit ${setup.commit})` : ''}`;
}

function deploymentNotes(setup: Setup): string {
  return setup.deploymentStatuses
    .map((status) => ` The deployment was ${status}: ${deploymentStatusMeaning(status)}`)
    .join('');
}

/**
 * What a deployment's own status other than READY means for a run. The interface names these statuses without
 * defining them: this is the action's reading of their names, worded as such.
 */
export function deploymentStatusMeaning(status: string): string {
  switch (status) {
    case 'AWAITING_DATABASE':
      return "the service is still setting up the deployment's database (a new deployment's first revision waits for it), so a revision may wait in QUEUED until it is ready.";
    case 'AWAITING_DELETE':
      return 'the deployment is being deleted: its revisions may never go live. Check who deleted it in the service; deploy under another name if it should stay gone.';
    case 'UNUSED':
      return 'the service marks the deployment unused (nothing serving, e.g. scaled down): a revision may take longer to start, and its URL may not answer until one is live.';
    case 'UNKNOWN':
      return "the service does not know the deployment's state: check the deployment in the service.";
    default:
      return 'a status this action does not know: check the deployment in the service.';
  }
}

const CHANGED_LEAD = 'What changed since it last worked:';

/**
 * The one log line that says what changed since the deployment last worked (diagnostics.lastGood), each value
 * quoted through `excerpt`.
 */
export function whatChanged(
  comparison: Comparison,
  previousId: string | undefined,
  excerpt: Excerpt,
): string {
  const { before, failed: ours, problem } = comparison;
  if (problem || !before || before.id === ours.id) return noPair(comparison, previousId);
  const changes = compared(before, ours, excerpt);
  const differ = changes.filter((c) => c.changed);
  const fields = changes
    .map((c) =>
      c.changed ? `${c.label} ${c.before} → ${c.after}` : `${c.label} ${c.after} (same)`,
    )
    .join('; ');
  const verdict = differ.length ? '' : ` ${NOTHING_CHANGED}`;
  const sent = sentSentence(comparison.sent, (field) => field);
  return `${CHANGED_LEAD} revision ${before.id} (active before this run${before.status ? `, ${before.status}` : ''}) → revision ${ours.id}${ours.status ? ` (${ours.status})` : ''}: ${fields || 'no ref, commit, image or graph config path on either'}. ${sent}${verdict}`;
}

/**
 * What changed, said where there is no pair of revisions to set side by side: the one before could not be read,
 * there was none, or it is the one this run followed. No value is quoted.
 */
export function noPair(comparison: Comparison, previousId: string | undefined): string {
  const { before, failed: ours, problem } = comparison;
  if (problem)
    return `${CHANGED_LEAD} revision ${previousId}, active before this run, could not be read (${problem}). ${sentSentence(comparison.sent, (field) => field)}`;
  if (!before)
    return `${CHANGED_LEAD} nothing to compare with, as no revision was active before this run.`;
  return `${CHANGED_LEAD} this run followed revision ${ours.id}, the one active before it (a redeploy), so the ref, commit and image are the same: the cause is around them (secrets, resources, the service).`;
}

export const NOTHING_CHANGED =
  'Nothing at the revision level changed: look at the fields this run sent and at the service.';

/** What this run's write set, each field name as `show` writes it (plain in the log, code in Markdown). */
export function sentSentence(sent: string[], show: (field: string) => string): string {
  return sent.length
    ? `This run sent ${sent.map(show).join(', ')}.`
    : 'This run sent no field (a redeploy).';
}

/** Why secrets on both sides are not in the plan (deploy/live.ts), each name as `show` writes it (plain, or code in Markdown). */
export function unverifiedNote(
  names: readonly string[],
  show: (name: string) => string = (name) => name,
): string {
  return `Secrets ${names.map(show).join(', ')}: the deployment has ${names.length === 1 ? 'it' : 'them'} too, and the service never returns a secret's value, so a new value cannot be seen.`;
}

/** The revision-level values of two revisions side by side, as the comparison shows them. */
export const COMPARED = [
  ['Ref', 'ref'],
  ['Commit', 'commit'],
  ['Image', 'image'],
  ['Graph config path', 'graphConfigPath'],
] as const;

/** Each value either revision has, with whether it differs; `none` where one has it and the other not. */
function compared(
  before: RevisionValues,
  after: RevisionValues,
  excerpt: Excerpt,
): { label: string; before: string; after: string; changed: boolean }[] {
  const shown = (value: string | undefined) => (value ? quoted(excerpt(value, 80)) : 'none');
  return COMPARED.filter(([, key]) => before[key] || after[key]).map(([label, key]) => ({
    label: label.toLowerCase(),
    before: shown(before[key]),
    after: shown(after[key]),
    changed: before[key] !== after[key],
  }));
}

/** The failure line: the message, then what to look at next. */
export function failureLine(failure: { message: string; next?: string }): string {
  return failure.next ? `${failure.message} Next: ${failure.next}` : failure.message;
}

/** A failing verdict: where it broke, and what to look at next (the result's own advice when `where` has none). */
export function failed(
  kind: ResultKind,
  message: string,
  where: { phase: string; next?: string },
): Verdict {
  const next = where.next ?? kind.next;
  return {
    result: kind.name,
    ok: false,
    rank: kind.rank,
    failure: { phase: where.phase, message, ...(next === undefined ? {} : { next }) },
  };
}

/** The worst of a list's reports by their results' ranks (core/result.ts), the first of equals in the list's order. */
function worstOf(reports: readonly RunReport[]): RunReport | undefined {
  const rank = (r: RunReport) => r.rank ?? -Infinity;
  return reports
    .filter((r) => r.result)
    .reduce<RunReport | undefined>(
      (worst, r) => (worst === undefined || rank(r) > rank(worst) ? r : worst),
      undefined,
    );
}

/** Why an item of a list never started: the job's cancel, or fail-fast after `after` failed. */
export function notStarted(after?: {
  name: string;
  result?: string;
}): Verdict & { ending: string } {
  const ending = after
    ? `Not started: fail-fast stopped the list after '${after.name}' ended ${after.result ?? 'failed'}.`
    : 'Not started: the job was cancelled first.';
  return { result: NOT_STARTED.name, ok: false, rank: NOT_STARTED.rank, ending };
}

/**
 * A list's verdict: its worst result, a success when every item is one. Its failure names each item that is not,
 * with what that item's own report says (a cancel: what it leaves on the service), quoted through `excerpt`.
 */
export function setVerdict(
  items: readonly ItemReport[],
  cancelled: boolean,
  excerpt: Excerpt,
): Verdict {
  const worst = worstOf(items.map((i) => i.report));
  const result = worst?.result;
  const rank = worst?.rank ?? FAILED.rank;
  const failing = items.filter((i) => !i.report.ok);
  if (!failing.length) return result ? { result, ok: true, rank } : success(DEPLOYED);
  const each = failing
    .map(({ name, report }) => {
      const why = report.cancelled
        ? (afterCancel(report) ?? 'cancelled before a revision was triggered.')
        : (report.ending ?? report.failure?.message ?? '');
      return `'${name}' ${report.result ?? 'failed'}${why ? `: ${excerpt(why, 300)}` : ''}`;
    })
    .join('; ');
  const message = cancelled
    ? `The job was cancelled. ${each}`
    : `${failing.length} of ${items.length} deployments did not succeed: ${each}`;
  const only = failing.length === 1 ? failing[0]!.report.failure?.next : undefined;
  return {
    result: result ?? FAILED.name,
    ok: false,
    rank,
    failure: {
      phase: 'deployments',
      message,
      next: cancelled
        ? undefined
        : (only ?? "Each deployment's section of the job summary says what to look at next."),
    },
  };
}
