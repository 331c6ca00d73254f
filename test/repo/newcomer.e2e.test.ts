// A newcomer's first hour, as one path: a clone, the README's set-up (`npm ci && npm run demo`), the simulator, and
// the command line's first deploy with nothing but what the simulator printed, run as printed.
// - The clone is a copy of this checkout's files (git's tracked and untracked ones, as a clone of this tree would
//   hold, uncommitted work included) made a git checkout whose origin is the project on GitHub, as a clone from
//   there has: the command line reads the repository from it.
// - `npm ci` is not run: the copy's node_modules is a link to this checkout's (the same lockfile installed), so the
//   test needs no registry.
// - dist/ is this checkout's (npm test bundles it first; CI's dist check holds the committed one to the same).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const home = mkdtempSync(join(tmpdir(), 'agent-deploy-newcomer-'));
const clone = join(home, 'agent-deploy-action');
const ORIGIN = 'https://github.com/acme/agent-deploy-action.git';
// What a newcomer's shell has: this machine's PATH, and a home of its own.
const env = { PATH: process.env.PATH ?? '', HOME: home };

beforeAll(() => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file && !file.startsWith('dist/'));
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(root, file), join(clone, file));
  }
  cpSync(join(root, 'dist'), join(clone, 'dist'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, stdio: 'ignore' });
  git('init', '-q');
  git('remote', 'add', 'origin', ORIGIN);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs a shell command line in the clone, as typed: its exit code and output. */
async function sh(line: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', ['-c', line], { cwd: clone, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { code, stdout, stderr };
}

describe("a newcomer's first hour", () => {
  it('clone, the README set-up, the simulator, and a first deploy with only what it printed', async () => {
    // The README's set-up, but npm ci (see above): its first line's second command.
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const setUp = /^## Run it locally\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)![1]!;
    const [install, demo] = setUp
      .split('\n')[0]!
      .replace(/\s+#.*$/, '')
      .split(' && ');
    expect(install).toBe('npm ci');
    const demoRun = await sh(demo!);
    expect(demoRun.stdout).toContain('Result: deployed');
    expect(demoRun.code).toBe(0);

    // The simulator, as the README says to start it (on a free port, so tests can run side by side).
    const simulator = spawn('npm', ['run', 'simulator', '--', '--port', '0'], { cwd: clone, env });
    try {
      const banner: string[] = [];
      for await (const line of createInterface({ input: simulator.stdout })) {
        banner.push(line);
        if (line.startsWith('  AGENT_DEPLOY_API_KEY=')) break;
      }
      const printed = banner.join('\n');
      expect(printed).toContain(
        "(lists the repository acme/agent-deploy-action, this checkout's origin)",
      );
      const command = banner.at(-1)!.trim();
      expect(command).not.toContain('--repo-url');

      // The first deploy: the line the simulator printed, run as it is.
      const first = await sh(command);
      expect(first.stderr).toMatch(/\nResult: deployed \(revision [0-9a-f-]{36}\)\n$/);
      expect(first.code).toBe(0);
      expect(first.stderr).toContain("No deployment is named 'my-agent': creating it (codehost).");
    } finally {
      simulator.kill('SIGTERM');
    }
  });
});
