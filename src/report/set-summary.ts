// The summary and the comment of a list of deployments (`deployments`): one table of them all (name, result,
// revision, time, URL), then each deployment's own section, as a run of that one deployment would write it, as many
// as fit in the room the sink gives (a line says how many more were left out): the table is never what is cut.
import type { ItemReport, RunReport } from '../core/report.ts';
import { code, esc, link } from '../shared/markdown.ts';
import { seconds } from '../shared/time.ts';
import {
  headline,
  renderComment,
  renderSummary,
  runLink,
  type SummaryContext,
  type SummaryParts,
  timelineChart,
} from './summary.ts';

/** What the renderers are handed for the list's report and for each item's (run.ts: as the command words them). */
export type PartsOf = (report: RunReport) => SummaryParts;

/** The job summary of a list: its table, then each deployment's summary that fits in `room`. */
export function renderSetSummary(
  report: RunReport,
  context: SummaryContext,
  partsOf: PartsOf,
  room = Infinity,
): string {
  return sections(
    [...overview(report, partsOf), ...timelineChart(report)],
    report,
    room,
    (item, i) =>
      renderSummary(item.report, itemContext(context, item, i), partsOf(item.report), false),
  ).join('\n');
}

/** The pull request comment of a list: one for all, its table, then each deployment's comment, then the run. */
export function renderSetComment(
  report: RunReport,
  context: SummaryContext,
  partsOf: PartsOf,
  runUrl?: string,
  room = Infinity,
): string {
  const link = runLink(runUrl);
  const size = link.join('\n').length;
  return [
    ...sections(overview(report, partsOf), report, room - size, (item, i) =>
      renderComment(item.report, itemContext(context, item, i), partsOf(item.report)),
    ),
    ...link,
  ].join('\n');
}

/**
 * `head`, then each item's section while the text stays within `room`, then a line for the sections left out. Each is
 * rendered only when there may be room for it: a list of 100 deployments of 64 KiB values renders a few.
 */
function sections(
  head: string[],
  report: RunReport,
  room: number,
  render: (item: ItemReport, i: number) => string,
): string[] {
  const items = report.items ?? [];
  const lines = [...head];
  let size = lines.join('\n').length + NOTE_ROOM;
  for (let i = 0; i < items.length; i++) {
    const section = render(items[i]!, i);
    size += section.length + 1;
    if (size > room) {
      const left = items.length - i;
      lines.push(
        `_(The section${left === 1 ? '' : 's'} of ${left} more deployment${left === 1 ? '' : 's'} left out: over ${Math.round(room / 1024)} KiB. The table above has every one.)_`,
        '',
      );
      break;
    }
    lines.push(section);
  }
  return lines;
}

/** Room for the line that says what was left out. */
const NOTE_ROOM = 200;

function itemContext(context: SummaryContext, item: ItemReport, i: number): SummaryContext {
  return context.items?.[i] ?? { name: item.name };
}

/**
 * A URL longer than this stays out of the list's table (its deployment's own section shows it), so that every
 * deployment's row is short and the table is never what a cut of the summary or the comment leaves out.
 */
const TABLE_URL_MAX = 200;

/** The heading, how many ended how, and the table of the list. */
function overview(report: RunReport, partsOf: PartsOf): string[] {
  const items = report.items ?? [];
  const count = `${items.length} deployment${items.length === 1 ? '' : 's'}`;
  const lines = [`### ${headline(report, partsOf(report))}: ${count}`, '', `${tally(items)}.`, ''];
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
      !url ? '—' : url.length <= TABLE_URL_MAX ? link(url) : `_(${url.length} characters)_`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

/** "2 deployed, 1 failed": how many items ended with each result, in the order first met. */
function tally(items: readonly ItemReport[]): string {
  const counts = new Map<string, number>();
  for (const { report } of items) {
    const result = report.result ?? 'unknown';
    counts.set(result, (counts.get(result) ?? 0) + 1);
  }
  return [...counts].map(([result, n]) => `${n} ${result}`).join(', ');
}
