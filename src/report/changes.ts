// The plan in the job summary and the pull request comment (dry-run, skip-unchanged, command drift): a table of each
// field that would change, live beside wanted, as deploy/live.ts made its cells (values cut, or a word where a value
// is not shown), then why where the values do not say.
import type { RunReport, Shown } from '../core/report.ts';
import { unverifiedNote } from '../core/outcome.ts';
import { code, esc } from '../shared/markdown.ts';

export function changesSection(report: RunReport): string[] {
  const plan = report.changes;
  if (!plan) return [];
  const lines = ['#### The plan: live against these inputs', ''];
  if (plan.rows.length) {
    const cell = (s: Shown) => (s === null ? '—' : 'text' in s ? code(s.text) : `_${esc(s.word)}_`);
    lines.push('| Field | Live | Wanted |', '|---|---|---|');
    for (const row of plan.rows)
      lines.push(`| ${code(row.field)} | ${cell(row.live)} | ${cell(row.wanted)} |`);
    lines.push('');
    for (const [field, why] of Object.entries(plan.why))
      lines.push(`${code(field)}: ${esc(why)}`, '');
  } else lines.push('Nothing to change: every value these inputs set is live.', '');
  if (plan.commitNote) lines.push(esc(plan.commitNote), '');
  if (plan.unverified.length) lines.push(unverifiedNote(plan.unverified, code), '');
  return lines;
}
