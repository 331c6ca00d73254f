import {
  afterCancel,
  COMPARED,
  deploymentStatusMeaning,
  NOTHING_CHANGED,
  noPair,
  sentSentence,
} from '../core/outcome.ts';
import type { Comparison, RunReport, Verification } from '../core/report.ts';
import { classify } from '../service/statuses.ts';
import { seconds } from '../shared/time.ts';
import { code, codeBlock, esc, link } from '../shared/markdown.ts';
import { httpUrl, withoutQuery } from '../shared/url.ts';
import { gantt } from './gantt.ts';
import { changesSection } from './changes.ts';
import { waitedSeconds } from './outputs.ts';

/** A row of the result table: its label and its Markdown (escaped), or nothing to leave it out. */
export type Row = [label: string, value: string | false | null | undefined];

/** What the table calls the revision rows: for a run, the revision it followed and the one active before it. */
export interface RevisionLabels {
  revision: string;
  status: string;
  previous: string;
}

const RUN_LABELS: RevisionLabels = {
  revision: 'Revision',
  status: 'Revision status',
  previous: 'Previous active revision',
};

/**
 * What a command adds to the summary and the comment of one of its reports (commands/command.ts: `summary`), built
 * from the report as the renderers read it (normalised, redacted) and escaped for Markdown.
 */
export interface CommandSummary {
  /** Its rows of the result table, after the deployment's (promote: where it came from). */
  rows?: Row[];
  /** Its words for the revision rows, where they are not a run's (status reads the latest revision). */
  labels?: RevisionLabels;
  /** What a dry run would write to, where it is not a deployment (token-metadata: the token). */
  planTarget?: string;
  /** Its own sections, after the common ones. */
  sections?: string[];
}

/** What the renderers are handed beside a report: the heading of its result, as its command words it, and its parts. */
export interface SummaryParts extends CommandSummary {
  headline: string;
}

export interface SummaryContext {
  name?: string;
  source?: string;
  ref?: string;
  image?: string;
  /** With deployments: each item's, in the list's order. */
  items?: SummaryContext[];
}

/**
 * The job summary as Markdown. Every name and value from the service or the inputs is escaped. `chart`: draw the
 * timeline as a chart too (a list draws one for all its deployments instead: set-summary.ts).
 */
export function renderSummary(
  report: RunReport,
  context: SummaryContext,
  parts: SummaryParts,
  chart = true,
): string {
  return [
    ...heading(report, context, parts),
    ...ending(report),
    ...cancelled(report),
    ...failure(report),
    ...report.notes.flatMap((note) => [`> ${esc(note)}`, '']),
    ...resultTable(report, context, parts),
    ...diagnostics(report),
    ...timeline(report),
    ...(chart ? timelineChart(report, report.deployment?.name ?? context.name) : []),
    ...changesSection(report),
    ...plan(report, context, parts),
    ...(parts.sections ?? []),
  ].join('\n');
}

/** The status timeline as a Mermaid chart: a run's one row, or with `deployments` one row per deployment. */
export function timelineChart(report: RunReport, name?: string): string[] {
  const rows = report.items
    ? report.items.map((item) => ({ name: item.name, timeline: item.report.timeline }))
    : [{ name, timeline: report.timeline }];
  const chart = gantt(rows);
  return chart ? ['#### Status timeline chart', '', chart, ''] : [];
}

/** The pull request comment: the summary without the timeline, and a link to the run. */
export function renderComment(
  report: RunReport,
  context: SummaryContext,
  parts: SummaryParts,
  runUrl?: string,
): string {
  return [
    ...heading(report, context, parts),
    ...ending(report),
    ...cancelled(report),
    ...failure(report),
    ...resultTable(report, context, parts),
    ...diagnostics(report),
    ...changesSection(report),
    ...plan(report, context, parts),
    ...(parts.sections ?? []),
    ...runLink(runUrl),
  ].join('\n');
}

/** The comment's link to the workflow run, when the CI gives an http(s) one. */
export function runLink(runUrl: string | undefined): string[] {
  const href = runUrl && httpUrl(runUrl);
  return href ? [`[Workflow run](${href})`, ''] : [];
}

/**
 * What stands in when rendering failed (a bug, or data no test foresaw): the headline and the result, nothing from
 * data, so the step still has a summary and the comment still says how the run ended.
 */
export function renderFallback(report: RunReport, parts: Pick<SummaryParts, 'headline'>): string {
  const result = report.result ? `\`${report.result}\`` : 'unknown';
  return [
    `### ${headline(report, parts)}`,
    '',
    `Result: ${result}. The details could not be rendered here: the job log has them.`,
    '',
  ].join('\n');
}

/** The heading: the result's, as the command words it, or a cancel's. */
export function headline(report: RunReport, parts: Pick<SummaryParts, 'headline'>): string {
  return report.cancelled ? '⚠️ Cancelled' : parts.headline;
}

function heading(report: RunReport, context: SummaryContext, parts: SummaryParts): string[] {
  const name = report.deployment?.name ?? context.name;
  return [`### ${headline(report, parts)}${name ? `: ${esc(name)}` : ''}`, ''];
}

function ending(report: RunReport): string[] {
  return report.ending ? [esc(report.ending), ''] : [];
}

function cancelled(report: RunReport): string[] {
  if (!report.cancelled) return [];
  return [esc(afterCancel(report) ?? 'The job was cancelled before a revision was triggered.'), ''];
}

function failure(report: RunReport): string[] {
  const f = report.failure;
  if (!f) return [];
  return [
    `**${esc(f.message)}**`,
    '',
    `Failed in: ${esc(f.phase)}.${f.next ? ` Next: ${esc(f.next)}` : ''}`,
    '',
  ];
}

function resultTable(report: RunReport, context: SummaryContext, parts: SummaryParts): string[] {
  const d = report.deployment;
  const labels = parts.labels ?? RUN_LABELS;
  const rev = report.revision?.source_revision_config;
  const source = d?.source ?? context.source;
  const ref = rev?.repo_ref ?? context.ref;
  const image = rev?.image_uri ?? context.image;
  const waited = waitedSeconds(report);
  const rows: Row[] = [
    ['Result', report.result && code(report.result)],
    [
      'Deployment',
      d && `${esc(d.name)} (${code(d.id)})${report.created ? ', created by this run' : ''}`,
    ],
    ...(parts.rows ?? []),
    ['Deployment status', d && code(d.status)],
    [
      labels.revision,
      report.revisionId && `${code(report.revisionId)}${report.revisionCreated ? ' (new)' : ''}`,
    ],
    [labels.status, report.revision && code(report.revision.status)],
    [labels.previous, report.previousRevisionId && code(report.previousRevisionId)],
    [
      'Rolled back to',
      report.rollback &&
        `${code(report.rollback.revisionId)} (${code(report.rollback.status ?? 'unknown')})`,
    ],
    ['Source', source && code(source)],
    ['Ref', ref && code(ref)],
    ['Image', image && code(image)],
    ['Commit', rev?.repo_commit_sha && code(rev.repo_commit_sha)],
    ['URL', d?.source_config.custom_url && link(d.source_config.custom_url)],
    ['Verified', report.verification && verified(report.verification)],
    ['Waited', waited !== undefined && seconds(waited * 1000)],
  ];
  const shown = rows
    .filter((r): r is [string, string] => Boolean(r[1]))
    .map(([k, v]) => `| ${k} | ${v} |`);
  if (!shown.length) return [];
  // The first row doubles as the header: an empty header row renders as a blank band.
  return [shown[0]!, '|---|---|', ...shown.slice(1), ''];
}

/** What the diagnostics found (deploy/diagnose.ts): the deployment's status, a queue, a stall, what changed. */
function diagnostics(report: RunReport): string[] {
  const { deploymentStatuses, queuedBehind, stuck, lastGood, requests } = report.diagnostics;
  const lines = deploymentStatuses.flatMap((status) => [
    `> Deployment status ${code(status)} during this run: ${esc(deploymentStatusMeaning(status))}`,
    '',
  ]);
  if (queuedBehind)
    lines.push(
      `> Revision ${code(report.revisionId ?? '')} waited in ${code(queuedBehind.ownStatus)} behind revision ${code(queuedBehind.revisionId)} (${code(queuedBehind.status)}), another change's.`,
      '',
    );
  if (stuck)
    lines.push(
      `> No status change for ${seconds(stuck.forMs)} while ${code(stuck.status)} (stuck-after).`,
      '',
    );
  if (lastGood) lines.push(...changedSince(lastGood, report.previousRevisionId));
  if (requests && lines.length)
    lines.push(`_Diagnostics cost ${requests} extra request${requests === 1 ? '' : 's'}._`, '');
  return lines;
}

/** The revision that last worked beside this run's; a sentence where there is no pair to set side by side. */
function changedSince(c: Comparison, previousId: string | undefined): string[] {
  const heading = ['#### What changed since it last worked', ''];
  const { before, failed } = c;
  if (!before || before.id === failed.id) return [...heading, esc(noPair(c, previousId)), ''];
  const revision = (r: typeof before) => `${code(r.id)}${r.status ? ` (${code(r.status)})` : ''}`;
  const shown = COMPARED.filter(([, key]) => before[key] || failed[key]);
  const changed = shown.some(([, key]) => before[key] !== failed[key]);
  const rows = shown.map(([label, key]) => {
    const cell = (value: string | undefined) => (value ? code(value) : '—');
    const name = before[key] === failed[key] ? label : `**${label}** (changed)`;
    return `| ${name} | ${cell(before[key])} | ${cell(failed[key])} |`;
  });
  const sent = `${sentSentence(c.sent, code)}${changed ? '' : ` ${esc(NOTHING_CHANGED)}`}`;
  return [
    ...heading,
    '| | Last good (active before this run) | This run |',
    '|---|---|---|',
    `| Revision | ${revision(before)} | ${revision(failed)} |`,
    ...rows,
    '',
    sent,
    '',
  ];
}

function timeline(report: RunReport): string[] {
  if (!report.timeline.length) return [];
  const start = report.timeline[0]!.since;
  return [
    '#### Status timeline',
    '',
    // Times are what polling saw: a change shows up at the next read, not when it happened.
    '| Status | First seen | Time in status (as polled) |',
    '|---|---|---|',
    ...report.timeline.map(
      (entry, i) =>
        `| ${code(entry.status)} | +${seconds(entry.since - start)} | ${terminal(entry.status, i === report.timeline.length - 1) ? '—' : seconds(entry.until - entry.since)} |`,
    ),
    '',
  ];
}

/**
 * What a dry run would have sent. The summary and the PR comment show input values only for the revision-level
 * fields (ref, image, graph config and tarball paths) and the name and source; every other field shows as "set":
 * build-command, resource-spec and the like may hold values the runner's masking never covers in a PR comment.
 * The log shows the whole body (run.ts), where the sinks redact every registered secret.
 */
function plan(report: RunReport, context: SummaryContext, parts: SummaryParts): string[] {
  const p = report.plan;
  if (!p) return [];
  const name = report.deployment?.name ?? context.name;
  const target = parts.planTarget ?? (name ? `deployment ${esc(name)}` : 'it');
  const what =
    p.action === 'create'
      ? `create ${target}`
      : p.action === 'redeploy'
        ? `redeploy a revision of ${target}`
        : `update ${target}`;
  const fields =
    p.action === 'redeploy'
      ? ''
      : p.changes.length
        ? `, setting ${p.changes.map(code).join(', ')}`
        : ', setting no field';
  const lines = [
    `**Dry run: nothing was written.** This run would ${what} with ${code(`${p.method} ${p.path}`)}${fields}.`,
    '',
  ];
  if (p.body !== undefined)
    lines.push(...codeBlock(JSON.stringify(published(p.body), null, 2), 'json'), '');
  if (p.verify)
    lines.push(
      p.verify.url
        ? `After DEPLOYED, verify-url would be checked at ${link(withoutQuery(p.verify.url))}.`
        : `verify-url cannot be resolved yet: ${esc(p.verify.problem ?? '')}`,
      '',
    );
  return lines;
}

function verified(v: Verification): string {
  const tries = `${v.attempts} ${v.attempts === 1 ? 'attempt' : 'attempts'}`;
  if (v.attempts === 0)
    return `❌ ${link(withoutQuery(v.url))} not checked: ${esc(v.lastAnswer ?? '')}`;
  return v.ok
    ? `✅ ${link(withoutQuery(v.url))} answered 2xx after ${seconds(v.okAfterMs ?? 0)} (${tries})`
    : `❌ ${link(withoutQuery(v.url))} did not answer 2xx (${tries}; last: ${esc(v.lastAnswer ?? 'none')})`;
}

const PUBLISHED_FIELDS = new Set(['name', 'source', 'revision_source', 'source_revision_config']);

/** The plan's body as published: see plan(). An object's fields are each named, as "set". */
function published(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const set = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.keys(value).map((key) => [key, 'set']))
      : 'set';
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      PUBLISHED_FIELDS.has(key) ? value : set(value),
    ]),
  );
}

/** A status the revision ends in has no time spent in it. */
function terminal(status: string, last: boolean): boolean {
  return last && classify(status) !== 'in-progress';
}
