// The command line as an npm package, as a user gets it: `npm run package` packs the committed dist/; the tarball
// installs with `npm i -g` into a prefix of its own, offline, bringing nothing else; and the installed
// `agent-deploy` prints its help (from the action.yml it carries) and deploys.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_FILES } from '../../../scripts/package.ts';
import { API_KEY, baseInputs, useSimulator } from '../../helpers/setup.ts';
import { HANG_GUARD_MS } from '../../helpers/hang-guard.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const ctx = useSimulator();
const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-package-'));
const prefix = join(dir, 'prefix');
// The bin's `#!/usr/bin/env node` finds the Node 24 that runs the tests first.
const PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
let tarball = '';

beforeAll(() => {
  tarball = execFileSync(
    process.execPath,
    [join(ROOT, 'scripts/package.ts'), '--out', join(dir, 'out')],
    { encoding: 'utf8' },
  ).trim();
  execFileSync(
    'npm',
    ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
    { env: { ...process.env, PATH }, stdio: 'ignore' },
  );
}, HANG_GUARD_MS);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The installed bin, run as a shell runs it (not spawnSync: the simulator answers on this process's loop). */
async function agentDeploy(args: string[], env: Record<string, string> = {}) {
  const child = spawn(join(prefix, 'bin', 'agent-deploy'), args, {
    cwd: dir,
    env: { PATH, HOME: dir, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

describe('the npm package', () => {
  it('holds dist/, action.yml and the README, and a manifest with no dependency and no script', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const top = new Set(files.map((file) => file.replace(/^package\//, '').split('/')[0]));
    expect([...top].sort()).toEqual(
      ['package.json', ...PACKAGE_FILES.map((file) => file.replace(/\/$/, ''))].sort(),
    );
    const manifest = JSON.parse(
      execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }),
    ) as Record<string, unknown>;
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      name: own.name,
      version: own.version,
      bin: { 'agent-deploy': 'dist/cli.js' },
      engines: own.engines,
    });
    for (const field of [
      'private',
      'scripts',
      'dependencies',
      'optionalDependencies',
      'devDependencies',
      'peerDependencies',
      'bundleDependencies',
    ])
      expect(manifest, field).not.toHaveProperty([field]);
  });

  it('installs nothing else', () => {
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['agent-deploy-action']);
    expect(readdirSync(join(prefix, 'lib', 'node_modules', 'agent-deploy-action')).sort()).toEqual(
      ['README.md', 'action.yml', 'dist', 'package.json'].sort(),
    );
  });

  it('agent-deploy --help lists the inputs of the action.yml it carries', async () => {
    const run = await agentDeploy(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: agent-deploy <command>/);
    expect(run.stdout).toContain('  --base-url <value>  (required)');
  });

  it('agent-deploy deploys', async () => {
    const dep = ctx.sim.addDeployment({ name: 'my-agent' });
    const { 'api-key': key, ...inputs } = baseInputs(ctx.sim, {
      name: 'my-agent',
      'repo-ref': 'main',
    });
    expect(key).toBe(API_KEY);
    const run = await agentDeploy(
      ['deploy', '--json', ...Object.entries(inputs).flatMap(([k, v]) => [`--${k}`, v])],
      { AGENT_DEPLOY_API_KEY: API_KEY },
    );
    expect(run.stderr).toContain(`Found deployment 'my-agent' (${dep.id})`);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'deployed', 'deployment-id': dep.id });
  });
});
