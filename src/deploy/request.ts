import type { DeploySettings } from '../inputs/index.ts';
import { DeployError, InputError, type Mistake } from '../core/errors.ts';
import type { Plan } from '../core/report.ts';
import type { Words } from '../core/words.ts';
import type { Call } from '../service/calls.ts';
import type {
  CreateDeploymentBody,
  Deployment,
  Listener,
  PatchDeploymentBody,
  Repository,
  SourceConfigRequest,
  SourceRevisionConfigRequest,
} from '../service/schemas.ts';
import { given } from '../shared/given.ts';
import { sameRepoUrl } from '../shared/url.ts';

/** Fields that may change on an existing deployment (source_config); the others are fixed at creation. */
function mutableSourceConfig(s: Omit<DeploySettings, 'command'>): SourceConfigRequest {
  return given({
    build_on_push: s.buildOnPush,
    custom_url: s.customUrl,
    resource_spec: s.resourceSpec,
    install_command: s.installCommand,
    build_command: s.buildCommand,
  });
}

/** `source` is what the revision is built from: on PATCH, revision-source when given, else the deployment's. */
function revisionConfig(
  s: Omit<DeploySettings, 'command'>,
  source: string,
  ref: string | undefined,
): SourceRevisionConfigRequest {
  return given({
    // Only a revision built from the repository has a ref.
    repo_ref: source === 'codehost' ? ref : undefined,
    graph_config_path: s.graphConfigPath,
    image_uri: s.imageUri,
    source_tarball_path: s.sourceTarballPath,
  });
}

/**
 * Every input a create of `name` needs that is not given, in one InputError before any write: the lookup found no
 * deployment, and each run naming one more missing input would be one run too many.
 */
export function checkCreatable(name: string, s: DeploySettings, words: Words): void {
  const mistakes: Mistake[] = [];
  const codehost = 'to create a codehost deployment';
  if (s.source === 'codehost') {
    if (!s.integrationId)
      mistakes.push({
        input: 'integration-id',
        problem: `is required ${codehost}: give the uuid of the code-hosting integration (the service's integrations page).`,
      });
    if (!s.graphConfigPath)
      mistakes.push({
        input: 'graph-config-path',
        problem: `is required ${codehost}: give the path of the graph configuration file in the repository.`,
      });
    if (!s.repoUrl && !s.repository)
      mistakes.push({
        input: 'repo-url',
        problem: `is required ${codehost} when no repository is known (${words.noRepository}): give the repository's URL.`,
      });
  }
  if (s.source === 'external_docker' && !s.imageUri)
    mistakes.push({
      input: 'image-uri',
      problem: 'is required to create an external_docker deployment: give the image to run.',
    });
  const count = mistakes.length === 1 ? 'an input' : `${mistakes.length} inputs`;
  if (mistakes.length > 0)
    throw new InputError(
      mistakes,
      `'${name}' does not exist yet, and creating it needs ${count} not given; nothing was written.`,
    );
}

export function createBody(
  name: string,
  s: DeploySettings,
  repo: Repository | undefined,
  listener: Listener | undefined,
): CreateDeploymentBody {
  const codehost = s.source === 'codehost';
  const body: CreateDeploymentBody = {
    name,
    source: s.source,
    source_config: given({
      integration_id: codehost ? (s.integrationId ?? repo?.host_integration_id) : undefined,
      repo_url: codehost ? (s.repoUrl ?? repo?.url) : undefined,
      deployment_type: s.deploymentType,
      listener_id: listener?.id,
      listener_config: s.k8sNamespace ? { k8s_namespace: s.k8sNamespace } : undefined,
      ...mutableSourceConfig(s),
    }),
    source_revision_config: revisionConfig(s, s.source, s.repoRef ?? repo?.default_branch),
    secrets: s.secrets ?? [],
  };
  if (s.secretReferences) body.secret_references = s.secretReferences;
  return body;
}

/**
 * The PATCH for an existing deployment. Inputs that are fixed at creation must match what exists; a mismatch is
 * an error before any write rather than a silent no-op.
 */
export function patchBody(
  s: Omit<DeploySettings, 'command'>,
  existing: Deployment,
  listener: Listener | undefined,
): PatchDeploymentBody {
  const cfg = existing.source_config;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  // [input, value compared, how the user wrote it, value on the service, the rule that compares them]
  const fixed: [
    string,
    string | undefined,
    string | undefined,
    string | null | undefined,
    (a: string, b: string) => boolean,
  ][] = [
    ['repo-url', s.repoUrl, s.repoUrl, cfg.repo_url, sameRepoUrl],
    ['integration-id', s.integrationId, s.integrationId, cfg.integration_id, same],
    ['deployment-type', s.deploymentType, s.deploymentType, cfg.deployment_type, same],
    ['listener', listener?.id, s.listener, cfg.listener_id, same],
    ['k8s-namespace', s.k8sNamespace, s.k8sNamespace, cfg.listener_config?.k8s_namespace, same],
  ];
  for (const [input, want, written, have, sameValue] of fixed) {
    if (want === undefined || (have != null && sameValue(want, have))) continue;
    // Sending it would be ignored or refused: these fields cannot change (PATCH) once created.
    throw new DeployError(
      `${input} is '${written}' but deployment '${existing.name}' has ${have == null ? 'none' : `'${have}'`}, and it cannot change after creation. Remove the input or use another deployment name; nothing was written.`,
    );
  }
  return updateFields(s, s.revisionSource ?? existing.source);
}

/**
 * What a PATCH sets from the inputs, for a deployment of `source`: the fields that may change after creation, and
 * nothing the inputs leave out.
 */
export function updateFields(
  s: Omit<DeploySettings, 'command'>,
  source: string,
): PatchDeploymentBody {
  const sourceConfig = mutableSourceConfig(s);
  const body: PatchDeploymentBody = given({
    revision_source: s.revisionSource,
    source_config: Object.keys(sourceConfig).length ? sourceConfig : undefined,
    source_revision_config: revisionConfig(s, source, s.repoRef),
    secrets: s.secrets,
    secret_references: s.secretReferences,
  });
  if (body.source_revision_config && Object.keys(body.source_revision_config).length === 0)
    delete body.source_revision_config;
  return body;
}

/** What a dry run shows instead of sending `call`: the same method, path and body, secret values replaced. */
export function planOf(action: Plan['action'], call: Call<unknown>): Plan {
  const body = call.body as { secrets?: { name: string }[] } | undefined;
  return {
    action,
    method: call.method,
    path: call.path,
    body: body?.secrets
      ? { ...body, secrets: body.secrets.map((s) => ({ name: s.name, value: '***' })) }
      : body,
    changes: action === 'redeploy' || !body ? [] : changedFields(body),
  };
}

/** The fields a request sets, as dotted names, for the plan and the log. */
export function changedFields(body: object, prefix = ''): string[] {
  return Object.entries(body).flatMap(([key, value]) =>
    value && typeof value === 'object' && !Array.isArray(value) && prefix === ''
      ? changedFields(value, `${key}.`)
      : [`${prefix}${key}`],
  );
}
