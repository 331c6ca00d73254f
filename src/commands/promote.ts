import type { Mismatch } from '../core/outcome.ts';
import type { Promotion } from '../core/report.ts';
import type { Excerpt } from '../core/sinks.ts';
import { DEPLOYED } from '../core/result.ts';
import { findByName, findTarget } from '../deploy/lookup.ts';
import { FULL_COMMIT } from '../deploy/plan.ts';
import { checkDeploy, type DeploySettings, type Inputs, targetRef } from '../inputs/index.ts';
import { InputError } from '../core/errors.ts';
import { getRevision } from '../service/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import { HttpError } from '../service/errors.ts';
import { DeployError } from '../core/errors.ts';
import { type Deployment, type Revision, type Source, SOURCES, UUID } from '../service/schemas.ts';
import { code, esc } from '../shared/markdown.ts';
import type { Command, CommandContext } from './command.ts';
import { deploy, deployTo } from './deploy.ts';

interface PromoteSettings extends Omit<DeploySettings, 'command'> {
  command: 'promote';
  /** The source deployment: a name, or a uuid. */
  from: string;
  /** The source's revision to promote (the one evaluated); its active one when undefined. */
  fromRevisionId?: string;
}

/** An image pinned by its digest: the one reference a registry cannot point at another image later. */
const DIGEST = /@sha256:[0-9a-f]{64}$/;
/** The most of an image (the service's, up to 64 KiB) a message quotes: far beyond a real reference. */
const IMAGE_SHOWN = 500;

/** The inputs promote takes from the source revision instead, so they cannot be given. */
const FROM_SOURCE = {
  'repo-ref': (i: Inputs) => i.repoRefGiven,
  'image-uri': (i: Inputs) => i.deploy.imageUri !== undefined,
  source: (i: Inputs) => i.deploy.sourceGiven,
  'revision-source': (i: Inputs) => i.deploy.revisionSource !== undefined,
  'source-tarball-path': (i: Inputs) => i.deploy.sourceTarballPath !== undefined,
};

/**
 * Ships exactly what was tested: the source deployment's active DEPLOYED revision, or the one from-revision-id
 * names (its commit, or its image), to the target, found or created as deploy does, then followed as deploy does;
 * the target's revision must carry that commit, or that image.
 */
export const promote: Command<PromoteSettings> = {
  settings: (inputs: Inputs) => {
    if (!inputs.from)
      throw new InputError(
        'from',
        "is required for command 'promote'; give the name or uuid of the deployment whose active revision to promote.",
      );
    for (const [input, given] of Object.entries(FROM_SOURCE))
      if (given(inputs))
        throw new InputError(
          input,
          "cannot be used with command 'promote', which deploys the source revision's own commit or image; drop it.",
        );
    return {
      ...inputs.common,
      ...inputs.follow,
      ...inputs.deploy,
      command: 'promote',
      target: targetRef(inputs),
      from: inputs.from,
      fromRevisionId: inputs.fromRevisionId,
    };
  },
  run: promoteRun,
  writes: true,
  // A deploy's results (it deploys through deployTo), with its own heading for a revision gone live.
  results: [
    { ...DEPLOYED, headline: '✅ Promoted' },
    ...deploy.results.filter((kind) => kind !== DEPLOYED),
  ],
  outputs: (report) => ({
    'promoted-from': report.promotion?.fromId,
    'source-revision-id': report.promotion?.revisionId,
  }),
  summary: (report) => ({
    rows: [['Promoted from', report.promotion && promotedFrom(report.promotion)]],
  }),
};

async function promoteRun(ctx: CommandContext, settings: PromoteSettings): Promise<void> {
  const { client, report, log, excerpt } = ctx;
  report.phase = 'lookup';
  const source = await findSource(client, settings.from);
  const kind = kindOf(source.source, `'${source.name}', the deployment in from,`);
  const revision = settings.fromRevisionId
    ? await chosenRevision(client, source, settings.fromRevisionId)
    : await activeRevision(client, source);
  const promotion = promoted(source, revision, kind);
  report.promotion = promotion;
  if (promotion.image && !DIGEST.test(promotion.image)) {
    const warning = `Image ${excerpt(promotion.image, IMAGE_SHOWN)} of revision ${revision.id} of '${source.name}' has no digest (@sha256:…): its tag can point at another image between the evaluation and this promotion. Deploy '${source.name}' by digest (image-uri: name@sha256:…, e.g. with docker/build-push-action's digest output) and promote that revision.`;
    log.warning(warning);
    report.notes.push(warning);
  }

  const existing = await findTarget(client, settings.target);
  if (existing?.id === source.id)
    throw new DeployError(
      `from and the target both name deployment '${source.name}' (${source.id}): promote deploys one deployment's revision to another. Set name (or deployment-id) to the target.`,
    );
  if (existing && kindOf(existing.source, `target '${existing.name}'`) !== kind)
    throw new DeployError(
      `Target '${existing.name}' has source '${existing.source}' and '${source.name}' has '${source.source}': promote copies a codehost commit to a codehost deployment and a docker image to a docker deployment. Promote to a deployment of the same kind, or use another name.`,
    );
  const what = promotion.commit
    ? `commit ${promotion.commit}`
    : `image ${excerpt(promotion.image!, IMAGE_SHOWN)}`;
  log.info(
    `Promoting revision ${revision.id} of '${source.name}' (${what}) to '${existing?.name ?? settings.target.name}'.`,
  );
  const deploy: DeploySettings = {
    ...settings,
    command: 'deploy',
    // An existing target keeps its own source (of the same kind); a new one gets the source deployment's.
    source: (existing?.source ?? source.source) as Source,
    sourceGiven: false,
    repoRef: promotion.commit,
    graphConfigPath:
      settings.graphConfigPath ??
      (kind === 'codehost'
        ? (revision.source_revision_config.graph_config_path ?? undefined)
        : undefined),
    imageUri: promotion.image,
    // A new codehost target builds from the repository the commit is in.
    ...(!existing && kind === 'codehost'
      ? {
          integrationId: settings.integrationId ?? source.source_config.integration_id ?? undefined,
          repoUrl: settings.repoUrl ?? source.source_config.repo_url ?? undefined,
        }
      : {}),
  };
  checkDeploy(deploy, ctx.words);
  try {
    await deployTo(ctx, deploy, existing, (built) => notAsPromoted(built, promotion, excerpt));
  } catch (error) {
    if (promotion.commit && refusedWrite(error, report.phase))
      error.message += ` Promote sent repo_ref '${promotion.commit}', the commit of revision ${revision.id} of '${source.name}': a service that takes only branch or tag names as repo_ref refuses a commit sha. Tag that commit and deploy the tag (command: deploy, repo-ref: <tag>) instead.`;
    throw error;
  }
}

/** A create or PATCH the service refused as invalid (400, 422): nothing was written. */
function refusedWrite(error: unknown, phase: string | undefined): error is HttpError {
  return (
    error instanceof HttpError &&
    (error.status === 400 || error.status === 422) &&
    (phase === 'create' || phase === 'update')
  );
}

/** The deployment `from` names: by uuid when it is one and a deployment has it, else by exact name. */
async function findSource(client: ServiceClient, from: string): Promise<Deployment> {
  const byId = UUID.test(from);
  const found =
    (byId ? await client.getDeployment(from) : undefined) ?? (await findByName(client, from));
  if (found) return found;
  throw new DeployError(
    `Input 'from': no deployment ${byId ? 'has the id or the name' : 'is named'} '${from}' for this key and tenant; give the exact name (or the uuid) of the deployment to promote from. Nothing was written.`,
  );
}

type Kind = 'codehost' | 'docker';

/** What promote copies for a deployment of `source`: a commit, or an image. */
function kindOf(source: string, whose: string): Kind {
  if (source === 'codehost') return 'codehost';
  if (source === 'external_docker' || source === 'internal_docker') return 'docker';
  const known = (SOURCES as readonly string[]).includes(source);
  throw new DeployError(
    `${whose} has source '${source}'${known ? '' : ', which this action does not know'}: promote copies a codehost commit or a docker image (sources codehost, external_docker, internal_docker). Nothing was written.`,
  );
}

/** The source's active revision, read with endpoint 8; it must be DEPLOYED. */
async function activeRevision(client: ServiceClient, source: Deployment): Promise<Revision> {
  const id = source.active_revision_id;
  if (!id)
    throw new DeployError(
      `Deployment '${source.name}' (${source.id}) has no active revision, so there is nothing to promote: deploy it first. Nothing was written.`,
    );
  const revision = await client.send(getRevision(source.id, id));
  if (revision.status !== 'DEPLOYED')
    throw new DeployError(
      `Revision ${id}, the active revision of '${source.name}', is ${revision.status}, not DEPLOYED: only a live revision is promoted. Deploy '${source.name}' again, or wait until its revision is live. Nothing was written.`,
    );
  return revision;
}

/**
 * from-revision-id: that revision of the source, read with endpoint 8 on the source (a 404: it is not the source's),
 * which must have gone live; whether it is still the active one does not matter.
 */
async function chosenRevision(
  client: ServiceClient,
  source: Deployment,
  id: string,
): Promise<Revision> {
  const revision = await client.send({
    ...getRevision(source.id, id),
    notFound: `Check from and from-revision-id: ${id} is not a revision of deployment '${source.name}' (${source.id}), the deployment from names; set from to the deployment whose step gave that revision-id. Nothing was written.`,
  });
  if (revision.status !== 'DEPLOYED')
    throw new DeployError(
      `Revision ${id} of '${source.name}' (from-revision-id) is ${revision.status}, not DEPLOYED: only a revision that went live, and so could be evaluated, is promoted. Wait until it is DEPLOYED, or give the revision your evaluation ran against. Nothing was written.`,
    );
  return revision;
}

/** What is promoted: the revision's commit (codehost) or its image (docker), each required. */
function promoted(source: Deployment, revision: Revision, kind: Kind): Promotion {
  const config = revision.source_revision_config;
  const base = { fromId: source.id, fromName: source.name, revisionId: revision.id };
  if (kind === 'docker') {
    if (!config.image_uri)
      throw new DeployError(
        `Revision ${revision.id} of '${source.name}' has no image_uri, so there is no image to promote. Nothing was written.`,
      );
    return { ...base, image: config.image_uri };
  }
  const commit = config.repo_commit_sha;
  if (!commit)
    throw new DeployError(
      `Revision ${revision.id} of '${source.name}' has no repo_commit_sha: the service does not say which commit it runs, so promote cannot send that commit. Nothing was written.`,
    );
  // A full sha is what repo_ref gets, so the build cannot take another commit.
  if (!FULL_COMMIT.test(commit))
    throw new DeployError(
      `Revision ${revision.id} of '${source.name}' has repo_commit_sha '${commit}', which is not a full commit sha (40 or 64 hex digits): sent as repo_ref, it might build another commit. Nothing was written.`,
    );
  return { ...base, commit };
}

/**
 * command promote: undefined when the target's new revision carries what was promoted (its build of the commit, or
 * the image byte for byte), else why not, naming both (each image quoted through `excerpt`).
 */
function notAsPromoted(
  revision: Revision,
  promoted: Promotion,
  excerpt: Excerpt,
): Mismatch | undefined {
  const config = revision.source_revision_config;
  if (promoted.commit) {
    const built = config.repo_commit_sha;
    if (built?.toLowerCase() === promoted.commit.toLowerCase()) return undefined;
    const want = `commit ${promoted.commit} of revision ${promoted.revisionId} of '${promoted.fromName}', which was promoted`;
    return {
      why: built
        ? `was built from commit ${built}, not from ${want}`
        : `is DEPLOYED, but the service gives no repo_commit_sha for it, so it cannot be shown to be ${want}`,
      where: {
        phase: 'build',
        next: 'The service built another commit than the one sent as repo_ref: check that the target builds from the same repository as the source, and that the service takes a commit sha as repo_ref (see "Promote" in docs/decisions.md).',
      },
    };
  }
  const runs = config.image_uri;
  if (runs === promoted.image) return undefined;
  const want = `image ${excerpt(promoted.image!, IMAGE_SHOWN)} of revision ${promoted.revisionId} of '${promoted.fromName}', which was promoted`;
  return {
    why: runs
      ? `has image ${excerpt(runs, IMAGE_SHOWN)}, not ${want}`
      : `is DEPLOYED, but the service gives no image_uri for it, so it cannot be shown to be ${want}`,
    where: {
      phase: 'build',
      next: 'The service took another image than the one sent as image_uri: check what rewrites the image on the service (a registry mirror, a tag resolved again), and promote by digest (see "Promote" in docs/decisions.md).',
    },
  };
}

/** "staging (revision `…`, commit `…`)": what command promote deployed, and from where. */
function promotedFrom(p: Promotion): string {
  const what = p.commit ? `commit ${code(p.commit)}` : `image ${code(p.image ?? '')}`;
  return `${esc(p.fromName)} (revision ${code(p.revisionId)}, ${what})`;
}
