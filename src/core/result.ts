// A run's result: the `result` output's value, whether the step fails, its rank in a list's worst, and its heading.
// What ends a run declares its results: a command in its own file (commands/command.ts: `results`), the steps several
// commands share (the wait, the plan, a dry run) and the run itself here. Renderers take a result's heading from the
// command's declaration and a list's worst from the ranks, never from a command's name.

export interface ResultKind {
  /** The `result` output: one of the contract's names (action.yml's `result`). */
  readonly name: string;
  /** Whether the step fails when the run ends with it. */
  readonly fails: boolean;
  /** Its place in the worst of a list (`deployments`): the higher, the worse; equal ranks are equals. */
  readonly rank: number;
  /** The job summary's and the comment's heading. */
  readonly headline: string;
  /** What to look at next, when the result alone says it (the failure's own advice comes first). */
  readonly next?: string;
}

// The contract's order of a list's results, worst first: failed > timed-out > unhealthy > rolled-back > skipped >
// not-started > submitted > no-change > deployed, a dry run's planned below them (test/core/result.test.ts).

/** Any error, a cancel, or a revision that failed: the result of every run that ends otherwise than declared. */
export const FAILED: ResultKind = { name: 'failed', fails: true, rank: 8, headline: '❌ Failed' };
export const TIMED_OUT: ResultKind = {
  name: 'timed-out',
  fails: true,
  rank: 7,
  headline: '⏱️ Timed out',
};
/** DEPLOYED, but verify-url never answered 2xx in time. */
export const UNHEALTHY: ResultKind = {
  name: 'unhealthy',
  fails: true,
  rank: 6,
  headline: '🩺 Unhealthy',
};
export const ROLLED_BACK: ResultKind = {
  name: 'rolled-back',
  fails: true,
  rank: 5,
  headline: '↩️ Rolled back',
};
/** A revision the service skipped, with allow-skipped: true. */
export const SKIPPED: ResultKind = {
  name: 'skipped',
  fails: false,
  rank: 4,
  headline: '⏭️ Skipped',
};
/** A revision the service skipped, when skips are not allowed. */
export const SKIPPED_REFUSED: ResultKind = {
  ...SKIPPED,
  fails: true,
  next: 'A skipped revision is usually superseded by a newer one; check the deployment in the service.',
};
/** With deployments: an item that never started (fail-fast, a cancel). */
export const NOT_STARTED: ResultKind = {
  name: 'not-started',
  fails: true,
  rank: 3,
  headline: '⏸️ Not started',
};
/** wait: false: the revision was started, not awaited. */
export const SUBMITTED: ResultKind = {
  name: 'submitted',
  fails: false,
  rank: 2,
  headline: '🚀 Submitted',
};
export const NO_CHANGE: ResultKind = {
  name: 'no-change',
  fails: false,
  rank: 1,
  headline: '✅ No change',
};
export const DEPLOYED: ResultKind = {
  name: 'deployed',
  fails: false,
  rank: 0,
  headline: '✅ Deployed',
};
/** dry-run: the request was shown, nothing written. */
export const PLANNED: ResultKind = {
  name: 'planned',
  fails: false,
  rank: -1,
  headline: '📝 Planned (dry run)',
};

/** The results of any run, whatever its command: an error, and a list's item that never started. */
const RUN_RESULTS: readonly ResultKind[] = [FAILED, NOT_STARTED];

/**
 * The declaration of a report's result: the command's own (`declared`), else the run's. Each is looked up by name and
 * by whether the run failed, then by name alone (a report whose run failed after its result was set); a result
 * nothing declares (a bug) gets the plain heading of a success or a failure, so the summary is still written.
 */
export function resultKind(
  declared: readonly ResultKind[],
  report: { result?: string; ok: boolean },
): ResultKind {
  const all = [...declared, ...RUN_RESULTS];
  const named = all.filter((kind) => kind.name === report.result);
  const found = named.find((kind) => kind.fails === !report.ok) ?? named[0];
  if (found) return found;
  const name = report.result ?? FAILED.name;
  return report.ok
    ? { name, fails: false, rank: DEPLOYED.rank, headline: `✅ ${name}` }
    : { ...FAILED, name };
}
