import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CHILD_HANG_GUARD_MS } from './hang-guard.ts';

/** The bundle under test; AGENT_DEPLOY_DIST points at another build (e.g. one in a temporary folder). */
export const DIST = resolve(
  process.env.AGENT_DEPLOY_DIST ?? resolve(import.meta.dirname, '../../dist/index.js'),
);

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  ms: number;
  /** `::error::` lines, unescaped. */
  errors: string[];
}

export interface RunOptions {
  inputs: Record<string, string>;
  env?: Record<string, string>;
  event?: unknown;
  /** Called once the child has started, e.g. to send it a signal later. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Kills the child after this long: for the bench and the load test, whose runs are long on purpose. */
  killAfterMs?: number;
  /** Files to write into the workspace (GITHUB_WORKSPACE, also the cwd) before the start: relative path → content. */
  files?: Record<string, string>;
}

/** The runner's variables of a push to main of acme/agent, its workspace `dir` and its event file. */
export function runnerVariables(dir: string, eventFile: string): Record<string, string> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_REPOSITORY: 'acme/agent',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_NAME: 'main',
    GITHUB_REF_TYPE: 'branch',
    GITHUB_SHA: 'a'.repeat(40),
    GITHUB_WORKSPACE: dir,
    GITHUB_RUN_ID: '42',
    GITHUB_SERVER_URL: 'https://github.example',
  };
}

/** Runs the bundled action as the runner does: INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files. */
export async function runAction(options: RunOptions): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-deploy-'));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  const eventFile = join(dir, 'event.json');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  writeFileSync(eventFile, JSON.stringify(options.event ?? {}));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    ...runnerVariables(dir, eventFile),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: dir,
    ...options.env,
  };
  for (const [name, value] of Object.entries(options.inputs))
    env[`INPUT_${name.toUpperCase()}`] = value;

  const started = Date.now();
  const child = spawn(process.execPath, [DIST], {
    env,
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  options.onSpawn?.(child);
  const killer = setTimeout(
    () => child.kill('SIGKILL'),
    options.killAfterMs ?? CHILD_HANG_GUARD_MS,
  );
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  clearTimeout(killer);
  const ms = Date.now() - started;
  const outputs = parseOutputs(readFileSync(outputFile, 'utf8'));
  const summary = readFileSync(summaryFile, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return {
    code,
    stdout,
    stderr,
    outputs,
    summary,
    ms,
    errors: stdout
      .split('\n')
      .filter((l) => l.startsWith('::error'))
      .map((l) =>
        l
          .replace(/^::error[^:]*::/, '')
          .replace(/%0A/g, '\n')
          .replace(/%25/g, '%'),
      ),
  };
}

/** The GITHUB_OUTPUT file format: `name<<DELIMITER\nvalue\nDELIMITER`. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

/** Everything a run shows a person: its log (without the mask commands), summary, outputs and error lines. */
export function visibleText(run: ActionRun): Record<string, string> {
  return {
    stdout: run.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n'),
    stderr: run.stderr,
    summary: run.summary,
    outputs: JSON.stringify(run.outputs),
    errors: run.errors.join('\n'),
  };
}
