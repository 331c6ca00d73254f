// The status timeline drawn as a Mermaid gantt chart (GitHub and GitLab render it in Markdown): one bar per status,
// one section per deployment, on the run's own clock, so the slow phase or the slow agent shows at a glance. Its
// text is built only from status names this action knows and deployment names cut down to a-z0-9-: nothing the
// service says reaches Mermaid's syntax.
import type { TimelineEntry } from '../core/report.ts';
import { classify, isKnownStatus } from '../service/statuses.ts';
import { slug } from '../shared/text.ts';

/** One deployment's row: its name (the inputs' or the service's: sanitised here) and its statuses in order. */
export interface GanttRow {
  name?: string;
  timeline: readonly TimelineEntry[];
}

/** A section's name as the chart shows it: 1 to 63 characters of a-z0-9-. */
const MAX_NAME = 63;

/** The chart as a fenced ```mermaid block, or '' when no row has a status. */
export function gantt(rows: readonly GanttRow[]): string {
  const drawn = rows.filter((row) => row.timeline.length > 0);
  if (drawn.length === 0) return '';
  // Every row on one axis: the run's clock, from the first status any of them saw.
  const start = Math.min(...drawn.map((row) => row.timeline[0]!.since));
  const at = (ms: number) => Math.max(0, Math.round(ms - start));
  const lines = ['```mermaid', 'gantt', '  dateFormat x', '  axisFormat %M:%S'];
  drawn.forEach((row, i) => {
    lines.push(`  section ${sectionName(row.name, i)}`);
    row.timeline.forEach((entry, j) => {
      const last = j === row.timeline.length - 1;
      const outcome = classify(entry.status);
      // The end a revision reached is a point in time, not a phase: a milestone.
      const tag =
        last && outcome !== 'in-progress'
          ? outcome === 'deployed'
            ? 'milestone, done, '
            : 'milestone, crit, '
          : '';
      const end = last && outcome !== 'in-progress' ? entry.since : entry.until;
      lines.push(`  ${statusLabel(entry.status)} :${tag}${at(entry.since)}, ${at(end)}`);
    });
  });
  lines.push('```');
  return lines.join('\n');
}

/** A known status as it is (A-Z and _); any other value the service sent, as `other`. */
function statusLabel(status: string): string {
  return isKnownStatus(status) ? status : 'other';
}

/** The name's slug (a-z0-9- only), cut; `deployment-N` when nothing is left. */
export function sectionName(name: string | undefined, i: number): string {
  const cut = slug(name ?? '').slice(0, MAX_NAME);
  return (cut.endsWith('-') ? cut.slice(0, -1) : cut) || `deployment-${i + 1}`;
}
