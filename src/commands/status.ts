import { describeTarget, findTarget } from '../deploy/lookup.ts';
import { notFound } from '../deploy/near-names.ts';
import { conclude } from '../core/report.ts';
import { success } from '../core/outcome.ts';
import {
  DEPLOYED,
  FAILED,
  NO_CHANGE,
  type ResultKind,
  SKIPPED,
  SUBMITTED,
} from '../core/result.ts';
import {
  type CommonSettings,
  type DeploymentRef,
  type Inputs,
  targetRef,
} from '../inputs/index.ts';
import { getRevision } from '../service/calls.ts';
import { DeployError } from '../core/errors.ts';
import { classify } from '../service/statuses.ts';
import type { Command, CommandContext } from './command.ts';

interface StatusSettings extends CommonSettings {
  command: 'status';
  target: DeploymentRef;
}

// The latest revision is what it reports: each result is a success, its heading says what that revision is, not what
// a run did, and it ranks in a list as the same result of a run.
const LIVE: ResultKind = { ...DEPLOYED, headline: '📋 Status: live' };
const LATEST_FAILED: ResultKind = {
  ...FAILED,
  fails: false,
  headline: '📋 Status: latest revision failed',
};
const LATEST_SKIPPED: ResultKind = { ...SKIPPED, headline: '📋 Status: latest revision skipped' };
const IN_PROGRESS: ResultKind = {
  ...SUBMITTED,
  headline: '📋 Status: latest revision in progress',
};
const NO_REVISION: ResultKind = { ...NO_CHANGE, headline: '📋 Status: no revision yet' };

/** The result for the latest revision, by how its status ends. */
const BY_OUTCOME = {
  deployed: LIVE,
  failed: LATEST_FAILED,
  skipped: LATEST_SKIPPED,
  'in-progress': IN_PROGRESS,
};

/** Read-only: the deployment and its latest revision, as outputs and a summary. */
export const status: Command<StatusSettings> = {
  settings: (inputs: Inputs) => ({
    ...inputs.common,
    command: 'status',
    target: targetRef(inputs),
  }),
  run: statusRun,
  writes: false,
  results: [LIVE, LATEST_FAILED, LATEST_SKIPPED, IN_PROGRESS, NO_REVISION],
  // Its revision rows are the latest revision and the active one, not a run's new and previous.
  summary: () => ({
    labels: {
      revision: 'Latest revision',
      status: 'Latest revision status',
      previous: 'Active revision',
    },
  }),
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
  if (!report.revisionId) return conclude(report, success(NO_REVISION));
  report.revision = await client.send(getRevision(target.id, report.revisionId));
  conclude(report, success(BY_OUTCOME[classify(report.revision.status)]));
}
