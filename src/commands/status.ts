import { describeTarget, findTarget } from '../deploy/lookup.ts';
import { notFound } from '../deploy/near-names.ts';
import { conclude, type Result } from '../core/report.ts';
import { success } from '../core/outcome.ts';
import {
  type CommonSettings,
  type DeploymentRef,
  type Inputs,
  targetRef,
} from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import { DeployError } from '../core/errors.ts';
import { classify } from '../service/statuses.ts';
import type { Command, CommandContext } from './index.ts';

interface StatusSettings extends CommonSettings {
  command: 'status';
  target: DeploymentRef;
}

/** Read-only: the deployment and its latest revision, as outputs and a summary. */
export const status: Command<StatusSettings> = {
  settings: (inputs: Inputs) => ({
    ...inputs.common,
    command: 'status',
    target: targetRef(inputs),
  }),
  run: statusRun,
  writes: false,
  // The latest revision is what it reports: its heading says what that revision is, not what a run did.
  headlines: {
    deployed: '📋 Status: live',
    failed: '📋 Status: latest revision failed',
    skipped: '📋 Status: latest revision skipped',
    submitted: '📋 Status: latest revision in progress',
    'no-change': '📋 Status: no revision yet',
  },
};

async function statusRun(
  { client, report, words }: CommandContext,
  settings: StatusSettings,
): Promise<void> {
  report.phase = 'lookup';
  const target = await findTarget(client, settings.target);
  if (!target)
    throw new DeployError(
      await notFound(
        client,
        describeTarget(settings.target),
        'status reads an existing deployment',
        words,
      ),
    );
  report.deployment = target;
  report.previousRevisionId = target.active_revision_id ?? undefined;
  report.revisionId = target.latest_revision_id ?? undefined;
  if (!report.revisionId) return conclude(report, success('no-change'));
  report.revision = await client.send(getRevision(target.id, report.revisionId));
  const outcome = classify(report.revision.status);
  const result: Result = outcome === 'in-progress' ? 'submitted' : outcome;
  conclude(report, success(result));
}
