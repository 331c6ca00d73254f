import type { DeploymentRef } from '../inputs/index.ts';
import { listDeployments } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { DeployError } from '../core/errors.ts';
import { allPages } from '../service/paging.ts';
import type { Deployment } from '../service/schemas.ts';
import { DoublingGap } from '../shared/time.ts';

/** How long a name is looked up again while the listing does not show a deployment that may have been created. */
export const LISTING_LAG_MS = 30_000;
/** The gaps between those lookups: from 1 s, doubling, at most 5 s. */
const LAG_GAP_FIRST_MS = 1000;
const LAG_GAP_MAX_MS = 5000;

/** The one deployment named exactly `name` (case-sensitive), over every page; two are an error. */
export async function findByName(
  client: ServiceClient,
  name: string,
): Promise<Deployment | undefined> {
  const matches: Deployment[] = [];
  const listing = allPages(
    'GET /v2/deployments',
    (offset, limit) => client.send(listDeployments({ name_contains: name, limit, offset })),
    'Narrow the name, or set deployment-id.',
  );
  for await (const deployment of listing) {
    if (deployment.name === name) matches.push(deployment);
  }
  if (matches.length > 1) {
    throw new DeployError(
      `${matches.length} deployments are named exactly '${name}': ${matches.map((d) => d.id).join(', ')}. Set deployment-id to the one to use; nothing was written.`,
    );
  }
  return matches[0];
}

/**
 * findByName, repeated while it finds nothing: at once, then at least every 5 s for up to 30 s, as a listing may lag
 * a read or more behind a create. `missed` is told after the first lookup that finds nothing. Answers the deployment,
 * when one showed, and the lookups made.
 */
export async function findListed(
  client: ServiceClient,
  name: string,
  missed: () => void,
): Promise<{ deployment?: Deployment; lookups: number }> {
  const { time, signal } = client.clock;
  const until = time.now() + LISTING_LAG_MS;
  const gap = new DoublingGap(LAG_GAP_FIRST_MS, LAG_GAP_MAX_MS);
  for (let lookups = 1; ; lookups++) {
    const deployment = await findByName(client, name);
    const left = until - time.now();
    if (deployment || left <= 0) return { deployment, lookups };
    if (lookups === 1) missed();
    await time.sleep(Math.min(gap.ms, left), signal);
    gap.grow();
  }
}

/** The deployment the inputs point at: by deployment-id (must exist) or by name (may not exist yet). */
export async function findTarget(
  client: ServiceClient,
  target: DeploymentRef,
): Promise<Deployment | undefined> {
  return target.id === undefined ? findByName(client, target.name) : findById(client, target);
}

/** The deployment of deployment-id, which must exist (and, when a name is given too, have that name). */
async function findById(
  client: ServiceClient,
  target: { id: string; name?: string },
): Promise<Deployment> {
  const deployment = await client.getDeployment(target.id);
  if (!deployment) {
    throw new DeployError(
      client.tenantId
        ? `deployment-id ${target.id} does not exist in tenant ${client.tenantId} (tenant-id), where this run looked; check the id, and that tenant-id names the tenant that owns it (deployment-id never creates).`
        : `deployment-id ${target.id} does not exist for this key (no tenant-id was sent); check the id, or set tenant-id when the deployment belongs to another of the key's tenants (deployment-id never creates).`,
    );
  }
  if (target.name && deployment.name !== target.name) {
    throw new DeployError(
      `deployment-id ${deployment.id} is named '${deployment.name}', not '${target.name}'; fix name or deployment-id.`,
    );
  }
  return deployment;
}

/** The deployment's name as the inputs give it, or its id: for messages before the lookup answers. */
export function describeTarget(target: DeploymentRef): string {
  return target.name ?? target.id ?? '';
}
