import * as z from '../shared/zod.ts';

// Responses: lenient to extra fields (z.object strips nothing we later re-send, and we never re-send a response),
// strict on the fields we read.

/** The interface's uuid ids (any version, any case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A commit sha, maybe abbreviated: what a service's repo_commit_sha and a CI's commit must be to be compared. */
export const COMMIT_SHA = /^[0-9a-f]{7,64}$/i;

/** An image reference: one line without white space, control or invisible format characters (image_uri). */
export const IMAGE_URI = /^[^\s\p{Cc}\p{Cf}]*$/u;

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
  const str = z.nullish(z.string());
  /** Ids the interface types as uuids are checked as such: they go into paths, outputs and links. */
  const uuid = z.string().check(z.regex(UUID, { message: 'not a uuid' }));
  /** A commit as git names it, abbreviated (7) to SHA-256 (64): it goes into outputs, the dotenv file and links. */
  const sha = z.nullish(
    z.string().check(z.regex(COMMIT_SHA, { message: 'not a commit sha (7 to 64 hex characters)' })),
  );
  /** Any status string (an unknown one is waited through), but not an essay. */
  const status = z.string().check(z.maxLength(100));
  const num = z.nullish(z.number());
  const int = z.nullish(z.int());
  const looseObject = z.nullish(z.record(z.string(), z.unknown()));
  const stringArray = z.nullish(z.array(z.string()));
  // Promote compares it and sends it on: a newline in it went into a PATCH as it was.
  const image = z.nullish(
    z.string().check(z.regex(IMAGE_URI, { message: 'not an image reference on one line' })),
  );

  // Kubernetes quantities are strings on the wire; YAML's `cpu: 1` is a number, so it is taken and sent as "1".
  const quantities = z.nullish(
    z.record(z.string(), z.union([z.string(), z.pipe(z.number(), z.transform(String))])),
  );

  const VolumeMount = z.strictObject({
    name: z.string(),
    mountPath: z.string(),
    subPath: str,
    mountPropagation: str,
    readOnly: z.nullish(z.boolean()),
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
    env: z.nullish(
      z.array(z.strictObject({ name: z.string(), value: str, valueFrom: looseObject })),
    ),
    envFrom: z.nullish(z.array(z.record(z.string(), z.unknown()))),
    resources: z.nullish(z.strictObject({ limits: quantities, requests: quantities })),
    volumeMounts: z.nullish(z.array(VolumeMount)),
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
    labels: z.nullish(z.record(z.string(), z.string())),
    annotations: z.nullish(z.record(z.string(), z.string())),
    service_account_name: str,
    image_pull_secrets: z.nullish(z.array(z.strictObject({ name: z.string() }))),
    volumes: z.nullish(z.array(Volume)),
    volume_mounts: z.nullish(z.array(VolumeMount)),
    init_containers: z.nullish(z.array(Container)),
    sidecars: z.nullish(z.array(Container)),
  });

  const SourceConfig = z.object({
    integration_id: str,
    repo_url: str,
    deployment_type: str,
    build_on_push: z.nullish(z.boolean()),
    custom_url: str,
    // Read back as given; its inner shape is the service's business once stored.
    resource_spec: looseObject,
    listener_id: str,
    listener_config: z.nullish(z.object({ k8s_namespace: str })),
    install_command: str,
    build_command: str,
  });

  const SourceRevisionConfig = z.object({
    repo_ref: str,
    graph_config_path: str,
    image_uri: image,
    source_tarball_path: str,
    repo_commit_sha: sha,
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
    latest_revision_id: z.nullable(uuid),
    active_revision_id: z.nullable(uuid),
    secret_references: z.nullish(z.array(SecretReference)),
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
    compute_config: z.looseObject({ k8s_namespaces: z.nullish(z.array(z.string())) }),
    created_at: z.string(),
    updated_at: z.string(),
    version: str,
  });

  const Repository = z.object({
    host_integration_id: uuid,
    id: z.int(),
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
    scopes: z.nullish(z.array(z.unknown())),
    expires_at: str,
    is_default: z.nullish(z.boolean()),
  });

  /** FastAPI error bodies: `{"detail": "text"}` or `{"detail": [{"loc", "msg", "type"}]}`. */
  const ErrorBody = z.object({
    detail: z.union([
      z.string(),
      z.array(
        z.looseObject({
          loc: z.optional(z.array(z.union([z.string(), z.number()]))),
          msg: z.string(),
        }),
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

export const page = <T extends z.ZodMiniType>(item: T) =>
  z.lazy(() => z.object({ resources: z.array(item), offset: z.int() }));
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
