import type { DeploySettings } from '../inputs/index.ts';
import {
  getListener,
  listListeners as listListenersCall,
  listRepositories,
} from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { HttpError } from '../service/errors.ts';
import { DeployError } from '../core/errors.ts';
import { allPages } from '../service/paging.ts';
import { type Listener, type Repository, UUID } from '../service/schemas.ts';
import { sameRepoUrl } from '../shared/url.ts';

const SHOWN = 10;

/**
 * The integration's listed repository: the one whose url is repo-url when that is given, else the one for the
 * host's repository (GITHUB_REPOSITORY, CI_PROJECT_PATH, the checkout's origin; owner and name compared
 * case-insensitively). The inputs are checked first (request.ts: checkCreatable): an integration and one of the two.
 */
export async function resolveRepository(
  client: ServiceClient,
  settings: DeploySettings & { integrationId: string },
): Promise<Repository> {
  const { integrationId, integrationKind, repository, repoUrl } = settings;
  const want = repoUrl ?? `${repository?.owner}/${repository?.name}`;
  const repos = await client.send(listRepositories(integrationKind, integrationId));
  const found = repos.find((r) =>
    repoUrl
      ? sameRepoUrl(r.url, repoUrl)
      : `${r.owner}/${r.name}`.toLowerCase() === want.toLowerCase(),
  );
  if (found) return found;
  throw new DeployError(
    `Repository ${want} is not among the repositories integration ${integrationId} (integration-kind ${integrationKind}) can see: ${shown(
      repos.map((r) => `${r.owner}/${r.name}`),
    )}. Grant the integration access to ${want} in the code host's settings${repoUrl ? ', or fix repo-url' : ', or set repo-url'}.`,
  );
}

/**
 * A listener by uuid (GET one) or by compute_id (searched over every page), with the namespace checked. Each
 * mismatch is an error before any write that lists what exists.
 */
export async function resolveListener(
  client: ServiceClient,
  ref: string,
  namespace: string | undefined,
): Promise<Listener> {
  let listener: Listener | undefined;
  if (UUID.test(ref)) {
    try {
      listener = await client.send(getListener(ref));
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 404)) throw error;
    }
  }
  // Not a uuid, or no listener has that id: a compute_id may look like a uuid too.
  let all: Listener[] | undefined;
  if (!listener) {
    all = await listListeners(client);
    listener = all.find((l) => l.compute_id === ref);
  }
  if (!listener) {
    const kind = UUID.test(ref) ? 'id or compute_id' : 'compute_id';
    throw new DeployError(
      `No listener has the ${kind} '${ref}'. Listeners (compute_id: id): ${shown(
        all!.map((l) => `${l.compute_id}: ${l.id}`),
      )}. Fix listener (a uuid or a compute_id); nothing was written.`,
    );
  }
  const allowed = listener.compute_config.k8s_namespaces;
  if (namespace && allowed && !allowed.includes(namespace)) {
    throw new DeployError(
      `k8s-namespace '${namespace}' is not one of listener ${listener.compute_id}'s namespaces: ${allowed.join(', ') || 'none'}. Use one of them; nothing was written.`,
    );
  }
  return listener;
}

async function listListeners(client: ServiceClient): Promise<Listener[]> {
  const all: Listener[] = [];
  for await (const l of allPages(
    'GET /v2/listeners',
    (offset, limit) => client.send(listListenersCall({ offset, limit })),
    'Give listener as its uuid, which is read directly.',
  ))
    all.push(l);
  return all;
}

/** Up to SHOWN items, then how many were left out. */
function shown(items: string[]): string {
  if (items.length === 0) return 'none';
  const more = items.length > SHOWN ? ` and ${items.length - SHOWN} more` : '';
  return `${items.slice(0, SHOWN).join(', ')}${more}`;
}
