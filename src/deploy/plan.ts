// The plan: what a deploy with these inputs would change on a deployment, against what is live. One pure function of
// what the run would send, the deployment as listed, its active revision and what git said of the commit; live.ts
// reads those, and the commands decide what the answer means (a dry run shows it, skip-unchanged sends nothing when it
// is empty, drift reports it).
import type { Changes, FieldChange } from '../core/report.ts';
import {
  COMMIT_SHA as COMMIT,
  type Deployment,
  type PatchDeploymentBody,
  type Revision,
  type SourceConfigRequest,
} from '../service/schemas.ts';

/** A commit sha in full (SHA-1 or SHA-256): as repo_ref, the one commit a build can take. */
export const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

/** What a deploy would send: a PATCH's fields, or a create's (its fixed fields among them). */
export type Sent = Omit<PatchDeploymentBody, 'source_config'> & {
  source_config?: SourceConfigRequest;
};

/** The commit a codehost deploy would build, and what git found between the live one and it. */
export interface CommitFacts {
  /** The commit this run would build, when known. */
  sha?: string;
  /** Why it is not known (a ref that is not the event's). */
  unknown?: string;
  /** The files between the live commit and `sha`: asked only when both are known, differ, and paths are given. */
  diff?: { files: string[] } | { problem: string };
}

export interface PlanInput {
  sent: Sent;
  /** The deployment as listed; undefined when none exists yet (the deploy would create it). */
  deployment?: Deployment;
  /** Its active revision (endpoint 8); undefined when none is active. */
  active?: Revision;
  /** Only when the deploy sends a codehost repo_ref: the ref is what picks the commit. */
  commit?: CommitFacts;
  /** With `paths`, whether a file is one the deployment is built from: a commit touching none is no change. */
  paths?: InPaths;
}

/** Whether a file, a path from the repository's root, is among `paths` (inPaths). */
export type InPaths = (file: string) => boolean;

const REVISION_FIELDS = [
  'repo_ref',
  'image_uri',
  'graph_config_path',
  'source_tarball_path',
] as const;

/**
 * What a deploy of `sent` would change: each field it sets whose value differs from the live one, revision-level
 * fields against the active revision, the rest against the deployment. `resource_spec` key by key and `secrets` by
 * name, each list given replacing the live one; secret values are never compared (the service never returns them).
 * A field `sent` leaves out is not compared; a deployment that does not exist is a change (`deployment: created`).
 */
export function planChanges({ sent, deployment, active, commit, paths }: PlanInput): Changes {
  const changes: Changes = { fields: {}, why: {}, unverified: [] };
  const compare = (field: string, live: unknown, wanted: unknown) => {
    if (!same(live, wanted)) changes.fields[field] = { live: live ?? null, wanted: wanted ?? null };
  };
  if (!deployment) changes.fields.deployment = { live: null, wanted: 'created' };
  if (sent.revision_source !== undefined)
    compare('revision_source', active?.source, sent.revision_source);
  const live = active?.source_revision_config;
  for (const field of REVISION_FIELDS) {
    const wanted = sent.source_revision_config?.[field];
    if (wanted === undefined) continue;
    compare(field, live?.[field], wanted);
    if (field === 'repo_ref' && commit)
      planCommit(changes, commit, live?.repo_commit_sha ?? undefined, {
        deployment,
        active,
        paths,
      });
  }
  const config = deployment?.source_config;
  for (const [key, wanted] of Object.entries(sent.source_config ?? {})) {
    if (wanted === undefined) continue;
    if (key === 'resource_spec') planSpec(changes, config?.resource_spec, wanted);
    else if (key === 'listener_config')
      compare(
        'source_config.listener_config.k8s_namespace',
        config?.listener_config?.k8s_namespace,
        (wanted as { k8s_namespace?: string }).k8s_namespace,
      );
    else compare(`source_config.${key}`, config?.[key as keyof typeof config], wanted);
  }
  if (sent.secrets) planSecrets(changes, deployment?.secrets ?? [], sent.secrets);
  if (sent.secret_references)
    compare(
      'secret_references',
      byName(deployment?.secret_references ?? []),
      byName(sent.secret_references),
    );
  return changes;
}

/** `commit`: the live revision's against the one this run would build; with `paths`, only a change there counts. */
function planCommit(
  changes: Changes,
  facts: CommitFacts,
  live: string | undefined,
  { deployment, active, paths }: Pick<PlanInput, 'deployment' | 'active' | 'paths'>,
): void {
  const change = (wanted: string | null, why?: string) => {
    changes.fields.commit = { live: live ?? null, wanted };
    if (why) changes.why.commit = why;
  };
  const { sha } = facts;
  if (!deployment) return sha === undefined ? undefined : change(sha);
  if (sha === undefined) return change(null, facts.unknown);
  if (live === undefined)
    return change(
      sha,
      active
        ? `the active revision ${active.id} gives no repo_commit_sha`
        : 'no revision is active',
    );
  if (!COMMIT.test(live)) return change(sha, 'the live repo_commit_sha is not a commit sha');
  if (sameCommit(live, sha)) return;
  if (!diffNeeded(facts, live, paths !== undefined)) return change(sha);
  const { diff } = facts;
  if (!diff) return change(sha, 'the files between the two commits were not compared');
  if ('problem' in diff) return change(sha, `the commits could not be compared: ${diff.problem}`);
  const touched = diff.files.filter(paths!);
  if (touched.length)
    return change(
      sha,
      `${count(touched.length, 'changed file')} in paths: ${touched.slice(0, 5).join(', ')}${touched.length > 5 ? `, and ${touched.length - 5} more` : ''}`,
    );
  changes.commitNote = `Commit ${live} → ${sha} changes ${count(diff.files.length, 'file')}, none in paths: no change to this deployment.`;
}

/**
 * The two commits whose files the plan needs (git diff), or undefined: both known, different, and `paths` given to
 * tell a change of this deployment from one of another.
 */
export function diffNeeded(
  facts: CommitFacts,
  live: string | null | undefined,
  withPaths: boolean,
): { from: string; to: string } | undefined {
  const { sha } = facts;
  if (!sha || !live || !COMMIT.test(live) || sameCommit(live, sha) || !withPaths) return undefined;
  return { from: live, to: sha };
}

/** A whole sha equals its abbreviation: services and CIs give either. */
function sameCommit(a: string, b: string): boolean {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x.startsWith(y) || y.startsWith(x);
}

/**
 * The test of a file against `paths`: it matches a glob and no `!` glob; a list of `!` globs alone takes every other
 * file. Dot files match like any other (`agent-a/**` takes `agent-a/.env`). The glob library is loaded here, for a
 * plan that compares files, so that no other run parses it.
 */
export async function inPaths(paths: readonly string[]): Promise<InPaths> {
  const { default: picomatch } = await import('picomatch/posix.js');
  const include = paths.filter((p) => !p.startsWith('!'));
  const exclude = paths.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const options = { dot: true };
  const taken = picomatch(include.length ? include : ['**'], options);
  const left = exclude.length ? picomatch(exclude, options) : () => false;
  return (file) => taken(file) && !left(file);
}

/** `resource_spec.<path>`: the given spec replaces the live one, so a live key it lacks is removed. */
function planSpec(changes: Changes, live: unknown, wanted: unknown): void {
  const before = leaves(live);
  const after = leaves(wanted);
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const change: FieldChange = { live: before.get(path) ?? null, wanted: after.get(path) ?? null };
    if (!same(change.live, change.wanted)) changes.fields[`resource_spec.${path}`] = change;
  }
}

/** An object's values by dotted path (`labels.team`); a list is one value, and an empty one none. */
function leaves(
  value: unknown,
  prefix = '',
  into = new Map<string, unknown>(),
): Map<string, unknown> {
  if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, `${prefix}${key}.`, into);
  } else if (normal(value) !== null) into.set(prefix.slice(0, -1), value);
  return into;
}

/** `secrets.<NAME>` by name: added or removed. A name on both sides has a value that cannot be read back. */
function planSecrets(
  changes: Changes,
  live: readonly { name: string }[],
  wanted: readonly { name: string }[],
): void {
  const had = new Set(live.map((s) => s.name));
  const has = new Set(wanted.map((s) => s.name));
  for (const name of has)
    if (had.has(name)) changes.unverified.push(name);
    else changes.fields[`secrets.${name}`] = { live: null, wanted: 'added' };
  for (const name of had)
    if (!has.has(name)) changes.fields[`secrets.${name}`] = { live: 'set', wanted: 'removed' };
}

function byName<T extends { name: string }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Equal as data: objects whatever their keys' order; none, null, an empty list and an empty object alike. */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b));
}

function normal(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.length ? value.map(normal) : null;
  if (!isObject(value)) return value;
  const entries = Object.keys(value)
    .sort()
    .map((key) => [key, normal(value[key])] as const)
    .filter(([, inner]) => inner !== null);
  return entries.length ? Object.fromEntries(entries) : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * The commit a deploy of `ref` builds: a full sha names itself; the event's own ref (the default, or given as the
 * same) is at the event's commit; any other ref's commit is not known here.
 */
export function commitOf(
  ref: string | undefined,
  event: { ref?: string; commit?: string },
): Pick<CommitFacts, 'sha' | 'unknown'> {
  if (ref === undefined) return { unknown: 'no ref is known' };
  if (FULL_COMMIT.test(ref)) return { sha: ref.toLowerCase() };
  const short = (r: string) => r.replace(/^refs\/heads\//, '');
  if (event.ref === undefined || short(event.ref) !== short(ref))
    return {
      unknown: `repo-ref '${ref}' is not the ref of this run's event${event.ref ? ` ('${event.ref}')` : ''}, so the commit it is at is not known here`,
    };
  if (!event.commit || !COMMIT.test(event.commit))
    return { unknown: `the CI names no commit for ref '${ref}'` };
  return { sha: event.commit.toLowerCase() };
}
