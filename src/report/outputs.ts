import type { RunReport } from '../core/report.ts';

/** The step outputs a report knows (unknown ones are left out, so `if: failure()` steps see only facts). */
export function outputsOf(report: RunReport): Record<string, string> {
  const d = report.deployment;
  const out: Record<string, string | undefined> = {
    'deployment-id': d?.id,
    'deployment-name': d?.name,
    'deployment-status': d?.status,
    'revision-id': report.revisionId,
    'revision-status': report.revision?.status,
    'previous-revision-id': report.previousRevisionId ?? (d ? '' : undefined),
    created: String(report.created),
    'revision-created': String(report.revisionCreated),
    'commit-sha': report.revision?.source_revision_config.repo_commit_sha ?? undefined,
    'custom-url': d?.source_config.custom_url ?? undefined,
    result: report.result,
    duration: waitedSeconds(report)?.toString(),
    verified: report.verification && String(report.verification.ok),
    'promoted-from': report.promotion?.fromId,
    'source-revision-id': report.promotion?.revisionId,
  };
  return Object.fromEntries(
    Object.entries(out).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

export function waitedSeconds(report: RunReport): number | undefined {
  if (report.waitStarted === undefined || report.waitEnded === undefined) return undefined;
  return Math.round((report.waitEnded - report.waitStarted) / 100) / 10;
}
