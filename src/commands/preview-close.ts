import { describeTarget, findTarget } from '../deploy/lookup.ts';
import { previewClosed, success } from '../core/outcome.ts';
import { conclude } from '../core/report.ts';
import {
  type CommonSettings,
  type DeploymentRef,
  type Inputs,
  targetRef,
} from '../inputs/index.ts';
import type { Command, CommandContext } from './index.ts';

interface PreviewCloseSettings extends CommonSettings {
  command: 'preview-close';
  /** The preview's name: the inputs make every preview-close run a preview's. */
  target: DeploymentRef;
}

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
  conclude(report, success('closed'));
}
