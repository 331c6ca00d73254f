import type { Result, RunReport } from '../deploy/report.ts';
import { seconds } from '../deploy/wait.ts';
import { waitedSeconds } from './outputs.ts';

const HEADLINE: Record<Result, string> = {
  deployed: '✅ Deployed',
  failed: '❌ Failed',
  'timed-out': '⏱️ Timed out',
  skipped: '⏭️ Skipped',
  'no-change': '✅ No change',
  submitted: '🚀 Submitted',
  'rolled-back': '↩️ Rolled back',
  updated: '✅ Updated',
  planned: '📝 Planned',
};

/** The job summary as Markdown. Every name and value from the service or the inputs is escaped. */
export function renderSummary(
  report: RunReport,
  context: { name?: string; source?: string; ref?: string; image?: string },
): string {
  const d = report.deployment;
  const title = report.cancelled
    ? '⚠️ Cancelled'
    : report.result
      ? HEADLINE[report.result]
      : '❌ Failed';
  const name = d?.name ?? context.name;
  const lines: string[] = [`### ${title}${name ? `: ${esc(name)}` : ''}`, ''];

  if (report.cancelled) {
    lines.push(
      report.revisionId
        ? `The job was cancelled while waiting. Revision ${code(report.revisionId)} keeps going on the service: check it there, or run this action with \`command: status\`.`
        : 'The job was cancelled before a revision was triggered.',
      '',
    );
  }
  if (report.failure) {
    lines.push(`**${esc(report.failure.message)}**`, '');
    if (report.failure.next)
      lines.push(`Failed in: ${esc(report.failure.phase)}. Next: ${esc(report.failure.next)}`, '');
  }
  for (const note of report.notes) lines.push(`> ${esc(note)}`, '');

  const rev = report.revision?.source_revision_config;
  const source = d?.source ?? context.source;
  const ref = rev?.repo_ref ?? context.ref;
  const image = rev?.image_uri ?? context.image;
  const waited = waitedSeconds(report);
  const rows: [string, string | false | null | undefined][] = [
    ['Result', report.result && code(report.result)],
    [
      'Deployment',
      d && `${esc(d.name)} (${code(d.id)})${report.created ? ', created by this run' : ''}`,
    ],
    ['Deployment status', d && code(d.status)],
    [
      'Revision',
      report.revisionId && `${code(report.revisionId)}${report.revisionCreated ? ' (new)' : ''}`,
    ],
    ['Revision status', report.revision && code(report.revision.status)],
    ['Previous active revision', report.previousRevisionId && code(report.previousRevisionId)],
    [
      'Rolled back to',
      report.rollback &&
        `${code(report.rollback.revisionId)} (${code(report.rollback.status ?? 'unknown')})`,
    ],
    ['Source', source && code(source)],
    ['Ref', ref && code(ref)],
    ['Image', image && code(image)],
    ['Commit', rev?.repo_commit_sha && code(rev.repo_commit_sha)],
    ['URL', d?.source_config.custom_url && esc(d.source_config.custom_url)],
    ['Waited', waited !== undefined && seconds(waited * 1000)],
  ];
  const shown = rows.filter((r): r is [string, string] => Boolean(r[1]));
  if (shown.length) {
    lines.push('| | |', '|---|---|', ...shown.map(([k, v]) => `| ${k} | ${v} |`), '');
  }

  if (report.timeline.length) {
    lines.push('#### Status timeline', '', '| Status | At | Time in status |', '|---|---|---|');
    const start = report.timeline[0]!.since;
    for (const entry of report.timeline) {
      lines.push(
        `| ${code(entry.status)} | +${seconds(entry.since - start)} | ${seconds(entry.until - entry.since)} |`,
      );
    }
    lines.push('');
  }

  if (report.plan) {
    const p = report.plan;
    const what =
      p.action === 'create'
        ? 'create the deployment'
        : p.action === 'redeploy'
          ? 'redeploy the revision'
          : 'update the deployment';
    lines.push(`Dry run: this run would ${what} with \`${p.method} ${esc(p.path)}\`.`, '');
    if (p.changes.length) lines.push(`Fields set: ${p.changes.map(code).join(', ')}`, '');
    if (p.body !== undefined)
      lines.push(
        '```json',
        JSON.stringify(p.body, null, 2).replace(/```/g, '`\u200b``'),
        '```',
        '',
      );
  }
  return lines.join('\n');
}

/** Escapes text for a Markdown table cell or paragraph. */
export function esc(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1')
    .replace(/\r?\n/g, ' ');
}

/** Inline code that survives backticks and pipes in the value. */
function code(text: string): string {
  const clean = text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const fence = clean.includes('`') ? '`` ' : '`';
  return `${fence}${clean}${fence.trim() === '``' ? ' ``' : '`'}`;
}
