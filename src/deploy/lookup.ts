import type { Settings } from '../inputs.ts';
import type { ServiceClient } from '../service/client.ts';
import { DeployError } from '../service/errors.ts';
import { allPages } from '../service/paging.ts';
import type { Deployment } from '../service/schemas.ts';

/** The one deployment named exactly `name` (case-sensitive), over every page; two are an error. */
export async function findByName(
  client: ServiceClient,
  name: string,
): Promise<Deployment | undefined> {
  const matches: Deployment[] = [];
  const listing = allPages('GET /v2/deployments', (offset, limit) =>
    client.listDeployments({ name_contains: name, limit, offset }),
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

/** The deployment the inputs point at: by deployment-id (must exist) or by name (may not exist yet). */
export async function findTarget(
  client: ServiceClient,
  settings: Settings,
): Promise<Deployment | undefined> {
  if (!settings.deploymentId) return findByName(client, settings.name!);
  const deployment = await client.getDeployment(settings.deploymentId);
  if (!deployment) {
    throw new DeployError(
      `deployment-id ${settings.deploymentId} does not exist for this key and tenant; check the id (deployment-id never creates).`,
    );
  }
  if (settings.name && deployment.name !== settings.name) {
    throw new DeployError(
      `deployment-id ${deployment.id} is named '${deployment.name}', not '${settings.name}'; fix name or deployment-id.`,
    );
  }
  return deployment;
}
