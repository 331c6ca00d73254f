// Every input read and checked once, before anything is sent; each command then takes the settings it needs.
import * as z from '../shared/zod.ts';
import type { HostContext } from '../core/host.ts';
import { INTEGRATION_KINDS } from '../service/calls.ts';
import { DEPLOYMENT_TYPES, REVISION_SOURCES, SOURCES } from '../service/schemas.ts';
import { given } from '../shared/given.ts';
import { parsePaths } from './paths.ts';
import { previewOf } from './preview.ts';
import { parseResourceSpec } from './resource-spec.ts';
import { parseSecretReferences, parseSecrets } from './secrets.ts';
import {
  type CommonSettings,
  type DeploySettings,
  type DeploymentRef,
  type FollowSettings,
} from './settings.ts';
import { InputError, type Mistake } from '../core/errors.ts';
import type { Words } from '../core/words.ts';
import type { Mistakes } from './mistakes.ts';
import {
  between,
  bool,
  createMode,
  duration,
  imageUri as imageUriValue,
  oneOf,
  repoUrl,
  required,
  serviceUrl,
  tokenId as tokenIdValue,
  uuid,
  verifyUrl,
} from './values.ts';

export * from './settings.ts';

export type ReadInput = (name: string) => string;

const MAX_TIMEOUT_MS = 6 * 3600_000; // a job's own limit

/** Every input, validated: what each command's settings are made from. */
export interface Inputs {
  command: string;
  common: CommonSettings;
  follow: FollowSettings;
  deploy: Omit<DeploySettings, keyof CommonSettings | keyof FollowSettings | 'command' | 'target'>;
  name?: string;
  deploymentId?: string;
  revisionId?: string;
  tokenId?: string;
  /** command promote: the source deployment, a name or a uuid. */
  from?: string;
  /** command promote: the source's revision to promote instead of its active one. */
  fromRevisionId?: string;
  /** Whether repo-ref was given (deploy.repoRef falls back to the host's ref). */
  repoRefGiven: boolean;
  metadata: { provider_account_label?: string; is_default?: boolean };
  /** The host's word for a run whose default ref its change's author would choose (HostContext.untrustedHead). */
  untrustedHead?: string;
  /** How the host names inputs, for the commands' messages about them. */
  words: Words;
  /** deployments as given (its items are read by inputs/deployments.ts), and how they run. */
  deployments?: string;
  maxParallel: number;
  failFast: boolean;
}

/**
 * Reads and validates every input given, whatever the command, before anything is sent. Each input that cannot be
 * used goes to `mistakes` (one line naming it, the problem and the accepted form), and reading goes on as if it
 * were not given: the caller throws them all at once, and never uses these inputs then. Never echoes api-key or
 * secret values.
 */
export async function readInputs(
  read: ReadInput,
  context: HostContext,
  commands: readonly [string, ...string[]],
  mistakes: Mistakes,
): Promise<Inputs> {
  const { words } = context;
  const text = (name: string): string | undefined => {
    const value = read(name).trim();
    return value === '' ? undefined : value;
  };
  const one = <T>(name: string, schema: z.ZodMiniType<T>): T => {
    const result = schema.safeParse(text(name));
    if (result.success) return result.data;
    mistakes.add(new InputError(name, result.error.issues[0]?.message ?? 'invalid value'));
    // As if not given: its default, or nothing for a required one (the run stops at the mistakes anyway).
    const fallback = schema.safeParse(undefined);
    return (fallback.success ? fallback.data : undefined) as T;
  };

  const command = one('command', z._default(oneOf(commands), 'deploy'));
  // Before base-url and api-key: a fork's run has no secrets, and what to fix then is not the key.
  const preview = mistakes.check(() =>
    previewOf(
      command,
      {
        wanted: one('preview', z._default(bool, false)),
        template: text('preview-name'),
        name: text('name'),
        deploymentId: text('deployment-id'),
      },
      context,
    ),
  );
  const baseUrl = one('base-url', z.pipe(required('base-url', words), serviceUrl));
  const apiKey = one('api-key', required('api-key', words));
  if (apiKey !== undefined && /\s/.test(apiKey))
    mistakes.add(
      new InputError(
        'api-key',
        `contains white space; paste the key alone: ${words.give('api-key')}.`,
      ),
    );
  const common: CommonSettings = {
    baseUrl,
    apiKey,
    tenantId: one('tenant-id', z.optional(uuid)),
    timeoutMs: one('timeout', z._default(duration, 30 * 60_000)),
    dryRun: one('dry-run', z._default(bool, false)),
    secrets: mistakes.check(() => parseSecrets(text('secrets'))),
    // A preview's defaults: a GitHub Deployment in environment `preview`, and the comment (action.yml leaves
    // pr-comment empty so that a false given can be told from the default).
    environment: text('environment') ?? (preview ? 'preview' : undefined),
    prComment: one('pr-comment', z.optional(bool)) ?? preview !== undefined,
    preview,
  };
  if (common.timeoutMs > MAX_TIMEOUT_MS)
    mistakes.add(
      new InputError('timeout', 'is longer than 6h, the longest a job may run; use at most 6h.'),
    );

  const imageUri = one('image-uri', z.optional(imageUriValue));
  const sourceInput = one('source', z.optional(oneOf(SOURCES)));
  const pollIntervalMs = one('poll-interval', z._default(duration, 10_000));
  const verify = one('verify-url', z.optional(verifyUrl));
  // Checked whether or not verify-url is given: a mistake in it is named now, not when someone adds verify-url.
  const verifyTimeoutMs = one('verify-timeout', z._default(duration, 120_000));
  const follow: FollowSettings = {
    wait: one('wait', z._default(bool, true)),
    // A gap longer than the whole wait would only skip the last read.
    pollIntervalMs: Math.min(pollIntervalMs, common.timeoutMs),
    stuckAfterMs: one('stuck-after', z._default(duration, 10 * 60_000)),
    allowSkipped: one('allow-skipped', z._default(bool, false)),
    rollbackOnFailure: one('rollback-on-failure', z._default(bool, false)),
    verify: verify ? { url: verify, timeoutMs: verifyTimeoutMs } : undefined,
  };
  const deploy: Inputs['deploy'] = {
    create: one('create', z._default(createMode, true)),
    source: sourceInput ?? (imageUri ? 'external_docker' : 'codehost'),
    sourceGiven: sourceInput !== undefined,
    revisionSource: one('revision-source', z.optional(oneOf(REVISION_SOURCES))),
    repoRef: text('repo-ref') ?? (preview && context.change?.headRef) ?? context.ref,
    imageUri,
    graphConfigPath: text('graph-config-path'),
    sourceTarballPath: text('source-tarball-path'),
    integrationId: one('integration-id', z.optional(uuid)),
    integrationKind: one('integration-kind', z._default(oneOf(INTEGRATION_KINDS), 'codehost')),
    repoUrl: one('repo-url', z.optional(repoUrl)),
    deploymentType: one('deployment-type', z.optional(oneOf(DEPLOYMENT_TYPES))),
    buildOnPush: one('build-on-push', z.optional(bool)),
    customUrl: text('custom-url'),
    installCommand: text('install-command'),
    buildCommand: text('build-command'),
    listener: text('listener'),
    k8sNamespace: text('k8s-namespace'),
    resourceSpec: await mistakes.settle(() => parseResourceSpec(text('resource-spec'), context)),
    secretReferences: mistakes.check(() => parseSecretReferences(text('secret-references'))),
    repository: context.repository,
    skipUnchanged: one('skip-unchanged', z._default(bool, false)),
    paths: mistakes.check(() => parsePaths(text('paths'))),
    event: { ref: context.ref, commit: context.commit },
    workspace: context.workspace,
  };
  const fromRevisionId = one('from-revision-id', z.optional(uuid));
  if (fromRevisionId && command !== 'promote')
    mistakes.add(
      new InputError(
        'from-revision-id',
        `applies to command promote, not '${command}'; ${words.set('command', 'promote')} (with from), or drop from-revision-id.`,
      ),
    );
  return {
    command,
    common,
    follow,
    deploy,
    name: text('name'),
    deploymentId: one('deployment-id', z.optional(uuid)),
    revisionId: one('revision-id', z.optional(uuid)),
    tokenId: one('token-id', z.optional(tokenIdValue)),
    from: text('from'),
    fromRevisionId,
    repoRefGiven: text('repo-ref') !== undefined,
    metadata: given({
      provider_account_label: text('provider-account-label'),
      is_default: one('is-default', z.optional(bool)),
    }),
    untrustedHead: context.untrustedHead,
    words,
    deployments: text('deployments'),
    // Checked whether or not deployments is given, like verify-timeout.
    maxParallel: one('max-parallel', z._default(between(1, 16), 4)),
    failFast: one('fail-fast', z._default(bool, false)),
  };
}

/** The settings of command deploy. */
export function deploySettings(inputs: Inputs): DeploySettings {
  const settings: DeploySettings = {
    ...inputs.common,
    ...inputs.follow,
    ...inputs.deploy,
    command: 'deploy',
    target: targetRef(inputs),
  };
  checkDeploy(settings, inputs.words, inputs.untrustedHead);
  return settings;
}

/** The deployment the inputs name: a preview's, by deployment-id (and name, when both are given) or by name. */
export function targetRef({ command, name, deploymentId, common }: Inputs): DeploymentRef {
  if (common.preview) return { name: common.preview.name };
  if (deploymentId) return { id: deploymentId, name };
  if (name) return { name };
  throw new InputError(
    'name',
    `is required for command '${command}' unless deployment-id is given; set the deployment's name.`,
  );
}

/**
 * The checks of settings for a deploy that no request can change (promote checks its resolved ones too): every
 * mistake in one InputError.
 */
export function checkDeploy(s: DeploySettings, words: Words, untrustedHead?: string): void {
  const mistakes: Mistake[] = [];
  if (s.source === 'codehost' && !s.repoRef && untrustedHead)
    mistakes.push({
      input: 'repo-ref',
      problem: `is required on ${untrustedHead}: that workflow runs with your secrets, and the default would be the pull request's head branch, code its author controls; set repo-ref to the ref to deploy (the base branch, or a head commit you reviewed).`,
    });
  if (s.imageUri && s.source === 'codehost')
    mistakes.push({
      input: 'image-uri',
      problem: `cannot be used with source 'codehost' (it builds from the repository); drop image-uri or ${words.set('source', 'external_docker')}.`,
    });
  if (s.secretReferences && s.source !== 'external_docker')
    mistakes.push({
      input: 'secret-references',
      problem: `applies only to source 'external_docker', not '${s.source}'; use secrets instead.`,
    });
  if (s.k8sNamespace && !s.listener)
    mistakes.push({
      input: 'k8s-namespace',
      problem: 'needs listener: name the listener (uuid or compute_id) the namespace belongs to.',
    });
  if (s.buildOnPush && s.repoRef?.startsWith('refs/tags/'))
    mistakes.push({
      input: 'build-on-push',
      problem: `cannot be true when the ref is a tag (${s.repoRef}): tags never move; ${words.set('build-on-push', 'false')} or deploy a branch.`,
    });
  if (mistakes.length > 0) throw new InputError(mistakes);
}
