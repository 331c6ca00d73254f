// Every input read and checked once, before anything is sent, into the settings of the command asked for.
import type { z } from 'zod';
import { DEPLOYMENT_TYPES, REVISION_SOURCES, SOURCES } from '../service/schemas.ts';
import { given } from '../shared/given.ts';
import { parseResourceSpec } from './resource-spec.ts';
import { parseSecretReferences, parseSecrets } from './secrets.ts';
import {
  COMMANDS,
  type DeploySettings,
  type DeploymentRef,
  type FollowSettings,
  InputError,
  type Settings,
} from './settings.ts';
import {
  bool,
  duration,
  oneOf,
  repoUrl,
  required,
  serviceUrl,
  tokenId as tokenIdValue,
  uuid,
  verifyUrl,
} from './values.ts';

export * from './settings.ts';
export { parseSecrets } from './secrets.ts';

export type ReadInput = (name: string) => string;

const MAX_TIMEOUT_MS = 6 * 3600_000; // a job's own limit
const MIN_POLL_MS = 1000;

/**
 * Reads and validates every input given, whatever the command, before anything is sent. Throws InputError with one
 * line naming the input, the problem and the accepted form. Never echoes api-key or secret values.
 */
export async function parseInputs(read: ReadInput, env: NodeJS.ProcessEnv): Promise<Settings> {
  const text = (name: string): string | undefined => {
    const value = read(name).trim();
    return value === '' ? undefined : value;
  };
  const one = <T>(name: string, schema: z.ZodType<T>): T => {
    const result = schema.safeParse(text(name));
    if (!result.success)
      throw new InputError(name, result.error.issues[0]?.message ?? 'invalid value');
    return result.data;
  };

  const command = one('command', oneOf(COMMANDS).default('deploy'));
  const baseUrl = one('base-url', required('base-url').pipe(serviceUrl));
  const apiKey = one('api-key', required('api-key'));
  if (/\s/.test(apiKey))
    throw new InputError(
      'api-key',
      'contains white space; paste the key alone (use a secret: ${{ secrets.NAME }}).',
    );
  const common = {
    baseUrl,
    apiKey,
    tenantId: one('tenant-id', uuid.optional()),
    timeoutMs: one('timeout', duration.default(30 * 60_000)),
    dryRun: one('dry-run', bool.default(false)),
    secrets: parseSecrets(text('secrets')),
    github: {
      token: text('github-token'),
      environment: text('environment'),
      prComment: one('pr-comment', bool.default(false)),
    },
  };
  if (common.timeoutMs > MAX_TIMEOUT_MS)
    throw new InputError(
      'timeout',
      'is longer than 6h, the longest a job may run; use at most 6h.',
    );

  const name = text('name');
  const deploymentId = one('deployment-id', uuid.optional());
  const imageUri = text('image-uri');
  const sourceInput = one('source', oneOf(SOURCES).optional());
  const pollIntervalMs = one('poll-interval', duration.default(10_000));
  const verify = one('verify-url', verifyUrl.optional());
  const follow: FollowSettings = {
    wait: one('wait', bool.default(true)),
    // A gap longer than the whole wait would only skip the last read.
    pollIntervalMs: Math.min(pollIntervalMs, common.timeoutMs),
    allowSkipped: one('allow-skipped', bool.default(false)),
    rollbackOnFailure: one('rollback-on-failure', bool.default(false)),
    verify: verify
      ? { url: verify, timeoutMs: one('verify-timeout', duration.default(120_000)) }
      : undefined,
  };
  if (pollIntervalMs < MIN_POLL_MS)
    throw new InputError('poll-interval', 'is shorter than 1s; use 1s or more (e.g. 10s).');
  const deploy = {
    create: one('create', bool.default(true)),
    source: sourceInput ?? (imageUri ? 'external_docker' : 'codehost'),
    sourceGiven: sourceInput !== undefined,
    revisionSource: one('revision-source', oneOf(REVISION_SOURCES).optional()),
    repoRef: text('repo-ref') ?? defaultRef(env),
    imageUri,
    graphConfigPath: text('graph-config-path'),
    sourceTarballPath: text('source-tarball-path'),
    integrationId: one('integration-id', uuid.optional()),
    integrationKind: one(
      'integration-kind',
      oneOf(['codehost', 'forge'] as const).default('codehost'),
    ),
    repoUrl: one('repo-url', repoUrl.optional()),
    deploymentType: one('deployment-type', oneOf(DEPLOYMENT_TYPES).optional()),
    buildOnPush: one('build-on-push', bool.optional()),
    customUrl: text('custom-url'),
    installCommand: text('install-command'),
    buildCommand: text('build-command'),
    listener: text('listener'),
    k8sNamespace: text('k8s-namespace'),
    resourceSpec: await parseResourceSpec(text('resource-spec'), env),
    secretReferences: parseSecretReferences(text('secret-references')),
    repository: parseRepository(env.GITHUB_REPOSITORY),
  };
  const revisionId = one('revision-id', uuid.optional());
  const tokenId = one('token-id', tokenIdValue.optional());
  const metadata = given({
    provider_account_label: text('provider-account-label'),
    is_default: one('is-default', bool.optional()),
  });

  if (command === 'token-metadata') {
    if (!tokenId)
      throw new InputError(
        'token-id',
        "is required for command 'token-metadata'; give the token's id.",
      );
    if (Object.keys(metadata).length === 0)
      throw new InputError(
        'provider-account-label',
        "and 'is-default' are both missing; command 'token-metadata' needs at least one of them.",
      );
    return { ...common, command, tokenId, metadata };
  }
  const target = targetRef(command, name, deploymentId);
  if (command === 'status') return { ...common, command, target };
  if (command === 'redeploy') {
    if (!revisionId)
      throw new InputError(
        'revision-id',
        "is required for command 'redeploy'; give the uuid of the revision to redeploy.",
      );
    return { ...common, ...follow, command, target, revisionId };
  }
  const settings: DeploySettings = { ...common, ...follow, ...deploy, command, target };
  checkDeploy(settings, env);
  return settings;
}

function targetRef(command: string, name?: string, id?: string): DeploymentRef {
  if (id) return { id, name };
  if (name) return { name };
  throw new InputError(
    'name',
    `is required for command '${command}' unless deployment-id is given; set the deployment's name.`,
  );
}

function checkDeploy(s: DeploySettings, env: NodeJS.ProcessEnv): void {
  if (s.source === 'codehost' && !s.repoRef && env.GITHUB_EVENT_NAME === 'pull_request_target') {
    throw new InputError(
      'repo-ref',
      "is required on pull_request_target: that workflow runs with your secrets, and the default would be the pull request's head branch, code its author controls; set repo-ref to the ref to deploy (the base branch, or a head commit you reviewed).",
    );
  }
  if (s.imageUri && s.source === 'codehost') {
    throw new InputError(
      'image-uri',
      "cannot be used with source 'codehost' (it builds from the repository); drop image-uri or set source: external_docker.",
    );
  }
  if (s.secretReferences && s.source !== 'external_docker') {
    throw new InputError(
      'secret-references',
      `applies only to source 'external_docker', not '${s.source}'; use secrets instead.`,
    );
  }
  if (s.k8sNamespace && !s.listener) {
    throw new InputError(
      'k8s-namespace',
      'needs listener: name the listener (uuid or compute_id) the namespace belongs to.',
    );
  }
  if (s.buildOnPush && s.repoRef?.startsWith('refs/tags/')) {
    throw new InputError(
      'build-on-push',
      `cannot be true when the ref is a tag (${s.repoRef}): tags never move; set build-on-push: false or deploy a branch.`,
    );
  }
}

function parseRepository(value: string | undefined): DeploySettings['repository'] {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(value ?? '');
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
}

/**
 * The pushed branch, the PR's head branch, or a tag as refs/tags/… (the service needs tags in full). None on
 * pull_request_target: there the head branch is the author's code in a workflow that holds secrets.
 */
function defaultRef(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_EVENT_NAME === 'pull_request_target') return undefined;
  if (env.GITHUB_HEAD_REF) return env.GITHUB_HEAD_REF;
  if (env.GITHUB_REF_TYPE === 'tag' && env.GITHUB_REF?.startsWith('refs/tags/'))
    return env.GITHUB_REF;
  return env.GITHUB_REF_NAME || undefined;
}
