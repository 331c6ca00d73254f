// A change's preview: which runs may have one, and its deployment's name. Checked before every other input, so a
// fork's run (which has no secrets) is told why it is refused rather than that api-key is missing.
import type { Change, HostContext, Preview } from '../core/host.ts';
import { InputError } from '../core/errors.ts';
import { slug } from '../shared/text.ts';
import { shown } from './values.ts';

/** What the contract allows a preview deployment's name to be. */
const PREVIEW_NAME = /^[a-z0-9-]{1,63}$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;
const PLACEHOLDERS = ['name', 'number', 'branch'];
const FORK_HINT =
  'skip the job for forks (on GitHub: if: github.event.pull_request.head.repo.full_name == github.repository), or push the branch to this repository and open the pull request from there';

interface PreviewInputs {
  /** The preview input. */
  wanted: boolean;
  /** preview-name, when given. */
  template?: string;
  /** name, when given: {name}. */
  name?: string;
  deploymentId?: string;
}

/**
 * The preview this run deploys (deploy with preview: true) or closes (command preview-close), or undefined when it
 * has none. Throws InputError, before anything is sent, for a run that may not have one: not a pull request's, a
 * pull request from a fork, a name the template cannot make.
 */
export function previewOf(
  command: string,
  given: PreviewInputs,
  context: HostContext,
): Preview | undefined {
  const closing = command === 'preview-close';
  if (!closing && !given.wanted) return undefined;
  const input = closing ? 'command' : 'preview';
  const what = closing ? 'preview-close' : 'preview: true';
  if (!closing && command !== 'deploy')
    throw new InputError(
      'preview',
      `applies to command deploy, not '${command}'; drop preview, or use command: preview-close when the pull request closes.`,
    );
  if (given.deploymentId)
    throw new InputError(
      'deployment-id',
      `cannot be used with ${what}: the preview's deployment is the one named by preview-name; drop deployment-id.`,
    );
  const change = changeOf(context, input, what);
  return { name: previewName(given, change), number: change.number, closing };
}

/** The run's pull request, which must be this repository's own and reached by its own run (pull_request). */
function changeOf(context: HostContext, input: string, what: string): Change {
  const { change, event, untrustedHead, words } = context;
  if (untrustedHead)
    throw new InputError(
      input,
      `${what} runs in a pull request's own run, not ${untrustedHead}: that one gives your secrets to a run whose pull request's author chooses the code; use ${words.changeRun} (see the preview recipe).`,
    );
  if (!change)
    throw new InputError(
      input,
      `${what} needs a pull request's run (${words.changeRun}), but this run (${event ? `event '${event}'` : 'no event named'}) has no pull request; run it there, or drop it from this job.`,
    );
  if (change.fromFork)
    throw new InputError(
      input,
      `${what} refuses pull request #${change.number}: it comes from a fork. The code-hosting integration sees only this repository, so it cannot build the fork's branch, and a fork's run gets no secrets; ${FORK_HINT}.`,
    );
  return change;
}

/**
 * preview-name (default {name}-pr-{number}) with its placeholders filled, checked to be a name the service takes and
 * one only this pull request can make: with {number} in it, and never name itself (the deployment it previews).
 */
function previewName(given: PreviewInputs, change: Change): string {
  const template = given.template ?? '{name}-pr-{number}';
  if (!template.includes('{number}'))
    throw new InputError(
      'preview-name',
      `must contain {number}, but is ${shown(template, 200)}: without the pull request's number, a branch (or another pull request) can name a deployment that is not its preview, production included; use e.g. {name}-pr-{number} or {name}-{branch}-{number}.`,
    );
  const name = template.replace(PLACEHOLDER, (whole, placeholder: string) => {
    switch (placeholder) {
      case 'name':
        if (!given.name)
          throw new InputError(
            'name',
            'is required: preview-name uses {name}; set name, or leave {name} out of preview-name.',
          );
        return given.name;
      case 'number':
        return String(change.number);
      case 'branch':
        if (!change.headRef)
          throw new InputError(
            'preview-name',
            "cannot use {branch} here: the event does not name the pull request's head branch; use {number} instead.",
          );
        return slug(change.headRef);
      default:
        throw new InputError(
          'preview-name',
          `${whole} is not a placeholder; use ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`,
        );
    }
  });
  if (!PREVIEW_NAME.test(name))
    throw new InputError(
      'preview-name',
      `must make a name of 1 to 63 characters of a-z, 0-9 and '-', but makes ${shown(name, 200)}; use lower-case letters, digits and '-' in name and preview-name, and {number} rather than a long {branch}.`,
    );
  if (name === given.name)
    throw new InputError(
      'preview-name',
      `must not make ${shown(name)}, the deployment in name: a preview is a deployment of its own, never the one it previews; use e.g. {name}-pr-{number}.`,
    );
  return name;
}
