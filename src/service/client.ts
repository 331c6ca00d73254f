import { z } from 'zod';
import type { Logger } from '../logger.ts';
import { type HttpSettings, type RunClock, ServiceHttp } from './http.ts';
import type { Pace } from './retry.ts';
import {
  type CreateDeploymentBody,
  Deployment,
  Listener,
  type Page,
  type PatchDeploymentBody,
  Repository,
  Revision,
  Token,
  type TokenMetadataBody,
  page,
} from './schemas.ts';

export type { HttpSettings, RunClock } from './http.ts';

const DeploymentPage = page(Deployment);
const ListenerPage = page(Listener);
const Repositories = z.array(Repository);

export interface ListDeploymentsQuery {
  limit?: number;
  offset?: number;
  name_contains?: string;
  deployment_ids?: string;
  status?: string;
  deployment_type?: string;
}

export type IntegrationKind = 'codehost' | 'forge';

/** One typed method per endpoint of the service interface (numbered as there). */
export class ServiceClient {
  private readonly http: ServiceHttp;

  constructor(settings: HttpSettings, clock: RunClock, log: Logger) {
    this.http = new ServiceHttp(settings, clock, log);
  }

  dispose(): void {
    this.http.dispose();
  }

  /** How much status polling should stretch its gaps while the service rate-limits. */
  get pace(): Pace {
    return this.http.pace;
  }

  /** 1 */
  updateTokenMetadata(tokenId: string, body: TokenMetadataBody): Promise<Token> {
    const path = `/v2/auth/tokens/${enc(tokenId)}/metadata`;
    return this.http.send({ method: 'PATCH', path, body, retry: 'write', schema: Token });
  }

  /** 2 and 3 */
  listRepositories(kind: IntegrationKind, integrationId: string): Promise<Repository[]> {
    const path =
      kind === 'forge'
        ? `/v1/integrations/forge/codehost/${enc(integrationId)}/repos`
        : `/v1/integrations/codehost/${enc(integrationId)}/repos`;
    return this.http.send({ method: 'GET', path, retry: 'read', schema: Repositories });
  }

  /** 4: never retried where it may have taken effect; the deploy flow looks the name up again instead. */
  createDeployment(body: CreateDeploymentBody): Promise<Deployment> {
    return this.http.send({
      method: 'POST',
      path: '/v2/deployments',
      body,
      retry: 'write',
      schema: Deployment,
    });
  }

  /** 5 */
  listDeployments(query: ListDeploymentsQuery): Promise<Page<Deployment>> {
    return this.http.send({
      method: 'GET',
      path: '/v2/deployments',
      query: { ...query },
      retry: 'read',
      schema: DeploymentPage,
    });
  }

  /** 6 */
  patchDeployment(id: string, body: PatchDeploymentBody): Promise<Deployment> {
    return this.http.send({
      method: 'PATCH',
      path: `/v2/deployments/${enc(id)}`,
      body,
      retry: 'write',
      schema: Deployment,
    });
  }

  /** 7 */
  redeployRevision(deploymentId: string, revisionId: string): Promise<Deployment> {
    const path = `/v2/deployments/${enc(deploymentId)}/revisions/${enc(revisionId)}/redeploy`;
    return this.http.send({ method: 'POST', path, retry: 'write', schema: Deployment });
  }

  /** 8 */
  getRevision(deploymentId: string, revisionId: string): Promise<Revision> {
    const path = `/v2/deployments/${enc(deploymentId)}/revisions/${enc(revisionId)}`;
    return this.http.send({ method: 'GET', path, retry: 'read', schema: Revision });
  }

  /** 9 */
  listListeners(query: { limit?: number; offset?: number }): Promise<Page<Listener>> {
    return this.http.send({
      method: 'GET',
      path: '/v2/listeners',
      query: { ...query },
      retry: 'read',
      schema: ListenerPage,
    });
  }

  /** 10 */
  getListener(id: string): Promise<Listener> {
    return this.http.send({
      method: 'GET',
      path: `/v2/listeners/${enc(id)}`,
      retry: 'read',
      schema: Listener,
    });
  }

  /** The interface has no get-one-deployment endpoint: the list filtered by id stands in. */
  async getDeployment(id: string): Promise<Deployment | undefined> {
    const { resources } = await this.listDeployments({ deployment_ids: id, limit: 1 });
    return resources.find((d) => d.id === id);
  }
}

const enc = encodeURIComponent;
