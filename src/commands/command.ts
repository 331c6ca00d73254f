// What a command is: the contract between a command's file and the run (run.ts, set.ts) and renderers (report/)
// that use it. A file of its own, so that the registry (index.ts), which imports every command, is imported by none.
import type { Git } from '../core/host.ts';
import type { RunReport } from '../core/report.ts';
import type { ResultKind } from '../core/result.ts';
import type { FollowContext } from '../deploy/context.ts';
import type { Inputs } from '../inputs/index.ts';
import type { OwnOutputs } from '../report/outputs.ts';
import type { CommandSummary } from '../report/summary.ts';

/**
 * What every command gets: the service, the run's report, a logger, the transport (for verify-url) and the checkout's
 * git (for the plan's paths).
 */
export type CommandContext = FollowContext & { git: Git };

/**
 * A command: its settings, its run, whether it writes, the results it ends with and how its report reads in the
 * outputs and the summary. Its name is its key in COMMANDS (index.ts); elsewhere only the inputs name commands (the
 * ones an input applies to, those that take `deployments`), and run.ts deploy, whose inputs fill the summary's rows
 * the service did not answer.
 */
export interface Command<S> {
  /** Its settings from the validated inputs; throws InputError for one it needs and is missing. */
  settings(inputs: Inputs): S;
  /** Runs it; fills the report as it goes (also when it throws), and concludes it with one of its results. */
  run(ctx: CommandContext, settings: S): Promise<void>;
  /** Whether it writes to the service: only a write is recorded as a deployment (GitHub Deployment). */
  writes: boolean;
  /**
   * Every result it ends with (the run's own `failed` and `not-started` aside): the shared ones of core/result.ts for
   * what the steps it reuses end with, worded its own way where its heading differs, and its own.
   */
  results: readonly ResultKind[];
  /** Its outputs beyond the common ones (report/outputs.ts); action.yml declares each. */
  outputs?: OwnOutputs;
  /** What it adds to the summary and the comment of a report: rows, its words for the revision rows, sections. */
  summary?(report: RunReport): CommandSummary;
}
