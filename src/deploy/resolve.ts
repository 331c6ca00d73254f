import type { Settings } from '../inputs.ts';
import type { ServiceClient } from '../service/client.ts';
import { DeployError, HttpError } from '../service/errors.ts';
import { allPages } from '../service/paging.ts';
import type { Listener, Repository } from '../service/schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHOWN = 10;

/** The integration's listed repository for GITHUB_REPOSITORY (owner and name compared case-insensitively). */
export async function resolveRepository(
  client: ServiceClient,
  settings: Settings,
): Promise<Repository> {
  const { integrationId, integrationKind, repository } = settings;
  if (!integrationId) {
    throw new DeployError(
      'integration-id is required to create a codehost deployment: give the uuid of the code-hosting integration.',
    );
  }
  if (!repository) {
    throw new DeployError(
      'repo-url is required outside GitHub Actions (GITHUB_REPOSITORY is not set): give the repository URL.',
    );
  }
  const repos = await client.listRepositories(integrationKind, integrationId);
  const want = `${repository.owner}/${repository.name}`.toLowerCase();
  const found = repos.find((r) => `${r.owner}/${r.name}`.toLowerCase() === want);
  if (found) return found;
  const visible = repos.slice(0, SHOWN).map((r) => `${r.owner}/${r.name}`);
  const more = repos.length > SHOWN ? ` and ${repos.length - SHOWN} more` : '';
  throw new DeployError(
    `Repository ${repository.owner}/${repository.name} is not among the ${repos.length} repositories integration ${integrationId} (${integrationKind}) can see${visible.length ? `: ${visible.join(', ')}${more}` : ''}. Grant the integration access to ${repository.owner}/${repository.name}, or set repo-url.`,
  );
}

/** A listener by uuid (read directly) or by compute_id (searched over all pages), with the namespace checked. */
export async function resolveListener(
  client: ServiceClient,
  ref: string,
  namespace: string | undefined,
): Promise<Listener> {
  let listener: Listener | undefined;
  if (UUID.test(ref)) {
    try {
      listener = await client.getListener(ref);
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) {
        throw new DeployError(
          `listener ${ref} does not exist; check the uuid, or give the listener's compute_id instead.`,
        );
      }
      throw error;
    }
  } else {
    const computeIds: string[] = [];
    for await (const l of allPages('GET /v2/listeners', (offset, limit) =>
      client.listListeners({ offset, limit }),
    )) {
      if (l.compute_id === ref) listener = l;
      computeIds.push(l.compute_id);
    }
    if (!listener) {
      const shown = computeIds.slice(0, SHOWN).join(', ') || 'none';
      throw new DeployError(
        `No listener has compute_id '${ref}'. Listeners: ${shown}${computeIds.length > SHOWN ? ', …' : ''}. Fix listener (a uuid or a compute_id).`,
      );
    }
  }
  const allowed = listener.compute_config.k8s_namespaces;
  if (namespace && allowed && !allowed.includes(namespace)) {
    throw new DeployError(
      `k8s-namespace '${namespace}' is not one of listener ${listener.compute_id}'s namespaces: ${allowed.join(', ') || 'none'}. Use one of them; nothing was written.`,
    );
  }
  return listener;
}
