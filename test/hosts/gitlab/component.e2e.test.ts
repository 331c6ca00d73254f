// The CI/CD component's job run as a GitLab runner runs it: its inputs interpolated, its variables in the
// environment beside the job's CI_* ones and the masked key, its script through a shell. `npx` is a stand-in that
// checks it is asked for this release's package and runs the bundle (dist/cli.js) the package holds: the registry
// is not part of the test.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../../helpers/cli.ts';
import { gitLabDotenv } from '../../helpers/dotenv.ts';
import { PUSH_VARIABLES } from '../../helpers/gitlab.ts';
import { componentJobs } from '../../helpers/recipes.ts';
import { API_KEY, INTEGRATION, useSimulator } from '../../helpers/setup.ts';

const ctx = useSimulator();
const root = resolve(import.meta.dirname, '../../..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
};
const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-component-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npx --yes agent-deploy-action@<this version> <args>` runs the bundle; anything else fails the job. */
function standInNpx(): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const npx = join(bin, 'npx');
  writeFileSync(
    npx,
    [
      '#!/bin/sh',
      `if [ "$1" != --yes ] || [ "$2" != "agent-deploy-action@${version}" ]; then`,
      '  echo "npx $*: not the package of this release" >&2; exit 97',
      'fi',
      'shift 2',
      `exec "${process.execPath}" "${CLI}" "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(npx, 0o755);
  return bin;
}

describe('the component job', () => {
  it('deploys with its inputs, and hands RESULT and CUSTOM_URL on', async () => {
    ctx.sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
    const jobs = componentJobs({
      'base-url': ctx.sim.url,
      name: 'my-agent',
      'integration-id': INTEGRATION,
      'graph-config-path': 'graph.json',
      'custom-url': 'https://my-agent-$CI_PROJECT_ID.example',
      'poll-interval': '1s',
    });
    const job = jobs['agent-deploy'] as { variables: Record<string, string>; script: string[] };
    const work = join(dir, 'build');
    mkdirSync(work);
    const env = {
      PATH: [standInNpx(), dirname(process.execPath), process.env.PATH].join(delimiter),
      HOME: dir,
      ...PUSH_VARIABLES,
      CI_PROJECT_DIR: work,
      // A masked CI/CD variable of the project.
      AGENT_DEPLOY_API_KEY: API_KEY,
      // GitLab expands a variable's reference to another when it sets the job's.
      ...Object.fromEntries(
        Object.entries(job.variables).map(([name, value]) => [
          name,
          value.replaceAll('$CI_PROJECT_ID', PUSH_VARIABLES.CI_PROJECT_ID),
        ]),
      ),
    };

    const shell = spawn('sh', ['-ec', job.script.join('\n')], { cwd: work, env });
    let stderr = '';
    shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(shell, 'close')) as [number | null];

    expect(stderr).toContain('Result: deployed');
    expect(code).toBe(0);
    const outputs = gitLabDotenv(readFileSync(join(work, 'agent-deploy.env'), 'utf8'));
    expect(outputs).toMatchObject({
      RESULT: 'deployed',
      CUSTOM_URL: `https://my-agent-${PUSH_VARIABLES.CI_PROJECT_ID}.example`,
    });
    expect(readFileSync(join(work, 'agent-deploy-summary.md'), 'utf8')).toContain(
      '### ✅ Deployed: my-agent',
    );
    expect(ctx.sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
      source_config: { repo_url: 'https://codehost.example/acme/agent' },
    });
    // The stand-in is what ran: the job asks for no other package.
    expect(
      execFileSync('sh', ['-c', 'npx --yes left-pad 2>&1; echo $?'], { env, encoding: 'utf8' }),
    ).toContain('97');
  });
});
