// command drift: for a scheduled workflow that tells when someone changed a deployment by hand, outside the pipeline.
// The plan (deploy/plan.ts) of a deploy with these inputs against the live deployment, and what is wrong with the live
// state itself; read-only. Its wording is here, beside its run.
import { failed, success } from '../core/outcome.ts';
import { conclude } from '../core/report.ts';
import { FAILED, NO_CHANGE, type ResultKind } from '../core/result.ts';
import type { Excerpt } from '../core/sinks.ts';
import { activeRevision, planAgainstLive } from '../deploy/live.ts';
import { findTarget } from '../deploy/lookup.ts';
import { patchBody, updateFields } from '../deploy/request.ts';
import { resolveListener } from '../deploy/resolve.ts';
import { type DeploySettings, deploySettings, type Inputs } from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import type { Deployment, Revision } from '../service/schemas.ts';
import { classify } from '../service/statuses.ts';
import type { Command, CommandContext } from './command.ts';

interface DriftSettings extends Omit<DeploySettings, 'command'> {
  command: 'drift';
}

// In a list, drifted ranks with failed and in-sync with no-change (the contract).
const IN_SYNC: ResultKind = { ...NO_CHANGE, name: 'in-sync', headline: '✅ In sync' };
const DRIFTED: ResultKind = {
  ...FAILED,
  name: 'drifted',
  headline: '⚠️ Drifted',
  next: 'A deploy with these inputs puts back what they set (or change the inputs, if the change on the service is wanted); the job summary lists each difference.',
};

/** The most fields the failure line names; the summary's table has them all. */
const FIELDS_NAMED = 10;

export const drift: Command<DriftSettings> = {
  settings: (inputs: Inputs) => ({ ...deploySettings(inputs), command: 'drift' }),
  run: driftRun,
  writes: false,
  results: [IN_SYNC, DRIFTED],
};

async function driftRun(ctx: CommandContext, settings: DriftSettings): Promise<void> {
  const { client, report, excerpt } = ctx;
  report.phase = 'lookup';
  const deployment = await findTarget(client, settings.target);
  if (!deployment) {
    report.phase = 'plan';
    const sent = updateFields(settings, settings.revisionSource ?? settings.source);
    await planAgainstLive(ctx, settings, sent, undefined, undefined);
    const name = settings.target.name ?? '';
    return conclude(report, drifted(name, [], [`no deployment is named '${name}'`]));
  }
  report.deployment = deployment;
  const listener = settings.listener
    ? await resolveListener(client, settings.listener, settings.k8sNamespace)
    : undefined;
  report.phase = 'plan';
  // A field fixed at creation that differs is the inputs' mistake, never a change by hand: an error, as for deploy.
  const sent = patchBody(settings, deployment, listener);
  const active = await activeRevision(client, deployment);
  const latestId = deployment.latest_revision_id;
  const latest =
    latestId && latestId !== active?.id
      ? await client.send(getRevision(deployment.id, latestId))
      : active;
  report.revisionId = active?.id;
  report.revision = active;
  await planAgainstLive(ctx, settings, sent, deployment, active);
  const wrong = liveProblems(deployment, active, latest, excerpt);
  // Each as the plan's table shows it: a live resource_spec key or secret name is the service's, cut there.
  const fields = report.changes?.rows.map((row) => row.field) ?? [];
  if (wrong.length || fields.length)
    return conclude(report, drifted(excerpt(deployment.name, 200), fields, wrong));
  report.ending = `In sync: revision ${active!.id} is DEPLOYED, active and the latest, and every value these inputs set is live.`;
  conclude(report, success(IN_SYNC));
}

/** What is wrong with the live state whatever the inputs: what is active, what became of the latest, the status. */
function liveProblems(
  deployment: Deployment,
  active: Revision | undefined,
  latest: Revision | undefined,
  excerpt: Excerpt,
): string[] {
  const status = (revision: Revision) => excerpt(revision.status, 40);
  const wrong: string[] = [];
  if (!active) wrong.push('no revision is active');
  else if (active.status !== 'DEPLOYED')
    wrong.push(`the active revision ${active.id} is ${status(active)}, not DEPLOYED`);
  if (latest && latest.id !== active?.id) {
    const outcome = classify(latest.status);
    wrong.push(
      outcome === 'failed'
        ? `the latest revision ${latest.id} ended ${status(latest)}`
        : outcome === 'in-progress'
          ? `the latest revision ${latest.id} is still ${status(latest)}, not active`
          : `the latest revision ${latest.id} (${status(latest)}) is not the active one`,
    );
  }
  if (deployment.status !== 'READY')
    wrong.push(`the deployment is ${excerpt(deployment.status, 40)}, not READY`);
  return wrong;
}

/** The verdict when anything differs: each difference in the failure line, every field in the summary's table. */
function drifted(name: string, fields: string[], wrong: string[]) {
  const named = fields.slice(0, FIELDS_NAMED).join(', ');
  const more = fields.length > FIELDS_NAMED ? ` and ${fields.length - FIELDS_NAMED} more` : '';
  const parts = [
    ...(fields.length
      ? [`${named}${more} differ${fields.length === 1 ? 's' : ''} from these inputs`]
      : []),
    ...wrong,
  ];
  return failed(DRIFTED, `Deployment '${name}' has drifted: ${parts.join('; ')}.`, {
    phase: 'drift',
  });
}
