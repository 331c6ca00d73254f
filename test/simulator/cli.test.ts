// npm run simulator (cli.ts) as a person runs it: its banner, its request log, its flags, on the system's clock.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { INTEGRATION } from '../helpers/setup.ts';
import { codehostCreate, waitFor } from '../helpers/simulator-client.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';

// Each test starts its own process on a port of its own: they run at once.
describe.concurrent('npm run simulator (cli.ts)', () => {
  const cliPath = `${import.meta.dirname}/cli.ts`;

  /** Starts cli.ts and reads its banner (up to the rate limit line); `next` reads the request lines after it. */
  async function startCli(args: string[]) {
    const cli = spawn(process.execPath, [cliPath, '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    const reader = createInterface({ input: cli.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const r = await reader.next();
      if (r.done) throw new Error(`cli.ts ended; it printed:\n${lines.join('\n')}`);
      lines.push(r.value);
      return r.value;
    };
    const stop = async () => {
      cli.kill('SIGTERM');
      // 'close', not 'exit': the process may exit before its last output has been read from the pipes.
      const [code] = await once(cli, 'close');
      return code as number | null;
    };
    try {
      const url = /^simulator listening on (http:\/\/\S+)$/.exec(await next())?.[1];
      expect(url).toBeDefined();
      while (!(await next()).startsWith('  AGENT_DEPLOY_API_KEY='));
      return { url: url!, banner: lines.join('\n'), next, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  }

  /** Runs cli.ts to its end: exit code and output. */
  async function runCli(args: string[]) {
    const cli = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
    cli.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // 'close', not 'exit': the process may exit before its last output has been read from the pipes.
    const [code] = await once(cli, 'close');
    return { code: code as number | null, out, err };
  }

  const key = { 'x-api-key': 'test-api-key', 'content-type': 'application/json' };

  /** Creates a deployment on a cli.ts simulator and polls its revision until `done`; answers the statuses seen. */
  async function createAndWatch(url: string, headers: Record<string, string>, done: string) {
    const created = await fetch(`${url}/v2/deployments`, {
      method: 'POST',
      headers: { ...key, ...headers },
      body: JSON.stringify(codehostCreate('cli-agent')),
    });
    expect(created.status).toBe(201);
    const dep = (await created.json()) as { id: string; latest_revision_id: string };
    const seen: string[] = [];
    await waitFor(async () => {
      const r = await fetch(`${url}/v2/deployments/${dep.id}/revisions/${dep.latest_revision_id}`, {
        headers: { ...key, ...headers },
      });
      const { status } = (await r.json()) as { status: string };
      if (seen.at(-1) !== status) seen.push(status);
      return status === done ? true : undefined;
    });
    return { dep, seen };
  }

  it('prints the inputs to use, then one line per answered request', async () => {
    const { url, banner, next, stop } = await startCli(['--rate-limit', '1']);
    try {
      expect(banner).toContain(`base-url:          ${url}`);
      expect(banner).toContain('api-key:           test-api-key');
      expect(banner).toContain(`integration-id:    ${INTEGRATION} (lists the repository`);
      expect(banner).toContain('revisions:         QUEUED 0.04 s → BUILDING 0.08 s');
      expect(banner).toContain('1 requests/s, then 429 with Retry-After: 1');
      // Every value a first deploy needs, and its command line: run where no origin names the
      // repository, it gives repo-url too.
      expect(banner).toContain('graph-config-path: any path, e.g. graph.json');
      expect(banner.split('\n').at(-1)).toMatch(
        new RegExp(
          `^ {2}AGENT_DEPLOY_API_KEY=test-api-key npm exec -- node dist/cli\\.js deploy --base-url ${url} --name my-agent --integration-id ${INTEGRATION} --graph-config-path graph\\.json( --repo-url https://codehost\\.example/\\S+)?$`,
        ),
      );

      const get = (path: string) => fetch(url + path, { headers: { 'x-api-key': 'test-api-key' } });
      expect((await get(`/v1/integrations/codehost/${INTEGRATION}/repos`)).status).toBe(200);
      expect((await get('/v2/deployments?limit=5')).status).toBe(429);
      const log = [await next(), await next()];
      expect(log[0]).toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} GET /v1/integrations/codehost/${INTEGRATION}/repos 200 \\d+ ms$`,
        ),
      );
      expect(log[1]).toMatch(/ GET \/v2\/deployments\?limit=5 429 \d+ ms$/);
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it('--help lists every flag, the failure paths apart, and the README names each of those', async () => {
    const { code, out } = await runCli(['--help']);
    expect(code).toBe(0);
    const [setup, failures] = out.split('Failure paths to try:');
    const flags = (text = '') => [...text.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!);
    expect(flags(setup)).toEqual(expect.arrayContaining(['--port', '--time-scale', '--help']));
    expect(flags(failures)).toEqual([
      '--fail-build',
      '--fail-deploy',
      '--slow-build',
      '--outage',
      '--outage-after',
      '--tenant-id',
      '--no-switch',
      '--rate-limit',
      '--retry-after',
    ]);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const local = readme.slice(readme.indexOf('## Run it locally'));
    const section = local.slice(0, local.indexOf('\n## ', 1));
    for (const flag of flags(failures)) expect(section, flag).toContain(flag);
  });

  it.each([
    [['--fail-build', '--fail-deploy'], /exclude each other/],
    [['--outage-after', '5'], /--outage-after needs --outage/],
    [['--slow-build', 'soon'], /bad --slow-build soon/],
    [['--tenant-id', 'acme'], /bad --tenant-id acme \(want a uuid\)/],
    [['--nope'], /Unknown option '--nope'.*--help lists the flags/],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const { code, err } = await runCli(args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it('--fail-build --tenant-id: builds fail, and only that tenant is served', async () => {
    const tenant = '22222222-2222-4222-8222-222222222222';
    const { url, banner, stop } = await startCli([
      '--fail-build',
      '--tenant-id',
      tenant,
      '--quiet',
    ]);
    try {
      expect(banner).toContain(`tenant-id:         ${tenant}`);
      expect(banner).toContain('revisions:         QUEUED 0.04 s → BUILDING 0.08 s → BUILD_FAILED');
      const list = (headers: Record<string, string>) =>
        fetch(`${url}/v2/deployments`, { headers: { ...key, ...headers } });
      expect((await list({})).status).toBe(403);
      expect((await list({ 'x-tenant-id': MISSING })).status).toBe(403);
      expect((await list({ 'x-tenant-id': tenant })).status).toBe(200);
      const { seen } = await createAndWatch(url, { 'x-tenant-id': tenant }, 'BUILD_FAILED');
      expect(seen).not.toContain('DEPLOYING');
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it('--fail-deploy --slow-build: a build of the given length, then DEPLOY_FAILED', async () => {
    const { url, banner, stop } = await startCli(['--fail-deploy', '--slow-build', '1', '--quiet']);
    try {
      expect(banner).toContain('BUILDING 1 s → DEPLOYING 0.06 s → DEPLOY_FAILED');
      const { seen } = await createAndWatch(url, {}, 'DEPLOY_FAILED');
      expect(seen).toContain('BUILDING');
      expect(seen).not.toContain('DEPLOYED');
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it('--outage answers 503 to everything; --no-switch leaves a DEPLOYED revision inactive', async () => {
    const down = await startCli(['--outage', '60', '--quiet']);
    try {
      expect(down.banner).toContain('every request answered 503 from the start for 60 s');
      for (const path of ['/v2/deployments', '/v2/listeners'])
        expect((await fetch(down.url + path, { headers: key })).status).toBe(503);
    } finally {
      expect(await down.stop()).toBe(0);
    }

    const stuck = await startCli(['--no-switch', '--quiet']);
    try {
      expect(stuck.banner).toContain('active revision:   never switches to a new one');
      const { dep } = await createAndWatch(stuck.url, {}, 'DEPLOYED');
      const r = await fetch(`${stuck.url}/v2/deployments?deployment_ids=${dep.id}`, {
        headers: key,
      });
      const { resources } = (await r.json()) as { resources: { active_revision_id: unknown }[] };
      expect(resources[0]?.active_revision_id).toBeNull();
    } finally {
      expect(await stuck.stop()).toBe(0);
    }
  });
});
