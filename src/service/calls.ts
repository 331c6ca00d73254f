// One description of each call of the service interface (numbered as there): the client sends it, and a dry run
// prints it, so what is planned and what is sent can never drift apart.
import * as z from '../shared/zod.ts';
import type { RetryPolicy } from './retry.ts';
import {
  type CreateDeploymentBody,
  Deployment,
  Listener,
  page,
  type PatchDeploymentBody,
  Repository,
  Revision,
  Token,
  type TokenMetadataBody,
} from './schemas.ts';

export interface Call<T> {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  retry: RetryPolicy;
  schema: z.ZodMiniType<T>;
  /** What a 404 means when the path holds an id; without one, a 404 means base-url does not lead to the API. */
  notFound?: string;
  /** The deployments an answer shows, for whoever watches their status (ServiceClient's observer). */
  deployments?(answer: T): Deployment[];
  /** What the answer shows: its count of what a run keeps (kept.ts), and messages. */
  resource: 'deployment' | 'revision' | 'listener' | 'repository' | 'token';
  /** The ids the request names (in its path, or deployment_ids): the answer may show no other (identity.ts). */
  asked?: readonly string[];
}

export const INTEGRATION_KINDS = ['codehost', 'forge'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

interface ListDeploymentsQuery {
  limit?: number;
  offset?: number;
  name_contains?: string;
  deployment_ids?: string;
}

const DeploymentPage = page(Deployment);
const ListenerPage = page(Listener);
const Repositories = z.array(Repository);
const enc = encodeURIComponent;
const one = (deployment: Deployment) => [deployment];

/** 1 */
export function updateTokenMetadata(tokenId: string, body: TokenMetadataBody): Call<Token> {
  const path = `/v2/auth/tokens/${enc(tokenId)}/metadata`;
  const notFound = `Check token-id: no token has the id ${tokenId} for this key.`;
  return {
    method: 'PATCH',
    path,
    body,
    retry: 'write',
    schema: Token,
    notFound,
    resource: 'token',
    asked: [tokenId],
  };
}

/** 2 and 3 */
export function listRepositories(kind: IntegrationKind, integrationId: string): Call<Repository[]> {
  const path =
    kind === 'forge'
      ? `/v1/integrations/forge/codehost/${enc(integrationId)}/repos`
      : `/v1/integrations/codehost/${enc(integrationId)}/repos`;
  const notFound = `Check integration-id and integration-kind: no ${kind} integration ${integrationId} exists for this key and tenant.`;
  return {
    method: 'GET',
    path,
    retry: 'read',
    schema: Repositories,
    notFound,
    resource: 'repository',
  };
}

/** 4: never sent again where it may have taken effect; the deploy command looks the name up again instead. */
export function createDeployment(body: CreateDeploymentBody): Call<Deployment> {
  const path = '/v2/deployments';
  return {
    method: 'POST',
    path,
    body,
    retry: 'recheck',
    schema: Deployment,
    deployments: one,
    resource: 'deployment',
  };
}

/** 5 */
export function listDeployments(query: ListDeploymentsQuery): Call<z.infer<typeof DeploymentPage>> {
  const path = '/v2/deployments';
  const deployments = (page: z.infer<typeof DeploymentPage>) => page.resources;
  return {
    method: 'GET',
    path,
    query: { ...query },
    retry: 'read',
    schema: DeploymentPage,
    deployments,
    resource: 'deployment',
    asked: query.deployment_ids?.split(','),
  };
}

/** 6 */
export function patchDeployment(id: string, body: PatchDeploymentBody): Call<Deployment> {
  const path = `/v2/deployments/${enc(id)}`;
  const notFound = `Deployment ${id} no longer exists on the service (deleted meanwhile?): run the job again.`;
  return {
    method: 'PATCH',
    path,
    body,
    retry: 'recheck',
    schema: Deployment,
    notFound,
    deployments: one,
    resource: 'deployment',
    asked: [id],
  };
}

/** 7 */
export function redeployRevision(deploymentId: string, revisionId: string): Call<Deployment> {
  const path = `/v2/deployments/${enc(deploymentId)}/revisions/${enc(revisionId)}/redeploy`;
  const notFound = `Check revision-id: ${revisionId} is not a revision of deployment ${deploymentId}.`;
  return {
    method: 'POST',
    path,
    retry: 'recheck',
    schema: Deployment,
    notFound,
    deployments: one,
    resource: 'deployment',
    asked: [deploymentId],
  };
}

/** 8 */
export function getRevision(deploymentId: string, revisionId: string): Call<Revision> {
  const path = `/v2/deployments/${enc(deploymentId)}/revisions/${enc(revisionId)}`;
  const notFound = `Revision ${revisionId} of deployment ${deploymentId} no longer exists on the service.`;
  return {
    method: 'GET',
    path,
    retry: 'read',
    schema: Revision,
    notFound,
    resource: 'revision',
    asked: [revisionId],
  };
}

/** 9 */
export function listListeners(query: {
  limit: number;
  offset: number;
}): Call<z.infer<typeof ListenerPage>> {
  const path = '/v2/listeners';
  return {
    method: 'GET',
    path,
    query: { ...query },
    retry: 'read',
    schema: ListenerPage,
    resource: 'listener',
  };
}

/** 10 */
export function getListener(id: string): Call<Listener> {
  const path = `/v2/listeners/${enc(id)}`;
  const notFound = `Check listener: no listener has the id ${id}.`;
  return {
    method: 'GET',
    path,
    retry: 'read',
    schema: Listener,
    notFound,
    resource: 'listener',
    asked: [id],
  };
}
