import type { FieldChange, RunReport } from '../core/report.ts';

/** A command's own outputs of one of its reports, beyond the common ones (commands/command.ts: `outputs`). */
export type OwnOutputs = (report: RunReport) => Record<string, string | undefined>;

/**
 * The step outputs a report knows (unknown ones are left out, so `if: failure()` steps see only facts): the common
 * ones, then the command's `own`. A list's are its `result`, and its one item's outputs when it has only one;
 * `results` (resultsOf) holds every item's.
 */
export function outputsOf(report: RunReport, own?: OwnOutputs): Record<string, string> {
  if (report.items) {
    const only = report.items.length === 1 ? outputsOf(report.items[0]!.report, own) : {};
    return report.result ? { ...only, result: report.result } : only;
  }
  const d = report.deployment;
  const out: Record<string, string | undefined> = {
    'deployment-id': d?.id,
    'deployment-name': d?.name,
    'deployment-status': d?.status,
    'revision-id': report.revisionId,
    'revision-status': report.revision?.status,
    'previous-revision-id': report.previousRevisionId ?? (d ? '' : undefined),
    created: report.created === undefined ? undefined : String(report.created),
    'revision-created':
      report.revisionCreated === undefined ? undefined : String(report.revisionCreated),
    'commit-sha': report.revision?.source_revision_config.repo_commit_sha ?? undefined,
    'custom-url': d?.source_config.custom_url ?? undefined,
    result: report.result,
    duration: waitedSeconds(report)?.toString(),
    verified: report.verification && String(report.verification.ok),
    ...own?.(report),
  };
  return Object.fromEntries(
    Object.entries(out).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

export function waitedSeconds(report: RunReport): number | undefined {
  if (report.waitStarted === undefined || report.waitEnded === undefined) return undefined;
  return Math.round((report.waitEnded - report.waitStarted) / 100) / 10;
}

/** One deployment's entry in `results`: null where the run did not learn it (typed, for fromJSON in a workflow). */
export interface ItemResult {
  result: string | null;
  'deployment-id': string | null;
  'revision-id': string | null;
  'revision-status': string | null;
  'custom-url': string | null;
  verified: boolean | null;
  duration: number | null;
}

/** The `results` output of a list: each item's entry, keyed by its name, in the list's order; undefined otherwise. */
export function resultsOf(report: RunReport): Record<string, ItemResult> | undefined {
  if (!report.items) return undefined;
  return Object.fromEntries(
    report.items.map(({ name, report: r }) => [
      name,
      {
        result: r.result ?? null,
        'deployment-id': r.deployment?.id ?? null,
        'revision-id': r.revisionId ?? null,
        'revision-status': r.revision?.status ?? null,
        'custom-url': r.deployment?.source_config.custom_url ?? null,
        verified: r.verification ? r.verification.ok : null,
        duration: waitedSeconds(r) ?? null,
      },
    ]),
  );
}

/**
 * The `changes` output: each planned deployment's fields that would change, keyed by its name (a list's, in its
 * order); undefined when the run made no plan (only dry-run, skip-unchanged and drift do).
 */
export function changesOf(
  report: RunReport,
): Record<string, Record<string, FieldChange>> | undefined {
  const planned = (report.items?.map((item) => item.report) ?? [report]).flatMap((r) =>
    r.changes ? [r.changes] : [],
  );
  if (!planned.length) return undefined;
  return Object.fromEntries(planned.map((c) => [c.name, c.fields]));
}
