import { z } from 'zod';

// Responses: lenient to extra fields (z.object strips nothing we later re-send, and we never re-send a response),
// strict on the fields we read.

/** The interface's uuid ids (any version, any case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const SOURCES = [
  'codehost',
  'external_docker',
  'internal_docker',
  'internal_source',
] as const;
export const Source = z.enum(SOURCES);
export type Source = z.infer<typeof Source>;

export const REVISION_SOURCES = ['codehost', 'internal_docker', 'internal_source'] as const;
export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;

export const Secret = z.object({ name: z.string(), value: z.string() });
export type Secret = z.infer<typeof Secret>;

export const SecretReference = z.object({
  name: z.string(),
  secret_name: z.string(),
  secret_key: z.string(),
});
export type SecretReference = z.infer<typeof SecretReference>;

/**
 * The response schemas, built on first use: a run parses its first answer only after its first request, so building
 * them at start-up would only delay that request.
 */
function build() {
  const str = z.string().nullish();
  /** Ids the interface types as uuids are checked as such: they go into paths, outputs and links. */
  const uuid = z.string().regex(UUID, { message: 'not a uuid' });
  /** Any status string (an unknown one is waited through), but not an essay. */
  const status = z.string().max(100);
  const num = z.number().nullish();
  const int = z.number().int().nullish();
  const looseObject = z.record(z.string(), z.unknown()).nullish();
  const stringArray = z.array(z.string()).nullish();

  // Kubernetes quantities are strings on the wire; YAML's `cpu: 1` is a number, so it is taken and sent as "1".
  const quantities = z
    .record(z.string(), z.union([z.string(), z.number().transform(String)]))
    .nullish();

  const VolumeMount = z.strictObject({
    name: z.string(),
    mountPath: z.string(),
    subPath: str,
    mountPropagation: str,
    readOnly: z.boolean().nullish(),
    subPathExpr: str,
  });

  const Container = z.strictObject({
    name: z.string(),
    image: z.string(),
    imagePullPolicy: str,
    workingDir: str,
    restartPolicy: str,
    command: stringArray,
    args: stringArray,
    env: z
      .array(z.strictObject({ name: z.string(), value: str, valueFrom: looseObject }))
      .nullish(),
    envFrom: z.array(z.record(z.string(), z.unknown())).nullish(),
    resources: z.strictObject({ limits: quantities, requests: quantities }).nullish(),
    volumeMounts: z.array(VolumeMount).nullish(),
    securityContext: looseObject,
  });

  const Volume = z.strictObject({
    name: z.string(),
    configMap: looseObject,
    secret: looseObject,
    emptyDir: looseObject,
    persistentVolumeClaim: looseObject,
    nfs: looseObject,
    projected: looseObject,
    downwardAPI: looseObject,
    csi: looseObject,
  });

  const ResourceSpec = z.strictObject({
    min_scale: int,
    max_scale: int,
    cpu: num,
    cpu_limit: num,
    memory_mb: int,
    memory_limit_mb: int,
    queue_min_scale: int,
    queue_max_scale: int,
    queue_cpu: num,
    queue_cpu_limit: num,
    queue_memory_mb: int,
    queue_memory_limit_mb: int,
    orchestrator_cpu: num,
    orchestrator_cpu_limit: num,
    orchestrator_memory_mb: int,
    orchestrator_memory_limit_mb: int,
    orchestrator_min_scale: int,
    orchestrator_max_scale: int,
    executor_cpu: num,
    executor_cpu_limit: num,
    executor_memory_mb: int,
    executor_memory_limit_mb: int,
    redis_cpu: num,
    redis_cpu_limit: num,
    redis_memory_mb: int,
    redis_memory_limit_mb: int,
    db_cpu: num,
    db_cpu_limit: num,
    db_memory_mb: int,
    db_memory_limit_mb: int,
    db_storage_gi: int,
    db_max_connections: int,
    labels: z.record(z.string(), z.string()).nullish(),
    annotations: z.record(z.string(), z.string()).nullish(),
    service_account_name: str,
    image_pull_secrets: z.array(z.strictObject({ name: z.string() })).nullish(),
    volumes: z.array(Volume).nullish(),
    volume_mounts: z.array(VolumeMount).nullish(),
    init_containers: z.array(Container).nullish(),
    sidecars: z.array(Container).nullish(),
  });

  const SourceConfig = z.object({
    integration_id: str,
    repo_url: str,
    deployment_type: str,
    build_on_push: z.boolean().nullish(),
    custom_url: str,
    // Read back as given; its inner shape is the service's business once stored.
    resource_spec: looseObject,
    listener_id: str,
    listener_config: z.object({ k8s_namespace: str }).nullish(),
    install_command: str,
    build_command: str,
  });

  const SourceRevisionConfig = z.object({
    repo_ref: str,
    graph_config_path: str,
    image_uri: str,
    source_tarball_path: str,
    repo_commit_sha: str,
  });

  const Deployment = z.object({
    id: uuid,
    name: z.string(),
    source: z.string(),
    source_config: SourceConfig,
    source_revision_config: SourceRevisionConfig,
    secrets: z.array(z.object({ name: z.string() })),
    tenant_id: uuid,
    created_at: z.string(),
    updated_at: z.string(),
    status,
    latest_revision_id: uuid.nullable(),
    active_revision_id: uuid.nullable(),
    secret_references: z.array(SecretReference).nullish(),
    image_version: str,
  });

  const Revision = z.object({
    id: uuid,
    created_at: z.string(),
    updated_at: z.string(),
    status,
    source: z.string(),
    source_revision_config: SourceRevisionConfig,
  });

  const Listener = z.object({
    id: uuid,
    compute_type: z.string(),
    compute_id: z.string(),
    compute_config: z.object({ k8s_namespaces: z.array(z.string()).nullish() }).loose(),
    created_at: z.string(),
    updated_at: z.string(),
    version: str,
  });

  const Repository = z.object({
    host_integration_id: uuid,
    id: z.number().int(),
    name: z.string(),
    owner: z.string(),
    url: z.string(),
    default_branch: z.string(),
  });

  const Token = z.object({
    id: z.string(),
    provider_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    provider_account_label: str,
    scopes: z.array(z.unknown()).nullish(),
    expires_at: str,
    is_default: z.boolean().nullish(),
  });

  /** FastAPI error bodies: `{"detail": "text"}` or `{"detail": [{"loc", "msg", "type"}]}`. */
  const ErrorBody = z.object({
    detail: z.union([
      z.string(),
      z.array(
        z
          .object({ loc: z.array(z.union([z.string(), z.number()])).optional(), msg: z.string() })
          .loose(),
      ),
    ]),
  });

  return { ResourceSpec, Deployment, Revision, Listener, Repository, Token, ErrorBody };
}

let built: ReturnType<typeof build> | undefined;
const schemas = () => (built ??= build());

/** The ResourceSpec of the interface. Strict: on input an unknown key is a typo, not a field to pass on. */
export const ResourceSpec = z.lazy(() => schemas().ResourceSpec);
export type ResourceSpec = z.infer<typeof ResourceSpec>;

export const Deployment = z.lazy(() => schemas().Deployment);
export type Deployment = z.infer<typeof Deployment>;

export const Revision = z.lazy(() => schemas().Revision);
export type Revision = z.infer<typeof Revision>;

export const Listener = z.lazy(() => schemas().Listener);
export type Listener = z.infer<typeof Listener>;

export const Repository = z.lazy(() => schemas().Repository);
export type Repository = z.infer<typeof Repository>;

export const Token = z.lazy(() => schemas().Token);
export type Token = z.infer<typeof Token>;

/** FastAPI error bodies: `{"detail": "text"}` or `{"detail": [{"loc", "msg", "type"}]}`. */
export const ErrorBody = z.lazy(() => schemas().ErrorBody);

export const page = <T extends z.ZodType>(item: T) =>
  z.lazy(() => z.object({ resources: z.array(item), offset: z.number().int() }));
export interface Page<T> {
  resources: T[];
  offset: number;
}

// Request bodies (what we send).
export interface SourceConfigRequest {
  integration_id?: string;
  repo_url?: string;
  deployment_type?: string;
  build_on_push?: boolean;
  custom_url?: string;
  resource_spec?: ResourceSpec;
  listener_id?: string;
  listener_config?: { k8s_namespace: string };
  install_command?: string;
  build_command?: string;
}
export interface SourceRevisionConfigRequest {
  repo_ref?: string;
  graph_config_path?: string;
  image_uri?: string;
  source_tarball_path?: string;
}
export interface CreateDeploymentBody {
  name: string;
  source: Source;
  source_config: SourceConfigRequest;
  source_revision_config: SourceRevisionConfigRequest;
  secrets: Secret[];
  secret_references?: SecretReference[];
}
export interface PatchDeploymentBody {
  revision_source?: string;
  source_config?: SourceConfigRequest;
  source_revision_config?: SourceRevisionConfigRequest;
  secrets?: Secret[];
  secret_references?: SecretReference[];
}
export interface TokenMetadataBody {
  provider_account_label?: string;
  is_default?: boolean;
}
