import type { RunReport } from '../../core/report.ts';

/** The command line's exit codes (the contract's). */
export const EXIT = { ok: 0, failed: 1, invalid: 2, cancelled: 130 } as const;

/**
 * How a run ends for the shell: cancelled, invalid input (the run stopped at the inputs, before any request), failed
 * (any failing result), or success when its result was also `reported` (outputs and failure line: none).
 */
export function exitCode(report: RunReport, reported: boolean): number {
  if (report.cancelled) return EXIT.cancelled;
  if (!report.ok) return report.failure?.phase === 'inputs' ? EXIT.invalid : EXIT.failed;
  return reported ? EXIT.ok : EXIT.failed;
}
