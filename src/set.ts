// Several deployments in one step (`deployments`): the items of the list, up to max-parallel at once, each its
// command over its own settings and report, as a run of one deployment would go. All of them send through the run's
// one service client, so a 429 or an outage that one item meets holds and slows them all (service/http.ts) instead
// of each retrying on its own. fail-fast starts no more items once one has failed; a cancel stops them all, and each
// item's report says where it stood.
import type { CommandContext } from './commands/command.ts';
import type { SetSettings, Settings } from './commands/index.ts';
import type { Integration, ItemRun } from './core/host.ts';
import type { Logger } from './core/logger.ts';
import { notStarted, setVerdict } from './core/outcome.ts';
import { conclude, type ItemReport, newReport } from './core/report.ts';
import { watchDeploymentStatus } from './deploy/diagnose.ts';
import { describeTarget } from './deploy/lookup.ts';
import { compact } from './shared/time.ts';

/** One item's command to its end, its report filled also when it fails (run.ts: as for a run of one deployment). */
type RunOne = (ctx: CommandContext, settings: Settings) => Promise<void>;

/**
 * A command's context for the whole list, and its integrations: `client` is the run's (every item's calls share its
 * pace, its outage and its holds), `report` the set's (its items, then its verdict), and `excerpt` also quotes each
 * item's message in the list's failure.
 */
type SetContext = CommandContext & { integrations: Integration[] };

/** Runs the list and concludes the set's report; each item's report is in `report.items`, in the list's order. */
export async function runSet(ctx: SetContext, set: SetSettings, runOne: RunOne): Promise<void> {
  const { client, report, log, excerpt, words, integrations } = ctx;
  const { signal, time } = client.clock;
  const items: ItemReport[] = set.items.map(({ name, settings }) => ({
    name,
    report: newReport(settings.command),
  }));
  report.items = items;
  report.phase = 'deployments';
  const parallel = Math.min(set.maxParallel, items.length);
  log.info(
    `${items.length} deployment${items.length === 1 ? '' : 's'}, ${parallel} at a time${set.failFast ? ', fail-fast' : ''}: ${items.map((i) => i.name).join(', ')}.`,
  );
  let next = 0;
  /** The first item that did not succeed: with fail-fast, no item starts after it. */
  let firstFailed: ItemReport | undefined;
  /** Each started item's record in the integrations, which the set awaits before it ends. */
  const recorded: Promise<unknown>[] = [];

  const runItem = async (i: number): Promise<void> => {
    const { name, settings } = set.items[i]!;
    const item = items[i]!;
    const own = prefixed(log, name);
    item.startedAt = time.now();
    // Each item has its whole timeout from its own start, as a step of its own would.
    const deadline = item.startedAt + settings.timeoutMs;
    const itemClient = client.within(
      deadline,
      `timeout ${compact(settings.timeoutMs)}`,
      watchDeploymentStatus(item.report, own, settings.target),
    );
    const run: ItemRun = {
      name,
      target: describeTarget(settings.target),
      customUrl: 'customUrl' in settings ? settings.customUrl : undefined,
      deadline,
    };
    const started = Promise.all(integrations.map((integration) => integration.startItem?.(run)));
    const onCancel = () => {
      item.report.cancelled = true;
    };
    if (signal.aborted) onCancel();
    else signal.addEventListener('abort', onCancel, { once: true });
    try {
      await runOne(
        {
          client: itemClient,
          report: item.report,
          log: own,
          transport: ctx.transport,
          excerpt,
          words,
          git: ctx.git,
        },
        settings,
      );
    } finally {
      signal.removeEventListener('abort', onCancel);
    }
    item.endedAt = time.now();
    const { result, revisionId, ok } = item.report;
    own.info(`Result: ${result ?? 'failed'}${revisionId ? ` (revision ${revisionId})` : ''}`);
    if (!ok && !firstFailed) {
      firstFailed = item;
      if (set.failFast && next < items.length)
        log.info(
          `fail-fast: '${name}' ended ${result ?? 'failed'}, so no more deployments of the list start.`,
        );
    }
    recorded.push(
      started.then(() =>
        Promise.all(integrations.map((integration) => integration.finishItem?.(run, item.report))),
      ),
    );
  };

  const worker = async (): Promise<void> => {
    while (!signal.aborted && !(set.failFast && firstFailed) && next < items.length)
      await runItem(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));

  const stoppedBy = set.failFast && firstFailed ? firstFailed : undefined;
  for (const item of items) {
    if (item.startedAt !== undefined) continue;
    const verdict = notStarted(
      stoppedBy && { name: stoppedBy.name, result: stoppedBy.report.result },
    );
    conclude(item.report, verdict);
    item.report.ending = verdict.ending;
  }
  await Promise.all(recorded);
  conclude(report, setVerdict(items, signal.aborted, excerpt));
}

/** An item's lines, each led by its name: the items of a list run side by side, and their lines interleave. */
function prefixed(log: Logger, name: string): Logger {
  const line = (message: string) => `[${name}] ${message}`;
  return {
    debug: (m) => log.debug(line(m)),
    info: (m) => log.info(line(m)),
    notice: (m) => log.notice(line(m)),
    warning: (m) => log.warning(line(m)),
    progress: (update) => log.progress?.({ ...update, name }),
  };
}
