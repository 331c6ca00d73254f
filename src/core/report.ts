import type { Deployment, Revision } from '../service/schemas.ts';

export interface TimelineEntry {
  status: string;
  /** When the status was first seen (ms on the run's monotonic clock); the first one starts at the trigger. */
  since: number;
  /** When the next status was seen, or the last read for the final one. */
  until: number;
}

export interface Plan {
  action: 'create' | 'update' | 'redeploy';
  method: string;
  path: string;
  /** The request body with secret values replaced. */
  body?: unknown;
  /** The fields the request sets (a create's or an update's; none for a redeploy). */
  changes: string[];
  /** verify-url as it would be checked, or why it cannot be resolved yet. */
  verify?: { url?: string; problem?: string };
}

/** One field a deploy would change: its value on the service and the one these inputs send (null: none). */
export interface FieldChange {
  live: unknown;
  wanted: unknown;
}

/** The plan (deploy/plan.ts): what a deploy with these inputs would change on one deployment, against what is live. */
export interface Changes {
  /** Field → its live and wanted values: the deployment's entry in the `changes` output; empty when nothing changes. */
  fields: Record<string, FieldChange>;
  /** Why a field counts as changed beyond its two values (a commit that could not be compared, the files in paths). */
  why: Record<string, string>;
  /** Secrets given that the deployment holds too: the service never returns a value, so a new one cannot be seen. */
  unverified: string[];
  /** Why a commit that differs is no change (it touches no file in `paths`). */
  commitNote?: string;
}

/** The plan as a run reports it: whose it is, and each change as the summary, the comment and the log show it. */
export interface ChangesReport extends Changes {
  /** The deployment's name: its key in the `changes` output. */
  name: string;
  rows: ChangeRow[];
}

/** A change as shown: each value's text (cut through the sinks), a word standing for a value not shown, or none. */
export interface ChangeRow {
  field: string;
  live: Shown;
  wanted: Shown;
}
export type Shown = { text: string } | { word: string } | null;

/** command promote: the source deployment and the revision of it this run deploys to the target. */
export interface Promotion {
  fromId: string;
  fromName: string;
  revisionId: string;
  /** codehost: the commit sent as repo_ref, which the target's new revision must be built from. */
  commit?: string;
  /** docker: the image sent as image_uri, byte for byte. */
  image?: string;
}

export interface Rollback {
  revisionId: string;
  status?: string;
  ok: boolean;
}

/** What checking verify-url found. */
export interface Verification {
  url: string;
  ok: boolean;
  attempts: number;
  /** From the first attempt to the first 2xx answer. */
  okAfterMs?: number;
  /** The last answer that was not 2xx: a status line, a redirect's target, or a network error. */
  lastAnswer?: string;
}

/**
 * How a run ends: its result (a name of core/result.ts's kinds), whether it succeeded, the result's rank in a list's
 * worst, and for a failure where it broke and what to look at next.
 */
export interface Verdict {
  result: string;
  ok: boolean;
  rank: number;
  failure?: { phase: string; message: string; next?: string };
}

/**
 * What a run learned, written as it goes by the command and the steps that follow its write (follow, write), so the
 * run can turn it into outputs and a summary also when it fails or is cancelled half-way. The wait, the active check,
 * verify and the rollback only return what they saw.
 */
export interface RunReport {
  /** Absent when the inputs could not be read. */
  command?: string;
  /** The `result` output (core/result.ts); its rank in a list's worst beside it. */
  result?: string;
  rank?: number;
  ok: boolean;
  deployment?: Deployment;
  /** Undefined when not known: the run's create may have been applied, and no read told (created empty). */
  created: boolean | undefined;
  /** Undefined when not known: a write of the run may have been applied, and no read told (revision-created empty). */
  revisionCreated: boolean | undefined;
  previousRevisionId?: string;
  revisionId?: string;
  revision?: Revision;
  timeline: TimelineEntry[];
  /** When the wait started and ended, on the run's monotonic clock (set together). */
  waitStarted?: number;
  waitEnded?: number;
  /** The phase that failed and what to look at next. */
  failure?: { phase: string; message: string; next?: string };
  plan?: Plan;
  /** With dry-run, skip-unchanged and command drift: what a deploy would change (deploy/live.ts). */
  changes?: ChangesReport;
  promotion?: Promotion;
  rollback?: Rollback;
  verification?: Verification;
  cancelled?: boolean;
  /** A write sent whose outcome this run does not know yet: what a cancel now leaves possibly applied. */
  pendingWrite?: PendingWrite;
  /** What the run was doing last: lookup, resolve, plan, create, update, redeploy, wait, rollback, report. */
  phase?: string;
  /** How the run ended, in a sentence, where the result alone does not tell (a closed preview). */
  ending?: string;
  notes: string[];
  /** The fields deploy's write set (dotted names, no values), for the comparison with the last good revision. */
  sent?: string[];
  diagnostics: Diagnostics;
  /** With deployments: each item's own report, in the list's order; this report is then the set's. */
  items?: ItemReport[];
}

/** One deployment of a list (`deployments`): its report, and when it ran on the run's monotonic clock. */
export interface ItemReport {
  name: string;
  report: RunReport;
  /** Unset for an item that never started (fail-fast, a cancel). */
  startedAt?: number;
  endedAt?: number;
}

/** What the run found out to explain a failure or a slow wait (deploy/diagnose.ts). */
export interface Diagnostics {
  /** The deployment's own statuses other than READY that any read of it saw, in the order first seen. */
  deploymentStatuses: string[];
  /** The revision this run's sat behind while it waited in QUEUED or AWAITING_*, as first seen. */
  queuedBehind?: { revisionId: string; status: string; ownStatus: string };
  /** No status change seen for stuck-after: the status and how long it had not changed, when warned. */
  stuck?: { status: string; forMs: number };
  /** On failure, timeout or unhealthy: the revision active before the run beside this run's. */
  lastGood?: Comparison;
  /** Requests the diagnostics made beyond the run's own (each read once, whatever its retries). */
  requests: number;
}

/** A revision as the comparison shows it: its revision-level values, as the service answered them. */
export interface RevisionValues {
  id: string;
  status?: string;
  ref?: string;
  commit?: string;
  image?: string;
  graphConfigPath?: string;
}

/** The revision that was active before the run (the last good one) beside the one this run followed. */
export interface Comparison {
  /** Absent when no revision was active before the run, or when it could not be read (`problem`). */
  before?: RevisionValues;
  problem?: string;
  failed: RevisionValues;
  /** What this run's write set: deploy's fields, or none for a redeploy. */
  sent: string[];
}

export interface PendingWrite {
  /** "PATCH /v2/deployments/…" */
  request: string;
  /** Where to look: "deployment 'my-agent' (…)". */
  check: string;
}

export function newReport(command?: string): RunReport {
  return {
    command,
    ok: false,
    created: false,
    revisionCreated: false,
    timeline: [],
    notes: [],
    diagnostics: { deploymentStatuses: [], requests: 0 },
  };
}

export function conclude(report: RunReport, verdict: Verdict): void {
  report.result = verdict.result;
  report.rank = verdict.rank;
  report.ok = verdict.ok;
  report.failure = verdict.failure;
}
