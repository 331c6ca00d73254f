// Issue 11: running the action on a developer's machine. GitHub's local runner runs src/main.ts (not dist/) with the
// committed .env.example, pointed at a simulator, the way the README tells a user to.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHILD_HANG_GUARD_MS } from '../../helpers/hang-guard.ts';
import { INTEGRATION } from '../../helpers/setup.ts';
import { Simulator } from '../../simulator/server.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const LOCAL_ACTION = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js');

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  // With its default key, the one .env.example gives.
  sim = await Simulator.start();
  sim.addRepository(INTEGRATION, { owner: 'acme', name: 'agent' });
  dir = mkdtempSync(join(tmpdir(), 'agent-deploy-local-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The runner's variables of the machine running the tests (GitHub's CI sets many) would override the file's. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT|GITHUB|ACTIONS|RUNNER)_/.test(k)),
  );
}

/**
 * `npx @github/local-action run . src/main.ts <envFile>` from the repository root, through the package's bin script.
 * Its own group, so that a hang kills every process it started (it runs npm, tsx and node under it).
 */
async function localAction(envFile: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [LOCAL_ACTION, 'run', '.', 'src/main.ts', envFile], {
    cwd: ROOT,
    env: userEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(killGroup, CHILD_HANG_GUARD_MS);
  const code = await new Promise<number | null>((done) => child.on('close', done));
  clearTimeout(killer);
  killGroup();
  return { code, out };
}

it('.env.example deploys local-agent to the simulator through GitHub local-action', async () => {
  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const envFile = join(dir, '.env');
  const pointed = example.replace(/^INPUT_BASE-URL=.*$/m, `INPUT_BASE-URL=${sim.url}`);
  expect(pointed).not.toBe(example);
  writeFileSync(envFile, pointed);

  const { code, out } = await localAction(envFile);

  expect(code, out).toBe(0);
  const creates = sim.requestsTo('POST', '/v2/deployments');
  expect(creates, out).toHaveLength(1);
  expect(creates[0]!.body).toMatchObject({ name: 'local-agent', source: 'codehost' });
  // local-action exits 0 even after core.setFailed: the result is in its outputs table and the log.
  expect(out).not.toContain('::error');
  expect(out).toMatch(/'result'\s*│\s*'deployed'/);
  expect(out).toContain('Result: deployed');
});
