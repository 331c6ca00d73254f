import { findTarget } from '../deploy/lookup.ts';
import { conclude, type Result } from '../deploy/report.ts';
import { success } from '../deploy/outcome.ts';
import type { StatusSettings } from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import { DeployError } from '../service/errors.ts';
import { classify } from '../service/statuses.ts';
import type { CommandContext } from './index.ts';

/** Read-only: the deployment and its latest revision, as outputs and a summary. */
export async function status(
  { client, report }: CommandContext,
  settings: StatusSettings,
): Promise<void> {
  report.phase = 'lookup';
  const target = await findTarget(client, settings.target);
  if (!target) throw new DeployError(`No deployment is named '${settings.target.name}'.`);
  report.deployment = target;
  report.previousRevisionId = target.active_revision_id ?? undefined;
  report.revisionId = target.latest_revision_id ?? undefined;
  if (!report.revisionId) return conclude(report, success('no-change'));
  report.revision = await client.send(getRevision(target.id, report.revisionId));
  const outcome = classify(report.revision.status);
  const result: Result = outcome === 'in-progress' ? 'submitted' : outcome;
  conclude(report, success(result));
}
