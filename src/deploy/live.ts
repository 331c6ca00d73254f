// The plan (plan.ts) against the live deployment: reads what it compares (the active revision), asks git about the
// commit when `paths` need it, and reports the answer (the `changes` output, the summary's table, the log); and
// skip-unchanged's choice, which needs nothing more.
import type { Git } from '../core/host.ts';
import type { Logger } from '../core/logger.ts';
import { success, unverifiedNote } from '../core/outcome.ts';
import { NO_CHANGE } from '../core/result.ts';
import {
  type Changes,
  type ChangeRow,
  type ChangesReport,
  conclude,
  type RunReport,
  type Shown,
} from '../core/report.ts';
import type { Excerpt } from '../core/sinks.ts';
import type { DeploySettings } from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Deployment, Revision } from '../service/schemas.ts';
import {
  type CommitFacts,
  commitOf,
  diffNeeded,
  type InPaths,
  inPaths,
  planChanges,
  type Sent,
} from './plan.ts';

/** What the plan reads with, and where it reports. */
export interface PlanContext {
  client: ServiceClient;
  report: RunReport;
  log: Logger;
  excerpt: Excerpt;
  git: Git;
}

type PlanSettings = Pick<
  DeploySettings,
  'target' | 'source' | 'paths' | 'event' | 'workspace' | 'skipUnchanged'
>;

/** The deployment's active revision (endpoint 8), whose revision-level values are what is live; none: undefined. */
export async function activeRevision(
  client: ServiceClient,
  deployment: Deployment,
): Promise<Revision | undefined> {
  const id = deployment.active_revision_id;
  return id ? client.send(getRevision(deployment.id, id)) : undefined;
}

/**
 * The plan of a deploy that sends `sent` to `deployment` (undefined: the deploy creates it) whose active revision is
 * `active`: set on the report as `changes`, and logged. Git is asked only for a codehost commit that differs from the
 * live one, when `paths` say which files count.
 */
export async function planAgainstLive(
  ctx: PlanContext,
  settings: PlanSettings,
  sent: Sent,
  deployment: Deployment | undefined,
  active: Revision | undefined,
): Promise<Changes> {
  const ref = sent.source_revision_config?.repo_ref;
  const source = sent.revision_source ?? deployment?.source ?? settings.source;
  let commit: CommitFacts | undefined;
  let paths: InPaths | undefined;
  if (source === 'codehost' && ref !== undefined) {
    commit = commitOf(ref, settings.event);
    const between = deployment
      ? diffNeeded(
          commit,
          active?.source_revision_config.repo_commit_sha,
          Boolean(settings.paths?.length),
        )
      : undefined;
    if (between) {
      commit.diff = await ctx.git.changedFiles(
        settings.workspace,
        between.from,
        between.to,
        ctx.client.clock.signal,
      );
      paths = await inPaths(settings.paths!);
    }
  }
  const changes = planChanges({ sent, deployment, active, commit, paths });
  const name = deployment?.name ?? settings.target.name ?? settings.target.id ?? '';
  const rows = Object.entries(changes.fields).map(([field, { live, wanted }]): ChangeRow => ({
    // A live resource_spec key or secret name is the service's: data, cut like a value.
    field: ctx.excerpt(field, VALUE_MAX),
    live: shown(field, live, 'set', ctx.excerpt),
    // A live resource_spec key the given spec lacks goes: `removed`, as a secret's name does.
    wanted:
      wanted === null && field.startsWith('resource_spec.')
        ? { word: 'removed' }
        : shown(field, wanted, live === null ? 'set' : 'changed', ctx.excerpt),
  }));
  // Data quoted in the reasons (file names, shas) cut once, for every sink.
  const why = Object.fromEntries(
    Object.entries(changes.why).map(([field, text]) => [field, ctx.excerpt(text, 500)]),
  );
  const commitNote = changes.commitNote && ctx.excerpt(changes.commitNote, 500);
  ctx.report.changes = { name, ...changes, why, commitNote, rows };
  logPlan(ctx, ctx.report.changes);
  return changes;
}

/**
 * Whose values the summary, the pull request comment and the log show: the revision-level ones, the commit, and
 * settings that name no more than a place or a switch, and numbers and switches of resource_spec. The others (the
 * install and build commands, the repository's URL, resource_spec's text) may hold a credential the runner masks in
 * its log but that no mask covers in a comment: a word stands for them there; the `changes` output has the values.
 */
const SHOWN = new Set([
  'revision_source',
  'repo_ref',
  'commit',
  'image_uri',
  'graph_config_path',
  'source_tarball_path',
  'source_config.custom_url',
  'source_config.build_on_push',
  'source_config.deployment_type',
  'source_config.integration_id',
  'source_config.listener_id',
  'source_config.listener_config.k8s_namespace',
]);
/** The longest a value is shown: the `changes` output has it whole. */
const VALUE_MAX = 200;

/** A value as shown, or `hidden`, the word for a value not shown. */
function shown(field: string, value: unknown, hidden: string, excerpt: Excerpt): Shown {
  if (value === null) return null;
  // deployment: created; secrets: added, removed, set (never a value).
  if (field === 'deployment' || field.startsWith('secrets.')) return { word: String(value) };
  const plain =
    SHOWN.has(field) ||
    (field.startsWith('resource_spec.') &&
      (typeof value === 'number' || typeof value === 'boolean'));
  if (!plain) return { word: hidden };
  return { text: excerpt(typeof value === 'string' ? value : JSON.stringify(value), VALUE_MAX) };
}

function logPlan(
  { log }: PlanContext,
  { name, rows, why, commitNote, unverified }: ChangesReport,
): void {
  const text = (s: Shown) => (s === null ? 'none' : 'text' in s ? `'${s.text}'` : s.word);
  log.info(
    rows.length
      ? `The plan for '${name}' against what is live: ${rows.length} change${rows.length === 1 ? '' : 's'}.`
      : `The plan for '${name}' against what is live: nothing to change.`,
  );
  for (const row of rows) {
    const because = why[row.field];
    log.info(
      `  ${row.field}: ${text(row.live)} → ${text(row.wanted)}${because ? ` (${because})` : ''}`,
    );
  }
  if (commitNote) log.info(`  ${commitNote}`);
  if (unverified.length) log.info(`  ${unverifiedNote(unverified)}`);
}

/**
 * skip-unchanged: true when nothing needs sending, and the run then ends `no-change` naming the live revision: the
 * plan is empty and the active revision is DEPLOYED and the latest. Otherwise the log says what makes it deploy.
 */
export function skipUnchanged(
  ctx: PlanContext,
  deployment: Deployment,
  active: Revision | undefined,
  changes: Changes,
): boolean {
  const { report, log, excerpt } = ctx;
  const fields = Object.keys(changes.fields);
  const deploys = fields.length
    ? `the plan changes ${fields.join(', ')}`
    : !active
      ? 'no revision is active'
      : active.status !== 'DEPLOYED'
        ? `the active revision ${active.id} is ${excerpt(active.status, 40)}, not DEPLOYED`
        : deployment.latest_revision_id !== active.id
          ? `the latest revision ${deployment.latest_revision_id ?? 'none'} is not the active one (${active.id})`
          : undefined;
  if (deploys || !active) {
    log.info(`skip-unchanged: deploying '${deployment.name}', as ${excerpt(deploys ?? '', 500)}.`);
    return false;
  }
  report.revisionId = active.id;
  report.revision = active;
  const sha = active.source_revision_config.repo_commit_sha;
  report.ending = `Nothing sent (skip-unchanged): revision ${active.id}${sha ? ` (commit ${excerpt(sha, 64)})` : ''} is DEPLOYED, active and the latest, and every value these inputs set is live.`;
  log.info(report.ending);
  if (changes.unverified.length) {
    const note = `${unverifiedNote(changes.unverified)} They were not sent: to send a new value, run without skip-unchanged.`;
    log.notice(note);
    report.notes.push(note);
  }
  conclude(report, success(NO_CHANGE));
  return true;
}
