import { describeTarget, findTarget } from '../deploy/lookup.ts';
import { success } from '../core/outcome.ts';
import { conclude } from '../core/report.ts';
import { DEPLOYED, type ResultKind } from '../core/result.ts';
import {
  type CommonSettings,
  type DeploymentRef,
  type Inputs,
  targetRef,
} from '../inputs/index.ts';
import type { Command, CommandContext } from './command.ts';

interface PreviewCloseSettings extends CommonSettings {
  command: 'preview-close';
  /** The preview's name: the inputs make every preview-close run a preview's. */
  target: DeploymentRef;
}

/** The preview was read (or never existed); nothing was written. */
const CLOSED: ResultKind = {
  name: 'closed',
  fails: false,
  rank: DEPLOYED.rank,
  headline: '🔒 Preview closed',
};

/**
 * A closed change's preview: read, never written (the service's interface has no delete). The host's integrations
 * do the rest: the change's CI deployments marked inactive, its comment updated.
 */
export const previewClose: Command<PreviewCloseSettings> = {
  settings: (inputs: Inputs) => ({
    ...inputs.common,
    command: 'preview-close',
    target: targetRef(inputs),
  }),
  run: closeRun,
  writes: false,
  results: [CLOSED],
};

async function closeRun(
  { client, report, log }: CommandContext,
  settings: PreviewCloseSettings,
): Promise<void> {
  report.phase = 'lookup';
  // A preview never deployed (its first run failed, or the workflow came later) is nothing to close, not an error.
  const deployment = await findTarget(client, settings.target);
  report.deployment = deployment;
  report.ending = previewClosed(deployment, describeTarget(settings.target));
  log.info(report.ending);
  conclude(report, success(CLOSED));
}

/** A closed change's preview: what stays where (the service's interface has no delete). */
function previewClosed(deployment: { name: string; id: string } | undefined, name: string): string {
  return deployment
    ? `Preview closed; deployment ${deployment.name} (${deployment.id}) stays on the service until deleted there.`
    : `Preview closed; no deployment is named ${name} on the service (it was never deployed), so none stays there.`;
}
