// The summary and the comment of a list of deployments (`deployments`): one table of them all (name, result,
// revision, time, URL), then each deployment's own section, as a run of that one deployment would write it.
import type { ItemReport, Result, RunReport } from '../core/report.ts';
import { code, esc, link } from '../shared/markdown.ts';
import { seconds } from '../shared/time.ts';
import {
  type Headlines,
  headline,
  renderComment,
  renderSummary,
  runLink,
  type SummaryContext,
  timelineChart,
} from './summary.ts';

/** The job summary of a list: its table, then each deployment's summary. */
export function renderSetSummary(
  report: RunReport,
  context: SummaryContext,
  headlines: Headlines = {},
): string {
  const items = report.items ?? [];
  return [
    ...overview(report, headlines),
    ...timelineChart(report),
    ...items.map((item, i) =>
      renderSummary(item.report, itemContext(context, item, i), headlines, false),
    ),
  ].join('\n');
}

/** The pull request comment of a list: one for all, its table, then each deployment's comment, then the run. */
export function renderSetComment(
  report: RunReport,
  context: SummaryContext,
  headlines: Headlines = {},
  runUrl?: string,
): string {
  const items = report.items ?? [];
  return [
    ...overview(report, headlines),
    ...items.map((item, i) => renderComment(item.report, itemContext(context, item, i), headlines)),
    ...runLink(runUrl),
  ].join('\n');
}

function itemContext(context: SummaryContext, item: ItemReport, i: number): SummaryContext {
  return context.items?.[i] ?? { name: item.name };
}

/** The heading, how many ended how, and the table of the list. */
function overview(report: RunReport, headlines: Headlines): string[] {
  const items = report.items ?? [];
  const count = `${items.length} deployment${items.length === 1 ? '' : 's'}`;
  const lines = [`### ${headline(report, headlines)}: ${count}`, '', `${tally(items)}.`, ''];
  if (report.cancelled)
    lines.push(
      'The job was cancelled: each deployment below says where it stood and what it leaves on the service.',
      '',
    );
  lines.push('| Deployment | Result | Revision | Time | URL |', '|---|---|---|---|---|');
  for (const { name, report: r, startedAt, endedAt } of items) {
    const url = r.deployment?.source_config.custom_url;
    const cells = [
      esc(name),
      r.result ? code(r.result) : '—',
      r.revisionId ? code(r.revisionId) : '—',
      startedAt !== undefined && endedAt !== undefined ? seconds(endedAt - startedAt) : '—',
      url ? link(url) : '—',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

/** "2 deployed, 1 failed": how many items ended with each result, in the order first met. */
function tally(items: readonly ItemReport[]): string {
  const counts = new Map<Result | 'unknown', number>();
  for (const { report } of items) {
    const result = report.result ?? 'unknown';
    counts.set(result, (counts.get(result) ?? 0) + 1);
  }
  return [...counts].map(([result, n]) => `${n} ${result}`).join(', ');
}
