// The plan's comparison on its own (deploy/plan.ts): what a deploy would send against the live deployment and its
// active revision, field by field, table by table. Pure: no service, no git (what git found is an input).
import { describe, expect, it } from 'vitest';
import {
  commitOf,
  type CommitFacts,
  inPaths,
  type PlanInput,
  planChanges,
  type Sent,
} from '../../src/deploy/plan.ts';
import type { Deployment, Revision } from '../../src/service/schemas.ts';

const LIVE_SHA = '1'.repeat(40);
const NEW_SHA = '2'.repeat(40);
const ACTIVE = '33333333-3333-4333-8333-333333333333';

function deployment(over: Partial<Deployment> = {}, config: object = {}): Deployment {
  return {
    id: '44444444-4444-4444-8444-444444444444',
    name: 'agent-a',
    source: 'codehost',
    source_config: {
      custom_url: 'https://a.example',
      build_on_push: false,
      install_command: 'pip install -r requirements.txt',
      resource_spec: { min_scale: 1, memory_mb: 1024, cpu: null, labels: { team: 'a' } },
      listener_config: { k8s_namespace: 'agents' },
      ...config,
    },
    source_revision_config: { repo_ref: 'main' },
    secrets: [{ name: 'API_KEY' }, { name: 'DB_URL' }],
    tenant_id: '55555555-5555-4555-8555-555555555555',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'READY',
    latest_revision_id: ACTIVE,
    active_revision_id: ACTIVE,
    secret_references: [
      { name: 'B', secret_name: 'b', secret_key: 'k' },
      { name: 'A', secret_name: 'a', secret_key: 'k' },
    ],
    ...over,
  };
}

function revision(config: Partial<Revision['source_revision_config']> = {}): Revision {
  return {
    id: ACTIVE,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'DEPLOYED',
    source: 'codehost',
    source_revision_config: {
      repo_ref: 'main',
      graph_config_path: 'agents/a/graph.json',
      image_uri: null,
      source_tarball_path: null,
      repo_commit_sha: LIVE_SHA,
      ...config,
    },
  };
}

const plan = (sent: Sent, extra: Partial<PlanInput> = {}) =>
  planChanges({ sent, deployment: deployment(), active: revision(), ...extra });

describe('a field against the live value', () => {
  it.each<[string, Sent, Record<string, { live: unknown; wanted: unknown }>]>([
    [
      'the same values: nothing',
      {
        source_revision_config: { repo_ref: 'main', graph_config_path: 'agents/a/graph.json' },
        source_config: { custom_url: 'https://a.example', build_on_push: false },
      },
      {},
    ],
    ['nothing given: nothing compared', {}, {}],
    [
      'a revision-level field, against the active revision',
      { source_revision_config: { repo_ref: 'release', graph_config_path: 'b.json' } },
      {
        repo_ref: { live: 'main', wanted: 'release' },
        graph_config_path: { live: 'agents/a/graph.json', wanted: 'b.json' },
      },
    ],
    [
      'a field the active revision lacks',
      { source_revision_config: { source_tarball_path: 'src.tgz' } },
      { source_tarball_path: { live: null, wanted: 'src.tgz' } },
    ],
    [
      'source_config fields, each by name',
      { source_config: { custom_url: 'https://b.example', build_command: 'make' } },
      {
        'source_config.custom_url': { live: 'https://a.example', wanted: 'https://b.example' },
        'source_config.build_command': { live: null, wanted: 'make' },
      },
    ],
    [
      "the listener's namespace",
      { source_config: { listener_config: { k8s_namespace: 'other' } } },
      {
        'source_config.listener_config.k8s_namespace': { live: 'agents', wanted: 'other' },
      },
    ],
    [
      'revision_source, against the active revision’s source',
      { revision_source: 'internal_source' },
      { revision_source: { live: 'codehost', wanted: 'internal_source' } },
    ],
    [
      'secret_references as a list, whatever its order',
      {
        secret_references: [
          { name: 'A', secret_name: 'a', secret_key: 'k' },
          { name: 'B', secret_name: 'b', secret_key: 'k' },
        ],
      },
      {},
    ],
  ])('%s', (_, sent, fields) => {
    expect(plan(sent).fields).toEqual(fields);
  });

  it('an image, for a docker deployment', () => {
    const docker = deployment({ source: 'external_docker' });
    const active = revision({ image_uri: 'r.example/a:1', repo_ref: null, repo_commit_sha: null });
    expect(
      planChanges({
        sent: { source_revision_config: { image_uri: 'r.example/a:2' } },
        deployment: docker,
        active,
      }).fields,
    ).toEqual({ image_uri: { live: 'r.example/a:1', wanted: 'r.example/a:2' } });
  });

  it('no active revision: every revision-level field given is a change', () => {
    expect(
      planChanges({
        sent: { source_revision_config: { repo_ref: 'main' } },
        deployment: deployment({ active_revision_id: null }),
      }).fields,
    ).toEqual({ repo_ref: { live: null, wanted: 'main' } });
  });
});

describe('resource_spec, key by key', () => {
  it.each<[string, object, Record<string, { live: unknown; wanted: unknown }>]>([
    [
      'the same spec, keys in another order, a live null left out',
      { labels: { team: 'a' }, memory_mb: 1024, min_scale: 1 },
      {},
    ],
    [
      'a changed key, and a live key the given spec lacks is removed',
      { min_scale: 1, memory_mb: 2048 },
      {
        'resource_spec.memory_mb': { live: 1024, wanted: 2048 },
        'resource_spec.labels.team': { live: 'a', wanted: null },
      },
    ],
    [
      'a new key, inside an object too',
      { min_scale: 1, memory_mb: 1024, labels: { team: 'a', tier: 'web' }, max_scale: 3 },
      {
        'resource_spec.labels.tier': { live: null, wanted: 'web' },
        'resource_spec.max_scale': { live: null, wanted: 3 },
      },
    ],
    [
      'a list is one value',
      {
        min_scale: 1,
        memory_mb: 1024,
        labels: { team: 'a' },
        image_pull_secrets: [{ name: 'reg' }],
      },
      { 'resource_spec.image_pull_secrets': { live: null, wanted: [{ name: 'reg' }] } },
    ],
  ])('%s', (_, spec, fields) => {
    expect(plan({ source_config: { resource_spec: spec } }).fields).toEqual(fields);
  });
});

describe('secrets, by name', () => {
  it('a given list replaces the live one: added, removed, and a name on both sides unverified', () => {
    const changes = plan({
      secrets: [
        { name: 'API_KEY', value: 'new-value' },
        { name: 'NEW_TOKEN', value: 'x' },
      ],
    });
    expect(changes.fields).toEqual({
      'secrets.NEW_TOKEN': { live: null, wanted: 'added' },
      'secrets.DB_URL': { live: 'set', wanted: 'removed' },
    });
    expect(changes.unverified).toEqual(['API_KEY']);
    expect(JSON.stringify(changes)).not.toContain('new-value');
  });

  it('not given: not compared', () => {
    expect(plan({ source_revision_config: { repo_ref: 'main' } }).unverified).toEqual([]);
  });
});

describe('commit', () => {
  const sent: Sent = { source_revision_config: { repo_ref: 'main' } };
  const withCommit = async (commit: CommitFacts, paths?: string[], active = revision()) =>
    planChanges({
      sent,
      deployment: deployment(),
      active,
      commit,
      paths: paths && (await inPaths(paths)),
    });

  it.each<[string, CommitFacts, string[] | undefined, unknown, string | undefined]>([
    ['the same commit', { sha: LIVE_SHA }, undefined, undefined, undefined],
    ['the same, abbreviated', { sha: LIVE_SHA.slice(0, 12) }, undefined, undefined, undefined],
    ['another commit', { sha: NEW_SHA }, undefined, { live: LIVE_SHA, wanted: NEW_SHA }, undefined],
    [
      'not known: changed, saying why',
      { unknown: "repo-ref 'release' is not the ref of this run's event" },
      undefined,
      { live: LIVE_SHA, wanted: null },
      "repo-ref 'release' is not the ref of this run's event",
    ],
    [
      'another commit touching a file in paths',
      { sha: NEW_SHA, diff: { files: ['README.md', 'agents/a/main.py'] } },
      ['agents/a/**'],
      { live: LIVE_SHA, wanted: NEW_SHA },
      '1 changed file in paths: agents/a/main.py',
    ],
    [
      'another commit touching only files outside paths: no change',
      { sha: NEW_SHA, diff: { files: ['README.md', 'agents/b/main.py'] } },
      ['agents/a/**'],
      undefined,
      undefined,
    ],
    [
      'paths, and the commits could not be compared (a shallow clone): changed, saying why',
      { sha: NEW_SHA, diff: { problem: 'commit 111 is not in the checkout' } },
      ['agents/a/**'],
      { live: LIVE_SHA, wanted: NEW_SHA },
      'the commits could not be compared: commit 111 is not in the checkout',
    ],
  ])('%s', async (_, facts, paths, change, why) => {
    const changes = await withCommit(facts, paths);
    expect(changes.fields.commit).toEqual(change);
    expect(changes.why.commit).toEqual(why);
  });

  it('outside paths, the plan says why the commit is no change', async () => {
    const changes = await withCommit({ sha: NEW_SHA, diff: { files: ['README.md'] } }, [
      'agents/a/**',
    ]);
    expect(changes.commitNote).toBe(
      `Commit ${LIVE_SHA} → ${NEW_SHA} changes 1 file, none in paths: no change to this deployment.`,
    );
  });

  it('no live commit to compare with: changed, saying why', async () => {
    const changes = await withCommit(
      { sha: NEW_SHA },
      undefined,
      revision({ repo_commit_sha: null }),
    );
    expect(changes.fields.commit).toEqual({ live: null, wanted: NEW_SHA });
    expect(changes.why.commit).toBe(`the active revision ${ACTIVE} gives no repo_commit_sha`);
  });

  it('not compared when the deploy sends no repo_ref (the ref picks the commit)', () => {
    const changes = planChanges({
      sent: { source_revision_config: { graph_config_path: 'agents/a/graph.json' } },
      deployment: deployment(),
      active: revision(),
      commit: { sha: NEW_SHA },
    });
    expect(changes.fields).toEqual({});
  });
});

it('a deployment that does not exist yet is a change: created, with what the create sends', () => {
  const changes = planChanges({
    sent: {
      source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
      source_config: { deployment_type: 'dev', resource_spec: { min_scale: 1 } },
      secrets: [],
    },
    commit: { sha: NEW_SHA },
  });
  expect(changes.fields).toEqual({
    deployment: { live: null, wanted: 'created' },
    repo_ref: { live: null, wanted: 'main' },
    commit: { live: null, wanted: NEW_SHA },
    graph_config_path: { live: null, wanted: 'graph.json' },
    'source_config.deployment_type': { live: null, wanted: 'dev' },
    'resource_spec.min_scale': { live: null, wanted: 1 },
  });
});

describe('paths', () => {
  it.each<[string[], string, boolean]>([
    [['agent-a/**'], 'agent-a/src/main.py', true],
    [['agent-a/**'], 'agent-a/.env.example', true],
    [['agent-a/**'], 'agent-b/src/main.py', false],
    [['agent-a/**'], 'agent-a-old/x', false],
    [['agent-a/{src,tests}/**'], 'agent-a/tests/t.py', true],
    [['agent-a/**', '!agent-a/docs/**'], 'agent-a/docs/index.md', false],
    [['agent-a/**', '!agent-a/docs/**'], 'agent-a/main.py', true],
    [['!docs/**'], 'agent-a/main.py', true],
    [['!docs/**'], 'docs/index.md', false],
    [['*.md'], 'docs/index.md', false],
  ])('%j takes %s: %s', async (paths, file, taken) => {
    expect((await inPaths(paths))(file)).toBe(taken);
  });
});

describe('the commit a deploy of a ref builds', () => {
  const event = { ref: 'main', commit: NEW_SHA.toUpperCase() };
  it.each<[string | undefined, { ref?: string; commit?: string }, object]>([
    ['main', event, { sha: NEW_SHA }],
    ['refs/heads/main', event, { sha: NEW_SHA }],
    [LIVE_SHA, event, { sha: LIVE_SHA }],
    [
      'release',
      event,
      {
        unknown:
          "repo-ref 'release' is not the ref of this run's event ('main'), so the commit it is at is not known here",
      },
    ],
    ['main', { ref: 'main' }, { unknown: "the CI names no commit for ref 'main'" }],
    [
      'main',
      {},
      {
        unknown:
          "repo-ref 'main' is not the ref of this run's event, so the commit it is at is not known here",
      },
    ],
  ])('%s (event %j)', (ref, ev, facts) => {
    expect(commitOf(ref, ev)).toEqual(facts);
  });
});
