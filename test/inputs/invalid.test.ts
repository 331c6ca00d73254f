// Every input the action refuses, refused the same way: the run fails with one line that names the input and the
// accepted form, never quotes a secret, and sends no request at all. The whole run in-process, the table at once.
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, useWorld } from '../helpers/run.ts';
import { baseInputs, INTEGRATION } from '../helpers/setup.ts';

const world = useWorld();
const UUID = '22222222-2222-4222-8222-222222222222';
const SECRET = 'hunter2-not-for-logs';

// [the input the error must name, the inputs that differ from a valid codehost deploy]
const CASES: [string, Record<string, string>][] = [
  ['command', { command: 'deploi' }],
  ['base-url', { 'base-url': 'http://deploy.example.com' }],
  ['base-url', { 'base-url': 'deploy.example.com' }],
  ['api-key', { 'api-key': '' }],
  ['tenant-id', { 'tenant-id': 'acme' }],
  // The key pasted into the wrong input: not quoted, not even its first characters.
  [
    'tenant-id',
    { 'api-key': `${SECRET}-${SECRET}-${SECRET}`, 'tenant-id': `${SECRET}-${SECRET}-${SECRET}` },
  ],
  ['deployment-id', { 'deployment-id': '1234' }],
  ['integration-id', { 'integration-id': 'integration-1' }],
  ['source', { source: 'docker' }],
  ['deployment-type', { 'deployment-type': 'staging' }],
  ['integration-kind', { 'integration-kind': 'gitlab' }],
  ['wait', { wait: 'yes' }],
  ['dry-run', { 'dry-run': '1' }],
  ['timeout', { timeout: '10 minutes' }],
  ['timeout', { timeout: '7h' }],
  ['poll-interval', { 'poll-interval': '500ms' }],
  ['poll-interval', { 'poll-interval': '0s' }],
  ['secrets', { secrets: `API_TOKEN=${SECRET}\n${SECRET}` }],
  ['secrets', { secrets: `1TOKEN=${SECRET}` }],
  // A stray second line of a value, with '=' in it: named by its line, never quoted.
  ['secrets', { secrets: `CERT=MIIB\n${SECRET}+pad=` }],
  ['secrets', { secrets: `TOKEN=${SECRET}\nTOKEN=other` }],
  ['secrets', { secrets: `{"TOKEN": "${SECRET}",}` }],
  ['secrets', { secrets: `{"TOKEN": 42}` }],
  ['secret-references', { 'secret-references': 'DB=db-creds/password' }],
  [
    'secret-references',
    { source: 'external_docker', 'image-uri': 'r.example/a:1', 'secret-references': 'DB=db-creds' },
  ],
  ['resource-spec', { 'resource-spec': 'min_scale: 1\nmax_scael: 3' }],
  ['resource-spec', { 'resource-spec': 'min_scale: [1' }],
  ['resource-spec', { 'resource-spec': 'min_scale: many' }],
  ['resource-spec', { 'resource-spec': '@deploy/missing.yaml' }],
  ['resource-spec', { 'resource-spec': '@../outside.yaml' }],
  ['image-uri', { source: 'codehost', 'image-uri': 'r.example/a:1' }],
  // A second line would go into the PATCH with it.
  ['image-uri', { 'image-uri': 'r.example/a:1\nr.example/b:2' }],
  ['image-uri', { 'image-uri': 'r.example/a:1 --privileged' }],
  ['image-uri', { 'image-uri': 'r.example/a:1\u200b' }],
  ['from-revision-id', { command: 'promote', from: 'staging', 'from-revision-id': 'latest' }],
  ['k8s-namespace', { 'k8s-namespace': 'team-a' }],
  ['token-id', { command: 'token-metadata' }],
  ['provider-account-label', { command: 'token-metadata', 'token-id': UUID }],
  ['revision-id', { command: 'redeploy' }],
  ['revision-id', { command: 'redeploy', 'revision-id': 'latest' }],
  ['name', { name: '' }],
  ['build-on-push', { 'build-on-push': 'true', 'repo-ref': 'refs/tags/v1.2.0' }],
  ['build-on-push', { 'build-on-push': 'on' }],
  ['max-parallel', { 'max-parallel': '17' }],
  ['fail-fast', { 'fail-fast': 'maybe' }],
  ['skip-unchanged', { 'skip-unchanged': 'yes' }],
  ['paths', { paths: '/agents/a/**' }],
  ['paths', { paths: 'agents/a/**, ../shared/**' }],
  ['paths', { paths: 'agents\\a\\**' }],
  ['paths', { paths: ' , \n' }],
  ['deployments', { name: '', deployments: '[{name: a, paths: [agents/a/**, 7]}]' }],
  ['deployments', { name: '', deployments: '[]' }],
  ['deployments', { name: '', deployments: `- name: a\n  secrets: API_TOKEN=${SECRET}` }],
];

const messages = new Map<string, string>();

describe('an invalid input fails the step before any request', () => {
  it.each(CASES)('%s: %j', async (input, changed) => {
    const { sim } = world;
    const run = await runInProcess(world, {
      inputs: baseInputs(sim, {
        name: 'my-agent',
        'integration-id': INTEGRATION,
        'graph-config-path': 'graph.json',
        ...changed,
      }),
    });

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(run.errors).toHaveLength(1);
    const message = run.errors[0]!;
    expect(message).toMatch(new RegExp(`^Input '${input}'`));
    expect(message).not.toContain('\n');
    expect(message).not.toContain(SECRET);
    expect(run.stdout.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(1);
    expect(sim.requests).toEqual([]);
    messages.set(`${input} ${JSON.stringify(changed)}`, message);
  });

  afterAll(() => {
    // Every case has its own message: each says what is wrong with that value, not a generic "invalid".
    const seen = new Map<string, string>();
    for (const [label, message] of messages) {
      expect(seen.get(message), `${label} repeats the message of ${seen.get(message)}`).toBe(
        undefined,
      );
      seen.set(message, label);
    }
  });
});
